/**
 * An HTTP server on 127.0.0.1 (a free port) for a loopback fake of a remote API (test/summaries/fake-chat.ts,
 * test/translation/fake-google.ts). `hang(res)` keeps an answer from ever being sent (a hung server); `close()` ends
 * those and every open connection, so a test file never waits on a fake.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Loopback {
  url: string;
  hang(res: http.ServerResponse): void;
  close(): Promise<void>;
}

export async function listenOnLoopback(handler: http.RequestListener): Promise<Loopback> {
  const hung = new Set<http.ServerResponse>();
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hang: (res) => void hung.add(res),
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A link to a WAV file for link transcriptions: every request gets the whole file. */
export async function serveWavOnLoopback(file: string): Promise<Loopback> {
  const bytes = await fs.readFile(file);
  return listenOnLoopback(
    (_req, res) => void res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': bytes.length }).end(bytes),
  );
}

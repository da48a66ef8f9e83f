/**
 * A WebSocket upgrade the server is expected to refuse: `upgradeRefusal(url, headers)` resolves with the HTTP answer
 * (status, headers, the whole body) and rejects at once when the upgrade is accepted or the connection fails, so a
 * wrongly accepted socket fails the test instead of hanging it to its timeout.
 *
 *   expect((await upgradeRefusal(`${server.wsUrl}/v1/...`, { authorization: `Bearer ${key}` })).status).toBe(401);
 */
import type { IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';

export interface UpgradeRefusal {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function upgradeRefusal(url: string, headers: Record<string, string> = {}): Promise<UpgradeRefusal> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    socket.on('open', () => {
      socket.close();
      reject(new Error(`the upgrade to ${url} was accepted`));
    });
    socket.on('error', reject);
  });
}

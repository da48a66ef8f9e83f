/**
 * `app.close()` releases everything the app opened. After a realtime session (engine worker threads) and a created
 * transcription (the gateway's Bull queue and its Redis connections), closing the app leaves no socket, server or
 * thread port of it in this process (each test file runs in its own process), and it may be closed twice.
 */
import { describe, expect, it } from 'vitest';
import { streamFile } from '../helpers/realtime-client.js';
import { startTestServer } from '../helpers/server.js';
import { createStreamUrl, GO_FORWARD, sleep } from '../helpers/realtime.js';
import { json, upload } from '../helpers/http.js';

/**
 * What holds this process open, by kind, for the kinds the app opens: sockets (PostgreSQL, Redis, HTTP), the listener,
 * worker threads' ports.
 */
const KINDS = ['TCPSocketWrap', 'TCPServerWrap', 'MessagePort'] as const;
function openResources(): Record<(typeof KINDS)[number], number> {
  const active = process.getActiveResourcesInfo();
  return Object.fromEntries(KINDS.map((kind) => [kind, active.filter((k) => k === kind).length])) as Record<(typeof KINDS)[number], number>;
}

describe('app.close()', () => {
  it.each([
    ['a gateway (RUN_WORKERS=false)', { workers: [] }],
    ['a gateway running the background workers, closed while they transcribe', {}],
  ])('ends engine threads, the transcription queue\'s Redis connections and every other socket: %s', async (_what, options) => {
    const before = openResources();
    const server = await startTestServer({ ...options, env: { REALTIME_SECRET: 'close-suite-secret-0123456789abcdef' } });

    // Realtime: a session runs on an engine thread.
    const result = await streamFile(await createStreamUrl(server, { spokenLanguage: 'en' }), GO_FORWARD, { realtime: false });
    expect(result.done).toBeTruthy();
    // A transcription: the gateway hands it to its Bull queue (its own Redis connections).
    const created = await upload(server, { name: 'closing' });
    expect(created.status).toBe(201);
    const recordingId = (await json(created)).recordingId as string;
    const job = await json(await server.request(`/v1/recordings/${recordingId}/job`));
    expect(['queued', 'transcribing']).toContain(job.state);

    const during = openResources();
    expect(during.MessagePort).toBeGreaterThan(before.MessagePort); // the engine thread
    expect(during.TCPSocketWrap).toBeGreaterThan(before.TCPSocketWrap);

    await server.close();
    await server.app.close(); // closing twice is harmless
    // Sockets report their close on the next turns of the event loop.
    let after = openResources();
    for (let i = 0; i < 40 && JSON.stringify(after) !== JSON.stringify(before); i++) {
      await sleep(50);
      after = openResources();
    }
    expect(after).toEqual(before);
  });
});

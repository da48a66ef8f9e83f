/**
 * The realtime socket's frame limit is the one the realtime code declares (REALTIME_MAX_PAYLOAD: two chunks of
 * its largest accepted audio), applied on the real upgrade path: a bigger frame closes that socket with 1009
 * before it is buffered, and the server answers on.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { REALTIME_MAX_PAYLOAD } from '../../src/live/transports/realtime-socket.js';
import { createStreamUrl } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [], env: { REALTIME_SECRET: 'limits-suite-secret-0123456789abcdef' } });

describe('the realtime socket', () => {
  it('closes with 1009 on a frame over REALTIME_MAX_PAYLOAD, and the server lives on', async () => {
    const ws = new WebSocket(await createStreamUrl(server));
    ws.on('error', () => undefined);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(Buffer.alloc(REALTIME_MAX_PAYLOAD + 1));
    expect(await closed).toBe(1009);
    expect((await server.request('/v1/health')).status).toBe(200);
    await server.app.services.realtime.close();
  });
});

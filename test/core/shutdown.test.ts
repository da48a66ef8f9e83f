/**
 * Graceful shutdown of a gateway: sockets are told the server is going away (close code 1001, so clients reconnect
 * elsewhere and resume from their cursor) instead of being cut.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer } from '../helpers/server.js';

describe('graceful shutdown', () => {
  it('closes open sockets with 1001 (going away)', async () => {
    const server = await startTestServer({ workers: [] });
    let closed = false;
    try {
      const created = await server.postJson('/v1/transcriptions', { url: 'https://example.org/shutdown.mp3', name: 'shutdown' });
      expect(created.status).toBe(201);
      const { id } = await created.json() as { id: string };
      const socket = server.socket(`/v1/transcriptions/${id}/events`);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const closing = new Promise<{ code: number; reason: string }>((resolve) => socket.once(
        'close', (code, reason) => resolve({ code, reason: reason.toString() }),
      ));
      const shutdown = server.close();
      closed = true;
      expect(await closing).toEqual({ code: 1001, reason: 'server shutting down' });
      await shutdown;
    } finally {
      if (!closed) await server.close();
    }
  });
});

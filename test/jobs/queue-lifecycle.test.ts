/**
 * The queue with no workers (every job waits): archiving a transcription takes its job out of the line and
 * restoring puts it back in its place.
 */
import { describe, expect, it } from 'vitest';
import { goForward, json, uploadForm } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

describe('the queue and the lifecycle', () => {
  it('archived jobs leave the line (those behind move up) and return to their place when restored', async () => {
    const other = await server.createAccount('queue owner');
    const { key } = await server.createKey(['*'], { accountId: other });
    const made: Array<{ id: string; recordingId: string }> = [];
    for (let i = 0; i < 4; i++) {
      const res = await server.request('/v1/transcriptions', {
        method: 'POST', auth: key, body: uploadForm(goForward, { name: `line ${i}` }),
      });
      made.push(await json(res));
    }
    const positions = async () =>
      Promise.all(made.map(
        async (t) => (await json(await server.request(`/v1/recordings/${t.recordingId}/job`, { auth: key }))).queue?.position ?? null,
      ));
    // Nothing transcribes here (no workers): every job waits in creation order.
    expect(await positions()).toEqual([1, 2, 3, 4]);
    await server.request(`/v1/transcriptions/${made[1].id}/archive`, { method: 'POST', auth: key });
    expect((await positions()).filter((_, i) => i !== 1)).toEqual([1, 2, 3]);
    await server.request(`/v1/transcriptions/${made[1].id}/restore`, { method: 'POST', auth: key });
    expect(await positions()).toEqual([1, 2, 3, 4]);
  });
});

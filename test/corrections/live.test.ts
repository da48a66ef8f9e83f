/**
 * Corrections of a live recording: a committed line is corrected while the recording is paused, and finalization's
 * catch-up (the accurate model amending what the fast model committed) leaves the person's correction in place.
 */
import { expect, it } from 'vitest';
import { RealtimeConnection } from '../helpers/realtime-client.js';
import { expectStatus, json } from '../helpers/http.js';
import { fileChunks, GO_FORWARD, sleep } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ env: { REALTIME_SECRET: 'corrections-suite-secret-0123456789abcdef' } });

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 300)}`);
    await sleep(250);
  }
}

it('corrects a committed live line, and finalization keeps the correction', async () => {
  const live = await expectStatus(
    await server.postJson('/v1/transcriptions/live', { name: 'Live corrections', settings: { spokenLanguage: 'en' } }), 201,
  );
  const grant = await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}), 201);
  const recordingId: string = grant.recording.id;
  const publisher = new RealtimeConnection(grant.streamUrl);
  await publisher.ready();
  for (const chunk of await fileChunks(GO_FORWARD)) publisher.sendPcm(chunk);
  await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/pause`, {}), 200);
  const transcript = () => server.request(`/v1/recordings/${recordingId}/transcript`).then(json);
  const committed = await until('a committed line', transcript, (t) => t.segments.length > 0, 60_000);
  const seq: number = committed.segments[0].seq;

  const { corrections } = await expectStatus(
    await server.postJson(`/v1/recordings/${recordingId}/corrections`, { lines: [{ seqs: [seq], text: 'Walk onward twelve paces.' }] }),
    201,
  );
  expect(corrections[0]).toMatchObject({ kind: 'line', seq, to: 'Walk onward twelve paces.', voiced: false, notVoicedReason: 'rewrite' });
  expect((await transcript()).segments[0].text).toBe('Walk onward twelve paces.');

  publisher.close();
  await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/stop`, {}), 200);
  await until('finalized', () => server.request(`/v1/recordings/${recordingId}`).then(json), (r) => r.state === 'finalized', 180_000);
  const after = await transcript();
  expect(after.segments.find((s: { seq: number }) => s.seq === seq).text).toBe('Walk onward twelve paces.');
  // A correction may still arrive once the recording is finalized.
  await expectStatus(
    await server.postJson(`/v1/recordings/${recordingId}/corrections`, { edits: [{ seq, wordIdx: 0, to: 'Stride' }] }), 201,
  );
  expect((await transcript()).segments.find((s: { seq: number }) => s.seq === seq).text).toBe('Stride onward twelve paces.');
}, 300_000);

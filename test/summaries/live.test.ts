/**
 * A live recording's summary: `pending` while it records, written after finalize from the corrected transcript
 * (a person's line correction is what the built-in summariser reads).
 */
import { expect, it } from 'vitest';
import { RealtimeConnection } from '../helpers/realtime-client.js';
import { eventually } from '../helpers/fixtures.js';
import { expectStatus, json } from '../helpers/http.js';
import { fileChunks, GO_FORWARD } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ env: { REALTIME_SECRET: 'summaries-suite-secret-0123456789abcdef' } });

it('is pending while the recording is live and ready after finalize, from the corrected text', async () => {
  const created = await server.postJson('/v1/transcriptions/live', { name: 'Live summary', settings: { spokenLanguage: 'en' } });
  const { streamUrl, recording } = await expectStatus(
    await server.postJson(`/v1/transcriptions/${(await expectStatus(created, 201)).id}/recordings`, {}), 201,
  );
  const recordingId: string = recording.id;
  const summary = () => server.request(`/v1/recordings/${recordingId}/summary`).then(json);
  expect(await summary()).toMatchObject({ state: 'pending', title: null });

  const publisher = new RealtimeConnection(streamUrl);
  const chunks = await fileChunks(GO_FORWARD);
  await publisher.ready();
  chunks.forEach((chunk) => publisher.sendPcm(chunk));
  await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/pause`, {}), 200);
  const committed = await eventually(async () => {
    const transcript = await server.request(`/v1/recordings/${recordingId}/transcript`).then(json);
    expect(transcript.segments.length).toBeGreaterThan(0);
    return transcript;
  }, 60_000, 250);
  // summarize before finalize asks nothing: the summary is written after it.
  expect((await expectStatus(await server.request(`/v1/recordings/${recordingId}/summarize`, { method: 'POST' }), 200)).state).toBe(
    'pending',
  );
  const seqs: number[] = committed.segments.map((s: { seq: number }) => s.seq);
  await expectStatus(
    await server.postJson(`/v1/recordings/${recordingId}/corrections`, { lines: [{ seqs, text: 'Walk onward twelve paces toward the '
      + 'harbour.' }] }),
    201,
  );

  publisher.close();
  await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/stop`, {}), 200);
  const ready = await eventually(async () => {
    const body = await summary();
    expect(body.state).toBe('ready');
    return body;
  }, 180_000, 250);
  expect(ready).toMatchObject({ provider: 'builtin', language: 'en', summary: 'Walk onward twelve paces toward the harbour.' });
  expect(ready.title).toMatch(/Walk Onward Twelve Paces|Harbour/);
}, 300_000);

/**
 * Retranscribe (`POST /v1/recordings/{id}/retranscribe`, `retranscribeLine`): one line of a real file recording of
 * goforward.wav read again with the language forced, applied as revertible `line` corrections; 503
 * `engine_unavailable` with Retry-After while a live recording's capture has not reached the line's end (then, once
 * its audio arrives, the retry succeeds); and the refusals.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RealtimeConnection } from '../helpers/realtime-client.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { fileChunks, GO_FORWARD, sleep } from '../helpers/realtime.js';
import { commitKnown } from '../helpers/segments.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ env: { REALTIME_SECRET: 'retranscribe-suite-secret-0123456789abcdef' } });

interface Segment { seq: number; text: string }
let recordingId = '';
let original: Segment[] = [];

const transcript = async (id = recordingId): Promise<{ segments: Segment[] }> => json(
  await server.request(`/v1/recordings/${id}/transcript`),
);
const retranscribe = (body: unknown, init: { auth?: string | null; id?: string } = {}) => server.postJson(
  `/v1/recordings/${init.id ?? recordingId}/retranscribe`, body, { auth: init.auth },
);

beforeAll(async () => {
  const created = await json(await upload(server, { name: 'Retranscribe', settings: { spokenLanguage: 'en' } }));
  recordingId = created.recordingId;
  await waitForJob(server, recordingId, ['done']);
  original = (await transcript()).segments;
  expect(original.length).toBeGreaterThan(0);
}, 120_000);

describe('retranscribing a line', () => {
  it('reads the line again and applies it as a revertible line correction the snapshot reads (REST)', async () => {
    const seq = original[0]!.seq;
    const answer = await expectStatus(await retranscribe({ seqs: [seq], language: 'en' }), 201);
    expect(answer.language).toBe('en');
    expect(answer.text.length).toBeGreaterThan(0);
    expect(answer.corrections).toHaveLength(1);
    const [correction] = answer.corrections;
    expect(correction).toMatchObject({
      kind: 'line', seq, from: original[0]!.text, voiced: true, notVoicedReason: null, revertedAt: null, batchId: answer.batchId,
    });
    // The engine heard the same words the recognizer did (case and punctuation aside).
    const words = (text: string) => text.toLowerCase().replace(/[^a-z ]/g, '').split(/\s+/).filter(Boolean);
    expect(words(answer.text)).toEqual(words(original[0]!.text));
    expect((await transcript()).segments.find((s) => s.seq === seq)!.text).toBe(correction.to);
    const listed = await json(await server.request(`/v1/recordings/${recordingId}/corrections`));
    expect(listed.corrections[0].id).toBe(correction.id);

    const reverted = await expectStatus(await server.postJson(`/v1/corrections/${correction.id}/revert`, {}), 200);
    expect(reverted.revertedAt).toMatch(/./);
    expect((await transcript()).segments.find((s) => s.seq === seq)!.text).toBe(original[0]!.text);
  }, 60_000);

  it('reads a line over neighbouring segments in the recording\'s language by default (GraphQL)', async () => {
    const seqs = original.slice(0, Math.min(2, original.length)).map((s) => s.seq);
    const result = await json(await server.graphql(
      'mutation ($id: ID!, $input: RetranscribeInput!) { retranscribeLine(recordingId: $id, input: $input) { batchId text language '
        + 'corrections { id kind seq voiced to } } }',
      { id: recordingId, input: { seqs } },
    ));
    expect(result.errors).toBeUndefined();
    const answer = result.data.retranscribeLine;
    expect(answer.language).toBe('en');
    expect(answer.corrections.map((c: { seq: number; kind: string }) => [c.kind, c.seq])).toEqual(seqs.map((seq) => ['line', seq]));
    const after = (await transcript()).segments;
    expect(seqs.map((seq) => after.find((s) => s.seq === seq)!.text).join(' ').trim()).toBe(
      answer.corrections.map((c: { to: string }) => c.to).join(' ').trim(),
    );
    for (const correction of [...answer.corrections].reverse()) await expectStatus(
      await server.postJson(`/v1/corrections/${correction.id}/revert`, {}), 200,
    );
    expect((await transcript()).segments.map((s) => s.text)).toEqual(original.map((s) => s.text));

    const refused = await json(await server.graphql(
      'mutation ($id: ID!, $input: RetranscribeInput!) { retranscribeLine(recordingId: $id, input: $input) { batchId } }',
      { id: recordingId, input: { seqs: [original[0]!.seq], language: 'xx' } },
    ));
    expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_options' });
    expect(refused.errors[0].message).toContain('"xx"');
  }, 60_000);
});

describe('refusals', () => {
  it('refuses unsettled and non-neighbouring lines, bad languages and another account, applying nothing', async () => {
    const seq = original[0]!.seq;
    const unsettled = await expectStatus(await retranscribe({ seqs: [99_999], language: 'en' }), 409, 'invalid_state');
    expect(unsettled.data.details).toMatchObject({ field: 'seqs', seq: 99_999 });
    await expectInvalidOption(await retranscribe({ seqs: [seq, seq + 2], language: 'en' }), 'seqs');
    await expectInvalidOption(await retranscribe({ seqs: [], language: 'en' }), 'seqs');
    await expectInvalidOption(await retranscribe({ language: 'en' }), 'seqs');
    const unknown = await expectInvalidOption(await retranscribe({ seqs: [seq], language: 'xx' }), 'language');
    expect(unknown.message).toContain('"xx"');
    await expectInvalidOption(await retranscribe({ seqs: [seq], language: 'English' }), 'language');
    await expectInvalidOption(await retranscribe({ seqs: [seq], text: 'no' }), 'text');
    const stranger = await server.createKey(['*'], { accountId: await server.createAccount('Stranger') });
    await expectStatus(await retranscribe({ seqs: [seq], language: 'en' }, { auth: stranger.key }), 404, 'not_found');
    const reader = await server.createKey(['read']);
    await expectStatus(await retranscribe({ seqs: [seq], language: 'en' }, { auth: reader.key }), 403, 'forbidden');
    expect((await transcript()).segments.map((s) => s.text)).toEqual(original.map((s) => s.text));
  });

  it('answers 503 engine_unavailable with Retry-After while the line\'s audio has not reached the machine, and succeeds once it '
    + 'has', async () => {
    const live = await expectStatus(
      await server.postJson('/v1/transcriptions/live', { name: 'Live retranscribe', settings: { spokenLanguage: 'en' } }), 201,
    );
    const grant = await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}), 201);
    const liveId: string = grant.recording.id;
    // A line committed for 0.0–2.3 s while no audio has been captured here yet.
    const seq = await commitKnown(server, liveId, { text: 'words from elsewhere arrive later here', start: 0 });
    const early = await retranscribe({ seqs: [seq], language: 'en' }, { id: liveId });
    expect(early.status).toBe(503);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await early.json()).toMatchObject({
      code: 'engine_unavailable', data: { retryable: true, details: { reason: 'audio_not_here', haveS: 0 } },
    });
    expect((await transcript(liveId)).segments.find((s) => s.seq === seq)!.text).toBe('words from elsewhere arrive later here');

    // The audio arrives: the retry reads it.
    const publisher = new RealtimeConnection(grant.streamUrl);
    await publisher.ready();
    for (const chunk of await fileChunks(GO_FORWARD)) publisher.sendPcm(chunk);
    let answer: Response;
    const deadline = Date.now() + 60_000;
    while ((answer = await retranscribe(
      { seqs: [seq], language: 'en' }, { id: liveId },
    )).status === 503 && Date.now() < deadline) await sleep(500);
    const applied = await expectStatus(answer, 201);
    expect(applied.corrections[0]).toMatchObject({ kind: 'line', seq, from: 'words from elsewhere arrive later here', voiced: true });
    expect(applied.text.length).toBeGreaterThan(0);
    publisher.close();
  }, 120_000);
});

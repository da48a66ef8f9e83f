/**
 * Summaries through REST and GraphQL with the built-in extractive summariser, on a real file transcription of the
 * 60-second lecture: written after the job is `done`, asked for with `summarize`, read by the owner and through a
 * share link, refused to others.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/fixtures.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { LECTURE } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';

// Summaries follow corrections half a second after the last one (the default is 5 s).
const server = useTestServer({ env: { SUMMARY_REWRITE_DELAY_MS: '500' } });

let recordingId = '';
let shareCode = '';
let shareLinkId = '';

const getSummary = (query = '', auth?: string | null) => server.request(`/v1/recordings/${recordingId}/summary${query}`, { auth });
const summarize = (auth?: string | null) => server.request(`/v1/recordings/${recordingId}/summarize`, { method: 'POST', auth });
const ready = () => eventually(async () => {
  const body = await expectStatus(await getSummary(), 200);
  expect(body.state).toBe('ready');
  return body;
}, 30_000, 200);

beforeAll(async () => {
  const created = await json(await upload(server, { name: 'Lecture' }, await readFile(LECTURE)));
  recordingId = created.recordingId;
  shareCode = created.shareLink.code;
  shareLinkId = created.shareLink.id;
  await waitForJob(server, recordingId, ['done'], 180_000);
}, 200_000);

describe('the summary written after finalize', () => {
  it('is ready after the job is done: a title and sentences of the transcript, in order', async () => {
    const summary = await ready();
    expect(summary).toMatchObject({
      recordingId, state: 'ready', provider: 'builtin', language: 'en', lang: null, reason: null, error: null,
    });
    expect(summary.title.trim().length).toBeGreaterThan(0);
    expect(Date.parse(summary.writtenAt)).toBeGreaterThan(0);
    const transcript = await expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript`), 200);
    const sentences: string[] = transcript.sentences.map((s: { text: string }) => s.text.trim());
    expect(sentences.length).toBeGreaterThan(3);
    // Every sentence of the summary is a sentence of the transcript, and they come in the transcript's order.
    let from = 0;
    let picked = 0;
    let rest: string = summary.summary;
    while (rest.length) {
      const index = sentences.findIndex((sentence, i) => i >= from && rest.startsWith(sentence));
      expect(index, `"${rest}" does not start with a later transcript sentence`).toBeGreaterThanOrEqual(0);
      rest = rest.slice(sentences[index]!.length).trimStart();
      from = index + 1;
      picked++;
    }
    expect(picked).toBeGreaterThanOrEqual(1);
    expect(picked).toBeLessThan(sentences.length);
    // The title's words come from the transcript.
    const words = new Set(sentences.join(' ').toLowerCase().match(/[\p{L}\p{N}']+/gu));
    for (const word of summary.title.toLowerCase().match(/[\p{L}\p{N}']+/gu)) expect(words).toContain(word);
  });

  it('is read the same through GraphQL', async () => {
    const { data, errors } = await json(await server.graphql('query ($id: ID!) { recordingSummary(recordingId: $id) { state title summary '
      + 'provider } }', { id: recordingId }));
    expect(errors).toBeUndefined();
    const rest = await expectStatus(await getSummary(), 200);
    expect(data.recordingSummary).toEqual({ state: 'ready', title: rest.title, summary: rest.summary, provider: 'builtin' });
  });

  it('summarize on a recording that has one answers it and changes nothing (idempotent)', async () => {
    const before = await ready();
    const again = await expectStatus(await summarize(), 200);
    expect(again).toEqual(before);
    expect(await expectStatus(await getSummary(), 200)).toEqual(before);
  });
});

describe('asking for a summary', () => {
  it('summarize writes one for a finished recording that has none, through REST and GraphQL', async () => {
    const before = await ready();
    await server.prisma.recording.update({
      where: { id: recordingId }, data: { summaryState: null, summaryTitle: null, summaryText: null, summaryAt: null },
    });
    expect(await expectStatus(await getSummary(), 200)).toMatchObject({
      state: 'unavailable', reason: 'missing', retryable: true, title: null,
    });
    // GET queues nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await expectStatus(await getSummary(), 200)).state).toBe('unavailable');

    const asked = await expectStatus(await summarize(), 200);
    expect(['pending', 'ready']).toContain(asked.state);
    const after = await ready();
    expect({ title: after.title, summary: after.summary }).toEqual({ title: before.title, summary: before.summary });

    await server.prisma.recording.update({ where: { id: recordingId }, data: { summaryState: 'failed', summaryError: 'earlier failure' } });
    expect(await expectStatus(await getSummary(), 200)).toMatchObject({
      state: 'unavailable', reason: 'failed', retryable: true, error: 'earlier failure',
    });
    const { data, errors } = await json(await server.graphql(
      'mutation ($id: ID!) { summarizeRecording(recordingId: $id) { state } }', { id: recordingId },
    ));
    expect(errors).toBeUndefined();
    expect(['pending', 'ready']).toContain(data.summarizeRecording.state);
    expect((await ready()).error).toBeNull();
  });

  it('a recording still being transcribed reads pending; summarize queues nothing for it', async () => {
    const created = await json(await upload(server, { name: 'Short' }));
    const early = await expectStatus(await server.request(`/v1/recordings/${created.recordingId}/summary`), 200);
    expect(early.state).toBe('pending');
    expect(
      (await expectStatus(await server.request(`/v1/recordings/${created.recordingId}/summarize`, { method: 'POST' }), 200)).state,
    ).toBe('pending');
    await waitForJob(server, created.recordingId, ['done']);
    await eventually(
      async () => expect((await json(await server.request(`/v1/recordings/${created.recordingId}/summary`))).state).toBe('ready'), 30_000,
    );
  });
});

describe('who may read and ask', () => {
  it('a share-link reader can read the summary but not ask for one', async () => {
    const summary = await ready();
    expect(await expectStatus(await getSummary(`?shareCode=${shareCode}`, null), 200)).toEqual(summary);
    await expectStatus(
      await server.request(`/v1/recordings/${recordingId}/summarize?shareCode=${shareCode}`, { method: 'POST', auth: null }), 401,
    );
    const readOnly = await server.createKey(['read']);
    await expectStatus(await summarize(readOnly.key), 403, 'forbidden');
  });

  it('another account gets 404 for both', async () => {
    const other = await server.createKey(['*'], { accountId: await server.createAccount() });
    await expectStatus(await getSummary('', other.key), 404, 'not_found');
    await expectStatus(await summarize(other.key), 404, 'not_found');
    const { errors } = await json(await server.graphql(
      'mutation ($id: ID!) { summarizeRecording(recordingId: $id) { state } }', { id: recordingId }, { auth: other.key },
    ));
    expect(errors[0].extensions.code).toBe('not_found');
  });

  it('another language than the spoken one is refused as the transcript refuses it', async () => {
    expect((await expectStatus(await getSummary('?lang=en'), 200)).state).toBe('ready');
    await expectInvalidOption(await getSummary('?lang=fr'), 'lang');
    // The link allows translation: no translations exist, so 400 as for the owner.
    await expectInvalidOption(await getSummary(`?lang=fr&shareCode=${shareCode}`, null), 'lang');
    await expectStatus(await server.postJson(`/v1/share-links/${shareLinkId}`, { allowTranslate: false }, { method: 'PATCH' }), 200);
    const refused = await expectStatus(await getSummary(`?lang=fr&shareCode=${shareCode}`, null), 403, 'forbidden');
    expect(refused.data.details).toMatchObject({ field: 'lang', permission: 'allowTranslate' });
    expect((await expectStatus(await getSummary(`?lang=en&shareCode=${shareCode}`, null), 200)).state).toBe('ready');
  });
});

describe('after a correction', () => {
  it('is written again from the corrected text', async () => {
    const before = await ready();
    const transcript = await expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript`), 200);
    const seqs: number[] = transcript.segments.map((s: { seq: number }) => s.seq);
    const sentences = [
      'The harbour of Zanzibar opens at dawn every morning.',
      'Fishing boats leave the harbour before the sun is high.',
      'Traders sell cloves and cinnamon along the harbour wall.',
      'Tourists come to see the old stone town near the harbour.',
      'In the evening the boats return with their catch.',
      'Everyone meets at the harbour market before dark.',
    ];
    await expectStatus(
      await server.postJson(`/v1/recordings/${recordingId}/corrections`, { lines: [{ seqs, text: sentences.join(' ') }] }), 201,
    );
    expect((await expectStatus(await getSummary(), 200)).state).toBe('pending');
    const after = await ready();
    expect(Date.parse(after.writtenAt)).toBeGreaterThan(Date.parse(before.writtenAt));
    // Every sentence of the new summary is a sentence of the corrected text; the title's words come from it too.
    let rest: string = after.summary;
    while (rest.length) {
      const sentence = sentences.find((s) => rest.startsWith(s));
      expect(sentence, `"${rest}" does not start with a corrected sentence`).toBeDefined();
      rest = rest.slice(sentence!.length).trimStart();
    }
    const words = new Set(sentences.join(' ').toLowerCase().match(/[\p{L}\p{N}']+/gu));
    for (const word of after.title.toLowerCase().match(/[\p{L}\p{N}']+/gu)) expect(words).toContain(word);
  });
});

/**
 * Summaries follow corrections, through REST: a real file transcription of goforward.wav summarised by the
 * OpenAI-compatible client against the fake chat API (which records every request, so what each rewrite was made
 * from and how many rewrites there were is seen). A correction makes the summary `pending` at once, a burst of
 * corrections is one rewrite from the last text, a revert is another, naming a speaker is none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/fixtures.js';
import { expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { FAKE_ANSWER, startFakeChat, type FakeChat } from './fake-chat.js';

const fake: FakeChat = await startFakeChat();
afterAll(() => fake.close());

// Long enough that three corrections in a row land inside it on a loaded machine (each reads its line's audio afresh).
const DELAY_MS = 8_000;
const server = useTestServer({
  env: { SUMMARY_PROVIDER: 'openai', SUMMARY_API_URL: fake.url, SUMMARY_MODEL: 'test-model', SUMMARY_REWRITE_DELAY_MS: String(DELAY_MS) },
});

let recordingId = '';
let seqs: number[] = [];

const summary = async () => expectStatus(await server.request(`/v1/recordings/${recordingId}/summary`), 200);
const ready = () => eventually(async () => {
  const body = await summary();
  expect(body.state).toBe('ready');
  return body;
}, 30_000, 100);
const correct = async (body: unknown) => expectStatus(await server.postJson(`/v1/recordings/${recordingId}/corrections`, body), 201);
/** The transcript the chat API was sent in request `index`. */
const sent = (index: number): string => fake.requests[index]!.body.messages[1].content;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  recordingId = (await json(await upload(server, { name: 'Go forward' }))).recordingId;
  await waitForJob(server, recordingId, ['done']);
  const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
  seqs = transcript.segments.map((s: { seq: number }) => s.seq);
  expect(seqs.length).toBeGreaterThan(0);
}, 120_000);

describe('a summary after corrections', () => {
  it('reads pending from the correction on, and is rewritten once per burst from the corrected text', async () => {
    const first = await ready();
    expect(first).toMatchObject({ state: 'ready', ...FAKE_ANSWER });
    expect(fake.requests).toHaveLength(1);
    expect(sent(0)).not.toMatch(/Zanzibar/);

    // A burst: three batches well inside the delay. The old summary is not served meanwhile.
    await correct({ lines: [{ seqs, text: 'Go forward to Zanzibar.' }] });
    expect(await summary()).toMatchObject({ state: 'pending', title: null, summary: null });
    await correct({ lines: [{ seqs, text: 'Go forward to Zanzibar harbour.' }] });
    const last = await correct({ edits: [{ seq: seqs[0]!, wordIdx: 0, to: 'Sail' }] });
    expect((await summary()).state).toBe('pending');

    const rewritten = await ready();
    expect(Date.parse(rewritten.writtenAt)).toBeGreaterThan(Date.parse(first.writtenAt));
    // One rewrite for the three, made from the text as the last batch left it.
    await sleep(DELAY_MS + 500);
    expect(fake.requests).toHaveLength(2);
    const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    const corrected = transcript.sentences.map((s: { text: string }) => s.text).join(' ');
    expect(corrected).toMatch(/^Sail forward to Zanzibar harbour\.?$/);
    expect(sent(1)).toContain(corrected);

    // A revert changes the text again: another rewrite, from the text it leaves.
    await expectStatus(await server.request(`/v1/corrections/${last.corrections[0].id}/revert`, { method: 'POST' }), 200);
    expect((await summary()).state).toBe('pending');
    await ready();
    expect(fake.requests).toHaveLength(3);
    expect(sent(2)).toMatch(/Go forward to Zanzibar harbour/);
    expect(sent(2)).not.toMatch(/Sail/);
  }, 60_000);

  it('is not rewritten when a speaker is named (the summary is made from the sentences\' text)', async () => {
    const before = await ready();
    const requests = fake.requests.length;
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/speakers/0`, { name: 'Ada' }, { method: 'PUT' }), 200);
    expect(await summary()).toEqual(before);
    await sleep(DELAY_MS + 500);
    expect(fake.requests).toHaveLength(requests);
    expect(await summary()).toEqual(before);
  }, 30_000);

  it('a rewrite that fails reads unavailable (failed, retryable), and summarize asks again', async () => {
    fake.mode = 'server_error';
    try {
      await correct({ lines: [{ seqs, text: 'Go back to the harbour.' }] });
      const failed = await eventually(async () => {
        const body = await summary();
        expect(body.state).toBe('unavailable');
        return body;
      }, 30_000, 100);
      expect(failed).toMatchObject({ reason: 'failed', retryable: true });
    } finally {
      fake.mode = 'ok';
    }
    const asked = await expectStatus(await server.request(`/v1/recordings/${recordingId}/summarize`, { method: 'POST' }), 200);
    expect(['pending', 'ready']).toContain(asked.state);
    await ready();
    expect(sent(fake.requests.length - 1)).toMatch(/Go back to the harbour/);
  }, 60_000);
});

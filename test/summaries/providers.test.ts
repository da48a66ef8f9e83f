/**
 * The summariser chosen by configuration: the OpenAI-compatible client against a faithful fake of that API on
 * loopback (request shape, error statuses, a timeout, a malformed answer: each stored as `failed`, read as
 * `unavailable` with `reason: failed`, and retried by `summarize`), and SUMMARY_PROVIDER=off (`unavailable`, `off`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/fixtures.js';
import { expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';
import { FAKE_ANSWER, startFakeChat, type FakeChat, type FakeMode } from './fake-chat.js';

const fake: FakeChat = await startFakeChat();
afterAll(() => fake.close());

const server = useTestServer({ env: {
  SUMMARY_PROVIDER: 'openai', SUMMARY_API_URL: fake.url, SUMMARY_API_KEY: 'sk-test-123', SUMMARY_MODEL: 'test-model',
  SUMMARY_TIMEOUT_MS: '1500',
} });

const summaryOf = async (target: TestServer, recordingId: string) => expectStatus(
  await target.request(`/v1/recordings/${recordingId}/summary`), 200,
);
const settled = (recordingId: string) => eventually(async () => {
  const summary = await summaryOf(server, recordingId);
  expect(summary.state).not.toBe('pending');
  return summary;
}, 20_000, 100);

describe('the OpenAI-compatible summariser', () => {
  let recordingId = '';

  beforeAll(async () => {
    fake.mode = 'hold';
    recordingId = (await json(await upload(server, { name: 'Go forward' }))).recordingId;
    await waitForJob(server, recordingId, ['done']);
  }, 120_000);

  it('is pending while the API answers, then ready with its title and summary; the request is the chat-completions shape', async () => {
    await eventually(() => expect(fake.requests.length).toBe(1), 10_000);
    expect((await summaryOf(server, recordingId)).state).toBe('pending');
    // Polling the recording works too: no title or summary on it until the summary is ready.
    expect(await (await server.request(`/v1/recordings/${recordingId}`)).json()).toMatchObject({ title: null, summary: null });
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request!.headers.authorization).toBe('Bearer sk-test-123');
    expect(request!.headers['content-type']).toMatch(/application\/json/);
    expect(request!.body.model).toBe('test-model');
    expect(request!.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(request!.body.messages[0].content).toMatch(/JSON/);
    expect(request!.body.messages[1].content).toMatch(/go forward/i);
    expect(request!.body.messages[1].content).toMatch(/Language: en/);

    fake.release();
    const summary = await settled(recordingId);
    expect(summary).toMatchObject({ state: 'ready', ...FAKE_ANSWER, provider: 'openai:test-model', language: 'en' });
    expect(await (await server.request(`/v1/recordings/${recordingId}`)).json()).toMatchObject(FAKE_ANSWER);
  });

  const failures: Array<[FakeMode, RegExp]> = [
    ['unauthorized', /401: Incorrect API key provided/],
    ['rate_limited', /429: Rate limit reached/],
    ['server_error', /500: The server had an error/],
    ['hang', /did not answer within 1500 ms/],
    ['malformed', /not JSON/],
    ['not_json', /body that is not JSON/],
  ];

  it.each(failures)('%s: the summary ends unavailable (failed, retryable) and summarize retries it', async (mode, message) => {
    await server.prisma.recording.update({ where: { id: recordingId }, data: { summaryState: 'failed' } });
    fake.mode = mode;
    const before = fake.requests.length;
    expect((await expectStatus(await server.request(`/v1/recordings/${recordingId}/summarize`, { method: 'POST' }), 200)).state).toBe(
      'pending',
    );
    const failed = await settled(recordingId);
    expect(fake.requests.length).toBe(before + 1);
    expect(failed).toMatchObject({ state: 'unavailable', reason: 'failed', retryable: true, title: null, summary: null });
    expect(failed.error).toMatch(message);

    fake.mode = 'ok';
    await expectStatus(await server.request(`/v1/recordings/${recordingId}/summarize`, { method: 'POST' }), 200);
    expect(await settled(recordingId)).toMatchObject({ state: 'ready', ...FAKE_ANSWER, error: null });
  });
});

describe('SUMMARY_PROVIDER=off', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer({ env: { SUMMARY_PROVIDER: 'off' } });
  });
  afterAll(() => off.close());

  it('answers unavailable (off) before and after the job, and summarize asks nothing', async () => {
    const recordingId = (await json(await upload(off, { name: 'No summaries' }))).recordingId;
    expect(await summaryOf(off, recordingId)).toMatchObject({ state: 'unavailable', reason: 'off', retryable: false });
    await waitForJob(off, recordingId, ['done']);
    expect(await summaryOf(off, recordingId)).toMatchObject({ state: 'unavailable', reason: 'off', title: null });
    expect(await expectStatus(await off.request(`/v1/recordings/${recordingId}/summarize`, { method: 'POST' }), 200)).toMatchObject(
      { state: 'unavailable', reason: 'off' },
    );
    const { data } = await json(await off.graphql(
      'query ($id: ID!) { recordingSummary(recordingId: $id) { state reason } }', { id: recordingId },
    ));
    expect(data.recordingSummary).toEqual({ state: 'unavailable', reason: 'off' });
  }, 120_000);
});

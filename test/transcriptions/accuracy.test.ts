/**
 * Accuracy by default: a file job runs on the accurate model (whisper-base unless configured) with beam search
 * 5, as its `done` event says, and its segments say `decoder: "accuracy"`. This file runs the real default
 * (the other transcription suites pin whisper-tiny to stay short; see test/helpers/server.ts). A server missing
 * the accurate model is not ready: 503 `unavailable`, as for a missing model before the split.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wordErrorRate } from '../../workers/engine/tools/wer.js';
import { fixture } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { json, uploadForm, waitForJob } from '../helpers/http.js';

let server: TestServer;
beforeAll(async () => {
  // MODEL_ACCURATE left unset: the server's own default.
  server = await startTestServer({ env: { MODEL_ACCURATE: undefined } });
});
afterAll(async () => {
  await server?.close();
});

describe('file jobs decode accurately by default', () => {
  it('transcribe with whisper-base and beam search 5, say so in the done event, and mark segments decoder "accuracy"', async () => {
    const clip = await readFile(fixture('librivox/sense_and_sensibility_01_austen_64kb-0880.wav'));
    const created = await json(await server.request('/v1/transcriptions', {
      method: 'POST',
      body: uploadForm(clip, { name: 'Sense and Sensibility', settings: { spokenLanguage: 'en' } }, 'austen.wav'),
    }));
    const job = await waitForJob(server, created.recordingId, ['done', 'failed'], 180_000);
    expect(job).toMatchObject({ state: 'done', error: null });

    const log = await json(await server.request(`/v1/recordings/${created.recordingId}/events?limit=500`));
    const done = log.events.filter(
      (event: { type: string; frame: { state: string } }) => event.type === 'job.state' && event.frame.state === 'done',
    );
    expect(done).toHaveLength(1);
    expect(done[0].frame).toMatchObject({ model: 'whisper-base', beamSize: 5 });

    const transcript = await json(await server.request(`/v1/recordings/${created.recordingId}/transcript`));
    expect(transcript.segments.length).toBeGreaterThan(0);
    for (const segment of transcript.segments) expect(segment).toMatchObject({ decoder: 'accuracy' });
    const text = transcript.segments.map((segment: { text: string }) => segment.text).join(' ');
    // "he was not an ill disposed young man": whisper-base with beam 5 gets it all (a bound, not the exact words).
    expect(wordErrorRate([{ reference: 'he was not an ill disposed young man', hypothesis: text }]).errors, text).toBeLessThanOrEqual(1);
  });
});

describe('a server without its accurate model', () => {
  it('answers capabilities, languages and session creation with 503 unavailable and Retry-After', async () => {
    const bare = await startTestServer({
      workers: [], env: { MODEL_ACCURATE: 'whisper-not-installed', REALTIME_SECRET: 'accuracy-suite-secret-0123456789abcdef' },
    });
    try {
      for (const [pathname, init] of [
        ['/v1/realtime/capabilities', undefined],
        ['/v1/languages', undefined],
        ['/v1/realtime/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }],
      ] as const) {
        const response = await bare.request(pathname, init);
        expect(response.status, pathname).toBe(503);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await response.json()).toMatchObject({ code: 'unavailable', data: { retryable: true } });
      }
    } finally {
      await bare.close();
    }
  });
});

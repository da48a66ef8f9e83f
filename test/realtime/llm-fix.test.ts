/**
 * `llmFix` (AI-assisted auto-fix) against a loopback fake of an OpenAI-compatible chat API: a line fixed within the
 * hold is committed fixed with `transcript.latency`; a fix that comes late amends the line in place
 * (`transcript.amended`, stored and durable on a live recording); a rewrite is refused and a failing API leaves the
 * line as heard; the fixed words keep the heard times. Without a model, `llmFix: true` is refused (sessions.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.js';
import { streamFile, type ServerFrame } from '../helpers/realtime-client.js';
import { acceptedFix, retimedWords } from '../../src/live/llm-fix.js';
import { json } from '../helpers/http.js';
import { undeclaredFrames } from '../helpers/openapi.js';
import { patchRecordingSettings, publishThenPause, startLiveRecording } from '../helpers/live.js';
import { createStreamUrl, GO_FORWARD, LECTURE, sleep } from '../helpers/realtime.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeChat, type FakeChat } from '../summaries/fake-chat.js';

type Segment = { seq: number; text: string; words: Array<{ start: number; end: number; text: string }>; latencyS: number };
type Latency = { type: 'transcript.latency'; seq: number; latencyS: number; heldS: number; fix: string; problem?: string };
type Amended = { type: 'transcript.amended'; seq: number; reason: string; segment: Segment; previousText: string };

const HOLD_MS = 5000;
let server: TestServer;
let chat: FakeChat;

/** The fake model's fix: "meters" is spelled "metres"; whatever else it was asked stays as it was. */
const metres = (body: { messages: Array<{ content: string }> }) => JSON.stringify({
  text: (JSON.parse(body.messages[1]!.content) as { line: string }).line.replace(/meters/gi, 'metres'),
});

beforeAll(async () => {
  chat = await startFakeChat();
  server = await startTestServer({
    env: {
      REALTIME_SECRET: 'llm-fix-suite-secret-0123456789abcdef', LLM_FIX_API_URL: chat.url, LLM_FIX_API_KEY: 'sk-fix',
      LLM_FIX_MODEL: 'fixer-1', LLM_FIX_HOLD_MS: String(HOLD_MS),
    },
  });
}, 120_000);

afterAll(async () => {
  chat?.release();
  await server?.app.services.realtime.close();
  await server?.close();
  await chat?.close();
});

beforeEach(() => {
  chat.mode = 'ok';
  chat.answer = metres;
  chat.requests.length = 0;
});

const framesOf = (result: { frames: Array<{ frame: ServerFrame }> }) => result.frames.map(({ frame }) => frame);
const ofType = <T>(frames: ServerFrame[], type: string) => frames.filter((f) => f.type === type) as unknown as T[];

describe('llmFix on a realtime session', () => {
  it('commits a line fixed in time, its words keeping the heard times, and says how long its final text took', async () => {
    const result = await streamFile(
      await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast', llmFix: true }), GO_FORWARD, { realtime: false },
    );
    const frames = framesOf(result);
    expect(result.done).toMatchObject({ type: 'session.done', reason: 'eof' });
    const lines = result.commits.filter((c) => c.text.trim() !== '');
    expect(lines.map((c) => c.text).join(' ')).toMatch(/metres/);
    expect(lines.map((c) => c.text).join(' ')).not.toMatch(/meters/);
    const latencies = ofType<Latency>(frames, 'transcript.latency');
    expect(latencies.map((l) => l.seq)).toEqual(lines.map((c) => c.seq));
    for (const latency of latencies) {
      expect(latency.heldS).toBeLessThan(HOLD_MS / 1000);
      expect(latency.latencyS).toBeGreaterThanOrEqual(latency.heldS);
    }
    expect(latencies.some((l) => l.fix === 'changed')).toBe(true);
    expect(ofType(frames, 'transcript.amended')).toEqual([]);
    // The fixed word took the heard word's time.
    const fixed = lines.flatMap((c) => c.words as Segment['words']).find((w) => /metres/.test(w.text));
    expect(fixed && fixed.end > fixed.start).toBe(true);
    // One request per line, to the named model with the key, the line and the lines before it as context.
    expect(chat.requests).toHaveLength(lines.length);
    expect(chat.requests[0]!.headers.authorization).toBe('Bearer sk-fix');
    expect(chat.requests[0]!.body.model).toBe('fixer-1');
    expect(JSON.parse(chat.requests[0]!.body.messages[1].content)).toMatchObject({ language: 'en', previousLines: [] });
    expect(await undeclaredFrames(server.url, 'realtimeSocket', frames)).toEqual([]);
  }, 120_000);

  it('sends a line as heard when its fix is late, then amends it in place; session.done waits for it', async () => {
    chat.mode = 'hold';
    let released = false;
    const result = await streamFile(await createStreamUrl(
      server, { spokenLanguage: 'en', latencyMode: 'fast', llmFix: true },
    ), GO_FORWARD, {
      realtime: false,
      // The model answers only once a line went out without its fix.
      onFrame: (frame) => {
        if (frame.type !== 'transcript.committed' || released) return;
        released = true;
        chat.mode = 'ok';
        setTimeout(() => chat.release(), 200);
      },
    });
    const frames = framesOf(result);
    const amended = ofType<Amended>(frames, 'transcript.amended');
    expect(amended.length).toBeGreaterThan(0);
    const first = amended[0]!;
    const committedAt = frames.findIndex(
      (f) => f.type === 'transcript.committed' && (f as unknown as { segment: Segment }).segment.seq === first.seq,
    );
    expect(committedAt).toBeGreaterThanOrEqual(0);
    const heard = (frames[committedAt] as unknown as { segment: Segment }).segment;
    expect(heard.text).toMatch(/meters/);
    expect(first).toMatchObject({ reason: 'llm_fix', previousText: heard.text, segment: { seq: heard.seq } });
    expect(first.segment.text).toBe(heard.text.replace(/meters/gi, 'metres'));
    expect(first.segment.words.map((w) => [w.start, w.end])).toEqual(heard.words.map((w) => [w.start, w.end]));
    const latency = ofType<Latency>(frames, 'transcript.latency').find((l) => l.seq === first.seq)!;
    expect(latency).toMatchObject({ fix: 'changed', heldS: HOLD_MS / 1000 });
    expect(frames.indexOf(first as unknown as ServerFrame)).toBeLessThan(frames.indexOf(latency as unknown as ServerFrame));
    expect(frames.indexOf(latency as unknown as ServerFrame)).toBeLessThan(frames.findIndex((f) => f.type === 'session.done'));
    expect(await undeclaredFrames(server.url, 'realtimeSocket', frames)).toEqual([]);
  }, 120_000);

  it('keeps the heard line when the model rewrites it or the API fails, and goes on', async () => {
    chat.answer = () => JSON.stringify({ text: 'The weather in Paris is lovely this time of year, they said.' });
    const rewritten = await streamFile(
      await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast', llmFix: true }), GO_FORWARD, { realtime: false },
    );
    expect(rewritten.commits.map((c) => c.text).join(' ')).toMatch(/meters/);
    expect(ofType<Latency>(framesOf(rewritten), 'transcript.latency').map((l) => l.fix)).toContain('rejected');

    chat.mode = 'server_error';
    const failed = await streamFile(
      await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast', llmFix: true }), GO_FORWARD, { realtime: false },
    );
    expect(failed.done).toMatchObject({ type: 'session.done', reason: 'eof' });
    expect(failed.commits.map((c) => c.text).join(' ')).toMatch(/meters/);
    const latencies = ofType<Latency>(framesOf(failed), 'transcript.latency');
    expect(latencies.length).toBeGreaterThan(0);
    for (const latency of latencies) expect(latency).toMatchObject({ fix: 'failed', problem: expect.stringContaining('500') });
  }, 120_000);

  it('is turned on and off by session.update: lines after the answer are fixed, then no longer asked for', async () => {
    let step = 0;
    const result = await streamFile(await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast' }), LECTURE, {
      durationS: 24,
      speed: 4,
      afterChunk: (connection, sentS) => {
        if (sentS >= 6 && step === 0) {
          step = 1;
          connection.update({ llmFix: true });
        } else if (sentS >= 16 && step === 1) {
          step = 2;
          connection.update({ llmFix: false });
        }
      },
    });
    const frames = framesOf(result);
    const [on, off] = frames.filter((f) => f.type === 'session.updated').map((f) => frames.indexOf(f));
    const latencies = ofType<Latency>(frames, 'transcript.latency');
    const seqsBetween = (from: number, to: number) => frames.slice(from, to).filter((f) => f.type === 'transcript.committed').map(
      (f) => (f as unknown as { segment: Segment }).segment.seq,
    );
    expect(latencies.length).toBeGreaterThan(0);
    for (const seq of seqsBetween(0, on!)) expect(latencies.find((l) => l.seq === seq)).toBeUndefined();
    // Lines of an update that arrived after the fixes were turned off are not asked for.
    const afterOff = seqsBetween(off! + 1, frames.length);
    expect(latencies.filter((l) => afterOff.includes(l.seq) && frames.indexOf(l as unknown as ServerFrame) > off! + 2)).toEqual([]);
    expect(chat.requests.length).toBe(latencies.length);
    // Each request carries the lines committed before it (up to three) as context.
    const contexts = chat.requests.map((r) => JSON.parse(r.body.messages[1].content).previousLines as string[]);
    expect(contexts.some((c) => c.length > 0)).toBe(true);
    expect(contexts.every((c) => c.length <= 3)).toBe(true);
  }, 180_000);
});

describe('llmFix on a live recording', () => {
  it('stores a late fix with a durable transcript.amended event; the transcript reads fixed', async () => {
    chat.mode = 'hold';
    const { recordingId, streamUrl } = await startLiveRecording(server, { name: 'Fixed live', settings: { spokenLanguage: 'en' } });
    // The recording's capture settings carry it, as they do `translate`.
    await patchRecordingSettings(server, recordingId, { llmFix: true });
    const publisher = await publishThenPause(server, recordingId, streamUrl, GO_FORWARD);
    const deadline = Date.now() + 60_000;
    let snapshot: { segments: Segment[] } = { segments: [] };
    // The line is stored as heard while the model holds its answer, then amended once it answers.
    while (!(snapshot.segments.some((s) => /meters/.test(s.text)) && chat.requests.length > 0)) {
      if (Date.now() > deadline) throw new Error(`never stored as heard: ${JSON.stringify(snapshot.segments)}`);
      await sleep(200);
      snapshot = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    }
    chat.mode = 'ok';
    chat.release();
    while (!snapshot.segments.some((s) => /metres/.test(s.text))) {
      if (Date.now() > deadline) throw new Error(`fix never stored: ${JSON.stringify(snapshot.segments)}`);
      await sleep(200);
      snapshot = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    }
    const events = (await json(await server.request(`/v1/recordings/${recordingId}/events`))).events as Array<{
      type: string; frame: Amended;
    }>;
    const amended = events.filter((e) => e.type === 'transcript.amended').map((e) => e.frame);
    expect(amended.length).toBeGreaterThan(0);
    expect(amended[0]).toMatchObject({
      reason: 'llm_fix', segment: { text: expect.stringMatching(/metres/) }, previousText: expect.stringMatching(/meters/),
    });
    publisher.close();
  }, 120_000);
});

describe('settings', () => {
  it('are off without LLM_FIX_API_URL, and refuse a URL that is not http(s) or a hold that is not a number', () => {
    expect(loadConfig({}).realtime.llmFix).toBeNull();
    expect(loadConfig({ LLM_FIX_API_URL: 'http://127.0.0.1:8000/v1/' }).realtime.llmFix).toMatchObject({
      apiUrl: 'http://127.0.0.1:8000/v1', model: 'gpt-4o-mini', holdMs: 1500, timeoutMs: 10000,
    });
    expect(() => loadConfig({ LLM_FIX_API_URL: 'file:///etc/passwd' })).toThrow(/LLM_FIX_API_URL/);
    expect(() => loadConfig({ LLM_FIX_API_URL: 'http://127.0.0.1:8000', LLM_FIX_HOLD_MS: 'soon' })).toThrow(/LLM_FIX_HOLD_MS/);
  });
});

describe('what counts as a fix', () => {
  it('takes casing, punctuation and a few words; refuses a rewrite and an empty answer', () => {
    const heard = 'so we go forward ten meters and then we stop';
    expect(acceptedFix(heard, 'So we go forward 10 metres, and then we stop.')).toBe('So we go forward 10 metres, and then we stop.');
    expect(acceptedFix(heard, '  so   we go forward ten meters and then we stop ')).toBe(heard);
    expect(acceptedFix(heard, 'The weather in Paris is lovely this time of year.')).toBeNull();
    expect(acceptedFix(heard, '')).toBeNull();
    // A third of the words (at least 2) may change: 10 words allow 4 (a replacement counts once), 5 do not pass.
    expect(acceptedFix(heard, 'so we go back ten metres and then we stay')).not.toBeNull();
    expect(acceptedFix(heard, 'so we went back two metres and then we stay')).toBeNull();
  });

  it('times the fixed words from the heard ones: kept words keep theirs, replacements share the replaced time', () => {
    const heard = [
      { start: 0, end: 0.5, text: 'go', prob: 0.9 },
      { start: 0.5, end: 1, text: 'forward', prob: 0.9 },
      { start: 1, end: 1.4, text: 'ten', prob: 0.6 },
      { start: 1.4, end: 2, text: 'meters', prob: 0.7 },
    ];
    expect(retimedWords(heard, 'Go forward 10 metres.')).toEqual([
      { start: 0, end: 0.5, text: 'Go', prob: 0.9 },
      { start: 0.5, end: 1, text: 'forward', prob: 0.9 },
      { start: 1, end: 1.5, text: '10', prob: 0.6 },
      { start: 1.5, end: 2, text: 'metres.', prob: 0.6 },
    ]);
    // An added word takes no time, at the end of the word before it.
    expect(retimedWords(heard, 'go forward now ten meters')[2]).toEqual({ start: 1, end: 1, text: 'now', prob: 0.9 });
  });
});

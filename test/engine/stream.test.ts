/**
 * The streaming transcriber as the realtime socket drives it: 200 ms PCM chunks pushed as they arrive,
 * step() between them, flush() at the end. What it commits must be the words that were said, each once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeFileToPcm, SpeechEngine, type Segment } from '../../workers/engine/index.js';
import { fixture } from '../helpers/fixtures.js';
import { expectWellFormedWords, normaliseWords, wordErrors } from './text.js';

const CHUNK = 3200; // 200 ms at 16 kHz
let engine: SpeechEngine;

beforeAll(async () => {
  engine = await SpeechEngine.load();
});

async function stream(pcm: Float32Array, chunksPerStep: number, language?: string) {
  const transcriber = engine.createStream({ language });
  const committed: Segment[] = [];
  const drafts: string[] = [];
  let chunks = 0;
  for (let i = 0; i < pcm.length; i += CHUNK) {
    transcriber.push(pcm.subarray(i, i + CHUNK));
    if (++chunks % chunksPerStep === 0) {
      const update = await transcriber.step();
      committed.push(...update.committed);
      drafts.push(update.draft.map((d) => d.text).join(' '));
    }
  }
  const last = await transcriber.flush();
  committed.push(...last.committed);
  expect(last.draft).toEqual([]);
  expect(transcriber.audioS).toBeCloseTo(pcm.length / 16000, 3);
  return { committed, drafts };
}

function expectOrderedTimeline(committed: Segment[], durationS: number) {
  let previousEnd = 0;
  for (const segment of committed) {
    expect(segment.words.length).toBeGreaterThan(0);
    expect(segment.start).toBeGreaterThanOrEqual(0);
    expect(segment.end).toBeLessThanOrEqual(durationS + 0.05);
    // Commits never go back in time by more than alignment jitter.
    expect(segment.start).toBeGreaterThanOrEqual(previousEnd - 1.0);
    previousEnd = Math.max(previousEnd, segment.end);
    const mean = segment.words.reduce((sum, w) => sum + w.prob, 0) / segment.words.length;
    expect(segment.confidence).toBeCloseTo(mean, 6);
  }
}

describe('streaming transcriber', () => {
  it('commits "go forward ten meters" from goforward.wav fed in 200 ms chunks, stepping after each', async () => {
    const pcm = await decodeFileToPcm(fixture('goforward.wav'));
    const { committed } = await stream(pcm, 1);
    const words = normaliseWords(committed.map((s) => s.text).join(' '));
    expect(wordErrors(['go', 'forward', 'ten', 'meters'], words), words.join(' ')).toBeLessThanOrEqual(1);
    expect(committed.every((s) => s.language === 'en')).toBe(true);
    expectOrderedTimeline(committed, pcm.length / 16000);
  });

  it('commits the 60 s lecture (200 ms chunks, a pass every 3 s) as the offline transcript says it', async () => {
    const pcm = await decodeFileToPcm(fixture('political-philosophy-60s.wav'));
    const offline = await engine.transcribePcm(pcm, { language: 'en' });
    // The offline result has several windows and segments: their words are well formed too.
    expect(offline.segments.length).toBeGreaterThan(3);
    expectWellFormedWords(offline.segments);
    // 35.6–37.8 s is speech ("Thomas Piketty in his …") that ends a 30 s voice-activity window cut inside
    // continuous speech; the model closes its text before it, so it must be carried into the next window.
    const words = offline.segments.flatMap((s) => s.words);
    expect(words.some((w) => w.start >= 35.5 && w.end <= 38)).toBe(true);
    const reference = normaliseWords(offline.segments.map((s) => s.text).join(' '));
    const { committed, drafts } = await stream(pcm, 15, 'en');
    const streamed = normaliseWords(committed.map((s) => s.text).join(' '));
    const errorRate = wordErrors(reference, streamed) / reference.length;
    expect(errorRate, `offline: ${reference.join(' ')}\nstreamed: ${streamed.join(' ')}`).toBeLessThan(0.2);
    // Words arrive while the audio is still coming, not only at flush, and drafts show the tail meanwhile.
    expect(committed.length).toBeGreaterThan(3);
    expect(drafts.some((d) => d.length > 0)).toBe(true);
    expectOrderedTimeline(committed, 60);
  });

  it('at a live cadence (a pass every 400 ms) encodes short contexts and still commits what the offline transcript says', async () => {
    const pcm = (await decodeFileToPcm(fixture('political-philosophy-60s.wav'))).subarray(0, 30 * 16000);
    const reference = normaliseWords((await engine.transcribePcm(pcm, { language: 'en' })).segments.map((s) => s.text).join(' '));
    const contexts: number[] = [];
    const encode = engine.model.encode.bind(engine.model);
    engine.model.encode = (features, frames) => {
      contexts.push(frames ?? 3000);
      return encode(features, frames);
    };
    try {
      const { committed } = await stream(pcm, 2, 'en');
      const streamed = normaliseWords(committed.map((s) => s.text).join(' '));
      const errorRate = wordErrors(reference, streamed) / reference.length;
      expect(errorRate, `offline: ${reference.join(' ')}\nstreamed: ${streamed.join(' ')}`).toBeLessThan(0.25);
      expectOrderedTimeline(committed, 30);
    } finally {
      engine.model.encode = encode;
    }
    // The buffer is cut after ~12 s, so no pass needs the whole 30 s window; the shortest context is 5 s.
    expect(contexts.length).toBeGreaterThan(30);
    expect(Math.max(...contexts)).toBeLessThan(3000);
    expect(Math.min(...contexts)).toBe(500);
  }, 300_000); // ~75 passes plus an offline reference: minutes on a busy 2-core machine, not a speed check

  it('refuses a language the model does not know with invalid_options', () => {
    expect(() => engine.createStream({ language: 'xx' })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    const transcriber = engine.createStream();
    expect(() => transcriber.setLanguage('klingon')).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => transcriber.setLanguage('auto')).not.toThrow();
  });

  it('commits nothing for silence', async () => {
    const { committed } = await stream(new Float32Array(16000 * 3), 5, 'en');
    expect(committed).toEqual([]);
  });
});

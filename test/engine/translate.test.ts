/**
 * Speech → English with Whisper's own <|translate|> task (issue 14): the Spanish and Italian espeak clips come out
 * in English, while the same clips transcribed (the default task) stay Spanish and Italian — so the task token
 * really switched. Also: windows of a file (the language detected in the window), English speech, refused windows,
 * and the same through the engine threads, cancellable. whisper-base runs: whisper-tiny's translation of robotic
 * speech is mostly invented ("see you in the next video"), see the engine README.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../workers/engine/errors.js';
import { decodeFileToPcm, ffmpegPath, probeAudio, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { EngineThreads } from '../../workers/engine/threads/threads.js';
import { fixture } from '../helpers/fixtures.js';
import { countOf, normaliseWords } from './text.js';

/** Words of each clip's English translation that whisper-base gets (greedy and beam 5), and of its own language. */
const CLIPS = {
  es: {
    english: ['good', 'morning', 'today', 'park', 'football', 'friends'],
    spoken: ['buenos', 'días', 'hoy', 'vamos', 'parque', 'fútbol', 'nuestros', 'amigos'],
  },
  it: {
    english: ['good', 'morning', 'we', 'park', 'our', 'friends'],
    spoken: ['buongiorno', 'oggi', 'tempo', 'molto', 'andiamo', 'parco', 'calcio', 'nostri', 'amici'],
  },
} as const;
const ENGLISH_WORDS = [...new Set([...CLIPS.es.english, ...CLIPS.it.english])];


let base: SpeechEngine;
let scratch: string;
/** espeak-es.wav then espeak-it.wav, one file; the Italian starts at `italianAtS`. */
let both: string;
let italianAtS: number;

beforeAll(async () => {
  base = await SpeechEngine.load({ model: 'whisper-base' });
  scratch = mkdtempSync(join(tmpdir(), 'translate-test-'));
  both = join(scratch, 'es-then-it.wav');
  execFileSync(ffmpegPath(), [
    '-nostdin', '-loglevel', 'error', '-y', '-i', fixture('espeak-es.wav'), '-i', fixture('espeak-it.wav'),
    '-filter_complex', '[0:a][1:a]concat=n=2:v=0:a=1', '-ar', '16000', '-ac', '1', both,
  ]);
  italianAtS = (await probeAudio(fixture('espeak-es.wav'))).durationS;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the translate task (whisper-base)', () => {
  for (const [language, words] of Object.entries(CLIPS)) {
    for (const beamSize of [1, 5]) {
      it(`translates espeak-${language}.wav to English (beam ${beamSize}); transcribed, the same clip is not English`, async () => {
        const translation = await base.translateSpeech(fixture(`espeak-${language}.wav`), { beamSize });
        expect(translation.language).toBe(language);
        expect(countOf(translation.text, words.english), translation.text).toBeGreaterThanOrEqual(4);
        expect(countOf(translation.text, words.spoken), translation.text).toBe(0);
        expect(translation.text).toBe(translation.segments.map((s) => s.text).join(' '));
        for (const segment of translation.segments) expect(segment.language).toBe(language);

        const transcription = await base.transcribeFile(fixture(`espeak-${language}.wav`), { beamSize });
        const said = transcription.segments.map((s) => s.text).join(' ');
        expect(transcription.language).toBe(language);
        expect(countOf(said, words.spoken), said).toBeGreaterThanOrEqual(4);
        expect(countOf(said, ENGLISH_WORDS), said).toBe(0);
      });
    }
  }

  it('gives the same translation from 16 kHz samples in memory', async () => {
    const fromFile = await base.translateSpeech(fixture('espeak-es.wav'));
    const fromPcm = await base.translateSpeech(await decodeFileToPcm(fixture('espeak-es.wav')));
    expect(fromPcm.text).toBe(fromFile.text);
    expect(fromPcm.language).toBe('es');
  });

  it('translates only the window asked for, in the language spoken there', async () => {
    const italian = await base.translateSpeech(both, { startS: italianAtS });
    expect(italian.language).toBe('it');
    expect(italian.durationS).toBeCloseTo((await probeAudio(both)).durationS - italianAtS, 1);
    expect(countOf(italian.text, CLIPS.it.english), italian.text).toBeGreaterThanOrEqual(3);
    // The window is the Italian half and nothing else: its translation is that of the Italian samples cut out in
    // memory, word for word. (How often it says "good morning" is not the check: for "Oggi" after the greeting,
    // whisper-base's greedy choice between "Good" and "Today" is a near tie — 0.071 against 0.072 on
    // onnxruntime 1.30, 0.082 against 0.050 on 1.29, which greets twice, as both do without voice activity.)
    const pcm = await decodeFileToPcm(both);
    const italianAlone = await base.translateSpeech(pcm.subarray(Math.round(italianAtS * 16000)), { language: 'it' });
    expect(italian.text).toBe(italianAlone.text);
    // Both halves say the same thing: the whole file's translation greets in each.
    const greetings = (text: string) => normaliseWords(text).filter((word) => word === 'morning').length;
    expect(greetings(italian.text), italian.text).toBeGreaterThanOrEqual(1);
    const whole = await base.translateSpeech(both);
    expect(greetings(whole.text), whole.text).toBe(2);
    for (const segment of italian.segments) expect(segment.start).toBeGreaterThanOrEqual(italianAtS - 1e-6);

    const spanish = await base.translateSpeech(both, { endS: italianAtS, language: 'es' });
    expect(spanish.language).toBe('es');
    expect(countOf(spanish.text, CLIPS.es.english), spanish.text).toBeGreaterThanOrEqual(4);
    for (const segment of spanish.segments) expect(segment.end).toBeLessThanOrEqual(italianAtS + 1e-6);
  });

  it('answers English speech with its transcription', async () => {
    const tiny = await SpeechEngine.load();
    const translation = await tiny.translateSpeech(fixture('espeak-en.wav'));
    const transcription = await tiny.transcribeFile(fixture('espeak-en.wav'));
    expect(translation.language).toBe('en');
    expect(translation.text).toBe(transcription.segments.map((s) => s.text).join(' '));
    expect(normaliseWords(translation.text)).toEqual(expect.arrayContaining(['park', 'football']));
  });

  it('refuses a window with no audio in it, naming the field', async () => {
    const pcm = new Float32Array(16000 * 3);
    const cases: [Parameters<SpeechEngine['translateSpeech']>[0], { startS?: number; endS?: number }, string][] = [
      [fixture('espeak-es.wav'), { startS: -1 }, 'startS'],
      [fixture('espeak-es.wav'), { startS: Number.NaN }, 'startS'],
      [fixture('espeak-es.wav'), { startS: 3, endS: 3 }, 'endS'],
      [fixture('espeak-es.wav'), { startS: 4, endS: 2 }, 'endS'],
      [fixture('espeak-es.wav'), { startS: 600 }, 'startS'],
      [pcm, { startS: 3 }, 'startS'],
    ];
    for (const [input, window, field] of cases) {
      const failure = await base.translateSpeech(input, window).catch((error: unknown) => error);
      expect(failure, JSON.stringify(window)).toBeInstanceOf(EngineError);
      expect(failure).toMatchObject({ code: 'invalid_options', details: { field } });
    }
    await expect(base.translateSpeech(pcm, { language: 'xx' })).rejects.toMatchObject({
      code: 'invalid_options', details: { field: 'language' },
    });
  });
});

describe('translation through the engine threads', () => {
  let threads: EngineThreads;
  beforeAll(async () => {
    threads = new EngineThreads({ engine: { model: 'whisper-base' }, threads: 1 });
    await threads.warm();
  });
  afterAll(() => threads.close());

  it('translates a window of a file on an engine thread', async () => {
    const result = await threads.translateSpeech({ path: both, startS: italianAtS, beamSize: 5 });
    expect(result).toMatchObject({ language: 'it', model: 'whisper-base', beamSize: 5 });
    expect(countOf(result.text, CLIPS.it.english), result.text).toBeGreaterThanOrEqual(3);
    expect(countOf(result.text, CLIPS.it.spoken), result.text).toBe(0);
    for (const segment of result.segments) expect(segment.start).toBeGreaterThanOrEqual(italianAtS - 1e-6);
  });

  it('refuses a bad window with invalid_options: on the host, and past the file\'s end on the thread', async () => {
    await expect(threads.translateSpeech({ path: both, startS: 5, endS: 1 })).rejects.toMatchObject({
      code: 'invalid_options', details: { field: 'endS' },
    });
    const pastEnd = await threads.translateSpeech({ path: both, startS: 600 }).catch((error: unknown) => error);
    expect(pastEnd).toBeInstanceOf(EngineError);
    expect(pastEnd).toMatchObject({ code: 'invalid_options', details: { field: 'startS' } });
  });

  it('cancels a translation when its signal aborts, and the thread goes on to the next', async () => {
    const controller = new AbortController();
    const started = performance.now();
    // The 60 s lecture said to be Spanish: a long translation, cut short.
    const run = threads.translateSpeech({ path: fixture('political-philosophy-60s.wav'), language: 'es', signal: controller.signal });
    setTimeout(() => controller.abort(), 500);
    await expect(run).rejects.toThrow(/abort/i);
    expect(performance.now() - started).toBeLessThan(5_000);
    const next = await threads.translateSpeech({ path: fixture('espeak-es.wav') });
    expect(next.language).toBe('es');
    expect(countOf(next.text, CLIPS.es.english), next.text).toBeGreaterThanOrEqual(4);
    await expect(threads.translateSpeech({ path: fixture('espeak-es.wav'), signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });
});

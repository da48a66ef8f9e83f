/**
 * Text to speech (workers/engine/tts): Kokoro's audio transcribed back by the recogniser to the words it was
 * given (English and Spanish), the voice catalogue, espeak-ng phonemes and their chunking, Ogg/CAF encoding,
 * and the refusals.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_RATE, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { phonemePieces, chunkPieces, PhonemeVocab, MAX_PHONEME_IDS } from '../../workers/engine/tts/phonemes.js';
import {
  concat,
  defaultVoice,
  encodeSpeech,
  EspeakError,
  Kokoro,
  KOKORO_SAMPLE_RATE,
  phonemize,
  resample,
  synthesize,
  VOICE_LANGUAGES,
  VOICES,
  voicesFor,
} from '../../workers/engine/tts/index.js';
import { kokoroTestDir } from '../helpers/kokoro.js';
import { normaliseWords } from './text.js';

let modelDir: string;
let kokoro: Kokoro;
let vocab: PhonemeVocab;

beforeAll(async () => {
  modelDir = await kokoroTestDir();
  kokoro = await Kokoro.load({ modelDir });
  vocab = kokoro.vocab;
});

/** Words without case, punctuation or accents (Whisper may write "estás" or "estas"). */
const words = (text: string) => normaliseWords(text.normalize('NFD').replace(/\p{M}/gu, ''));

async function transcribe(samples24k: Float32Array, language: string): Promise<string> {
  const engine = await SpeechEngine.load({ role: 'accurate' });
  const pcm = await resample(samples24k, KOKORO_SAMPLE_RATE, SAMPLE_RATE);
  expect(Math.abs(pcm.length / SAMPLE_RATE - samples24k.length / KOKORO_SAMPLE_RATE)).toBeLessThan(0.05);
  const result = await engine.transcribePcm(pcm, { language, beamSize: 5 });
  return result.segments.map((segment) => segment.text).join(' ');
}

describe('text to speech: round trip through the recogniser', () => {
  it('speaks an English sentence that Whisper transcribes back to the same words', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const audio = await kokoro.synthesize(text, { voice: 'af_heart' });
    const seconds = audio.length / KOKORO_SAMPLE_RATE;
    expect(seconds).toBeGreaterThan(1.5);
    expect(seconds).toBeLessThan(6);
    expect(audio.every((x) => Number.isFinite(x))).toBe(true);
    expect(words(await transcribe(audio, 'en'))).toEqual(words(text));
  });

  it('streams a Spanish text sentence by sentence, the first sentence alone, and it transcribes back', async () => {
    const text = 'Hola, me llamo Juan. Vivo en una casa grande.';
    const chunks = [];
    for await (const chunk of kokoro.stream(text, { language: 'es' })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.index)).toEqual([0, 1]);
    expect(chunks[0].phonemes).toMatch(/\.$/);
    const audio = concat(chunks.map((chunk) => chunk.audio));
    expect(words(await transcribe(audio, 'es'))).toEqual(words(text));
  });
});

describe('the voice catalogue', () => {
  it('has the 54 voices of 9 languages, each with a name and a gender, and one default per language', () => {
    expect(VOICES).toHaveLength(54);
    expect(new Set(VOICES.map((voice) => voice.id)).size).toBe(54);
    expect(VOICE_LANGUAGES).toHaveLength(9);
    expect(new Set(VOICES.map((voice) => voice.language))).toEqual(new Set(VOICE_LANGUAGES.map((language) => language.code)));
    for (const language of VOICE_LANGUAGES) {
      const defaults = VOICES.filter((voice) => voice.language === language.code && voice.default);
      expect(defaults.map((voice) => voice.id), language.code).toEqual([language.defaultVoice]);
      expect(voicesFor(language.code)[0].id).toBe(language.defaultVoice);
    }
    expect(VOICES.find((voice) => voice.id === 'am_michael')).toEqual({
      id: 'am_michael', name: 'Michael', language: 'en-US', gender: 'male', default: false,
    });
    expect(defaultVoice('en')?.id).toBe('af_heart');
    expect(defaultVoice('es-MX')?.id).toBe('ef_dora');
    expect(defaultVoice('pt')?.id).toBe('pf_dora');
    expect(defaultVoice('de')).toBeUndefined();
  });

  it('is exactly the voice files the model folder holds', () => {
    const files = readdirSync(join(modelDir, 'voices')).filter((name) => name.endsWith('.bin')).map((name) => name.slice(0, -4));
    expect(new Set(files)).toEqual(new Set(VOICES.map((voice) => voice.id)));
  });
});

describe('phonemes', () => {
  it("writes a known word in Kokoro's symbols, per language, and keeps the punctuation", async () => {
    expect(await phonemize('Hello', 'en-us')).toBe('həlˈO');
    expect(await phonemize('Hello', 'en-gb')).toBe('həlˈQ');
    expect(await phonemize('hola', 'es')).toBe('ˈola');
    expect(await phonemize('Hello, world. How are you?', 'en-us')).toBe('həlˈO, wˈɜɹld. hˈW ɑɹ ju?');
    // A precomposed letter the model lacks keeps its base letter (espeak-ng's Japanese writes ä).
    expect(vocab.encode('kä')).toEqual(vocab.encode('ka'));
    // Every symbol of the output has an id: nothing is silently dropped for these languages.
    for (const [text, voice] of [['The quick brown fox jumps over the lazy dog.', 'en-us'], ['El veloz murciélago hindú comía feliz '
      + 'cardillo y kiwi.', 'es'], ['Le cœur a ses raisons.', 'fr-fr']]) {
      const phonemes = await phonemize(text, voice);
      expect(vocab.encode(phonemes).length, `${voice}: ${phonemes}`).toBe([...phonemes].length);
    }
  });

  it('cuts a long text into chunks of at most 510 ids at sentence ends, and a long sentence at its clauses', async () => {
    const sentence = 'This sentence is here to make the text long enough to need several chunks. ';
    const pieces = await phonemePieces(sentence.repeat(40), 'en-us');
    const chunks = chunkPieces(pieces, vocab);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      expect(chunk.ids.length).toBeLessThanOrEqual(MAX_PHONEME_IDS);
      expect(chunk.phonemes).toMatch(/\.$/);
    }
    // Nothing is lost: the chunks together are the whole text's ids (less the spaces between chunks).
    const all = vocab.encode(pieces.map((piece) => piece.phonemes).join('').trim());
    expect(chunks.flatMap((chunk) => chunk.ids).length).toBe(all.length - (chunks.length - 1));
    // The first sentence alone, for the first audio to come sooner.
    const streamed = chunkPieces(pieces, vocab, { firstSentenceAlone: true });
    expect(streamed[0].phonemes).toBe(pieces[0].phonemes.trim());

    const runOn = `${'and then we walked a little further along the river, '.repeat(20)}and we stopped.`;
    const runOnChunks = chunkPieces(await phonemePieces(runOn, 'en-us'), vocab);
    expect(runOnChunks.length).toBeGreaterThanOrEqual(2);
    expect(runOnChunks[0].phonemes).toMatch(/,$/);
    expect(runOnChunks.every((chunk) => chunk.ids.length <= MAX_PHONEME_IDS)).toBe(true);
  });
});

describe('encoding', () => {
  it('gives an Ogg/Opus file and a CAF/Opus file', async () => {
    const audio = await kokoro.synthesize('Yes.', { voice: 'bf_emma' });
    const ogg = await encodeSpeech(audio, 'ogg');
    expect(ogg.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(ogg.includes(Buffer.from('OpusHead'))).toBe(true);
    const caf = await encodeSpeech(audio, 'caf');
    expect(caf.subarray(0, 4).toString('latin1')).toBe('caff');
    expect(caf.includes(Buffer.from('opus'))).toBe(true);
  });
});

describe('refusals', () => {
  it('refuses an unknown voice or language, no text, nothing to say, and a speed out of range', async () => {
    await expect(synthesize('Hello.', { modelDir, voice: 'xx_nobody' })).rejects.toMatchObject({
      code: 'invalid_options', details: { field: 'voice' },
    });
    await expect(synthesize('Hello.', { modelDir, language: 'de' })).rejects.toMatchObject({
      code: 'invalid_options', details: { field: 'language' },
    });
    await expect(synthesize('   ', { modelDir })).rejects.toMatchObject({ code: 'invalid_options', details: { field: 'text' } });
    await expect(kokoro.synthesize('?!', { voice: 'af_heart' })).rejects.toMatchObject({
      code: 'invalid_options', details: { field: 'text' },
    });
    await expect(kokoro.synthesize('Hello.', { speed: 5 })).rejects.toMatchObject({ code: 'invalid_options', details: { field: 'speed' } });
  });

  it('says clearly when espeak-ng is not installed', async () => {
    const espeak = { path: '/nonexistent/espeak-ng' };
    await expect(phonemize('Hello', 'en-us', espeak)).rejects.toThrow(EspeakError);
    await expect(kokoro.synthesize('Hello.', { espeak })).rejects.toThrow(/espeak-ng is not installed.*apt-get install espeak-ng/);
  });

  it('says where to get the model when it is missing', async () => {
    await expect(Kokoro.load({ modelsDir: '/nonexistent-models' })).rejects.toThrow(/models:download -- kokoro/);
  });
});

/**
 * Kokoro-82M (8-bit ONNX) text to speech: phoneme ids (phonemes.ts) → `input_ids` int64 [1, n+2] padded with 0
 * at both ends, `style` float32 [1, 256] = row min(n, 509) of the voice's 510×256 table, `speed` float32 [1]
 * → `waveform` float32 at 24 kHz. One call per chunk of ≤ 510 phoneme ids; `stream` yields each chunk's audio as
 * soon as it is made.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { engineErrors } from '../errors.js';
import type { EspeakOptions } from './espeak.js';
import { downloadKokoro, isCompleteKokoroDir, KOKORO_DIR_NAME, KOKORO_MODEL_FILE } from './kokoro-download.js';
import { chunkPieces, phonemePieces, PhonemeVocab, type PhonemeChunk } from './phonemes.js';
import { defaultVoice, findVoiceLanguage, voiceLanguage, type VoiceLanguage } from './voices.js';

export const KOKORO_SAMPLE_RATE = 24_000;
/** Rows of a voice table (one style vector per phoneme count) and the width of a style vector. */
export const STYLE_ROWS = 510;
export const STYLE_DIM = 256;

export interface KokoroLoadOptions {
  /** The model directory itself (kokoro-quantized.onnx, tokenizer.json, voices/*.bin). */
  modelDir?: string;
  /** Where models live: the model is `<modelsDir>/kokoro`. Default MODELS_DIR, else ./models. */
  modelsDir?: string;
  /** Download it (models:download kokoro) when it is not there yet. Default false: a missing model is an error. */
  download?: boolean;
  /** Threads per operator; default ENGINE_THREADS, else onnxruntime's (all cores). */
  threads?: number;
}

export interface SynthesisOptions {
  /** A catalogue voice id ('af_heart'); default: the language's default voice. */
  voice?: string;
  /**
   * A style table of its own (510×256 float32, a cloned voice's) spoken in place of the catalogue voice's file;
   * `voice` or `language` still choose the phonemes' language.
   */
  style?: Float32Array;
  /** Language code, used when no voice is given ('es' → ef_dora); default en-US. */
  language?: string;
  /** 0.5–2, default 1. */
  speed?: number;
  signal?: AbortSignal;
  /** espeak-ng's binary and timeout. */
  espeak?: EspeakOptions;
}

export interface SynthesizedChunk {
  /** 24 kHz mono samples of this chunk. */
  audio: Float32Array;
  /** The Kokoro phonemes it spoke. */
  phonemes: string;
  index: number;
}

/** The model directory the options name: `modelDir`, else `<modelsDir or MODELS_DIR or ./models>/kokoro`. */
export function kokoroModelDir(options: Pick<KokoroLoadOptions, 'modelDir' | 'modelsDir'> = {}): string {
  if (options.modelDir) return resolve(options.modelDir);
  return resolve(options.modelsDir ?? process.env.MODELS_DIR ?? 'models', KOKORO_DIR_NAME);
}

function envNumber(name: string): number | undefined {
  const value = process.env[name];
  return value && Number.isFinite(Number(value)) ? Number(value) : undefined;
}

const loaded = new Map<string, Promise<Kokoro>>();

/** The voice and language a call speaks in; invalid_options for an unknown voice or language. */
export function resolveVoice(options: Pick<SynthesisOptions, 'voice' | 'language'>): { voice: string; language: VoiceLanguage } {
  if (options.voice) {
    const language = voiceLanguage(options.voice);
    if (!language) throw engineErrors.invalidOptions(`Unknown voice '${options.voice}'.`, { field: 'voice' });
    return { voice: options.voice, language };
  }
  const code = options.language && options.language !== 'auto' ? options.language : 'en-US';
  const voice = defaultVoice(code);
  if (!voice) throw engineErrors.invalidOptions(`No voice speaks '${code}'.`, { field: 'language' });
  return { voice: voice.id, language: findVoiceLanguage(code)! };
}

export class Kokoro {
  readonly sampleRate = KOKORO_SAMPLE_RATE;
  private readonly styles = new Map<string, Float32Array>();
  /** Model calls one at a time: each already uses every core. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly modelDir: string,
    private readonly session: ort.InferenceSession,
    readonly vocab: PhonemeVocab,
  ) {}

  /** The model, loaded once per process (thread) and directory; downloaded first when asked and missing. */
  static load(options: KokoroLoadOptions = {}): Promise<Kokoro> {
    const modelDir = kokoroModelDir(options);
    const threads = options.threads ?? envNumber('ENGINE_THREADS') ?? 0;
    const key = JSON.stringify([modelDir, threads]);
    let model = loaded.get(key);
    if (!model) {
      model = (async () => {
        if (!isCompleteKokoroDir(modelDir)) {
          if (!options.download || options.modelDir) {
            throw new Error(`The text-to-speech model is not in ${modelDir}; run \`npm run models:download -- kokoro\``);
          }
          await downloadKokoro({ modelsDir: resolve(modelDir, '..') });
        }
        const session = await ort.InferenceSession.create(join(modelDir, KOKORO_MODEL_FILE), {
          graphOptimizationLevel: 'all',
          intraOpNumThreads: threads,
          interOpNumThreads: 1,
          executionProviders: ['cpu'],
        });
        return new Kokoro(modelDir, session, PhonemeVocab.fromFile(join(modelDir, 'tokenizer.json')));
      })();
      loaded.set(key, model);
      model.catch(() => loaded.delete(key));
    }
    return model;
  }

  /** The voice's 510×256 style table, read once. */
  private style(voice: string): Float32Array {
    let table = this.styles.get(voice);
    if (!table) {
      const file = join(this.modelDir, 'voices', `${voice}.bin`);
      if (!existsSync(file)) throw engineErrors.invalidOptions(`Voice '${voice}' is not installed on this server.`, { field: 'voice' });
      const bytes = readFileSync(file);
      if (bytes.length !== STYLE_ROWS * STYLE_DIM * 4) {
        throw new Error(`${file}: ${bytes.length} bytes, not a ${STYLE_ROWS}×${STYLE_DIM} float32 voice table`);
      }
      table = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      this.styles.set(voice, table);
    }
    return table;
  }

  /** The phoneme chunks a text is spoken in (one model call each). */
  async chunks(text: string, options: SynthesisOptions & { firstSentenceAlone?: boolean } = {}): Promise<PhonemeChunk[]> {
    checkRequest(text, options);
    const { language } = resolveVoice(options);
    const pieces = await phonemePieces(text, language.espeak, { signal: options.signal, ...options.espeak });
    const chunks = chunkPieces(pieces, this.vocab, { firstSentenceAlone: options.firstSentenceAlone });
    if (chunks.length === 0) throw engineErrors.invalidOptions('The text has nothing to speak (no letters or digits).', { field: 'text' });
    return chunks;
  }

  /** One model call: ≤ 510 phoneme ids → 24 kHz samples, in a catalogue voice or a 510×256 style table. */
  async run(ids: number[], voice: string | Float32Array, speed = 1): Promise<Float32Array> {
    if (ids.length === 0 || ids.length > STYLE_ROWS) {
      throw new Error(`a model call takes 1 to ${STYLE_ROWS} phoneme ids, not ${ids.length}`);
    }
    const table = typeof voice === 'string' ? this.style(voice) : voice;
    const row = Math.min(ids.length, STYLE_ROWS - 1);
    const inputIds = new BigInt64Array(ids.length + 2);
    ids.forEach((id, i) => (inputIds[i + 1] = BigInt(id)));
    const feeds = {
      input_ids: new ort.Tensor('int64', inputIds, [1, inputIds.length]),
      style: new ort.Tensor('float32', table.slice(row * STYLE_DIM, (row + 1) * STYLE_DIM), [1, STYLE_DIM]),
      speed: new ort.Tensor('float32', new Float32Array([speed]), [1]),
    };
    const result = this.queue.then(() => this.session.run(feeds));
    this.queue = result.catch(() => undefined);
    const { waveform } = await result;
    const audio = new Float32Array(waveform.data as Float32Array);
    waveform.dispose();
    return audio;
  }

  /** Speaks `text`, yielding each chunk's audio as it is made: the first sentence comes alone, so it comes first. */
  async *stream(text: string, options: SynthesisOptions = {}): AsyncGenerator<SynthesizedChunk> {
    const speed = checkSpeed(options.speed);
    const voice = options.style ?? resolveVoice(options).voice;
    const chunks = await this.chunks(text, { ...options, firstSentenceAlone: true });
    for (const [index, chunk] of chunks.entries()) {
      options.signal?.throwIfAborted();
      yield { audio: await this.run(chunk.ids, voice, speed), phonemes: chunk.phonemes, index };
    }
  }

  /** Speaks `text`: 24 kHz mono samples. */
  async synthesize(text: string, options: SynthesisOptions = {}): Promise<Float32Array> {
    const speed = checkSpeed(options.speed);
    const voice = options.style ?? resolveVoice(options).voice;
    const parts: Float32Array[] = [];
    for (const chunk of await this.chunks(text, options)) {
      options.signal?.throwIfAborted();
      parts.push(await this.run(chunk.ids, voice, speed));
    }
    return concat(parts);
  }
}

/** The caller's mistakes, found before a model is loaded: no text, an unknown voice or language, a speed out of range. */
function checkRequest(text: string, options: SynthesisOptions): void {
  if (typeof text !== 'string' || !text.trim()) throw engineErrors.invalidOptions('There is no text to speak.', { field: 'text' });
  resolveVoice(options);
  checkSpeed(options.speed);
  if (options.style !== undefined && (!(options.style instanceof Float32Array) || options.style.length !== STYLE_ROWS * STYLE_DIM)) {
    throw engineErrors.invalidOptions(`style must be a ${STYLE_ROWS}×${STYLE_DIM} float32 table.`, { field: 'style' });
  }
}

function checkSpeed(speed: number | undefined): number {
  if (speed === undefined) return 1;
  if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0.5 || speed > 2) {
    throw engineErrors.invalidOptions('speed must be a number from 0.5 to 2.', { field: 'speed' });
  }
  return speed;
}

export function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `Kokoro.load(options)` then `synthesize`: 24 kHz mono samples of `text`. */
export async function synthesize(text: string, options: SynthesisOptions & KokoroLoadOptions = {}): Promise<Float32Array> {
  checkRequest(text, options);
  return (await Kokoro.load(options)).synthesize(text, options);
}

/** `Kokoro.load(options)` then `stream`: each chunk's 24 kHz audio as soon as it is made. */
export async function* synthesizeStream(
  text: string, options: SynthesisOptions & KokoroLoadOptions = {},
): AsyncGenerator<SynthesizedChunk> {
  checkRequest(text, options);
  yield* (await Kokoro.load(options)).stream(text, options);
}

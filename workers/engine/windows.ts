/**
 * From a stream of PCM chunks to model windows: voice activity finds the speech regions, neighbouring
 * regions are packed (silence between them cut out, 400 ms of padding kept around each) into windows of at
 * most 30 s, the longest audio the model takes at once. Only the audio that a window not yet emitted can
 * still need is kept, so memory stays bounded however long the input is.
 */
import { N_SAMPLES, SAMPLE_RATE } from './whisper/mel.js';
import {
  DEFAULT_VAD_OPTIONS, SpeechDetector, VAD_CHUNK, type SileroVad, type SpeechRegion, type VadOptions, type VadStream,
} from './vad.js';

/** A stretch of source audio placed at `offset` (samples) inside a window. */
export interface WindowPiece {
  offset: number;
  sourceStart: number;
  length: number;
}

/** A stretch of time in seconds. */
export interface Interval {
  start: number;
  end: number;
}

export interface SpeechWindow {
  /** Concatenated speech, at most 30 s of 16 kHz samples. */
  audio: Float32Array;
  pieces: WindowPiece[];
  /** Source position (samples) up to which the audio has been examined when this window was made. */
  sourceEnd: number;
  /**
   * Window seconds the voice-activity detector calls speech (its 32 ms chunks at or above the threshold, short
   * dips bridged): what the words must cover (pipeline.ts checks it). Absent without voice activity.
   */
  speech?: Interval[];
}

/** Seconds inside a window → seconds on the source timeline. */
export function windowTimeToSource(window: SpeechWindow, seconds: number): number {
  const sample = seconds * SAMPLE_RATE;
  let piece = window.pieces[0];
  for (const candidate of window.pieces) {
    if (candidate.offset <= sample) piece = candidate;
    else break;
  }
  const within = Math.min(Math.max(sample - piece.offset, 0), piece.length);
  return (piece.sourceStart + within) / SAMPLE_RATE;
}

/** Growable sample buffer addressed by absolute source sample index. */
class SourceBuffer {
  private data = new Float32Array(SAMPLE_RATE * 60);
  private startSample = 0;
  private length = 0;

  get end(): number {
    return this.startSample + this.length;
  }

  append(chunk: Float32Array): void {
    if (this.length + chunk.length > this.data.length) {
      const grown = new Float32Array(Math.max(this.data.length * 2, this.length + chunk.length));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    this.data.set(chunk, this.length);
    this.length += chunk.length;
  }

  /** Drops everything before `sample`. */
  discardBefore(sample: number): void {
    const drop = Math.min(Math.max(0, sample - this.startSample), this.length);
    if (drop === 0) return;
    this.data.copyWithin(0, drop, this.length);
    this.length -= drop;
    this.startSample += drop;
  }

  copy(from: number, to: number, target: Float32Array, offset: number): void {
    const a = Math.max(from, this.startSample) - this.startSample;
    const b = Math.min(to, this.end) - this.startSample;
    if (b > a) target.set(this.data.subarray(a, b), offset + (Math.max(from, this.startSample) - from));
  }
}

/** Speech dips shorter than this (between two syllables) are bridged: speech frames are runs of sound, not phones. */
const SPEECH_BRIDGE_SAMPLES = Math.round(0.25 * SAMPLE_RATE);

/**
 * The chunks voice activity scored as speech, as runs of source samples: a window's `speech`. Kept only as far
 * back as the audio buffer is, so memory stays bounded.
 */
class SpeechFrames {
  private runs: { start: number; end: number }[] = [];
  private chunks = 0;

  constructor(private readonly threshold: number) {}

  push(probabilities: Float32Array): void {
    for (const probability of probabilities) {
      const start = this.chunks++ * VAD_CHUNK;
      if (probability < this.threshold) continue;
      const last = this.runs[this.runs.length - 1];
      if (last && start - last.end <= SPEECH_BRIDGE_SAMPLES) last.end = start + VAD_CHUNK;
      else this.runs.push({ start, end: start + VAD_CHUNK });
    }
  }

  discardBefore(sample: number): void {
    const keep = this.runs.findIndex((run) => run.end > sample);
    this.runs = keep < 0 ? [] : this.runs.slice(keep);
  }

  /** The speech inside `pieces`, in window seconds. */
  inWindow(pieces: WindowPiece[]): Interval[] {
    const speech: Interval[] = [];
    for (const piece of pieces) {
      for (const run of this.runs) {
        const start = Math.max(run.start, piece.sourceStart);
        const end = Math.min(run.end, piece.sourceStart + piece.length);
        if (end > start) {
          speech.push({
            start: (piece.offset + start - piece.sourceStart) / SAMPLE_RATE, end: (piece.offset + end - piece.sourceStart) / SAMPLE_RATE,
          });
        }
      }
    }
    return speech;
  }
}

export interface WindowOptions {
  /** Silero VAD (what each window's `speech` comes from), or null for windows without it. */
  vad: SileroVad | null;
  /** Cut the audio into plain consecutive 30 s windows instead of packing the speech voice activity finds. */
  fixed?: boolean;
  vadOptions?: Partial<VadOptions>;
  signal?: AbortSignal;
}

/** Yields speech windows as soon as each is complete; the last ones when the source ends. */
export async function* speechWindows(source: AsyncIterable<Float32Array>, options: WindowOptions): AsyncGenerator<SpeechWindow> {
  const vadOptions = { ...DEFAULT_VAD_OPTIONS, ...options.vadOptions };
  if (!options.vad || options.fixed) {
    yield* fixedWindows(
      source, options.signal, options.vad ? { stream: options.vad.createStream(), frames: new SpeechFrames(vadOptions.threshold) } : null,
    );
    return;
  }
  const detector = new SpeechDetector(vadOptions);
  const frames = new SpeechFrames(vadOptions.threshold);
  const vadStream = options.vad.createStream();
  const pad = Math.round((SAMPLE_RATE * vadOptions.speechPadMs) / 1000);
  // A window also ends when the next speech is this far away, so silence never piles up in memory.
  const maxGap = 10 * SAMPLE_RATE;
  const buffer = new SourceBuffer();
  let pending: SpeechRegion[] = [];
  // Raw end of the last region already emitted: the silence before the next region is split between the two. The
  // first region has no neighbour before it and gets its whole padding (Silero rises after a word's onset: halving
  // it cut "8. The press yard" to "the press yard" in a clip whose speech starts 0.13 s in).
  let previousEnd = -Infinity;

  const build = (regions: SpeechRegion[], nextStart: number, sourceEnd: number): SpeechWindow => {
    const pieces: WindowPiece[] = [];
    let offset = 0;
    regions.forEach((region, i) => {
      const before = i === 0 ? region.start - previousEnd : region.start - regions[i - 1].end;
      const after = (i === regions.length - 1 ? nextStart : regions[i + 1].start) - region.end;
      const start = Math.max(0, region.start - Math.min(pad, Math.floor(before / 2)));
      const end = Math.min(sourceEnd, region.end + Math.min(pad, Math.floor(after / 2)));
      const length = Math.min(end - start, N_SAMPLES - offset);
      if (length <= 0) return;
      pieces.push({ offset, sourceStart: start, length });
      offset += length;
    });
    const audio = new Float32Array(offset);
    for (const piece of pieces) buffer.copy(piece.sourceStart, piece.sourceStart + piece.length, audio, piece.offset);
    previousEnd = regions[regions.length - 1].end;
    return { audio, pieces, sourceEnd, speech: frames.inWindow(pieces) };
  };
  const paddedLength = (regions: SpeechRegion[]) => regions.reduce((sum, r) => sum + r.end - r.start + 2 * pad, 0);

  for await (const chunk of source) {
    options.signal?.throwIfAborted();
    buffer.append(chunk);
    const probabilities = await vadStream.push(chunk);
    frames.push(probabilities);
    const closed = detector.push(probabilities);
    for (const region of closed) {
      if (pending.length && (paddedLength([...pending, region]) > N_SAMPLES || region.start - pending[pending.length - 1].end > maxGap)) {
        yield build(pending, region.start, buffer.end);
        pending = [];
      }
      pending.push(region);
    }
    if (pending.length && detector.openFrom - pending[pending.length - 1].end > maxGap) {
      yield build(pending, detector.openFrom, buffer.end);
      pending = [];
    }
    const keepFrom = Math.min(pending.length ? pending[0].start : Infinity, detector.openFrom) - pad;
    buffer.discardBefore(Math.max(keepFrom, previousEnd - pad));
    frames.discardBefore(Math.max(keepFrom, previousEnd - pad));
  }
  const total = buffer.end;
  pending.push(...detector.finish(total));
  // Regions of one window may also need splitting when the last closed region pushed it over 30 s.
  let group: SpeechRegion[] = [];
  for (const region of pending) {
    if (group.length && paddedLength([...group, region]) > N_SAMPLES) {
      yield build(group, region.start, total);
      group = [];
    }
    group.push(region);
  }
  if (group.length) yield build(group, total + 2 * pad, total);
}

/**
 * Consecutive 30 s windows of everything, each with the speech voice activity heard in it when `vad` is given
 * (every 512-sample chunk is scored as it arrives, so a window's speech is known when the window is full).
 */
async function* fixedWindows(
  source: AsyncIterable<Float32Array>,
  signal: AbortSignal | undefined,
  vad: { stream: VadStream; frames: SpeechFrames } | null,
): AsyncGenerator<SpeechWindow> {
  let current = new Float32Array(N_SAMPLES);
  let filled = 0;
  let windowStart = 0;
  const window = (length: number): SpeechWindow => {
    const pieces = [{ offset: 0, sourceStart: windowStart, length }];
    const speech = vad?.frames.inWindow(pieces);
    vad?.frames.discardBefore(windowStart + length);
    return { audio: length === N_SAMPLES ? current : current.slice(0, length), pieces, sourceEnd: windowStart + length, speech };
  };
  for await (const chunk of source) {
    signal?.throwIfAborted();
    if (vad) vad.frames.push(await vad.stream.push(chunk));
    let used = 0;
    while (used < chunk.length) {
      const take = Math.min(chunk.length - used, N_SAMPLES - filled);
      current.set(chunk.subarray(used, used + take), filled);
      filled += take;
      used += take;
      if (filled === N_SAMPLES) {
        yield window(N_SAMPLES);
        windowStart += N_SAMPLES;
        current = new Float32Array(N_SAMPLES);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield window(filled);
}

/**
 * Speech → English, Whisper's own `<|translate|>` task: the English pivot for any spoken language. The decoding is
 * the transcription loop's (pipeline.ts with `task: 'translate'`); this module holds what the engine and its
 * threads share around it — the call's options and result, and the check of the window asked for — and loads no
 * model (the thread host imports it).
 */
import { engineErrors } from '../errors.js';
import type { Segment, TranscribeResult } from '../pipeline.js';

export interface TranslateOptions {
  /** The spoken language ('es'); absent or 'auto': detected on the first window of speech. English is transcribed. */
  language?: string;
  /** The stretch of audio to translate, in seconds of the source (default: all of it). */
  startS?: number;
  endS?: number;
  /** Beam width (default 1 = greedy); the temperature fallback applies either way. */
  beamSize?: number;
  signal?: AbortSignal;
  /** Each segment as it is done (English text, times on the source's timeline). */
  onSegment?: (segment: Segment) => void;
}

export interface TranslationResult {
  /** The English text, segments joined by spaces. */
  text: string;
  /** The spoken language (forced or detected), not the output's: that is always English. */
  language: string;
  /** English segments on the source's timeline; their words' timings are approximate (cross-attention). */
  segments: Segment[];
  /** Seconds of audio in the window. */
  durationS: number;
  processingS: number;
}

/**
 * Refuses a window that holds no audio: a start or end that is not a number, a negative start, an end at or before
 * the start, a start at or past the end of the audio (when its length is known). `invalid_options` naming the field.
 */
export function checkWindow(startS: number | undefined, endS: number | undefined, durationS?: number): void {
  const refuse = (field: 'startS' | 'endS', why: string) =>
    engineErrors.invalidOptions(`The window to translate ${why} (startS ${startS ?? 0}, endS ${endS ?? 'the end'}).`, { field });
  if (startS !== undefined && !(Number.isFinite(startS) && startS >= 0)) throw refuse('startS', 'must start at a number of seconds ≥ 0');
  if (endS !== undefined && !(Number.isFinite(endS) && endS > (startS ?? 0))) throw refuse('endS', 'must end after it starts');
  if (durationS !== undefined && (startS ?? 0) >= durationS) {
    throw refuse('startS', `starts after the audio's end at ${durationS.toFixed(2)} s`);
  }
}

/** A transcription loop's result, run with `task: 'translate'`, as a translation. */
export function translationOf(result: TranscribeResult): TranslationResult {
  const { segments, language, durationS, processingS } = result;
  return { text: segments.map((s) => s.text).join(' '), language, segments, durationS, processingS };
}

/**
 * The transcription loop, top to bottom: PCM chunks → speech windows (voice activity) → log-mel features →
 * encoder (several windows per call) → language → token decoding with fallback → segments from timestamp
 * tokens → words from cross-attention → segments on the source timeline, reported as they are done.
 */
import { alignWords } from './alignment.js';
import { concatSamples } from './audio.js';
import {
  decodeGreedyBatch,
  decodeWithFallback,
  detectLanguage,
  FALLBACK_TEMPERATURES,
  isSilence,
  WindowDecoder,
  type DecodeResult,
  type DecodeTask,
} from './decoding.js';
import { HOP_LENGTH, logMelSpectrogram, N_SAMPLES, SAMPLE_RATE } from './mel.js';
import { WhisperOnnx } from './model.js';
import type { WhisperTokenizer } from './tokenizer.js';
import type { SileroVad, VadOptions } from './vad.js';
import { speechWindows, windowTimeToSource, type SpeechWindow, type WindowPiece } from './windows.js';

export interface Word {
  start: number;
  end: number;
  text: string;
  prob: number;
}
export interface Segment {
  start: number;
  end: number;
  text: string;
  words: Word[];
  confidence: number;
  language: string;
  /** Set only when the caller asked for speaker labels (diarize.ts): numbered from 0 in order of appearance. */
  speaker?: number;
  /** 0..1, with `speaker`. */
  speakerConfidence?: number;
}
export interface Progress {
  processedS: number;
  totalS: number;
  segmentsDone: number;
  /** Segments known so far: the total is only known at the end of a streamed file. */
  segmentsTotal: number;
  pct: number;
}
export interface TranscribeOptions {
  language?: string;
  /**
   * 'transcribe' (default): text in the spoken language. 'translate': English text, Whisper's <|translate|> task;
   * speech in English is transcribed (Whisper's translation of English is its transcription). `language` stays the
   * spoken one.
   */
  task?: DecodeTask;
  beamSize?: number;
  startS?: number;
  endS?: number;
  signal?: AbortSignal;
  onSegment?: (segment: Segment, progress: Progress) => void;
  onProgress?: (progress: Progress) => void;
  /** Candidates sampled at each fallback temperature (default 2). */
  bestOf?: number;
  /** Fallback temperatures, tried in order (default 0, 0.2 … 1.0 as the reference). */
  temperatures?: number[];
  /** Condition each window on the previous one's text (default true, as the reference). */
  conditionOnPreviousText?: boolean;
  /** Word timings by cross-attention alignment (default true). */
  wordTimestamps?: boolean;
  /** Skip silence with voice activity (default true). */
  vad?: boolean;
  vadOptions?: Partial<VadOptions>;
  /** Diagnostics per decoded window: which fallback temperature was kept and why. */
  onWindow?: (info: WindowInfo) => void;
}

export interface WindowInfo {
  /** Source seconds the window spans (first to last speech sample in it). */
  startS: number;
  endS: number;
  temperature: number;
  avgLogprob: number;
  compressionRatio: number;
  noSpeechProb: number;
  /** True when the window was judged silence and produced no segments. */
  silence: boolean;
}
export interface TranscribeResult {
  segments: Segment[];
  language: string;
  durationS: number;
  processingS: number;
}

/** What the loop needs from a loaded engine. */
export interface PipelineModel {
  model: WhisperOnnx;
  tokenizer: WhisperTokenizer;
  vad: SileroVad;
  /** Windows encoded per encoder call. */
  batchSize: number;
}

/** A segment in window time, with its tokens, before words and source mapping. */
interface WindowSegment {
  start: number;
  end: number;
  tokens: number[];
  /** False when the model did not close it with a timestamp: the speech runs on past the window's end. */
  closed: boolean;
  /** Index in the decoded tokens where this segment's tokens begin. */
  tokenIndex: number;
}

/** Splits decoded tokens at timestamp pairs, as the reference's transcribe loop (times in window seconds). */
export function segmentsFromTokens(tokenizer: WhisperTokenizer, tokens: number[], windowS: number): WindowSegment[] {
  const isTs = (t: number) => tokenizer.isTimestamp(t);
  const segments: WindowSegment[] = [];
  const boundaries: number[] = [];
  for (let i = 1; i < tokens.length; i++) if (isTs(tokens[i - 1]) && isTs(tokens[i])) boundaries.push(i);
  let from = 0;
  for (const to of [...boundaries, tokens.length]) {
    const slice = tokens.slice(from, to);
    from = to;
    const text = slice.filter((t) => !isTs(t));
    if (text.length === 0) continue;
    const first = isTs(slice[0]) ? tokenizer.timestampSeconds(slice[0]) : 0;
    // An unclosed last segment (the window ended mid-sentence) runs to the end of the window.
    const closed = isTs(slice[slice.length - 1]) && slice.length > 1;
    const last = closed ? tokenizer.timestampSeconds(slice[slice.length - 1]) : windowS;
    segments.push({ start: Math.min(first, windowS), end: Math.min(Math.max(last, first), windowS), tokens: text, closed, tokenIndex: to - slice.length });
  }
  return segments;
}

/** Seconds at the end of a window the model may leave untranscribed before they are decoded again. */
const UNCOVERED_TAIL_S = 1.5;
/** A last segment whose timestamps run this far past its last aligned word skipped speech (see transcribeWindow). */
const SKIPPED_SPEECH_S = 3;

/** The end of a window that was not (completely) transcribed: an open last segment, or audio after the last one. */
interface OpenTail {
  /** Window seconds where it starts. */
  startS: number;
  /** Where its tokens start in the decoded tokens (the decoded length when none). */
  tokenIndex: number;
  /** Whether the window's last segment is the open one (held back, and dropped if the tail is redone). */
  holdsSegment: boolean;
}

/** The part of a window from `fromS` (window seconds) on, as a window of its own. */
function windowTail(window: SpeechWindow, fromS: number): SpeechWindow {
  const from = Math.round(fromS * SAMPLE_RATE);
  const pieces: WindowPiece[] = [];
  for (const piece of window.pieces) {
    const end = piece.offset + piece.length;
    if (end <= from) continue;
    const skip = Math.max(0, from - piece.offset);
    pieces.push({ offset: piece.offset + skip - from, sourceStart: piece.sourceStart + skip, length: piece.length - skip });
  }
  return { audio: window.audio.slice(from), pieces, sourceEnd: window.sourceEnd };
}

/** `first` followed by `second` as one window. */
function joinWindows(first: SpeechWindow, second: SpeechWindow): SpeechWindow {
  const audio = concatSamples([first.audio, second.audio]);
  const shifted = second.pieces.map((p) => ({ ...p, offset: p.offset + first.audio.length }));
  return { audio, pieces: [...first.pieces, ...shifted], sourceEnd: second.sourceEnd };
}

/** The task token a window of speech in `language` is decoded with: English is never "translated". */
function taskFor(options: TranscribeOptions, language: string): DecodeTask {
  return options.task === 'translate' && language !== 'en' ? 'translate' : 'transcribe';
}

/** Everything one window yields: its segments on the source timeline. */
export async function transcribeWindow(
  engine: PipelineModel,
  window: SpeechWindow,
  windowDecoder: WindowDecoder,
  language: string,
  options: TranscribeOptions,
  previousTokens: number[],
  /** A temperature-0 decode already made for this window (batched greedy decoding). */
  firstAttempt?: DecodeResult,
): Promise<{ segments: Segment[]; decoded: DecodeResult | null; openTail?: OpenTail }> {
  const { model, tokenizer } = engine;
  const windowS = window.audio.length / SAMPLE_RATE;
  const task = taskFor(options, language);
  const decoded = await decodeWithFallback(
    tokenizer,
    windowDecoder,
    {
      language,
      task,
      beamSize: options.beamSize ?? 1,
      bestOf: options.bestOf ?? 2,
      previousTokens,
      maxInitialTimestampS: 1,
      signal: options.signal,
    },
    options.temperatures ?? FALLBACK_TEMPERATURES,
    firstAttempt,
  );
  const lastPiece = window.pieces[window.pieces.length - 1];
  options.onWindow?.({
    startS: window.pieces[0].sourceStart / SAMPLE_RATE + (options.startS ?? 0),
    endS: (lastPiece.sourceStart + lastPiece.length) / SAMPLE_RATE + (options.startS ?? 0),
    temperature: decoded.temperature,
    avgLogprob: decoded.avgLogprob,
    compressionRatio: decoded.compressionRatio,
    noSpeechProb: decoded.noSpeechProb,
    silence: isSilence(decoded),
  });
  if (isSilence(decoded)) return { segments: [], decoded: null };
  const windowSegments = segmentsFromTokens(tokenizer, decoded.tokens, windowS);
  const allText = windowSegments.flatMap((s) => s.tokens);
  // A translation's words are English: split at spaces whatever was spoken.
  const words =
    options.wordTimestamps === false
      ? []
      : await alignWords(model, tokenizer, windowDecoder.encoderHidden, decoded.sotSequence, allText, Math.ceil(window.audio.length / HOP_LENGTH), task === 'translate' ? 'en' : language);

  const segments: Segment[] = [];
  let openTail: OpenTail | undefined;
  let wordIndex = 0;
  let previousEnd = 0;
  for (const windowSegment of windowSegments) {
    // Words belong to the segment whose tokens they consume.
    let tokensLeft = windowSegment.tokens.length;
    const segmentWords: Word[] = [];
    while (wordIndex < words.length && tokensLeft > 0) {
      const word = words[wordIndex++];
      tokensLeft -= word.tokens.length;
      // Inside the segment and never before the previous word: DTW can drift at segment edges.
      const start = Math.min(Math.max(word.start, windowSegment.start, previousEnd), windowSegment.end);
      const end = Math.min(Math.max(word.end, start), windowSegment.end);
      previousEnd = end;
      segmentWords.push({
        start: windowTimeToSource(window, start),
        end: windowTimeToSource(window, end),
        text: word.text.trim(),
        prob: word.prob,
      });
    }
    const text = tokenizer.decode(windowSegment.tokens).trim();
    if (!text) continue;
    const confidence = segmentWords.length ? segmentWords.reduce((sum, w) => sum + w.prob, 0) / segmentWords.length : Math.exp(decoded.avgLogprob);
    segments.push({
      start: windowTimeToSource(window, windowSegment.start),
      end: windowTimeToSource(window, windowSegment.end),
      text,
      words: segmentWords,
      confidence,
      language,
    });
    openTail = windowSegment.closed ? undefined : { startS: windowSegment.start, tokenIndex: windowSegment.tokenIndex, holdsSegment: true };
  }
  const lastSegment = windowSegments[windowSegments.length - 1];
  const lastWords = segments[segments.length - 1]?.words ?? [];
  if (lastSegment && lastWords.length > 0 && lastSegment.end - previousEnd > SKIPPED_SPEECH_S && windowS - previousEnd > UNCOVERED_TAIL_S) {
    // The last segment's timestamps claim seconds its words do not reach (one word "spanning" 17 s of speech):
    // the model skipped that speech. The segment ends at its last word; the audio after it is decoded again.
    segments[segments.length - 1] = { ...segments[segments.length - 1], end: lastWords[lastWords.length - 1].end };
    openTail = { startS: previousEnd, tokenIndex: decoded.tokens.length, holdsSegment: false };
  } else if (!openTail && lastSegment && windowS - lastSegment.end > UNCOVERED_TAIL_S) {
    // The model closed its last segment well before the window's end and said nothing after: the rest of
    // the window (speech by voice activity) is decoded again with the next window rather than lost.
    openTail = { startS: lastSegment.end, tokenIndex: decoded.tokens.length, holdsSegment: false };
  }
  return { segments, decoded, openTail };
}

/** Runs the whole loop over a PCM source whose length is `totalS` seconds (0 when unknown). */
export async function transcribeSource(
  engine: PipelineModel,
  source: AsyncIterable<Float32Array>,
  totalS: number,
  options: TranscribeOptions = {},
): Promise<TranscribeResult> {
  const started = performance.now();
  const { model, tokenizer } = engine;
  let language = tokenizer.forcedLanguage(options.language);
  const offsetS = options.startS ?? 0;
  const segments: Segment[] = [];
  let previousTokens: number[] = [];
  let sourceSamples = 0;
  let processedS = 0;
  let sourceDone = false;

  const countingSource = (async function* () {
    for await (const chunk of source) {
      sourceSamples += chunk.length;
      yield chunk;
    }
  })();
  const progress = (): Progress => {
    // The container's stated duration is an estimate (rounded, or absent); once decoded, the samples count.
    const total = sourceDone ? sourceSamples / SAMPLE_RATE : Math.max(totalS, sourceSamples / SAMPLE_RATE);
    return {
      processedS,
      totalS: total,
      segmentsDone: segments.length,
      segmentsTotal: segments.length,
      pct: total > 0 ? Math.min(100, Math.round((processedS / total) * 1000) / 10) : 0,
    };
  };

  /**
   * A sentence the model left open at the end of a window (a voice-activity cut inside long speech) is held
   * back and its audio decoded again at the start of the next window, as the reference's seek does: the
   * words then get their whole context. If the two do not fit in 30 s, the held segment is kept as it was.
   */
  let carry: { window: SpeechWindow; segment: Segment | null } | null = null;
  const emit = (segment: Segment) => {
    const shifted = shiftSegment(segment, offsetS);
    segments.push(shifted);
    options.onSegment?.(shifted, progress());
  };
  const flushCarry = () => {
    if (carry?.segment) emit(carry.segment);
    carry = null;
  };

  /**
   * A held tail goes with the next window when both fit in 30 s. When they do not, a held segment is kept as it
   * was, and audio the model did not transcribe is decoded as a window of its own (which may hold a shorter tail
   * of its own: each hold starts ≥ 1 s into its window, so this ends). Audio the model skipped or left is decoded
   * without the previous text as prompt: conditioned on it, the model tends to skip the same speech again.
   */
  const runBatch = async (batch: SpeechWindow[]) => {
    while (carry) {
      if (batch.length === 1 && carry.window.audio.length + batch[0].audio.length <= N_SAMPLES) {
        if (!carry.segment) previousTokens = [];
        batch = [joinWindows(carry.window, batch[0])];
        carry = null;
      } else if (carry.segment) flushCarry();
      else await decodeUncovered();
    }
    await decodeBatch(batch);
  };
  const holdsUncovered = (): boolean => carry !== null && carry.segment === null;
  /** The held audio nothing transcribed yet, decoded alone (at a batch that cannot take it, and at the end). */
  const decodeUncovered = async () => {
    const alone = carry!.window;
    carry = null;
    previousTokens = [];
    await decodeBatch([alone]);
  };

  const decodeBatch = async (batch: SpeechWindow[]) => {
    options.signal?.throwIfAborted();
    const hidden = await model.encode(batch.map((w) => logMelSpectrogram(w.audio)));
    const windowDecoders = batch.map((_, i) => new WindowDecoder(model, WhisperOnnx.sliceBatch(hidden, i, 1)));
    if (!language) language = (await detectLanguage(tokenizer, windowDecoders[0])).language;
    // Several windows and plain greedy search: decode them together, each step one call for all.
    const batched =
      batch.length > 1 && (options.beamSize ?? 1) === 1
        ? await decodeGreedyBatch(model, tokenizer, hidden, language, { maxInitialTimestampS: 1, signal: options.signal, task: taskFor(options, language) })
        : undefined;
    for (let i = 0; i < batch.length; i++) {
      const window = batch[i];
      const { segments: windowSegments, decoded, openTail } = await transcribeWindow(
        engine,
        window,
        windowDecoders[i],
        language,
        options,
        batched ? [] : previousTokens,
        batched?.[i],
      );
      // Carry the open end into the next window, when what is kept makes progress (starts ≥ 1 s in).
      const hold = batch.length === 1 && openTail !== undefined && openTail.startS >= 1 && windowSegments.length > 0;
      const keptTokens = decoded ? (hold ? decoded.tokens.slice(0, openTail!.tokenIndex) : decoded.tokens) : [];
      // Text the model produced while falling back to high temperatures is a poor prompt (reference rule).
      previousTokens =
        options.conditionOnPreviousText === false || !decoded || decoded.temperature > 0.5
          ? []
          : [...previousTokens, ...keptTokens.filter((t) => !tokenizer.isTimestamp(t))];
      processedS = window.sourceEnd / SAMPLE_RATE;
      if (hold) carry = { window: windowTail(window, openTail!.startS), segment: openTail!.holdsSegment ? windowSegments.pop()! : null };
      for (const segment of windowSegments) emit(segment);
      options.onProgress?.(progress());
    }
  };

  // The next window is found (ffmpeg, voice activity on its own thread) while the model works on this one:
  // asking the generator for it before awaiting the batch lets the two overlap on a multi-core host.
  const windows = speechWindows(countingSource, {
    vad: options.vad === false ? null : engine.vad,
    vadOptions: options.vadOptions,
    signal: options.signal,
  });
  let batch: SpeechWindow[] = [];
  try {
    let upcoming = windows.next();
    for (;;) {
      const next = await upcoming;
      if (next.done) break;
      upcoming = windows.next();
      // An abandoned prefetch must not surface as an unhandled rejection; awaiting it rethrows as usual.
      upcoming.catch(() => undefined);
      batch.push(next.value);
      if (batch.length >= engine.batchSize) {
        await runBatch(batch);
        batch = [];
      }
    }
  } finally {
    await windows.return(undefined).catch(() => undefined);
  }
  sourceDone = true;
  if (batch.length) await runBatch(batch);
  while (holdsUncovered()) await decodeUncovered();
  flushCarry();
  processedS = sourceSamples / SAMPLE_RATE;
  options.onProgress?.(progress());
  return {
    segments,
    // With no speech there is nothing to detect from: report the forced language or English.
    language: language ?? 'en',
    durationS: sourceSamples / SAMPLE_RATE,
    processingS: (performance.now() - started) / 1000,
  };
}

function shiftSegment(segment: Segment, offsetS: number): Segment {
  if (!offsetS) return segment;
  const round = (t: number) => t + offsetS;
  return {
    ...segment,
    start: round(segment.start),
    end: round(segment.end),
    words: segment.words.map((w) => ({ ...w, start: round(w.start), end: round(w.end) })),
  };
}

/**
 * The transcription loop, top to bottom: PCM chunks → speech windows (voice activity) → log-mel features →
 * encoder (several windows per call) → language → token decoding with fallback → segments from timestamp
 * tokens → words from cross-attention → segments on the source timeline, reported as they are done.
 */
import { alignWords } from './whisper/alignment.js';
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
} from './whisper/decoding.js';
import { HOP_LENGTH, logMelSpectrogram, N_SAMPLES, SAMPLE_RATE } from './whisper/mel.js';
import { WhisperOnnx } from './whisper/model.js';
import type { WhisperTokenizer } from './whisper/tokenizer.js';
import type { SileroVad, VadOptions } from './vad.js';
import { speechWindows, windowTimeToSource, type Interval, type SpeechWindow, type WindowPiece } from './windows.js';

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
  /**
   * Word timings by cross-attention alignment (default true). Off, the coverage check goes too (it reads the words'
   * times): speech the model skipped is not decoded again, as in whisper.cpp and faster-whisper without word
   * timestamps. For racing them like for like (`--no-words`); the product always aligns.
   */
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
/** Speech no word covers, after the engine decoded it again: source seconds, and how much of it is speech. */
export interface UncoveredSpeech extends Interval {
  speechS: number;
}

export interface TranscribeResult {
  segments: Segment[];
  language: string;
  durationS: number;
  processingS: number;
  /**
   * Seconds of speech (by voice activity) that no transcribed word covers even after the engine decoded those
   * stretches again: 0 when every word heard is in the transcript (also checked with `vad: false`, whose windows
   * are plain 30 s cuts).
   */
  uncoveredSpeechS: number;
  /** Where that speech is (stretches of over MIN_UNCOVERED_SPEECH_S each). */
  uncoveredSpeech: UncoveredSpeech[];
  /** Stretches of uncovered speech that were decoded again (alone, without the previous text as prompt). */
  redecodedGaps: number;
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
    segments.push({
      start: Math.min(first, windowS), end: Math.min(Math.max(last, first), windowS), tokens: text, closed, tokenIndex: to - slice.length,
    });
  }
  return segments;
}

/** Seconds at the end of a window the model may leave untranscribed before they are decoded again. */
const UNCOVERED_TAIL_S = 1.5;
/**
 * Speech (by voice activity) in a shorter untranscribed end that makes it decoded again all the same: a word cut by
 * the window's edge ("And this spills | over", the lecture at 30 s, read by neither window before). Only a window
 * of (nearly) full length can have been cut so: a shorter one ends where the audio or its speech region did, and its
 * last fraction of a second decoded alone made "Thank you." out of nothing at the end of a file.
 */
const TAIL_SPEECH_S = 0.2;
/** A window at least this long may end in speech its edge cut (voice activity splits long regions just under 30 s). */
const EDGE_CUT_WINDOW_S = N_SAMPLES / SAMPLE_RATE - 1;

/** Seconds of `speech` between `from` and `to` (window seconds). */
function speechBetween(speech: Interval[] | undefined, from: number, to: number): number {
  return (speech ?? []).reduce((sum, run) => sum + Math.max(0, Math.min(run.end, to) - Math.max(run.start, from)), 0);
}
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

/** The part of a window from `fromS` to `toS` (window seconds; the end by default), as a window of its own. */
function windowSlice(window: SpeechWindow, fromS: number, toS = window.audio.length / SAMPLE_RATE): SpeechWindow {
  const from = Math.round(fromS * SAMPLE_RATE);
  const to = Math.min(window.audio.length, Math.round(toS * SAMPLE_RATE));
  const pieces: WindowPiece[] = [];
  for (const piece of window.pieces) {
    const start = Math.max(piece.offset, from);
    const end = Math.min(piece.offset + piece.length, to);
    if (end <= start) continue;
    pieces.push({ offset: start - from, sourceStart: piece.sourceStart + start - piece.offset, length: end - start });
  }
  const speech = window.speech
    ?.map((s) => ({ start: Math.max(s.start, fromS) - fromS, end: Math.min(s.end, toS) - fromS }))
    .filter((s) => s.end > s.start);
  return { audio: window.audio.slice(from, to), pieces, sourceEnd: window.sourceEnd, speech };
}

/** The first `samples` of a window, ending where they end on the source. */
function windowHead(window: SpeechWindow, samples: number): SpeechWindow {
  const head = windowSlice(window, 0, samples / SAMPLE_RATE);
  const last = head.pieces[head.pieces.length - 1];
  return last ? { ...head, sourceEnd: last.sourceStart + last.length } : head;
}

/** `first` followed by `second` as one window. */
function joinWindows(first: SpeechWindow, second: SpeechWindow): SpeechWindow {
  const audio = concatSamples([first.audio, second.audio]);
  const shifted = second.pieces.map((p) => ({ ...p, offset: p.offset + first.audio.length }));
  const firstS = first.audio.length / SAMPLE_RATE;
  const speech = first.speech && second.speech ? [
    ...first.speech, ...second.speech.map((s) => ({ start: s.start + firstS, end: s.end + firstS })),
  ] : undefined;
  return { audio, pieces: [...first.pieces, ...shifted], sourceEnd: second.sourceEnd, speech };
}

/** The task token a window of speech in `language` is decoded with: English is never "translated". */
function taskFor(options: TranscribeOptions, language: string): DecodeTask {
  return options.task === 'translate' && language !== 'en' ? 'translate' : 'transcribe';
}

/** Speech stretches longer than this that no word covers are decoded again (and reported if still uncovered). */
const MIN_UNCOVERED_SPEECH_S = 1;
/** A word covers its aligned time and this much on each side: DTW edges move by frames, and speech pads a word. */
const WORD_REACH_S = 0.25;
/** A word as two readings of it share it: lower case, its letters, digits and apostrophes ("Ask," and "ask"). */
export function wordKey(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');
}

/**
 * The most a word is taken to cover: 0.4 s and 80 ms a letter (a slow speaker's "respectable" takes ~1.1 s). DTW
 * stretches a last word over speech the model skipped ("spills" over 8 s); the speech past this is not covered.
 */
export function longestWordS(text: string): number {
  return 0.4 + 0.08 * text.replace(/[^\p{L}\p{N}]/gu, '').length;
}
/** An uncovered stretch is decoded with this much audio around it (context for its first and last words). */
const REDECODE_MARGIN_S = 0.3;
/** A segment of at least SQUEEZED_RUN words each aligned to less than SQUEEZED_S has no audio: made up, not heard. */
const SQUEEZED_S = 0.05;
const SQUEEZED_RUN = 3;
/** Languages written without spaces between words: recovered words are joined as they are. */
const UNSPACED_LANGUAGES = new Set(['zh', 'ja', 'th', 'lo', 'my', 'km', 'yue', 'bo']);

/** Stretches of `speech` no word covers, with their seconds of speech, up to `untilS` (window seconds, in order). */
export function uncoveredStretches(speech: Interval[], words: Interval[], untilS: number): UncoveredSpeech[] {
  const covered = words
    .map((word) => ({ start: word.start - WORD_REACH_S, end: word.end + WORD_REACH_S }))
    .sort((a, b) => a.start - b.start);
  const stretches: UncoveredSpeech[] = [];
  let from = 0;
  const close = (to: number) => {
    let speechS = 0;
    let first = Infinity;
    let last = -Infinity;
    for (const run of speech) {
      const start = Math.max(run.start, from);
      const end = Math.min(run.end, to);
      if (end <= start) continue;
      speechS += end - start;
      first = Math.min(first, start);
      last = Math.max(last, end);
    }
    if (speechS > MIN_UNCOVERED_SPEECH_S) stretches.push({ start: first, end: last, speechS });
  };
  for (const cover of covered) {
    if (cover.start > from) close(Math.min(cover.start, untilS));
    from = Math.max(from, cover.end);
    if (from >= untilS) return stretches;
  }
  close(untilS);
  return stretches;
}

/** A window's segments on the source timeline, with each word's span in window seconds (what coverage is read from). */
interface WindowTranscript {
  segments: Segment[];
  spans: Interval[][];
}

/** What one window yields. */
interface WindowOutcome extends WindowTranscript {
  decoded: DecodeResult | null;
  /** The end the model left open, held for the next window (only when the caller can hold one). */
  openTail?: OpenTail;
  /** Speech still uncovered after decoding it again (source seconds). */
  uncovered: UncoveredSpeech[];
  redecodedGaps: number;
}

/** How a window's result is checked against its speech. */
interface WindowChecks {
  /** The caller carries an open end into the next window (one window at a time). */
  canHold: boolean;
  /** Decode uncovered speech again (false for such a decode itself). */
  recover: boolean;
}

/** Everything one window yields: its segments on the source timeline, checked against the speech it holds. */
export async function transcribeWindow(
  engine: PipelineModel,
  window: SpeechWindow,
  windowDecoder: WindowDecoder,
  language: string,
  options: TranscribeOptions,
  previousTokens: number[],
  /** A temperature-0 decode already made for this window (batched greedy decoding). */
  firstAttempt?: DecodeResult,
  checks: WindowChecks = { canHold: false, recover: true },
): Promise<WindowOutcome> {
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
  const silent = isSilence(decoded);
  const windowSegments = silent ? [] : segmentsFromTokens(tokenizer, decoded.tokens, windowS);
  const allText = windowSegments.flatMap((s) => s.tokens);
  // A translation's words are English: split at spaces whatever was spoken.
  const words =
    options.wordTimestamps === false || silent
      ? []
      : await alignWords(
        model, tokenizer, windowDecoder.encoderHidden, decoded.sotSequence, allText, Math.ceil(window.audio.length / HOP_LENGTH),
        task === 'translate' ? 'en' : language,
      );

  const segments: Segment[] = [];
  const spans: Interval[][] = [];
  let openTail: OpenTail | undefined;
  let wordIndex = 0;
  let previousEnd = 0;
  for (const windowSegment of windowSegments) {
    // Words belong to the segment whose tokens they consume.
    let tokensLeft = windowSegment.tokens.length;
    const segmentWords: Word[] = [];
    const segmentSpans: Interval[] = [];
    while (wordIndex < words.length && tokensLeft > 0) {
      const word = words[wordIndex++];
      tokensLeft -= word.tokens.length;
      // Inside the segment and never before the previous word: DTW can drift at segment edges.
      const start = Math.min(Math.max(word.start, windowSegment.start, previousEnd), windowSegment.end);
      const end = Math.min(Math.max(word.end, start), windowSegment.end);
      previousEnd = end;
      // What a word covers stops at what it could take to say: DTW stretches a word over speech the model skipped.
      segmentSpans.push({ start, end: Math.min(end, start + longestWordS(word.text)) });
      segmentWords.push({
        start: windowTimeToSource(window, start),
        end: windowTimeToSource(window, end),
        text: word.text.trim(),
        prob: word.prob,
      });
    }
    const text = tokenizer.decode(windowSegment.tokens).trim();
    const squeezed = segmentSpans.length >= SQUEEZED_RUN && segmentSpans.every((span) => span.end - span.start < SQUEEZED_S);
    if (!text || squeezed) continue;
    const confidence = segmentWords.length ? segmentWords.reduce((sum, w) => sum + w.prob, 0) / segmentWords.length : Math.exp(
      decoded.avgLogprob,
    );
    segments.push({
      start: windowTimeToSource(window, windowSegment.start),
      end: windowTimeToSource(window, windowSegment.end),
      text,
      words: segmentWords,
      confidence,
      language,
    });
    spans.push(segmentSpans);
    openTail = windowSegment.closed ? undefined : { startS: windowSegment.start, tokenIndex: windowSegment.tokenIndex, holdsSegment: true };
  }
  const lastSegment = windowSegments[windowSegments.length - 1];
  const lastWords = segments[segments.length - 1]?.words ?? [];
  if (lastSegment && lastWords.length > 0 && lastSegment.end - previousEnd > SKIPPED_SPEECH_S && windowS - previousEnd > UNCOVERED_TAIL_S) {
    // The last segment's timestamps claim seconds its words do not reach (one word "spanning" 17 s of speech):
    // the model skipped that speech. The segment ends at its last word; the audio after it is decoded again.
    segments[segments.length - 1] = { ...segments[segments.length - 1], end: lastWords[lastWords.length - 1].end };
    openTail = { startS: previousEnd, tokenIndex: decoded.tokens.length, holdsSegment: false };
  } else if (!openTail && lastSegment && (windowS - lastSegment.end > UNCOVERED_TAIL_S
    || (windowS >= EDGE_CUT_WINDOW_S && speechBetween(window.speech, lastSegment.end, windowS) >= TAIL_SPEECH_S))) {
    // The model closed its last segment well before the window's end, or before speech the window's edge cut, and
    // said nothing after: the rest of the window is decoded again with the next window rather than lost.
    openTail = { startS: lastSegment.end, tokenIndex: decoded.tokens.length, holdsSegment: false };
  }
  // Carry the open end into the next window when the caller can and what is kept makes progress (starts ≥ 1 s in).
  if (openTail && !(checks.canHold && openTail.startS >= 1 && segments.length > 0)) openTail = undefined;

  const outcome: WindowOutcome = { segments, spans, decoded: silent ? null : decoded, openTail, uncovered: [], redecodedGaps: 0 };
  if (options.wordTimestamps === false) return outcome;
  // Speech before the held end (which the next window reads again) is checked now.
  const checked = await recoverUncovered(engine, window, outcome, openTail?.startS ?? windowS, language, options, checks.recover);
  return { ...outcome, ...checked };
}

/**
 * The engine checks its own output: speech (by voice activity) that no word of `transcript` covers before `untilS`
 * (window seconds) is decoded again, alone and without the previous text as prompt (conditioned on it, the model
 * tends to skip the same speech again), and the words of that stretch join the transcript in time order. What even
 * that leaves uncovered is returned, on the source timeline. `transcript` is updated in place.
 */
async function recoverUncovered(
  engine: PipelineModel,
  window: SpeechWindow,
  transcript: WindowTranscript,
  untilS: number,
  language: string,
  options: TranscribeOptions,
  recover = true,
): Promise<{ uncovered: UncoveredSpeech[]; redecodedGaps: number }> {
  if (!window.speech) return { uncovered: [], redecodedGaps: 0 };
  let redecodedGaps = 0;
  for (const stretch of recover ? uncoveredStretches(window.speech, transcript.spans.flat(), untilS) : []) {
    const fromS = Math.max(0, stretch.start - REDECODE_MARGIN_S);
    const recovered = await decodeAlone(
      engine, windowSlice(window, fromS, Math.min(untilS, stretch.end + REDECODE_MARGIN_S)), language, options,
    );
    redecodedGaps++;
    // Only the words of the stretch itself: the margins repeat words the transcript already has.
    const inStretch = (span: Interval) => {
      const middle = (span.start + span.end) / 2 + fromS;
      return middle >= stretch.start - WORD_REACH_S / 2 && middle <= stretch.end + WORD_REACH_S / 2;
    };
    recovered.segments.forEach((segment, i) => {
      const keep = recovered.spans[i].map(inStretch);
      const kept = segmentOfWords(segment, keep, language);
      if (!kept) return;
      transcript.segments.push(kept);
      transcript.spans.push(
        recovered.spans[i].filter((_, j) => keep[j]).map((span) => ({ start: span.start + fromS, end: span.end + fromS })),
      );
    });
  }
  if (redecodedGaps > 0) sortSegments(transcript);
  const uncovered = uncoveredStretches(window.speech, transcript.spans.flat(), untilS).map((stretch) => ({
    start: windowTimeToSource(window, stretch.start),
    end: windowTimeToSource(window, stretch.end),
    speechS: stretch.speechS,
  }));
  return { uncovered, redecodedGaps };
}

/** Segments (with their spans) in time order. A held open segment starts where the check stops: it stays last. */
function sortSegments(transcript: WindowTranscript): void {
  const order = transcript.segments.map((_, i) => i).sort((a, b) => transcript.segments[a].start - transcript.segments[b].start);
  transcript.segments = order.map((i) => transcript.segments[i]);
  transcript.spans = order.map((i) => transcript.spans[i]);
  // A segment whose timestamps ran over speech it skipped ends at its last word where recovered speech follows.
  transcript.segments.forEach((segment, i) => {
    const next = transcript.segments[i + 1];
    const lastWord = segment.words[segment.words.length - 1];
    if (!next || segment.end <= next.start) return;
    const end = Math.max(next.start, lastWord?.start ?? segment.start);
    transcript.segments[i] = {
      ...segment, end, words: segment.words.map((word) => ({ ...word, end: Math.max(word.start, Math.min(word.end, end)) })),
    };
  });
}

/**
 * Words (trimmed, as segments hold them) as text: spaced unless the language is written without spaces, and joined
 * to the word before where the model wrote one word in pieces ("cold" + "-hearted", "don" + "'t").
 */
export function textOfWords(words: readonly Word[], language: string): string {
  const spaced = !UNSPACED_LANGUAGES.has(language);
  return words.map((word, i) => (i > 0 && spaced && !/^[-'’.,!?;:)]/.test(word.text) ? ` ${word.text}` : word.text)).join('');
}

/** `segment` with only the words `keep` marks (null when none): recovered speech without the margins' repeats. */
function segmentOfWords(segment: Segment, keep: boolean[], language: string): Segment | null {
  const words = segment.words.filter((_, i) => keep[i]);
  if (words.length === 0) return null;
  if (words.length === segment.words.length) return segment;
  const text = textOfWords(words, language);
  return {
    ...segment, start: words[0].start, end: words[words.length - 1].end, text, words,
    confidence: words.reduce((sum, w) => sum + w.prob, 0) / words.length,
  };
}

/** A stretch of a window decoded as a window of its own, without the previous text as prompt and not checked again. */
async function decodeAlone(
  engine: PipelineModel, window: SpeechWindow, language: string, options: TranscribeOptions,
): Promise<WindowTranscript> {
  options.signal?.throwIfAborted();
  const hidden = await engine.model.encode([logMelSpectrogram(window.audio)]);
  const { segments, spans } = await transcribeWindow(
    engine, window, new WindowDecoder(engine.model, hidden), language, options, [], undefined, { canHold: false, recover: false },
  );
  return { segments, spans };
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
  const uncovered: UncoveredSpeech[] = [];
  let redecodedGaps = 0;
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
  let carry: { window: SpeechWindow; segment: Segment | null; spans: Interval[] } | null = null;
  const emit = (segment: Segment) => {
    const kept = withoutRepeatedWord(segments[segments.length - 1], segment, language ?? '');
    if (!kept) return;
    const shifted = shiftSegment(kept, offsetS);
    segments.push(shifted);
    options.onSegment?.(shifted, progress());
  };
  /** A held segment that cannot join the next window is kept as it was, once its audio is checked for skipped speech. */
  const flushCarry = async () => {
    if (!carry?.segment) {
      carry = null;
      return;
    }
    const held: WindowTranscript = { segments: [carry.segment], spans: [carry.spans] };
    const checked = await recoverUncovered(
      engine, carry.window, held, carry.window.audio.length / SAMPLE_RATE, language!, options, options.wordTimestamps !== false,
    );
    uncovered.push(...checked.uncovered);
    redecodedGaps += checked.redecodedGaps;
    carry = null;
    for (const segment of held.segments) emit(segment);
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
      } else if (carry.segment) await flushCarry();
      else await decodeUncovered();
    }
    await decodeBatch(batch);
  };
  /**
   * Plain 30 s cuts (`vad: false`, one window at a time) are cut again where the model stopped, as the reference's
   * seek does: a held tail starts the next window, which is filled to 30 s with the audio after it, and what does
   * not fit starts the window after. (Joined only when both fit, the tail would be decoded as a window of its own,
   * one more encoder pass for a second of audio. Windows of speech regions are not cut again: their cuts are
   * pauses, and a cut anywhere else could split a word.) `queued`: audio after the last window decoded.
   */
  let queued: SpeechWindow | null = null;
  const runSeeking = async (window: SpeechWindow | null) => {
    queued = queued && window ? joinWindows(queued, window) : queued ?? window;
    for (;;) {
      if (carry && queued) {
        if (!carry.segment) previousTokens = [];
        queued = joinWindows(carry.window, queued);
        carry = null;
      }
      // Wait for a full window while the source goes on; at its end, the last window's held tail is the end's to
      // settle (kept as it was, or decoded alone).
      if (!queued || (window && queued.audio.length < N_SAMPLES)) return;
      const full = queued.audio.length > N_SAMPLES;
      const head = full ? windowHead(queued, N_SAMPLES) : queued;
      queued = full ? windowSlice(queued, N_SAMPLES / SAMPLE_RATE) : null;
      await decodeBatch([head]);
    }
  };
  const seeking = options.vad === false && engine.batchSize === 1;
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
        ? await decodeGreedyBatch(model, tokenizer, hidden, language, {
          maxInitialTimestampS: 1, signal: options.signal, task: taskFor(options, language),
        })
        : undefined;
    for (let i = 0; i < batch.length; i++) {
      const window = batch[i];
      const outcome = await transcribeWindow(
        engine,
        window,
        windowDecoders[i],
        language,
        options,
        batched ? [] : previousTokens,
        batched?.[i],
        {
          canHold: batch.length === 1,
          recover: true,
        },
      );
      const { segments: windowSegments, decoded, openTail } = outcome;
      uncovered.push(...outcome.uncovered);
      redecodedGaps += outcome.redecodedGaps;
      const keptTokens = decoded ? (openTail ? decoded.tokens.slice(0, openTail.tokenIndex) : decoded.tokens) : [];
      // Text the model produced while falling back to high temperatures is a poor prompt (reference rule).
      previousTokens =
        options.conditionOnPreviousText === false || !decoded || decoded.temperature > 0.5
          ? []
          : [...previousTokens, ...keptTokens.filter((t) => !tokenizer.isTimestamp(t))];
      processedS = window.sourceEnd / SAMPLE_RATE;
      if (openTail) {
        const heldSpans = openTail.holdsSegment ? outcome.spans.pop()!.map((span) => ({
          start: span.start - openTail.startS, end: span.end - openTail.startS,
        })) : [];
        carry = {
          window: windowSlice(window, openTail.startS), segment: openTail.holdsSegment ? windowSegments.pop()! : null, spans: heldSpans,
        };
      }
      for (const segment of windowSegments) emit(segment);
      options.onProgress?.(progress());
    }
  };

  // The next window is found (ffmpeg, voice activity on its own thread) while the model works on this one:
  // asking the generator for it before awaiting the batch lets the two overlap on a multi-core host.
  const windows = speechWindows(countingSource, {
    // Without voice activity the windows are plain 30 s cuts; it still scores the speech the words must cover.
    vad: engine.vad,
    fixed: options.vad === false,
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
      if (seeking) {
        await runSeeking(next.value);
        continue;
      }
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
  if (seeking) await runSeeking(null);
  if (batch.length) await runBatch(batch);
  while (holdsUncovered()) await decodeUncovered();
  await flushCarry();
  processedS = sourceSamples / SAMPLE_RATE;
  options.onProgress?.(progress());
  return {
    segments,
    // With no speech there is nothing to detect from: report the forced language or English.
    language: language ?? 'en',
    durationS: sourceSamples / SAMPLE_RATE,
    processingS: (performance.now() - started) / 1000,
    uncoveredSpeechS: uncovered.reduce((sum, stretch) => sum + stretch.speechS, 0),
    uncoveredSpeech: uncovered.map((stretch) => shiftInterval(stretch, offsetS)),
    redecodedGaps,
  };
}

/** Seconds apart at which the same word at the end of one window and the start of the next is one word said once. */
const REPEAT_GAP_S = 0.3;

/**
 * `segment` without its first word when that word is the one `previous` ended with, said at the same time: a
 * window cut inside a word (speech longer than 30 s) lets both windows hear it. Null when nothing is left.
 */
function withoutRepeatedWord(previous: Segment | undefined, segment: Segment, language: string): Segment | null {
  const last = previous?.words[previous.words.length - 1];
  const first = segment.words[0];
  if (!last || !first || wordKey(last.text) !== wordKey(first.text) || !wordKey(first.text) || first.start - last.end > REPEAT_GAP_S) {
    return segment;
  }
  return segmentOfWords(segment, segment.words.map((_, i) => i > 0), language);
}

function shiftInterval<T extends Interval>(interval: T, offsetS: number): T {
  return { ...interval, start: interval.start + offsetS, end: interval.end + offsetS };
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

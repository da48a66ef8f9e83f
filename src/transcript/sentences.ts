/**
 * Sentences are what readers see as lines: the transcript snapshot, the exports and the confidence policy all
 * work on them. Whisper segments cut wherever the decoder paused, so a sentence may span segments (same speaker)
 * and a segment may hold several sentences; words carry the timings that let us cut precisely.
 */
import type { CommittedSegment, Word } from './segments.js';
/** What a sentence is cut from: committed segments (the fields it reads). */
export type SentenceSource = Pick<CommittedSegment, 'seq' | 'speaker' | 'start' | 'end' | 'text' | 'words' | 'confidence'>;

export interface Sentence {
  /** `<seq of the first segment>.<index of its first word>`: stable while later segments are appended. */
  id: string;
  speaker: number;
  start: number;
  end: number;
  text: string;
  /** Mean word probability (0..1), null when no word timings exist. */
  confidence: number | null;
  /** Segments the sentence draws words from. */
  seqs: number[];
  /** Where its last word is, written as ids are (`<seq>.<word index>`): a sentence covers `id` through it. */
  lastWordId: string;
}

export interface ConfidencePolicy { hideBelow: number; lowThreshold?: number; suppressCount?: number }
export const DEFAULT_CONFIDENCE_POLICY: ConfidencePolicy = { hideBelow: 0.6 };

const SENTENCE_END = /[.!?…。？！]["')\]]*$/;

export function buildSentences(segments: SentenceSource[]): Sentence[] {
  const sentences: Sentence[] = [];
  let open: { id: string; speaker: number; words: Word[]; seqs: number[]; lastWordId: string } | null = null;
  const close = () => {
    if (open && open.words.length) sentences.push(finish(open));
    open = null;
  };
  for (const segment of [...segments].sort((a, b) => a.seq - b.seq)) {
    if (open && (open as { speaker: number }).speaker !== segment.speaker) close();
    const words = segment.words.length
      ? segment.words
      : // No word timings: the whole segment counts as one word so it still becomes a line.
        [{ start: segment.start, end: segment.end, text: segment.text, prob: segment.confidence ?? 1 }];
    words.forEach((word, index) => {
      if (!open) open = { id: `${segment.seq}.${index}`, speaker: segment.speaker, words: [], seqs: [], lastWordId: '' };
      const current = open as { words: Word[]; seqs: number[]; lastWordId: string };
      current.words.push(word);
      current.lastWordId = `${segment.seq}.${index}`;
      if (!current.seqs.includes(segment.seq)) current.seqs.push(segment.seq);
      if (SENTENCE_END.test(word.text.trim())) close();
    });
  }
  close();
  return sentences;
}

/**
 * A sentence as `transcript.sentence` frames carry it: `complete` once closed (end punctuation, another speaker, or the
 * recording's end).
 */
export type SentenceFrameBody = Sentence & { complete: boolean };

/**
 * The sentences holding any of `touched` (segment seqs), rebuilt from `segments`: a stretch of the recording that
 * starts where a sentence starts (the caller reads it so). The last sentence is open (it may still grow) unless it
 * ends in sentence punctuation or `ended` says no segment will follow.
 */
export function sentencesTouching(segments: SentenceSource[], touched: Iterable<number>, ended = false): SentenceFrameBody[] {
  const seqs = new Set(touched);
  const sentences = buildSentences(segments);
  return sentences
    .map((sentence, index) => ({ ...sentence, complete: ended || index < sentences.length - 1 || closesSentence(sentence.text) }))
    .filter((sentence) => sentence.seqs.some((seq) => seqs.has(seq)));
}

/** Whether a segment's text closes the sentence it ends (so the next segment starts a new one). */
export function closesSentence(text: string): boolean {
  return SENTENCE_END.test(text.trim());
}

function finish(open: { id: string; speaker: number; words: Word[]; seqs: number[]; lastWordId: string }): Sentence {
  const text = joinWords(open.words.map((w) => w.text));
  const probs = open.words.map((w) => w.prob).filter((p) => Number.isFinite(p));
  return {
    id: open.id,
    speaker: open.speaker,
    start: open.words[0]!.start,
    end: open.words[open.words.length - 1]!.end,
    text,
    confidence: probs.length ? probs.reduce((a, b) => a + b, 0) / probs.length : null,
    seqs: open.seqs,
    lastWordId: open.lastWordId,
  };
}

/** Characters written without spaces between words (CJK scripts, Thai). */
const NO_SPACE_SCRIPT = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\u0e00-\u0e7f]/;
/** Punctuation that attaches to the word before it. */
const ATTACHES_LEFT = /^[.,!?;:…%)\]}»”’、。，！？：；]/;

/**
 * Joins word texts into a line. Words may carry Whisper's leading space (" forward") or come trimmed from the
 * engine ("forward"): trimmed words get a space, except before closing punctuation and between characters of
 * scripts written without spaces.
 */
export function joinWords(words: string[]): string {
  let out = '';
  for (const word of words) {
    if (!word) continue;
    if (/^\s/.test(word) || out === '') {
      out += word;
      continue;
    }
    const glue = ATTACHES_LEFT.test(word) || (NO_SPACE_SCRIPT.test(out.at(-1)!) && NO_SPACE_SCRIPT.test(word[0]!));
    out += glue ? word : ` ${word}`;
  }
  return out.replace(/\s+/g, ' ').trim();
}

export function isUnclear(sentence: { confidence: number | null }, policy: ConfidencePolicy = DEFAULT_CONFIDENCE_POLICY): boolean {
  return sentence.confidence !== null && sentence.confidence < policy.hideBelow;
}

/**
 * A segment judged on its own, as a listener's live line is (the subscribe socket withholds it as `noop`): by its
 * words' mean probability, or the segment's confidence when it has no word timings.
 */
export function isUnclearSegment(
  segment: { words: unknown; confidence: number | null }, policy: ConfidencePolicy = DEFAULT_CONFIDENCE_POLICY,
): boolean {
  const probs = (Array.isArray(segment.words) ? (segment.words as Array<{ prob?: unknown }>) : []).map((w) => w.prob).filter(
    (p): p is number => typeof p === 'number' && Number.isFinite(p),
  );
  const confidence = probs.length ? probs.reduce((a, b) => a + b, 0) / probs.length : segment.confidence;
  return isUnclear({ confidence }, policy);
}

/** The fields of a ConfidencePolicy, each with the range a stored value must be in to count. */
const POLICY_FIELDS: Record<keyof ConfidencePolicy, (value: number) => boolean> = {
  hideBelow: (v) => v >= 0 && v <= 1,
  lowThreshold: (v) => v >= 0 && v <= 1,
  suppressCount: (v) => Number.isInteger(v) && v >= 0,
};

/**
 * The confidence policy that applies, field by field: each field comes from the first of `levels` (the settings
 * objects, most specific first: the recording's, the transcription's, then its broadcasts') that sets it to a
 * valid value; `hideBelow` defaults to 0.60. Stored settings are read leniently: an invalid value counts as unset.
 */
export function resolveConfidencePolicy(...levels: unknown[]): ConfidencePolicy {
  const out: Partial<ConfidencePolicy> = {};
  for (const level of levels) {
    const raw = (level as { confidencePolicy?: Record<string, unknown> | null } | null | undefined)?.confidencePolicy;
    if (!raw || typeof raw !== 'object') continue;
    for (const [field, valid] of Object.entries(POLICY_FIELDS) as Array<[keyof ConfidencePolicy, (value: number) => boolean]>) {
      const value = raw[field];
      if (out[field] === undefined && typeof value === 'number' && Number.isFinite(value) && valid(value)) out[field] = value;
    }
  }
  return { ...out, hideBelow: out.hideBelow ?? DEFAULT_CONFIDENCE_POLICY.hideBelow };
}

/** Reads one stored settings object's policy leniently: only valid numbers override the defaults. */
export function confidencePolicyOf(settings: unknown): ConfidencePolicy {
  return resolveConfidencePolicy(settings);
}

/** Words with `prob` under the policy's `lowThreshold` carry `low: true` (no threshold: the words as they are). */
export function markLowWords<W extends { prob?: unknown }>(words: W[], policy: ConfidencePolicy): Array<W & { low?: true }> {
  const threshold = policy.lowThreshold;
  if (threshold === undefined) return words;
  return words.map((word) => (typeof word.prob === 'number' && word.prob < threshold ? { ...word, low: true as const } : word));
}

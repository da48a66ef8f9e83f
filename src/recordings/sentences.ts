/**
 * Sentences are what readers see as lines: the transcript snapshot, the exports and the confidence policy all
 * work on them. Whisper segments cut wherever the decoder paused, so a sentence may span segments (same speaker)
 * and a segment may hold several sentences; words carry the timings that let us cut precisely.
 */
import type { CommittedSegment, Word } from '../core/segments.js';
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
}

export interface ConfidencePolicy { hideBelow: number; lowThreshold?: number; suppressCount?: number }
export const DEFAULT_CONFIDENCE_POLICY: ConfidencePolicy = { hideBelow: 0.6 };

const SENTENCE_END = /[.!?…。？！]["')\]]*$/;

export function buildSentences(segments: SentenceSource[]): Sentence[] {
  const sentences: Sentence[] = [];
  let open: { id: string; speaker: number; words: Word[]; seqs: number[] } | null = null;
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
      if (!open) open = { id: `${segment.seq}.${index}`, speaker: segment.speaker, words: [], seqs: [] };
      const current = open as { words: Word[]; seqs: number[] };
      current.words.push(word);
      if (!current.seqs.includes(segment.seq)) current.seqs.push(segment.seq);
      if (SENTENCE_END.test(word.text.trim())) close();
    });
  }
  close();
  return sentences;
}

function finish(open: { id: string; speaker: number; words: Word[]; seqs: number[] }): Sentence {
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
export function isUnclearSegment(segment: { words: unknown; confidence: number | null }, policy: ConfidencePolicy = DEFAULT_CONFIDENCE_POLICY): boolean {
  const probs = (Array.isArray(segment.words) ? (segment.words as Array<{ prob?: unknown }>) : []).map((w) => w.prob).filter((p): p is number => typeof p === 'number' && Number.isFinite(p));
  const confidence = probs.length ? probs.reduce((a, b) => a + b, 0) / probs.length : segment.confidence;
  return isUnclear({ confidence }, policy);
}

/** Reads a stored policy leniently: only valid numbers override the defaults. */
export function confidencePolicyOf(settings: unknown): ConfidencePolicy {
  const raw = (settings as { confidencePolicy?: Partial<ConfidencePolicy> } | null)?.confidencePolicy;
  const hideBelow = typeof raw?.hideBelow === 'number' && raw.hideBelow >= 0 && raw.hideBelow <= 1 ? raw.hideBelow : DEFAULT_CONFIDENCE_POLICY.hideBelow;
  return { ...raw, hideBelow };
}

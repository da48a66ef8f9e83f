/**
 * AI-assisted auto-fix (`llmFix`): a committed line is sent with the lines before it to an OpenAI-compatible chat
 * API (src/core/chat-completions.ts), which answers the line with what speech recognition gets wrong fixed
 * (misheard words in context, casing, punctuation). The model's answer is taken only as a fix of the line, never as
 * a rewrite: a word sequence further from the heard one than a few edits (`acceptedFix`) is refused and the line
 * keeps what was heard. The fixed words keep the heard words' times (`retimedWords`), so exports and clips stay
 * aligned. When and how a session holds its lines for this is session.ts's part.
 */
import { chatCompletion, parseJsonContent, ChatError, type ChatMessage, type ChatSettings } from '../core/chat-completions.js';
import type { Word } from '../transcript/index.js';

/** A committed line as heard, and the lines committed before it (oldest first), for context. */
export interface LineToFix {
  text: string;
  language: string | null;
  context: string[];
}

/** Asks a model for the fixed text of one line; throws a ChatError when it cannot answer. */
export type FixLine = (line: LineToFix) => Promise<string>;

/** Lines before the one fixed that go with it as context. */
export const CONTEXT_LINES = 3;

const INSTRUCTIONS =
  'You fix live speech-recognition output. You get the previous lines for context and one new line. Fix only what '
  + 'speech recognition gets wrong in the new line: misheard words that the context makes clear, casing, punctuation. '
  + 'Keep the speaker\'s words, order and language; never summarise, translate, add or drop content. Answer a JSON '
  + 'object {"text": "<the new line, fixed>"}; when nothing needs fixing, answer the line unchanged.';

/** The chat API client: one request per line, answered as `{"text": …}`. */
export function chatLineFixer(settings: ChatSettings, fetchImpl: typeof fetch = fetch): FixLine {
  return async (line) => {
    const messages: ChatMessage[] = [
      { role: 'system', content: INSTRUCTIONS },
      {
        role: 'user',
        content: JSON.stringify({ language: line.language, previousLines: line.context.slice(-CONTEXT_LINES), line: line.text }),
      },
    ];
    const answer = parseJsonContent(await chatCompletion(settings, messages, fetchImpl));
    const text = (answer as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') throw new ChatError('The chat answer has no "text" string.', 'body');
    return text;
  };
}

/** Words of a line as compared: lower case, without punctuation around them (what a fix of casing or commas changes). */
function wordKey(word: string): string {
  return word.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** Index pairs (heard, fixed) of a longest common subsequence of the two word lists, by `wordKey`. */
function commonWords(heard: string[], fixed: string[]): Array<[number, number]> {
  const a = heard.map(wordKey);
  const b = fixed.map(wordKey);
  const lengths = Array.from({ length: a.length + 1 }, () => new Int32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(
      lengths[i + 1]![j]!, lengths[i]![j + 1]!,
    );
  }
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/**
 * Words a fix may change: a third of the line's, and never fewer than 2. A word replaced counts once (the heard and
 * the fixed words left over pair up), a word added or dropped once.
 */
export function allowedEdits(heardWords: number): number {
  return Math.max(2, Math.ceil(heardWords / 3));
}

/**
 * The fixed text, when it is a fix of `heard` (trimmed, whitespace collapsed): null when it is empty or further from
 * the heard words than `allowedEdits` (the model rewrote the line instead of fixing it, or answered something else).
 */
export function acceptedFix(heard: string, proposed: string): string | null {
  const fixed = proposed.replace(/\s+/g, ' ').trim();
  const heardWords = heard.trim().split(/\s+/).filter(Boolean);
  const fixedWords = fixed.split(' ').filter(Boolean);
  if (fixedWords.length === 0) return heardWords.length === 0 ? '' : null;
  const kept = commonWords(heardWords, fixedWords).length;
  const edits = Math.max(heardWords.length, fixedWords.length) - kept;
  return edits <= allowedEdits(heardWords.length) ? fixed : null;
}

/**
 * The fixed line's words, timed from the heard ones: a word both have keeps its time (and probability); the words
 * of the fix between two kept ones share the time of the heard words they replace, in equal parts, and their lowest
 * probability; a word added where nothing was heard takes no time, at the end of the word before it.
 */
export function retimedWords(heard: readonly Word[], fixedText: string): Word[] {
  const fixed = fixedText.split(/\s+/).filter(Boolean);
  const pairs = commonWords(
    heard.map((w) => w.text.trim()),
    fixed,
  );
  const out: Word[] = [];
  let heardAt = 0;
  let fixedAt = 0;
  const fillGap = (heardEnd: number, fixedEnd: number) => {
    const replaced = heard.slice(heardAt, heardEnd);
    const added = fixed.slice(fixedAt, fixedEnd);
    if (added.length > 0) {
      const before = out[out.length - 1] ?? (heardAt > 0 ? heard[heardAt - 1] : undefined);
      const from = replaced[0]?.start ?? before?.end ?? heard[heardEnd]?.start ?? 0;
      const to = replaced[replaced.length - 1]?.end ?? from;
      const prob = replaced.length > 0 ? Math.min(...replaced.map((w) => w.prob)) : (before?.prob ?? heard[heardEnd]?.prob ?? 0);
      const step = (to - from) / added.length;
      added.forEach((text, k) => out.push({ start: round(from + k * step), end: round(from + (k + 1) * step), text, prob }));
    }
    heardAt = heardEnd;
    fixedAt = fixedEnd;
  };
  for (const [i, j] of pairs) {
    fillGap(i, j);
    out.push({ ...heard[i]!, text: fixed[j]! });
    heardAt = i + 1;
    fixedAt = j + 1;
  }
  fillGap(heard.length, fixed.length);
  return out;
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

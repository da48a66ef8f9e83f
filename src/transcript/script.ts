/**
 * Script following, pure: a recording started with `scriptText` follows it like a teleprompter. Each committed
 * segment's recognized words are aligned to the script's words by a local (Smith–Waterman) alignment of normalised
 * words (case, punctuation, Latin accents and number formatting folded, by the voiced rule's `tokens`) against a band
 * of the script: from a little before where the reader last was (`LOOK_BACK` words, so a repeated phrase is found)
 * to well ahead of it (`LOOK_AHEAD`, so a skipped sentence is found). A match must clear a threshold (enough words
 * heard as written) so that unrelated speech does not snap to the script.
 *
 * Positions: the script's words are its whitespace-separated tokens carrying a letter or digit, numbered from 0.
 * A matched segment covers `scriptFrom` (inclusive) to `scriptPos` (exclusive): `scriptPos` is where the reader now
 * is, the next word to read. Its `text` is those script words as written (what the reader should see), with any
 * words heard before or after the matched stretch kept around them; `recognizedText` is what the recognizer heard.
 */
import { tokens } from './word-tokens.js';

/** Words before the reader's position that a segment may match (a repeated phrase). */
export const LOOK_BACK = 12;
/** Words after the reader's position searched at least (a skipped sentence or paragraph). */
export const LOOK_AHEAD = 300;
/** Unmatched heard words at a segment's edge taken as misrecognitions of the neighbouring script words. */
const MAX_EDGE = 2;

const EXACT = 2;
const SIMILAR = 1;
const MISMATCH = -1;
const GAP = -1;

export interface Script {
  /** The script's words as written. */
  words: string[];
  /** Each word normalised for comparison. */
  keys: string[];
  /** Word i with word i - 1, normalised (filled as the band reaches them). */
  pairs: Array<string | undefined>;
}

export interface ScriptMatch {
  /** The text to show: the matched script words as written (and heard words outside the matched stretch). */
  text: string;
  /** What the recognizer heard. */
  recognizedText: string;
  /** First script word matched (inclusive). */
  scriptFrom: number;
  /** One past the last script word matched: the reader's position. */
  scriptPos: number;
}

/** A word as compared: folded by the voiced rule's `tokens` (case, accents, punctuation, "twenty-one" = "21"). */
const keyOf = (word: string) => tokens(word).join(' ');

/** The script's words: whitespace-separated tokens carrying a letter or digit. */
export function parseScript(text: string): Script {
  const words = text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));
  return { words, keys: words.map(keyOf), pairs: [] };
}

const scripts = new Map<string, Script>();
/** `parseScript`, remembered for the few scripts being followed now (a commit parses its recording's script again). */
export function cachedScript(text: string): Script {
  let script = scripts.get(text);
  if (!script) {
    script = parseScript(text);
    if (scripts.size >= 16) scripts.delete(scripts.keys().next().value!);
    scripts.set(text, script);
  }
  return script;
}

/** A crude sound-alike key: first letter, then consonants without h/w/y, doubled letters once ("metres" = "meters"). */
function soundKey(key: string): string {
  const letters = key.replace(/[^a-z]/g, '');
  return (letters[0] ?? '') + letters.slice(1).replace(/[aeiouhwy]/g, '').replace(/(.)\1+/g, '$1');
}

/** The sound-alike key of a plain word of three letters or more; '' for anything else (it sounds like nothing). */
const soundOf = (key: string) => {
  const sound = key.length >= 3 && /^[a-z]+$/.test(key) ? soundKey(key) : '';
  return sound.length >= 2 ? sound : '';
};

/** A heard word against a written one: the same word, a sound-alike, or neither. */
function score(heard: { key: string; sound: string }, written: string, writtenSound: string): number {
  if (heard.key === written) return EXACT;
  return heard.sound && heard.sound === writtenSound ? SIMILAR : MISMATCH;
}

/** One row of the alignment: per column, the best path's score, where it began (heard row, band column) and its matches. */
interface Row { score: Float64Array; startI: Int32Array; startJ: Int32Array; matches: Int32Array }

/**
 * Aligns what a segment's recognizer heard to `script`, the reader being at `position` (the last matched segment's
 * `scriptPos`, 0 at first). Null when it does not follow the script (too few words heard as written).
 */
export function followScript(script: Script, recognized: string, position: number): ScriptMatch | null {
  const raw = recognized.split(/\s+/).filter(Boolean);
  const heard: Array<{ key: string; sound: string; at: number }> = [];
  raw.forEach((word, at) => {
    const key = keyOf(word);
    if (key) heard.push({ key, sound: soundOf(key), at });
  });
  const n = heard.length;
  if (n === 0 || script.words.length === 0) return null;
  const reader = Math.max(0, Math.min(position, script.words.length));
  const lo = Math.max(0, reader - LOOK_BACK);
  const hi = Math.min(script.words.length, reader + Math.max(LOOK_AHEAD, 8 * n));
  const width = hi - lo;
  if (width === 0) return null;

  // Smith–Waterman over heard (rows) × the script's band (columns), each cell carrying where its path began and how
  // many words on it were heard as written (or sound alike). Two words read as one ("twenty one" for "twenty-one",
  // "21" for "twenty one") is a match too. Rows are flat arrays (a long segment against the band is tens of
  // thousands of cells, computed under the recording's lock).
  const heardPair = heard.map((word, i) => (i > 0 ? keyOf(`${raw[heard[i - 1]!.at]} ${raw[word.at]}`) : ''));
  const bandSound = script.keys.slice(lo, hi).map(soundOf);
  // Column j's word with the one before it (j from 2).
  const pairOf = (k: number) => (script.pairs[k] ??= keyOf(`${script.words[k - 1]} ${script.words[k]}`));
  const scriptPair = Array.from({ length: width + 1 }, (_, j) => (j > 1 ? pairOf(lo + j - 1) : ''));
  const newRow = (): Row => ({
    score: new Float64Array(width + 1), startI: new Int32Array(width + 1), startJ: new Int32Array(width + 1),
    matches: new Int32Array(width + 1),
  });
  const rows: Row[] = [newRow()];
  let best: { endI: number; endJ: number; startI: number; startJ: number; matches: number; rank: number } | null = null;
  // Among equal scores the path starting nearest the reader wins, ahead of it before behind it.
  const distance = (startJ: number) => (lo + startJ >= reader ? lo + startJ - reader : 2 * (reader - lo - startJ));
  // The cell being filled: its best move so far (none: score 0; a gap on either side; a diagonal, one for one, two
  // heard for one written or one heard for two written) and whether it ends on a word heard as written (an
  // alignment ends on one).
  let value = 0;
  let from: Row | null = null;
  let at = 0;
  let matched = false;
  let gain = 0;
  const consider = (source: Row, column: number, step: number, match: boolean) => {
    const base = source.score[column]! > 0 ? source.score[column]! : 0;
    if (!match && base === 0) return; // a gap never starts an alignment
    if (base + step <= value) return;
    value = base + step;
    from = source;
    at = column;
    matched = match;
    gain = match ? 1 : 0;
  };
  for (let i = 1; i <= n; i++) {
    const row = newRow();
    const previous = rows[i - 1]!;
    const twoBack = rows[i - 2];
    for (let j = 1; j <= width; j++) {
      const pair = score(heard[i - 1]!, script.keys[lo + j - 1]!, bandSound[j - 1]!);
      value = 0;
      from = null;
      consider(previous, j - 1, pair, pair > 0);
      consider(previous, j, GAP, false);
      consider(row, j - 1, GAP, false);
      if (twoBack && heardPair[i - 1] === script.keys[lo + j - 1]) consider(twoBack, j - 1, EXACT, true);
      if (j > 1 && heard[i - 1]!.key === scriptPair[j]) consider(previous, j - 2, EXACT, true);
      if (value <= 0 || !from) continue;
      const source = from as Row;
      const continues = source.score[at]! > 0;
      row.score[j] = value;
      row.startI[j] = continues ? source.startI[at]! : i - (source === twoBack ? 2 : 1);
      row.startJ[j] = continues ? source.startJ[at]! : at;
      row.matches[j] = (continues ? source.matches[at]! : 0) + gain;
      if (matched) {
        const rank = value - 0.001 * distance(row.startJ[j]!);
        if (!best || rank > best.rank) {
          best = { endI: i, endJ: j, startI: row.startI[j]!, startJ: row.startJ[j]!, matches: row.matches[j]!, rank };
        }
      }
    }
    rows.push(row);
  }
  if (!best) return null;
  const cell = best;
  // Enough of what was heard is the script: 40 % of the segment's words, and two at least unless the stretch starts
  // with the very next words (a short segment going on where the reader is).
  const next = lo + cell.startJ >= reader && lo + cell.startJ <= reader + 2;
  if (cell.matches < Math.ceil(0.4 * n) || (cell.matches < 2 && !next)) return null;

  let fromI = cell.startI;
  let toI = best.endI;
  let scriptFrom = lo + cell.startJ;
  let scriptPos = lo + best.endJ;
  // Heard words just outside the stretch facing as many unread script words: misrecognitions of those words.
  const head = fromI;
  if (head > 0 && head <= MAX_EDGE && scriptFrom - head >= reader) {
    scriptFrom -= head;
    fromI = 0;
  }
  const tail = n - toI;
  if (tail > 0 && tail <= MAX_EDGE && scriptPos + tail <= script.words.length) {
    scriptPos += tail;
    toI = n;
  }
  const before = fromI > 0 ? raw.slice(0, heard[fromI]!.at) : [];
  const after = toI < n ? raw.slice(heard[toI - 1]!.at + 1) : [];
  const text = [...before, ...script.words.slice(scriptFrom, scriptPos), ...after].join(' ');
  return { text, recognizedText: recognized.trim(), scriptFrom, scriptPos };
}

/**
 * Word error rate: word-level edit distance between a reference and a hypothesis after Whisper-style English
 * text normalisation (a subset of the reference implementation's `EnglishTextNormalizer`: what the normalised
 * words of read English speech need). Used by `npm run bench -- accuracy` and the tests; no engine involved.
 *
 * Normalisation, in order:
 *  1. lower case; text in brackets or parentheses and fillers (hmm, mm, mhm, uh, um) are removed;
 *  2. contractions and titles spelled out ("won't" → "will not", "n't" → " not", "'re" → " are", "mr" → "mister" …);
 *  3. punctuation and symbols become spaces, diacritics are dropped (keeping "'" inside words, "." and "%"
 *     between digits, and "," inside numbers removed: "1,000" → "1000");
 *  4. numbers spelled out become digits ("ten" → "10", "twenty one" → "21", "two hundred and five" → "205");
 *     a run of single numbers stays separate words ("five five" → "5 5");
 *  5. British spellings become American ones when a spelling table is given (Whisper's `normalizer.json`,
 *     shipped with every model: `loadSpellings(modelDir)`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Spellings = Readonly<Record<string, string>>;

const FILLERS = /\b(hmm|mm|mhm|mmm|uh|um)\b/g;

/** Whole-word replacements (the reference's contractions and titles). */
const REPLACEMENTS: [RegExp, string][] = [
  [/\bwon't\b/g, 'will not'],
  [/\bcan't\b/g, 'can not'],
  [/\blet's\b/g, 'let us'],
  [/\bain't\b/g, 'aint'],
  [/\by'all\b/g, 'you all'],
  [/\bwanna\b/g, 'want to'],
  [/\bgotta\b/g, 'got to'],
  [/\bgonna\b/g, 'going to'],
  [/\bi'ma\b/g, 'i am going to'],
  [/\bimma\b/g, 'i am going to'],
  [/\bwoulda\b/g, 'would have'],
  [/\bcoulda\b/g, 'could have'],
  [/\bshoulda\b/g, 'should have'],
  [/\bma'am\b/g, 'madam'],
  [/\bmr\b/g, 'mister '],
  [/\bmrs\b/g, 'missus '],
  [/\bst\b/g, 'saint '],
  [/\bdr\b/g, 'doctor '],
  [/\bprof\b/g, 'professor '],
  [/\bcapt\b/g, 'captain '],
  [/\bgov\b/g, 'governor '],
  [/\bsen\b/g, 'senator '],
  [/\brep\b/g, 'representative '],
  [/\bpres\b/g, 'president '],
  [/\brev\b/g, 'reverend '],
  [/\bhon\b/g, 'honorable '],
  [/\blt\b/g, 'lieutenant '],
  [/\bcol\b/g, 'colonel '],
  [/\bjr\b/g, 'junior '],
  [/\bsr\b/g, 'senior '],
  [/\besq\b/g, 'esquire '],
  [/'d been\b/g, ' had been'],
  [/'s been\b/g, ' has been'],
  [/'d gone\b/g, ' had gone'],
  [/'s gone\b/g, ' has gone'],
  [/'d done\b/g, ' had done'],
  [/'s got\b/g, ' has got'],
  [/n't\b/g, ' not'],
  [/'re\b/g, ' are'],
  [/'ll\b/g, ' will'],
  [/'t\b/g, ' not'],
  [/'ve\b/g, ' have'],
  [/'m\b/g, ' am'],
];

const ONES: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const MULTIPLIERS: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000, billion: 1_000_000_000 };
const isNumberWord = (word: string | undefined) => word !== undefined && (word in ONES || word in TENS || word in MULTIPLIERS);

/**
 * Spelled-out numbers → digits. A number is read greedily: [tens] [ones] [multiplier [and] …]; a new number
 * starts where the next word could not continue this one ("five five" → "5 5", "twenty one" → "21").
 */
function numbersToDigits(words: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < words.length) {
    if (!isNumberWord(words[i]) || words[i]! in MULTIPLIERS) {
      out.push(words[i]!);
      i++;
      continue;
    }
    let total = 0; // completed groups (thousands, millions)
    let group = 0; // the group being read (< 1000)
    let last: 'ones' | 'tens' | 'hundred' | 'big' | null = null;
    while (i < words.length) {
      const word = words[i]!;
      if (word in TENS && (last === null || last === 'hundred' || last === 'big')) {
        group += TENS[word]!;
        last = 'tens';
      } else if (word in ONES && (last === null || last === 'hundred' || last === 'big' || (last === 'tens' && ONES[word]! < 10 && ONES[word]! > 0))) {
        group += ONES[word]!;
        last = 'ones';
      } else if (word === 'hundred' && (last === 'ones' || last === 'tens') && group < 100) {
        group *= 100;
        last = 'hundred';
      } else if (word in MULTIPLIERS && word !== 'hundred' && last !== null && last !== 'big') {
        total += group * MULTIPLIERS[word]!;
        group = 0;
        last = 'big';
      } else if (word === 'and' && (last === 'hundred' || last === 'big') && isNumberWord(words[i + 1]) && !(words[i + 1]! in MULTIPLIERS)) {
        // "two hundred and five": "and" belongs to the number
      } else {
        break;
      }
      i++;
    }
    out.push(String(total + group));
  }
  return out;
}

/** Whisper's British → American spelling table from a model directory (`normalizer.json`), or {} when absent. */
export function loadSpellings(modelDir: string): Spellings {
  const file = join(modelDir, 'normalizer.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Spellings) : {};
}

/** The normalised words of `text` (see the module comment for the rules). */
export function normaliseText(text: string, spellings: Spellings = {}): string[] {
  let s = text.toLowerCase();
  s = s.replace(/[<[][^>\]]*[>\]]/g, ' ').replace(/\(([^)]+?)\)/g, ' ');
  s = s.replace(FILLERS, ' ');
  // "i 'm" → "i'm" (a contraction split by a space), but a quote opening a word stays apart.
  s = s.replace(/[’‘]/g, "'").replace(/\s+'(s|re|ll|ve|m|d|t)\b/g, "'$1");
  for (const [pattern, replacement] of REPLACEMENTS) s = s.replace(pattern, replacement);
  s = s.replace(/(\d),(\d)/g, '$1$2');
  // Diacritics off, then every symbol or punctuation mark a space, except "." and "%" next to digits and "'".
  s = s.normalize('NFKD').replace(/\p{M}/gu, '');
  s = s.replace(/(\d)\.(\d)/g, '$1\u0000$2').replace(/(\d)%/g, '$1\u0001');
  s = s.replace(/[^\p{L}\p{N}'\u0000\u0001]+/gu, ' ').replace(/\u0000/g, '.').replace(/\u0001/g, '%');
  // Apostrophes that do not join two letters ("'tis" keeps its word, quotes go).
  s = s.replace(/(^|[^\p{L}])'+|'+(?=[^\p{L}]|$)/gu, '$1 ');
  const words = s.split(/\s+/).filter(Boolean);
  return numbersToDigits(words).map((word) => spellings[word] ?? word);
}

export interface EditCounts {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** substitutions + deletions + insertions */
  errors: number;
  /** Reference words. */
  words: number;
}

/** Word-level Levenshtein alignment of `hypothesis` against `reference`, with the kinds of edit counted. */
export function editCounts(reference: readonly string[], hypothesis: readonly string[]): EditCounts {
  const rows = reference.length + 1;
  const cols = hypothesis.length + 1;
  const cost = new Uint32Array(rows * cols);
  for (let j = 0; j < cols; j++) cost[j] = j;
  for (let i = 1; i < rows; i++) {
    cost[i * cols] = i;
    for (let j = 1; j < cols; j++) {
      const same = reference[i - 1] === hypothesis[j - 1] ? 0 : 1;
      cost[i * cols + j] = Math.min(cost[(i - 1) * cols + j]! + 1, cost[i * cols + j - 1]! + 1, cost[(i - 1) * cols + j - 1]! + same);
    }
  }
  // Walk back along one cheapest path to tell the kinds apart.
  const counts: EditCounts = { substitutions: 0, deletions: 0, insertions: 0, errors: cost[rows * cols - 1]!, words: reference.length };
  let i = reference.length;
  let j = hypothesis.length;
  while (i > 0 || j > 0) {
    const here = cost[i * cols + j]!;
    if (i > 0 && j > 0 && here === cost[(i - 1) * cols + j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1)) {
      if (reference[i - 1] !== hypothesis[j - 1]) counts.substitutions++;
      i--;
      j--;
    } else if (i > 0 && here === cost[(i - 1) * cols + j]! + 1) {
      counts.deletions++;
      i--;
    } else {
      counts.insertions++;
      j--;
    }
  }
  return counts;
}

/** Corpus word error rate: all edits over all reference words (texts normalised first). */
export function wordErrorRate(pairs: readonly { reference: string; hypothesis: string }[], spellings: Spellings = {}): EditCounts & { wer: number } {
  const total: EditCounts = { substitutions: 0, deletions: 0, insertions: 0, errors: 0, words: 0 };
  for (const { reference, hypothesis } of pairs) {
    const counts = editCounts(normaliseText(reference, spellings), normaliseText(hypothesis, spellings));
    total.substitutions += counts.substitutions;
    total.deletions += counts.deletions;
    total.insertions += counts.insertions;
    total.errors += counts.errors;
    total.words += counts.words;
  }
  return { ...total, wer: total.words > 0 ? total.errors / total.words : 0 };
}

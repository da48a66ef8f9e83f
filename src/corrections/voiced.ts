/**
 * The voiced rule of corrections, pure: a correction is voiced only when every word it says is a word the audio
 * supports (the recognizer's text of the line; punctuation, case, Latin accents and number formatting aside:
 * "Twenty-one" = "21", "café" = "cafe") and it drops no negation the audio has ("not", "never", "n't", "no" and
 * their equivalents in Spanish, Italian, French, German and Portuguese). Otherwise voices keep speaking what the
 * recognizer heard (`notVoicedReason: 'rewrite'`).
 */

const UNITS: Record<string, number> = {
  zero: 0, oh: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { thousand: 1_000, million: 1_000_000, billion: 1_000_000_000 };

const isNumberWord = (token: string) => token in UNITS || token in TENS || token === 'hundred' || token in SCALES;

/**
 * Negations after normalisation (accents folded): English, Spanish, Italian, French, German, Portuguese. A token
 * ending in "nt" that was written with "n't" is caught before the apostrophe goes (see `tokens`).
 */
const NEGATIONS = new Set([
  'not', 'no', 'never', 'nor', 'neither', 'none', 'nobody', 'nothing', 'nowhere', 'cannot',
  'nunca', 'jamas', 'nada', 'nadie', 'ni', 'tampoco', 'ninguno', 'ninguna',
  'non', 'mai', 'niente', 'nulla', 'nessuno', 'nessuna',
  'ne', 'pas', 'rien', 'aucun', 'aucune',
  'nicht', 'nie', 'niemals', 'kein', 'keine', 'keinen', 'keinem', 'keiner', 'nichts', 'niemand',
  'nao', 'nem', 'nenhum', 'nenhuma', 'ninguem',
]);

/** Lower case, Latin accents folded (NFD, combining marks dropped). */
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();

/** Runs of English number words ("one hundred and twenty one", "two thousand") become their digits ("121", "2000"). */
function collapseNumbers(tokens: string[]): string[] {
  const out: string[] = [];
  let index = 0;
  while (index < tokens.length) {
    if (!isNumberWord(tokens[index]!)) {
      out.push(tokens[index]!);
      index += 1;
      continue;
    }
    let total = 0;
    let current = 0;
    let end = index;
    while (end < tokens.length) {
      const token = tokens[end]!;
      // "and" inside a number ("one hundred and five") only when a number word follows it.
      if (token === 'and' && end > index && end + 1 < tokens.length && isNumberWord(tokens[end + 1]!)) { end += 1; continue; }
      if (token in UNITS) current += UNITS[token]!;
      else if (token in TENS) current += TENS[token]!;
      else if (token === 'hundred') current = (current || 1) * 100;
      else if (token in SCALES) { total += (current || 1) * SCALES[token]!; current = 0; }
      else break;
      end += 1;
    }
    out.push(String(total + current));
    index = end;
  }
  return out;
}

/**
 * The words of a text as the rule compares them: folded, negations written with "n't" marked as `not` after their
 * stem ("don't" → "do", "not"; "can't" → "ca", "not"), punctuation gone (digit grouping too: "1,000" = "1000"),
 * hyphens split ("twenty-one"), English number words as digits.
 */
export function tokens(text: string): string[] {
  const folded = fold(text)
    .replace(/[’‘`´]/g, "'")
    .replace(/\b(can)not\b/g, '$1 not')
    .replace(/\bcan't\b/g, 'can not')
    .replace(/\bwon't\b/g, 'will not')
    .replace(/n't\b/g, ' not')
    .replace(/\bn'/g, 'ne ')
    .replace(/(\d)[,.](?=\d{3}\b)/g, '$1')
    .replace(/[^\p{L}\p{N}\s.]|(?<!\d)\.|\.(?!\d)/gu, ' ');
  return collapseNumbers(folded.split(/\s+/).filter(Boolean));
}

/** Every word of `said` is a word of one of the `heard` texts (as `tokens` compares them). */
export function saysOnlyHeard(said: string, heard: string[]): boolean {
  const supported = new Set(heard.flatMap(tokens));
  return tokens(said).every((word) => supported.has(word));
}

const negationCount = (words: string[]) => words.filter((word) => NEGATIONS.has(word)).length;

export interface VoicedVerdict {
  voiced: boolean;
  notVoicedReason: 'rewrite' | null;
}

/**
 * The rule for one correction. `said`: the words the correction says (a word edit's new word, a line's new text);
 * `heard`: the texts the audio supports (the recognizer's text of the line, and a fresh reading of its audio when
 * there is one); `resulting`: the line as it reads after the correction (its negations must not be fewer than the
 * recognizer's).
 */
export function voicedVerdict(input: { said: string; heard: string[]; resulting: string }): VoicedVerdict {
  const everyWordHeard = saysOnlyHeard(input.said, input.heard);
  const recognized = input.heard[0] ?? '';
  const keepsNegations = negationCount(tokens(input.resulting)) >= negationCount(tokens(recognized));
  const voiced = everyWordHeard && keepsNegations;
  return { voiced, notVoicedReason: voiced ? null : 'rewrite' };
}

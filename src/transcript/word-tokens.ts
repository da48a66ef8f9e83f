/**
 * Words as compared across the recognizer's text and a person's (the voiced rule of corrections, script following):
 * case, Latin accents, punctuation and English number formatting folded ("Twenty-one" = "21", "café" = "cafe").
 */

const UNITS: Record<string, number> = {
  zero: 0, oh: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Record<string, number> = { thousand: 1_000, million: 1_000_000, billion: 1_000_000_000 };

const isNumberWord = (token: string) => token in UNITS || token in TENS || token === 'hundred' || token in SCALES;

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
 * The words of a text as the voiced rule of corrections and script following compare them: folded, negations written
 * with "n't" marked as `not` after their
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

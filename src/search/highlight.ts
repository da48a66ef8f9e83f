/**
 * The snippet of a search hit: the sentence's text, HTML-escaped, with every word that matched wrapped in
 * `<mark>`…`</mark>` (a query word itself, a form sharing its stem, or a misspelling close to it by trigrams), cut
 * to a window around the first match when the sentence is long. Safe to insert as HTML as it is.
 */

/** Lower case, Latin accents off, punctuation at the edges off: how words are compared. */
export function normalizeWord(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** The words of a query as a user typed it (quotes, `or`, and `-excluded` words aside). */
export function queryWords(q: string): string[] {
  return q
    .split(/\s+/)
    .filter((word) => !word.startsWith('-') && word.toLowerCase() !== 'or')
    .map(normalizeWord)
    .filter(Boolean);
}

/** The query as literal text: what `ILIKE` and trigram similarity compare (websearch syntax off). */
export function literalText(q: string): string {
  return q.replace(/["]/g, ' ').replace(/\s+/g, ' ').trim();
}

function trigrams(word: string): Set<string> {
  const padded = `  ${word} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return out;
}

/** pg_trgm's word similarity of `term` to `word`: the share of the term's trigrams the word has. */
export function wordSimilarity(term: string, word: string): number {
  const x = trigrams(term);
  const y = trigrams(word);
  let shared = 0;
  for (const t of x) if (y.has(t)) shared++;
  return shared / x.size;
}

/** The trigram word similarity at which a misspelt word counts as matching (the query's threshold too). */
export const FUZZY_THRESHOLD = 0.5;

function matches(word: string, terms: string[]): boolean {
  if (!word) return false;
  return terms.some((term) =>
    word === term
    // Forms sharing a stem ("transcribe", "transcribed"): a common start of at least 4 letters covering most of both.
    || (term.length >= 4 && word.length >= 4 && commonPrefix(word, term) >= Math.max(4, Math.min(word.length, term.length) - 2))
    || (term.length >= 4 && wordSimilarity(term, word) >= FUZZY_THRESHOLD));
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Words a snippet keeps around its first match when the sentence is longer than `MAX_WORDS`. */
const MAX_WORDS = 32;
const BEFORE = 10;

export function snippet(text: string, q: string): string {
  const terms = queryWords(q);
  const words = text.split(/\s+/).filter(Boolean);
  const marked = words.map((word) => matches(normalizeWord(word), terms));
  let from = 0;
  let to = words.length;
  if (words.length > MAX_WORDS) {
    const first = Math.max(0, marked.indexOf(true));
    from = Math.max(0, Math.min(first - BEFORE, words.length - MAX_WORDS));
    to = from + MAX_WORDS;
  }
  const body = words
    .slice(from, to)
    .map((word, i) => {
      if (!marked[from + i]) return escapeHtml(word);
      // Punctuation around the word stays outside the mark: "<mark>Dublin</mark>,".
      const [, lead, core, trail] = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/su.exec(word)!;
      return `${escapeHtml(lead!)}<mark>${escapeHtml(core!)}</mark>${escapeHtml(trail!)}`;
    })
    .join(' ')
    .replace(/<\/mark> <mark>/g, ' ');
  return `${from > 0 ? '… ' : ''}${body}${to < words.length ? ' …' : ''}`;
}

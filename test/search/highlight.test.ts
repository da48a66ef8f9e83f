/** The snippet's marks: exact words, stems and close misspellings marked, punctuation outside, HTML escaped, long lines cut. */
import { describe, expect, it } from 'vitest';
import { literalText, queryWords, snippet } from '../../src/search/highlight.js';

describe('snippet', () => {
  it('marks the matched words, keeping punctuation outside and merging a phrase into one mark', () => {
    expect(snippet('And says, how do I get to Dublin, and the answer', 'dublin')).toBe('And says, how do I get to <mark>Dublin</mark>, '
      + 'and the answer');
    expect(snippet('much of political philosophy develops theories', '"political philosophy" theory')).toBe('much of <mark>political '
      + 'philosophy</mark> develops <mark>theories</mark>');
    expect(snippet('Go forward, ten meters.', 'forwrd')).toBe('Go <mark>forward</mark>, ten meters.');
  });

  it('escapes HTML and leaves excluded words unmarked', () => {
    expect(snippet('a <b>bold</b> & bright idea', 'bright -bold')).toBe('a &lt;b&gt;bold&lt;/b&gt; &amp; <mark>bright</mark> idea');
    expect(queryWords('"a phrase" or -not word')).toEqual(['a', 'phrase', 'word']);
    expect(literalText('"a  phrase"')).toBe('a phrase');
  });

  it('cuts a long sentence around the first match', () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    words[40] = 'lighthouse';
    const cut = snippet(words.join(' '), 'lighthouse');
    expect(cut.startsWith('… w28 ')).toBe(true);
    expect(cut).toContain('<mark>lighthouse</mark>');
    expect(cut.endsWith('w59')).toBe(true);
  });
});

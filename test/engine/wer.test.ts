/** The WER module: Whisper-style normalisation and the word-level edit distance (no model involved). */
import { describe, expect, it } from 'vitest';
import { editCounts, loadSpellings, normaliseText, wordErrorRate } from '../../workers/engine/wer.js';
import { resolveModelDir } from '../../workers/engine/index.js';

describe('normaliseText', () => {
  it('lower-cases, drops punctuation and keeps apostrophes inside words', () => {
    expect(normaliseText('Go forward, ten meters!')).toEqual(['go', 'forward', '10', 'meters']);
    expect(normaliseText('"He was not an ill-disposed young man."')).toEqual(['he', 'was', 'not', 'an', 'ill', 'disposed', 'young', 'man']);
    expect(normaliseText("the reader's 'own' book")).toEqual(["the", "reader's", 'own', 'book']);
  });

  it('spells out contractions and titles the way Whisper\'s normaliser does', () => {
    expect(normaliseText("Mr. Dashwood won't go, he can't, they're here, I'm late")).toEqual(
      ['mister', 'dashwood', 'will', 'not', 'go', 'he', 'can', 'not', 'they', 'are', 'here', 'i', 'am', 'late'],
    );
    expect(normaliseText("Mister John Dashwood")).toEqual(normaliseText('Mr John Dashwood'));
    expect(normaliseText("She isn't; it's been long")).toEqual(['she', 'is', 'not', 'it', 'has', 'been', 'long']);
  });

  it('removes bracketed text, parentheses and fillers', () => {
    expect(normaliseText('[MUSIC] so, um, (laughs) yes <unk> uh right')).toEqual(['so', 'yes', 'right']);
  });

  it('turns spelled-out numbers into digits, compounds included, single runs kept apart', () => {
    expect(normaliseText('ten of clubs')).toEqual(['10', 'of', 'clubs']);
    expect(normaliseText('10 of clubs')).toEqual(['10', 'of', 'clubs']);
    expect(normaliseText('five five')).toEqual(['5', '5']);
    expect(normaliseText('5, 5.')).toEqual(['5', '5']);
    expect(normaliseText('twenty one pilots')).toEqual(['21', 'pilots']);
    expect(normaliseText('two hundred and five men')).toEqual(['205', 'men']);
    expect(normaliseText('three thousand two hundred')).toEqual(['3200']);
    expect(normaliseText('bread and five fish')).toEqual(['bread', 'and', '5', 'fish']);
    expect(normaliseText('1,000 people, 3.5% more')).toEqual(['1000', 'people', '3.5%', 'more']);
    expect(normaliseText('hundred')).toEqual(['hundred']);
  });

  it('drops diacritics', () => {
    expect(normaliseText('Café naïve résumé')).toEqual(['cafe', 'naive', 'resume']);
  });

  it('applies the model\'s British → American spelling table', () => {
    const spellings = loadSpellings(resolveModelDir({ model: 'whisper-tiny' }));
    expect(Object.keys(spellings).length).toBeGreaterThan(1000);
    expect(normaliseText('The colour of the neighbour harbour', spellings)).toEqual(['the', 'color', 'of', 'the', 'neighbor', 'harbor']);
    expect(loadSpellings('/nonexistent')).toEqual({});
  });
});

describe('editCounts', () => {
  it('counts substitutions, deletions and insertions along a cheapest alignment', () => {
    expect(editCounts(['a', 'b', 'c'], ['a', 'b', 'c'])).toEqual({ substitutions: 0, deletions: 0, insertions: 0, errors: 0, words: 3 });
    expect(editCounts(['a', 'b', 'c'], ['a', 'x', 'c'])).toMatchObject({ substitutions: 1, deletions: 0, insertions: 0, errors: 1 });
    expect(editCounts(['a', 'b', 'c'], ['a', 'c'])).toMatchObject({ substitutions: 0, deletions: 1, insertions: 0, errors: 1 });
    expect(editCounts(['a', 'c'], ['a', 'b', 'c', 'd'])).toMatchObject({ substitutions: 0, deletions: 0, insertions: 2, errors: 2, words: 2 });
    expect(editCounts([], ['a'])).toMatchObject({ insertions: 1, errors: 1, words: 0 });
    expect(editCounts(['a', 'b'], [])).toMatchObject({ deletions: 2, errors: 2 });
  });

  it('the kinds always add up to the distance', () => {
    const ref = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power'.split(' ');
    const hyp = 'and mr john dash wood had the leisure to consider how much might be prudent in his power to do'.split(' ');
    const counts = editCounts(ref, hyp);
    expect(counts.substitutions + counts.deletions + counts.insertions).toBe(counts.errors);
    expect(counts.errors).toBe(8);
  });
});

describe('wordErrorRate', () => {
  it('is the corpus rate: all edits over all reference words, after normalisation', () => {
    const result = wordErrorRate([
      { reference: 'go forward ten meters', hypothesis: 'Go forward 10 meters.' },
      { reference: 'he was not an ill disposed young man', hypothesis: 'He was not an ill-disposed young man.' },
      { reference: 'four queen of clubs', hypothesis: 'For queen of clubs.' },
      { reference: 'five five', hypothesis: '' },
    ]);
    expect(result).toMatchObject({ errors: 3, words: 18, substitutions: 1, deletions: 2, insertions: 0 });
    expect(result.wer).toBeCloseTo(3 / 18, 10);
    expect(wordErrorRate([]).wer).toBe(0);
  });
});

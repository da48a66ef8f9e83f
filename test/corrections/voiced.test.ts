/** The voiced rule's comparison (src/corrections/voiced.ts), pure: normalisation and the verdict. */
import { describe, expect, it } from 'vitest';
import { tokens } from '../../src/transcript/word-tokens.js';
import { voicedVerdict } from '../../src/corrections/voiced.js';

const verdict = (said: string, heard: string, resulting = said) => voicedVerdict({ said, heard: [heard], resulting });

describe('normalisation', () => {
  it('lower-cases, strips punctuation and folds Latin accents', () => {
    expect(tokens('Crème Brûlée, s\'il vous plaît!')).toEqual(['creme', 'brulee', 's', 'il', 'vous', 'plait']);
    expect(tokens('Ça va? ÑANDÚ.')).toEqual(['ca', 'va', 'nandu']);
  });

  it('turns English number words into digits, up to the thousands and beyond', () => {
    expect(tokens('twenty one')).toEqual(['21']);
    expect(tokens('Twenty-one apples')).toEqual(['21', 'apples']);
    expect(tokens('one hundred and five')).toEqual(['105']);
    expect(tokens('two thousand three hundred forty two')).toEqual(['2342']);
    expect(tokens('a thousand')).toEqual(['a', '1000']);
    expect(tokens('1,000 and 2.5 and 3,250,000')).toEqual(['1000', 'and', '2.5', 'and', '3250000']);
    expect(tokens('one million')).toEqual(['1000000']);
    // "and" joins only number words: "salt and pepper" stays.
    expect(tokens('five and salt')).toEqual(['5', 'and', 'salt']);
  });

  it('splits negations written with n\'t', () => {
    expect(tokens("I don't know")).toEqual(['i', 'do', 'not', 'know']);
    expect(tokens("we can't, we won't")).toEqual(['we', 'can', 'not', 'we', 'will', 'not']);
    expect(tokens('it cannot')).toEqual(['it', 'can', 'not']);
  });
});

describe('the voiced rule', () => {
  it('passes case, punctuation, accents and number formatting', () => {
    expect(verdict('GO FORWARD', 'go forward.')).toEqual({ voiced: true, notVoicedReason: null });
    expect(verdict('café', 'Cafe')).toMatchObject({ voiced: true });
    expect(verdict('twenty one', 'I have 21 apples', 'I have twenty one apples')).toMatchObject({ voiced: true });
    expect(verdict('I have 21 apples', 'I have twenty-one apples')).toMatchObject({ voiced: true });
    expect(verdict('1000', 'a thousand')).toMatchObject({ voiced: true });
  });

  it('fails a word the recognizer did not hear', () => {
    expect(verdict('go backward', 'go forward')).toEqual({ voiced: false, notVoicedReason: 'rewrite' });
  });

  it('fails a dropped negation, in English and the other supported languages', () => {
    expect(verdict('I do know', 'I do not know')).toEqual({ voiced: false, notVoicedReason: 'rewrite' });
    expect(verdict("I do know", "I don't know")).toMatchObject({ voiced: false });
    expect(verdict('know', 'I never know', 'I never I know')).toMatchObject({ voiced: true });
    expect(verdict('lo sé', 'no lo sé')).toMatchObject({ voiced: false });
    expect(verdict('lo so', 'non lo so')).toMatchObject({ voiced: false });
    expect(verdict('ich weiss', 'ich weiss nicht')).toMatchObject({ voiced: false });
    expect(verdict('eu sei', 'eu não sei')).toMatchObject({ voiced: false });
    // Reordering keeps every word and every negation.
    expect(verdict('not I do know', 'I do not know')).toMatchObject({ voiced: true });
  });

  it('accepts a word of a fresh reading of the audio when one is given', () => {
    expect(voicedVerdict({ said: 'forward', heard: ['go for word', 'go forward'], resulting: 'go forward' })).toMatchObject({
      voiced: true,
    });
  });
});

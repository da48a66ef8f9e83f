/** The WER module: Whisper's text normalisers (ported from openai/whisper) and the word-level edit distance (no model involved). */
import { describe, expect, it } from 'vitest';
import {
  BasicTextNormalizer,
  EnglishNumberNormalizer,
  EnglishSpellingNormalizer,
  EnglishTextNormalizer,
  editCounts,
  loadSpellings,
  normaliseText,
  removeSymbols,
  removeSymbolsAndDiacritics,
  wordErrorRate,
} from '../../workers/engine/tools/wer.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';

/** One model's spelling table, or {} where no model is installed (the spelling cases then skip). */
function modelSpellings() {
  try {
    return loadSpellings(resolveModelDir({ model: 'whisper-tiny' }));
  } catch {
    return {};
  }
}

describe('normaliseText', () => {
  it('lower-cases, drops punctuation, and spells out the "\'s" the way Whisper does', () => {
    expect(normaliseText('Go forward, ten meters!')).toEqual(['go', 'forward', '10', 'meters']);
    expect(normaliseText('"He was not an ill-disposed young man."')).toEqual(['he', 'was', 'not', 'an', 'ill', 'disposed', 'young', 'man']);
    // Whisper joins " 'own" to the word before and reads every "'s" as "is".
    expect(normaliseText("the reader's 'own' book")).toEqual(['the', 'reader', 'is', 'own', 'book']);
  });

  it('spells out contractions and titles the way Whisper\'s normaliser does', () => {
    expect(normaliseText("Mr. Dashwood won't go, he can't, they're here, I'm late")).toEqual(
      ['mister', 'dashwood', 'will', 'not', 'go', 'he', 'can', 'not', 'they', 'are', 'here', 'i', 'am', 'late'],
    );
    expect(normaliseText('Mister John Dashwood')).toEqual(normaliseText('Mr John Dashwood'));
    expect(normaliseText("She isn't; it's been long")).toEqual(['she', 'is', 'not', 'it', 'has', 'been', 'long']);
    expect(normaliseText("we'd done it, you'd gone, he's got it, they'd go")).toEqual(
      ['we', 'had', 'done', 'it', 'you', 'had', 'gone', 'he', 'has', 'got', 'it', 'they', 'would', 'go'],
    );
    expect(normaliseText('St. Louis, Gen. Grant, Lt. Col. Smith Sr., Hon. Asst. Ald. Rev. Esq.')).toEqual(
      [
        'saint', 'louis', 'general', 'grant', 'lieutenant', 'colonel', 'smith', 'senior', 'honorable', 'assistant', 'alderman', 'reverend',
        'esquire',
      ],
    );
  });

  it('removes bracketed text, parentheses and fillers', () => {
    expect(normaliseText('[MUSIC] so, um, (laughs) yes <unk> uh right')).toEqual(['so', 'yes', 'right']);
    expect(normaliseText('hmm, mhm, I think so')).toEqual(['i', 'think', 'so']);
  });

  it('turns spelled-out numbers into digits, compounds included; successive single digits read as one number', () => {
    expect(normaliseText('ten of clubs')).toEqual(['10', 'of', 'clubs']);
    expect(normaliseText('10 of clubs')).toEqual(['10', 'of', 'clubs']);
    expect(normaliseText('five five')).toEqual(['55']); // Whisper reads "one oh one" as 101
    expect(normaliseText('5, 5.')).toEqual(['5', '5']);
    expect(normaliseText('twenty one pilots')).toEqual(['21', 'pilots']);
    expect(normaliseText('two hundred and five men')).toEqual(['205', 'men']);
    expect(normaliseText('three thousand two hundred')).toEqual(['3200']);
    expect(normaliseText('bread and five fish')).toEqual(['bread', 'and', '5', 'fish']);
    expect(normaliseText('1,000 people, 3.5% more')).toEqual(['1000', 'people', '3.5%', 'more']);
    expect(normaliseText('hundred')).toEqual(['100']);
    expect(normaliseText('a hundred')).toEqual(['a', '100']);
  });

  it('reads numbers the way Whisper\'s own examples pair them', () => {
    const same = (a: string, b: string) => expect(normaliseText(a), `${a} / ${b}`).toEqual(normaliseText(b));
    same('twentieth', '20th');
    same('the twenty first of May', 'the 21st of May');
    same('1,000', 'one thousand');
    same('$5', 'five dollars');
    same('$20 million', 'twenty million dollars');
    same('Mr. Smith', 'mister smith');
    same('the nineteen sixties', 'the 1960s');
    same('ninety percent', '90%');
    same('seventy six per cent', '76%');
    same('two dollars and seventy cents', '$2.70');
    same('three and a half million', '3500000');
    same('nine one one', '911');
    expect(normaliseText('double oh seven')).toEqual(['007']);
    expect(normaliseText('007')).toEqual(['7']); // digits are read as a number
    expect(normaliseText('minus five degrees')).toEqual(['-5', 'degrees']);
    expect(normaliseText('-5 degrees')).toEqual(['5', 'degrees']); // a written "-" is punctuation to Whisper
    same('I have 1 apple', 'I have one apple');
    expect(normaliseText("it's 3:30")).toEqual(['it', 'is', '3', '30']);
    expect(normaliseText('the eighties')).toEqual(['the', '80s']);
    expect(normaliseText('Café naïve résumé, Straße, œuvre')).toEqual(['cafe', 'naive', 'resume', 'strasse', 'oeuvre']);
  });

  it('applies the model\'s British → American spelling table', () => {
    const spellings = modelSpellings();
    expect(loadSpellings('/nonexistent')).toEqual({});
    if (Object.keys(spellings).length === 0) return; // no model installed here
    expect(Object.keys(spellings).length).toBeGreaterThan(1000);
    expect(normaliseText('The colour of the neighbour harbour', spellings)).toEqual(['the', 'color', 'of', 'the', 'neighbor', 'harbor']);
    expect(normaliseText('colour', spellings)).toEqual(normaliseText('color', spellings));
  });

  it('uses the basic normaliser for other languages: symbols off, diacritics and spelled numbers kept', () => {
    expect(normaliseText('Sous le consulat, il devient conservateur des eaux et forêts.', {}, 'fr')).toEqual(
      ['sous', 'le', 'consulat', 'il', 'devient', 'conservateur', 'des', 'eaux', 'et', 'forêts'],
    );
    expect(normaliseText('¿Qué tal? ¡Muy bien! (risas) [música]', {}, 'es')).toEqual(['qué', 'tal', 'muy', 'bien']);
    expect(normaliseText('Die Straße, zwei Häuser', {}, 'de')).toEqual(['die', 'straße', 'zwei', 'häuser']);
    expect(normaliseText("l'acqua è 1.000 euro", {}, 'it')).toEqual(['l', 'acqua', 'è', '1', '000', 'euro']);
    expect(normaliseText('Twenty one', {}, 'en')).toEqual(['21']);
    expect(normaliseText('Twenty one', {}, 'english')).toEqual(['21']);
  });
});

describe("Whisper's normalisers (cases from openai/whisper tests/test_normalizer.py)", () => {
  const english = new EnglishTextNormalizer();
  const numbers = new EnglishNumberNormalizer();

  it.each([numbers, english].map((normaliser) => [normaliser.constructor.name, normaliser] as const))('%s reads numbers', (_name, std) => {
    const cases: [string, string][] = [
      ['two', '2'],
      ['thirty one', '31'],
      ['five twenty four', '524'],
      ['nineteen ninety nine', '1999'],
      ['twenty nineteen', '2019'],
      ['two point five million', '2500000'],
      ['four point two billions', '4200000000s'],
      ['200 thousand', '200000'],
      ['200 thousand dollars', '$200000'],
      ['$20 million', '$20000000'],
      ['€52.4 million', '€52400000'],
      ['£77 thousands', '£77000s'],
      ['two double o eight', '2008'],
      ['three thousand twenty nine', '3029'],
      ['forty three thousand two hundred sixty', '43260'],
      ['forty three thousand two hundred and sixty', '43260'],
      ['nineteen fifties', '1950s'],
      ['thirty first', '31st'],
      ['thirty three thousand and three hundred and thirty third', '33333rd'],
      ['three billion', '3000000000'],
      ['millions', '1000000s'],
      ['july third twenty twenty', 'july 3rd 2020'],
      ['august twenty sixth twenty twenty one', 'august 26th 2021'],
      ['3 14', '3 14'],
      ['3.14', '3.14'],
      ['3 point 2', '3.2'],
      ['3 point 14', '3.14'],
      ['fourteen point 4', '14.4'],
      ['two point two five dollars', '$2.25'],
      ['two hundred million dollars', '$200000000'],
      ['$20.1 million', '$20100000'],
      ['ninety percent', '90%'],
      ['seventy six per cent', '76%'],
      ['double oh seven', '007'],
      ['double zero seven', '007'],
      ['nine one one', '911'],
      ['nine double one', '911'],
      ['one triple oh one', '10001'],
      ['two thousandth', '2000th'],
      ['thirty two thousandth', '32000th'],
      ['minus 500', '-500'],
      ['positive twenty thousand', '+20000'],
      ['two dollars and seventy cents', '$2.70'],
      ['3 cents', '¢3'],
      ['$0.36', '¢36'],
      ['three euros and sixty five cents', '€3.65'],
      ['three and a half million', '3500000'],
      ['forty eight and a half dollars', '$48.5'],
      ['b747', 'b 747'],
      ['10 th', '10th'],
      ['10th', '10th'],
    ];
    for (const [input, expected] of cases) expect(std.normalize(input), input).toBe(expected);
  });

  it('reads numbers past 2^53 exactly and keeps quintillions', () => {
    expect(numbers.normalize('nine quintillion')).toBe('9000000000000000000');
    expect(numbers.normalize('twelve decillion')).toBe('12' + '0'.repeat(33));
  });

  it('spells British as American', () => {
    const std = new EnglishSpellingNormalizer({ mobilisation: 'mobilization', cancelation: 'cancellation' });
    expect(std.normalize('mobilisation')).toBe('mobilization');
    expect(std.normalize('cancelation')).toBe('cancellation');
    const spellings = modelSpellings();
    if (Object.keys(spellings).length === 0) return;
    expect(new EnglishSpellingNormalizer(spellings).normalize('mobilisation cancelation')).toBe('mobilization cancellation');
  });

  it('normalises English text', () => {
    expect(english.normalize("Let's")).toBe('let us');
    expect(english.normalize("he's like")).toBe('he is like');
    expect(english.normalize("she's been like")).toBe('she has been like');
    expect(english.normalize('10km')).toBe('10 km');
    expect(english.normalize('10mm')).toBe('10 mm');
    expect(english.normalize('RC232')).toBe('rc 232');
    expect(english.normalize('Mr. Park visited Assoc. Prof. Kim Jr.')).toBe('mister park visited associate professor kim junior');
  });

  it('the basic normaliser removes symbols, and diacritics when asked', () => {
    expect(new BasicTextNormalizer().normalize("Le Château (bis) d'If — [rires] «Très» bien!")).toBe('le château d if très bien ');
    expect(new BasicTextNormalizer(true).normalize("Le Château d'If, Straße")).toBe('le chateau d if strasse');
    expect(new BasicTextNormalizer(false, true).normalize('Très')).toBe('t r è s');
    expect(removeSymbolsAndDiacritics('Ærø $5', '$')).toBe('AEro $5');
    expect(removeSymbols('x² ½')).toBe('x2 1 2');
  });
});

describe('editCounts', () => {
  it('counts substitutions, deletions and insertions along a cheapest alignment', () => {
    expect(editCounts(['a', 'b', 'c'], ['a', 'b', 'c'])).toEqual({ substitutions: 0, deletions: 0, insertions: 0, errors: 0, words: 3 });
    expect(editCounts(['a', 'b', 'c'], ['a', 'x', 'c'])).toMatchObject({ substitutions: 1, deletions: 0, insertions: 0, errors: 1 });
    expect(editCounts(['a', 'b', 'c'], ['a', 'c'])).toMatchObject({ substitutions: 0, deletions: 1, insertions: 0, errors: 1 });
    expect(editCounts(['a', 'c'], ['a', 'b', 'c', 'd'])).toMatchObject({
      substitutions: 0, deletions: 0, insertions: 2, errors: 2, words: 2,
    });
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
    // "five five" is one word once normalised ("55")
    expect(result).toMatchObject({ errors: 2, words: 17, substitutions: 1, deletions: 1, insertions: 0 });
    expect(result.wer).toBeCloseTo(2 / 17, 10);
    expect(wordErrorRate([]).wer).toBe(0);
  });

  it('normalises each pair in its own language', () => {
    const result = wordErrorRate([
      { reference: 'Twenty one', hypothesis: '21', language: 'en' },
      {
        reference: 'Die Werbung vermittelt einen falschen Eindruck.', hypothesis: 'die werbung vermittelt einen falschen eindruck',
        language: 'de',
      },
      { reference: 'Las arenas son blanquecinas', hypothesis: 'Las arenas son blanquesinas.', language: 'es' },
    ]);
    expect(result).toMatchObject({ errors: 1, words: 11, substitutions: 1 });
  });
});

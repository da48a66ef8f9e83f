/**
 * Word error rate: word-level edit distance between a reference and a hypothesis after Whisper's text
 * normalisation. Used by `npm run bench -- accuracy` and the tests; no engine involved.
 *
 * The normalisers are ported whole from openai/whisper whisper/normalizers (basic.py and english.py), MIT,
 * Copyright (c) 2022 OpenAI:
 *  - `EnglishTextNormalizer`: lower case; text in brackets or parentheses and fillers (hmm, mm, mhm, mmm, uh, um)
 *    removed; contractions and titles spelled out ("won't" → "will not", "'s" → " is", "mr" → "mister" …);
 *    commas inside numbers dropped, periods not before a digit dropped; every other symbol or punctuation mark a
 *    space and diacritics off (keeping . % $ ¢ € £); then `EnglishNumberNormalizer` and
 *    `EnglishSpellingNormalizer`, and the numeric symbols not next to a digit removed;
 *  - `EnglishNumberNormalizer`: spelled-out numbers → digits with the reference's whole state machine
 *    ("twenty one" → "21", "nineteen ninety nine" → "1999", "twentieth" → "20th", "nineteen fifties" → "1950s",
 *    "two point five million" → "2500000", "double oh seven" → "007", "twenty dollars" → "$20",
 *    "ninety per cent" → "90%", "minus 5" → "-5", "three and a half" → "3.5", "$2 and 7 cents" → "$2.07",
 *    "1" → "one");
 *  - `EnglishSpellingNormalizer`: British → American spellings from Whisper's `english.json`, which every model
 *    ships as `normalizer.json` (`loadSpellings(modelDir)`); without a table no spelling is changed;
 *  - `BasicTextNormalizer`: the one Whisper's evaluation uses for other languages: lower case, bracketed and
 *    parenthesised text removed, symbols and punctuation → spaces (diacritics kept unless asked).
 *
 * Python's regular-expression classes are Unicode-aware: `\w` ([\p{L}\p{N}_]), `\d` (\p{Nd}) and `\s` (Python's
 * whitespace) are spelled out below, and `\b` becomes the look-around that fits the side it stands on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Spellings = Readonly<Record<string, string>>;

// ---------------------------------------------------------------------------------------------------------------
// Python regular-expression and string semantics

/** Python's `\w` for str patterns. */
const WORD = '[\\p{L}\\p{N}_]';
/** `\b` before a word character. */
const B_BEFORE = `(?<!${WORD})`;
/** `\b` after a word character. */
const B_AFTER = `(?!${WORD})`;
/** Python's `\s` and `str.isspace()`. */
const SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const SPACES = new RegExp(`${SPACE}+`, 'gu');
const re = (source: string, flags = 'gu') => new RegExp(source, flags);

/** `str.split()` with no argument. */
function pySplit(s: string): string[] {
  return s.split(SPACES).filter((part) => part.length > 0);
}

/** `str.strip()` with no argument. */
function pyStrip(s: string): string {
  return s.replace(re(`^${SPACE}+|${SPACE}+$`), '');
}

const DECIMAL_DIGIT = /\p{Nd}/u;

/** The value of a decimal digit of any script (a run of Unicode decimal digits counts 0–9 from its start). */
function digitValue(c: string): number {
  const code = c.codePointAt(0)!;
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  let start = code;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}

/** `int(s)` of a string of decimal digits (underscores between digits allowed, as Python does). */
function parseDigits(s: string): bigint {
  let value = 0n;
  for (const c of s) if (c !== '_') value = value * 10n + BigInt(digitValue(c));
  return value;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

function fraction(numerator: bigint, denominator: bigint): Fraction {
  if (denominator < 0n) [numerator, denominator] = [-numerator, -denominator];
  const divisor = gcd(numerator, denominator) || 1n;
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

const D = '\\p{Nd}';
const RATIONAL = re(
  `^${SPACE}*(?<sign>[-+]?)(?=${D}|\\.${D})(?<num>${D}*|${D}+(?:_${D}+)*)`
    + `(?:(?:${SPACE}*/${SPACE}*(?<denom>${D}+(?:_${D}+)*))?|`
    + `(?:\\.(?<decimal>${D}*|${D}+(?:_${D}+)*))?(?:[eE](?<exp>[-+]?${D}+(?:_${D}+)*))?)`
    + `${SPACE}*$`,
  'u',
);

/** `fractions.Fraction(s)`, or null where Python raises ValueError. */
function toFraction(value: string | bigint): Fraction | null {
  if (typeof value === 'bigint') return fraction(value, 1n);
  const match = RATIONAL.exec(value);
  if (!match) return null;
  const { sign, num, denom, decimal, exp } = match.groups!;
  let numerator = parseDigits(num || '0');
  let denominator = 1n;
  if (denom !== undefined) {
    denominator = parseDigits(denom);
    if (denominator === 0n) return null; // Python raises ZeroDivisionError here; no caller can reach it
  } else {
    if (decimal) {
      const scale = 10n ** BigInt([...decimal.replace(/_/g, '')].length);
      numerator = numerator * scale + parseDigits(decimal);
      denominator *= scale;
    }
    if (exp !== undefined) {
      const exponent = (exp.startsWith('-') ? -1 : 1) * Number(parseDigits(exp.replace(/^[-+]/, '')));
      if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
      else denominator *= 10n ** BigInt(-exponent);
    }
  }
  if (sign === '-') numerator = -numerator;
  return fraction(numerator, denominator);
}

/** Python's `//` and `%` on integers (floor division; the values here are never negative, but keep the sign rule). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}
function mod(a: bigint, b: bigint): bigint {
  return a - floorDiv(a, b) * b;
}

// ---------------------------------------------------------------------------------------------------------------
// basic.py

/** Non-ASCII letters that are not separated by NFKD normalisation. */
const ADDITIONAL_DIACRITICS: Readonly<Record<string, string>> = {
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  ß: 'ss',
  ẞ: 'SS',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'th',
  ł: 'l',
  Ł: 'L',
};

const NONSPACING_MARK = /^\p{Mn}$/u;
const MARK_SYMBOL_PUNCTUATION = /^[\p{M}\p{S}\p{P}]$/u;

/** Every other mark, symbol and punctuation character → a space, and diacritics (category Mn and a few letters) dropped. */
export function removeSymbolsAndDiacritics(s: string, keep = ''): string {
  let out = '';
  for (const c of s.normalize('NFKD')) {
    if (keep.includes(c)) out += c;
    else if (Object.hasOwn(ADDITIONAL_DIACRITICS, c)) out += ADDITIONAL_DIACRITICS[c];
    else if (NONSPACING_MARK.test(c)) continue;
    else if (MARK_SYMBOL_PUNCTUATION.test(c)) out += ' ';
    else out += c;
  }
  return out;
}

/** Every mark, symbol and punctuation character → a space, diacritics kept. */
export function removeSymbols(s: string): string {
  let out = '';
  for (const c of s.normalize('NFKC')) out += MARK_SYMBOL_PUNCTUATION.test(c) ? ' ' : c;
  return out;
}

const BRACKETED = /[<[][^>\]]*[>\]]/g;
const PARENTHESISED = /\(([^)]+?)\)/g;

export class BasicTextNormalizer {
  private readonly clean: (s: string) => string;

  constructor(
    removeDiacritics = false,
    private readonly splitLetters = false,
  ) {
    this.clean = removeDiacritics ? (s) => removeSymbolsAndDiacritics(s) : removeSymbols;
  }

  normalize(text: string): string {
    let s = text.toLowerCase();
    s = s.replace(BRACKETED, ''); // remove words between brackets
    s = s.replace(PARENTHESISED, ''); // remove words between parenthesis
    s = this.clean(s).toLowerCase();
    if (this.splitLetters) {
      const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s);
      s = Array.from(graphemes, (one) => one.segment).join(' ');
    }
    return s.replace(SPACES, ' '); // replace any successive whitespace characters with a space
  }
}

// ---------------------------------------------------------------------------------------------------------------
// english.py: EnglishNumberNormalizer

type Value = string | bigint;

const ONE_NAMES = [
  'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen',
  'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen',
];
const TEN_NAMES: [string, number][] = [
  ['twenty', 20], ['thirty', 30], ['forty', 40], ['fifty', 50], ['sixty', 60], ['seventy', 70], ['eighty', 80], ['ninety', 90],
];
const MULTIPLIER_NAMES: [string, bigint][] = [
  ['hundred', 100n],
  ['thousand', 1_000n],
  ['million', 1_000_000n],
  ['billion', 1_000_000_000n],
  ['trillion', 10n ** 12n],
  ['quadrillion', 10n ** 15n],
  ['quintillion', 10n ** 18n],
  ['sextillion', 10n ** 21n],
  ['septillion', 10n ** 24n],
  ['octillion', 10n ** 27n],
  ['nonillion', 10n ** 30n],
  ['decillion', 10n ** 33n],
];

const NUMERIC = re(`^${D}+(?:\\.${D}+)?$`, 'u');

/**
 * Convert any spelled-out numbers into arabic numbers, while handling:
 *  - remove any commas
 *  - keep the suffixes such as: `1960s`, `274th`, `32nd`, etc.
 *  - spell out currency symbols after the number. e.g. `$20 million` -> `20000000 dollars`
 *  - spell out `one` and `ones`
 *  - interpret successive single-digit numbers as nominal: `one oh one` -> `101`
 */
export class EnglishNumberNormalizer {
  readonly zeros = new Set(['o', 'oh', 'zero']);
  readonly ones = new Map<string, number>(ONE_NAMES.map((name, i) => [name, i + 1]));
  readonly onesPlural = new Map<string, [number, string]>(
    [...this.ones].map(([name, value]) => [name === 'six' ? 'sixes' : name + 's', [value, 's']]),
  );
  readonly onesOrdinal = new Map<string, [number, string]>([
    ['zeroth', [0, 'th']],
    ['first', [1, 'st']],
    ['second', [2, 'nd']],
    ['third', [3, 'rd']],
    ['fifth', [5, 'th']],
    ['twelfth', [12, 'th']],
    ...[...this.ones]
      .filter(([, value]) => value > 3 && value !== 5 && value !== 12)
      .map(([name, value]): [string, [number, string]] => [name + (name.endsWith('t') ? 'h' : 'th'), [value, 'th']]),
  ]);
  readonly onesSuffixed = new Map([...this.onesPlural, ...this.onesOrdinal]);

  readonly tens = new Map<string, number>(TEN_NAMES);
  readonly tensPlural = new Map<string, [number, string]>(TEN_NAMES.map(([name, value]) => [name.replace(/y/g, 'ies'), [value, 's']]));
  readonly tensOrdinal = new Map<string, [number, string]>(TEN_NAMES.map(([name, value]) => [name.replace(/y/g, 'ieth'), [value, 'th']]));
  readonly tensSuffixed = new Map([...this.tensPlural, ...this.tensOrdinal]);

  readonly multipliers = new Map<string, bigint>(MULTIPLIER_NAMES);
  readonly multipliersPlural = new Map<string, [bigint, string]>(MULTIPLIER_NAMES.map(([name, value]) => [name + 's', [value, 's']]));
  readonly multipliersOrdinal = new Map<string, [bigint, string]>(MULTIPLIER_NAMES.map(([name, value]) => [name + 'th', [value, 'th']]));
  readonly multipliersSuffixed = new Map([...this.multipliersPlural, ...this.multipliersOrdinal]);
  readonly decimals = new Set([...this.ones.keys(), ...this.tens.keys(), ...this.zeros]);

  readonly precedingPrefixers = new Map([['minus', '-'], ['negative', '-'], ['plus', '+'], ['positive', '+']]);
  readonly followingPrefixers = new Map([
    ['pound', '£'], ['pounds', '£'], ['euro', '€'], ['euros', '€'], ['dollar', '$'], ['dollars', '$'], ['cent', '¢'], ['cents', '¢'],
  ]);
  readonly prefixes = new Set([...this.precedingPrefixers.values(), ...this.followingPrefixers.values()]);
  readonly suffixers = new Map<string, string | ReadonlyMap<string, string>>([['per', new Map([['cent', '%']])], ['percent', '%']]);
  readonly specials = new Set(['and', 'double', 'triple', 'point']);

  readonly words = new Set<string>([
    ...this.zeros, ...this.ones.keys(), ...this.onesSuffixed.keys(), ...this.tens.keys(), ...this.tensSuffixed.keys(),
    ...this.multipliers.keys(), ...this.multipliersSuffixed.keys(), ...this.precedingPrefixers.keys(),
    ...this.followingPrefixers.keys(), ...this.suffixers.keys(), ...this.specials,
  ]);
  readonly literalWords = new Set(['one', 'ones']);

  *processWords(words: readonly string[]): Generator<string> {
    let prefix: string | null = null;
    let value: Value | null = null;
    let skip = false;

    const output = (result: Value): string => {
      let text = String(result);
      if (prefix !== null) text = prefix + text;
      value = null;
      prefix = null;
      return text;
    };
    const has = (set: { has(key: string): boolean }, word: string | null) => word !== null && set.has(word);
    /** Python's `str(value or "")`. */
    const orEmpty = (v: Value | null) => (v === null || v === 0n ? '' : String(v));

    if (words.length === 0) return;

    const padded: (string | null)[] = [null, ...words, null];
    for (let i = 1; i < padded.length - 1; i++) {
      const prev = padded[i - 1] ?? null;
      const current = padded[i]!;
      const next = padded[i + 1] ?? null;
      if (skip) {
        skip = false;
        continue;
      }

      const nextIsNumeric = next !== null && NUMERIC.test(next);
      const first = String.fromCodePoint(current.codePointAt(0)!);
      const hasPrefix = this.prefixes.has(first);
      const currentWithoutPrefix = hasPrefix ? current.slice(first.length) : current;
      if (NUMERIC.test(currentWithoutPrefix)) {
        // arabic numbers (potentially with signs and fractions)
        const f = toFraction(currentWithoutPrefix)!;
        if (value !== null) {
          if (typeof value === 'string' && value.endsWith('.')) {
            // concatenate decimals / ip address components
            value = value + current;
            continue;
          } else {
            yield output(value);
          }
        }
        prefix = hasPrefix ? first : prefix;
        value = f.denominator === 1n ? f.numerator : currentWithoutPrefix;
      } else if (!this.words.has(current)) {
        // non-numeric words
        if (value !== null) yield output(value);
        yield output(current);
      } else if (this.zeros.has(current)) {
        value = orEmpty(value) + '0';
      } else if (this.ones.has(current)) {
        const ones = this.ones.get(current)!;
        if (value === null) {
          value = BigInt(ones);
        } else if (typeof value === 'string' || has(this.ones, prev)) {
          if (has(this.tens, prev) && ones < 10) {
            // replace the last zero with the digit (the reference asserts that it is a zero)
            value = String(value).slice(0, -1) + String(ones);
          } else {
            value = String(value) + String(ones);
          }
        } else if (ones < 10) {
          value = mod(value, 10n) === 0n ? value + BigInt(ones) : String(value) + String(ones);
        } else {
          // eleven to nineteen
          value = mod(value, 100n) === 0n ? value + BigInt(ones) : String(value) + String(ones);
        }
      } else if (this.onesSuffixed.has(current)) {
        // ordinal or cardinal; yield the number right away
        const [ones, suffix] = this.onesSuffixed.get(current)!;
        if (value === null) {
          yield output(String(ones) + suffix);
        } else if (typeof value === 'string' || has(this.ones, prev)) {
          if (has(this.tens, prev) && ones < 10) {
            yield output(String(value).slice(0, -1) + String(ones) + suffix);
          } else {
            yield output(String(value) + String(ones) + suffix);
          }
        } else if (ones < 10) {
          yield output(mod(value, 10n) === 0n ? String(value + BigInt(ones)) + suffix : String(value) + String(ones) + suffix);
        } else {
          // eleven to nineteen
          yield output(mod(value, 100n) === 0n ? String(value + BigInt(ones)) + suffix : String(value) + String(ones) + suffix);
        }
        value = null;
      } else if (this.tens.has(current)) {
        const tens = this.tens.get(current)!;
        if (value === null) value = BigInt(tens);
        else if (typeof value === 'string') value = value + String(tens);
        else value = mod(value, 100n) === 0n ? value + BigInt(tens) : String(value) + String(tens);
      } else if (this.tensSuffixed.has(current)) {
        // ordinal or cardinal; yield the number right away
        const [tens, suffix] = this.tensSuffixed.get(current)!;
        if (value === null) yield output(String(tens) + suffix);
        else if (typeof value === 'string') yield output(value + String(tens) + suffix);
        else yield output(mod(value, 100n) === 0n ? String(value + BigInt(tens)) + suffix : String(value) + String(tens) + suffix);
      } else if (this.multipliers.has(current)) {
        const multiplier = this.multipliers.get(current)!;
        if (value === null) {
          value = multiplier;
        } else if (typeof value === 'string' || value === 0n) {
          const f = toFraction(value);
          if (f !== null && (f.numerator * multiplier) % f.denominator === 0n) {
            value = fraction(f.numerator * multiplier, f.denominator).numerator;
          } else {
            yield output(value);
            value = multiplier;
          }
        } else {
          const before: bigint = floorDiv(value, 1000n) * 1000n;
          const residual: bigint = mod(value, 1000n);
          value = before + residual * multiplier;
        }
      } else if (this.multipliersSuffixed.has(current)) {
        const [multiplier, suffix] = this.multipliersSuffixed.get(current)!;
        if (value === null) {
          yield output(String(multiplier) + suffix);
        } else if (typeof value === 'string') {
          const f = toFraction(value);
          if (f !== null && (f.numerator * multiplier) % f.denominator === 0n) {
            yield output(String(fraction(f.numerator * multiplier, f.denominator).numerator) + suffix);
          } else {
            yield output(value);
            yield output(String(multiplier) + suffix);
          }
        } else {
          // int
          const before: bigint = floorDiv(value, 1000n) * 1000n;
          const residual: bigint = mod(value, 1000n);
          value = before + residual * multiplier;
          yield output(String(value) + suffix);
        }
        value = null;
      } else if (this.precedingPrefixers.has(current)) {
        // apply prefix (positive, minus, etc.) if it precedes a number
        if (value !== null) yield output(value);
        if (has(this.words, next) || nextIsNumeric) prefix = this.precedingPrefixers.get(current)!;
        else yield output(current);
      } else if (this.followingPrefixers.has(current)) {
        // apply prefix (dollars, cents, etc.) only after a number
        if (value !== null) {
          prefix = this.followingPrefixers.get(current)!;
          yield output(value);
        } else {
          yield output(current);
        }
      } else if (this.suffixers.has(current)) {
        // apply suffix symbols (percent -> '%')
        if (value !== null) {
          const suffix = this.suffixers.get(current)!;
          if (typeof suffix !== 'string') {
            if (next !== null && suffix.has(next)) {
              yield output(String(value) + suffix.get(next)!);
              skip = true;
            } else {
              yield output(value);
              yield output(current);
            }
          } else {
            yield output(String(value) + suffix);
          }
        } else {
          yield output(current);
        }
      } else if (this.specials.has(current)) {
        if (!has(this.words, next) && !nextIsNumeric) {
          // apply special handling only if the next word can be numeric
          if (value !== null) yield output(value);
          yield output(current);
        } else if (current === 'and') {
          // ignore "and" after hundreds, thousands, etc.
          if (!has(this.multipliers, prev)) {
            if (value !== null) yield output(value);
            yield output(current);
          }
        } else if (current === 'double' || current === 'triple') {
          if (has(this.ones, next) || has(this.zeros, next)) {
            const repeats = current === 'double' ? 2 : 3;
            const ones = this.ones.get(next!) ?? 0;
            value = orEmpty(value) + String(ones).repeat(repeats);
            skip = true;
          } else {
            if (value !== null) yield output(value);
            yield output(current);
          }
        } else if (current === 'point') {
          if (has(this.decimals, next) || nextIsNumeric) value = orEmpty(value) + '.';
        } else {
          // should all have been covered at this point
          throw new Error(`Unexpected token: ${current}`);
        }
      } else {
        // all should have been covered at this point
        throw new Error(`Unexpected token: ${current}`);
      }
    }

    if (value !== null) yield output(value);
  }

  preprocess(text: string): string {
    // replace "<number> and a half" with "<number> point five"
    const results: string[] = [];
    const segments = text.split(re(`${B_BEFORE}and${SPACE}+a${SPACE}+half${B_AFTER}`, 'u'));
    segments.forEach((segment, i) => {
      if (pyStrip(segment).length === 0) return;
      results.push(segment);
      if (i !== segments.length - 1) {
        const lastWord = pySplit(segment).at(-1)!;
        results.push(this.decimals.has(lastWord) || this.multipliers.has(lastWord) ? 'point five' : 'and a half');
      }
    });
    let s = results.join(' ');

    // put a space at number/letter boundary
    s = s.replace(/([a-z])([0-9])/g, '$1 $2');
    s = s.replace(/([0-9])([a-z])/g, '$1 $2');
    // but remove spaces which could be a suffix
    s = s.replace(re(`([0-9])${SPACE}+(st|nd|rd|th|s)${B_AFTER}`), '$1$2');
    return s;
  }

  postprocess(text: string): string {
    // apply currency postprocessing; "$2 and ¢7" -> "$2.07"
    let s = text.replace(re(`([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})${B_AFTER}`), (_m, currency: string, integer: string, cents: string) =>
      `${currency}${integer}.${String(Number(cents)).padStart(2, '0')}`,
    );
    s = s.replace(re(`[€£$]0.([0-9]{1,2})${B_AFTER}`), (_m, cents: string) => `¢${Number(cents)}`);
    // write "one(s)" instead of "1(s)", just for the readability
    s = s.replace(re(`${B_BEFORE}1(s?)${B_AFTER}`), 'one$1');
    return s;
  }

  normalize(text: string): string {
    let s = this.preprocess(text);
    s = [...this.processWords(pySplit(s))].join(' ');
    return this.postprocess(s);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// english.py: EnglishSpellingNormalizer, EnglishTextNormalizer

/** Applies British-American spelling mappings (Whisper's `english.json`, shipped with each model as `normalizer.json`). */
export class EnglishSpellingNormalizer {
  constructor(readonly mapping: Spellings = {}) {}

  normalize(text: string): string {
    return pySplit(text)
      .map((word) => (Object.hasOwn(this.mapping, word) ? this.mapping[word]! : word))
      .join(' ');
  }
}

const IGNORE_PATTERNS = re(`${B_BEFORE}(?:hmm|mm|mhm|mmm|uh|um)${B_AFTER}`);

const REPLACERS: [RegExp, string][] = (
  [
    // common contractions
    ["won't", 'will not', true],
    ["can't", 'can not', true],
    ["let's", 'let us', true],
    ["ain't", 'aint', true],
    ["y'all", 'you all', true],
    ['wanna', 'want to', true],
    ['gotta', 'got to', true],
    ['gonna', 'going to', true],
    ["i'ma", 'i am going to', true],
    ['imma', 'i am going to', true],
    ['woulda', 'would have', true],
    ['coulda', 'could have', true],
    ['shoulda', 'should have', true],
    ["ma'am", 'madam', true],
    // contractions in titles/prefixes
    ['mr', 'mister ', true],
    ['mrs', 'missus ', true],
    ['st', 'saint ', true],
    ['dr', 'doctor ', true],
    ['prof', 'professor ', true],
    ['capt', 'captain ', true],
    ['gov', 'governor ', true],
    ['ald', 'alderman ', true],
    ['gen', 'general ', true],
    ['sen', 'senator ', true],
    ['rep', 'representative ', true],
    ['pres', 'president ', true],
    ['rev', 'reverend ', true],
    ['hon', 'honorable ', true],
    ['asst', 'assistant ', true],
    ['assoc', 'associate ', true],
    ['lt', 'lieutenant ', true],
    ['col', 'colonel ', true],
    ['jr', 'junior ', true],
    ['sr', 'senior ', true],
    ['esq', 'esquire ', true],
    // prefect tenses, ideally it should be any past participles, but it's harder..
    ["'d been", ' had been', false],
    ["'s been", ' has been', false],
    ["'d gone", ' had gone', false],
    ["'s gone", ' has gone', false],
    ["'d done", ' had done', false], // "'s done" is ambiguous
    ["'s got", ' has got', false],
    // general contractions
    ["n't", ' not', false],
    ["'re", ' are', false],
    ["'s", ' is', false],
    ["'d", ' would', false],
    ["'ll", ' will', false],
    ["'t", ' not', false],
    ["'ve", ' have', false],
    ["'m", ' am', false],
  ] as const
).map(([pattern, replacement, wordStart]) => [re(`${wordStart ? B_BEFORE : ''}${pattern}${B_AFTER}`), replacement]);

export class EnglishTextNormalizer {
  readonly standardizeNumbers = new EnglishNumberNormalizer();
  readonly standardizeSpellings: EnglishSpellingNormalizer;

  /** `spellings`: the British → American table (`loadSpellings(modelDir)`); the reference always loads its own copy. */
  constructor(spellings: Spellings = {}) {
    this.standardizeSpellings = new EnglishSpellingNormalizer(spellings);
  }

  normalize(text: string): string {
    let s = text.toLowerCase();

    s = s.replace(BRACKETED, ''); // remove words between brackets
    s = s.replace(PARENTHESISED, ''); // remove words between parenthesis
    s = s.replace(IGNORE_PATTERNS, '');
    s = s.replace(re(`${SPACE}+'`), "'"); // when there's a space before an apostrophe

    for (const [pattern, replacement] of REPLACERS) s = s.replace(pattern, replacement);

    s = s.replace(re(`(${D}),(${D})`), '$1$2'); // remove commas between digits
    s = s.replace(/\.([^0-9]|$)/gu, ' $1'); // remove periods not followed by numbers
    s = removeSymbolsAndDiacritics(s, '.%$¢€£'); // keep numeric symbols

    s = this.standardizeNumbers.normalize(s);
    s = this.standardizeSpellings.normalize(s);

    // now remove prefix/suffix symbols that are not preceded/followed by numbers
    s = s.replace(/[.$¢€£]([^0-9])/gu, ' $1');
    s = s.replace(/([^0-9])%/gu, '$1 ');

    return s.replace(SPACES, ' '); // replace any successive whitespaces with a space
  }
}

// ---------------------------------------------------------------------------------------------------------------
// This project's use of them

/** Whisper's British → American spelling table from a model directory (`normalizer.json`), or {} when absent. */
export function loadSpellings(modelDir: string): Spellings {
  const file = join(modelDir, 'normalizer.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Spellings) : {};
}

const englishNormalizers = new WeakMap<Spellings, EnglishTextNormalizer>();
const basicNormalizer = new BasicTextNormalizer(false);

/** Whether `language` (a code or a name; absent means English) takes the English normaliser. */
export function isEnglish(language: string | undefined): boolean {
  if (language === undefined || language === '') return true;
  const lower = language.toLowerCase();
  return lower === 'en' || lower === 'english' || lower.startsWith('en-') || lower.startsWith('en_');
}

/**
 * The normalised words of `text`: Whisper's `EnglishTextNormalizer` for English (the default), its
 * `BasicTextNormalizer` (diacritics kept) for any other language, as Whisper's own evaluation does.
 */
export function normaliseText(text: string, spellings: Spellings = {}, language?: string): string[] {
  let normalised: string;
  if (isEnglish(language)) {
    let normalizer = englishNormalizers.get(spellings);
    if (!normalizer) englishNormalizers.set(spellings, (normalizer = new EnglishTextNormalizer(spellings)));
    normalised = normalizer.normalize(text);
  } else {
    normalised = basicNormalizer.normalize(text);
  }
  return normalised.split(' ').filter((word) => word.length > 0);
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

/**
 * Corpus word error rate: all edits over all reference words (texts normalised first). A pair's `language`
 * picks the normaliser (English when absent; see `normaliseText`).
 */
export function wordErrorRate(
  pairs: readonly { reference: string; hypothesis: string; language?: string }[],
  spellings: Spellings = {},
): EditCounts & { wer: number } {
  const total: EditCounts = { substitutions: 0, deletions: 0, insertions: 0, errors: 0, words: 0 };
  for (const { reference, hypothesis, language } of pairs) {
    const counts = editCounts(normaliseText(reference, spellings, language), normaliseText(hypothesis, spellings, language));
    total.substitutions += counts.substitutions;
    total.deletions += counts.deletions;
    total.insertions += counts.insertions;
    total.errors += counts.errors;
    total.words += counts.words;
  }
  return { ...total, wer: total.words > 0 ? total.errors / total.words : 0 };
}

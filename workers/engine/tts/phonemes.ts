/**
 * Text → Kokoro phoneme ids: espeak-ng's IPA per clause, rewritten into the symbols Kokoro was trained on (the
 * rules of misaki's espeak fallbacks: English diphthongs as single letters A I O W Y Q, affricates as ʤ ʧ ʦ ʣ),
 * the text's own punctuation put back between clauses (espeak-ng leaves it out, Kokoro reads it for prosody),
 * mapped to ids by the model's tokenizer.json (symbols it lacks are dropped), and cut into chunks the model
 * takes (at most 510 ids) at sentence, else clause, else word boundaries.
 */
import { readFileSync } from 'node:fs';
import { espeakIpa, type EspeakOptions } from './espeak.js';

/** The most phoneme ids one model call takes (512 positions less the two pads). */
export const MAX_PHONEME_IDS = 510;

/** Punctuation Kokoro has ids for, as it follows a clause. */
const KOKORO_PUNCTUATION = ';:,.!?—…"()“”';
/** Punctuation that ends a sentence (a chunk prefers to end there). */
const SENTENCE_END = /[.!?…]["”)]*$/;

/** One clause: its phonemes, then the text's punctuation and the space that followed it. */
export interface PhonemePiece {
  phonemes: string;
  /** 'sentence' after . ! ? …; 'clause' after other punctuation; null at the end of a piece without any. */
  end: 'sentence' | 'clause' | null;
}

export interface PhonemeChunk {
  /** Kokoro phonemes of this chunk. */
  phonemes: string;
  /** Their token ids (without the pads), at most MAX_PHONEME_IDS. */
  ids: number[];
}

/** Typographic variants folded onto what Kokoro has ids for; spaces collapsed. */
function normaliseText(text: string): string {
  return text
    .replace(/[«“„]/g, '“')
    .replace(/[»”]/g, '”')
    .replace(/[–―]/g, '—')
    .replace(/\.\.\./g, '…')
    .replace(/[¡¿]/g, '')
    .replace(/[。．]/g, '. ')
    .replace(/[，、]/g, ', ')
    .replace(/[！]/g, '! ')
    .replace(/[？]/g, '? ')
    .replace(/[；]/g, '; ')
    .replace(/[：]/g, ': ')
    .replace(/\s+/g, ' ')
    .trim();
}

interface Section {
  text: string;
  /** Punctuation after the text, with one space when the text went on after it. */
  tail: string;
  end: PhonemePiece['end'];
}

/**
 * The text cut at its punctuation: . , ; : only when a space or the end follows (so 3.5 and e.g. stay whole),
 * the others wherever they stand.
 */
function sections(text: string): Section[] {
  const out: Section[] = [];
  const mark = /(?:[!?…—"()“”]|[.,;:](?=\s|$|[!?…—"()“”]))+/g;
  let from = 0;
  for (const match of text.matchAll(mark)) {
    const after = match.index! + match[0].length;
    const space = /^\s/.test(text.slice(after)) ? ' ' : '';
    const punct = match[0];
    out.push({ text: text.slice(from, match.index).trim(), tail: punct + space, end: SENTENCE_END.test(punct) ? 'sentence' : 'clause' });
    from = after;
  }
  const rest = text.slice(from).trim();
  if (rest) out.push({ text: rest, tail: '', end: null });
  return out;
}

/** espeak-ng's symbols → Kokoro's, longest first (misaki's EspeakFallback for English, EspeakG2P for the rest). */
const ENGLISH_RULES: [string, string][] = [
  ['ʔˌn\u0329', 'tᵊn'], ['ʔn\u0329', 'tᵊn'], ['ʔn', 'tᵊn'], ['ʔ', 't'],
  ['a^ɪ', 'I'], ['a^ʊ', 'W'], ['d^ʒ', 'ʤ'], ['e^ɪ', 'A'], ['t^ʃ', 'ʧ'], ['ɔ^ɪ', 'Y'], ['ə^l', 'ᵊl'],
  ['ʲo', 'jo'], ['ʲə', 'jə'], ['ʲ', ''], ['ɚ', 'əɹ'], ['e', 'A'], ['r', 'ɹ'], ['x', 'k'], ['ç', 'k'], ['ɐ', 'ə'], ['ɬ', 'l'], [
    '\u0303', '',
  ],
];
const OTHER_RULES: [string, string][] = [
  ['a^ɪ', 'I'], ['a^ʊ', 'W'], ['d^z', 'ʣ'], ['d^ʒ', 'ʤ'], ['e^ɪ', 'A'], ['o^ʊ', 'O'], ['ə^ʊ', 'Q'],
  ['s^s', 'S'], ['t^s', 'ʦ'], ['t^ʃ', 'ʧ'], ['ɔ^ɪ', 'Y'],
];
function replaceAll(ipa: string, rules: [string, string][]): string {
  return rules.reduce((text, [from, to]) => text.split(from).join(to), ipa);
}

/** One clause of espeak-ng's IPA rewritten for Kokoro. */
export function kokoroPhonemes(ipa: string, espeakVoice: string): string {
  // Words espeak-ng reads in another language come wrapped in flags such as (en)…(ja): keep the words, drop the flags.
  let ps = ipa.replace(/\((?:\^?[a-z]){2,8}\)/g, '').replace(/\s+/g, ' ').trim();
  if (espeakVoice.startsWith('en')) {
    const british = espeakVoice === 'en-gb';
    // British e^ə (square) before the general rules turn its e into A.
    if (british) ps = ps.replace(/e\^ə/g, 'ɛː');
    ps = replaceAll(ps, ENGLISH_RULES).replace(/(\S)\u0329/g, 'ᵊ$1').replace(/\u0329/g, '');
    if (british) ps = ps.replace(/iə/g, 'ɪə').replace(/ə\^ʊ/g, 'Q');
    else ps = ps.replace(/o\^ʊ/g, 'O').replace(/ɜːɹ/g, 'ɜɹ').replace(/ɜː/g, 'ɜɹ').replace(/ɪə/g, 'iə').replace(/ː/g, '');
    // espeak-ng before 1.52 writes o where Kokoro's English has ɔ.
    ps = ps.replace(/o/g, 'ɔ');
  } else {
    ps = replaceAll(ps, OTHER_RULES);
  }
  // Ties, hyphens, syllable dots (Mandarin's s.ˈi.) and tone numbers are espeak-ng's notation, not sounds; a
  // dot left in would read as a full stop.
  return ps.replace(/[\^.\-0-9]/g, '');
}

/**
 * The text as Kokoro phonemes, one piece per clause (its punctuation and following space included). espeak-ng
 * runs once for the whole text, each clause on its own line; should its lines not match the clauses one to one
 * (it breaks a clause of its own accord), each clause is phonemised on its own.
 */
export async function phonemePieces(text: string, espeakVoice: string, options: EspeakOptions = {}): Promise<PhonemePiece[]> {
  const parts = sections(normaliseText(text));
  const spoken = parts.filter((part) => part.text);
  let ipa = spoken.length ? await espeakIpa(spoken.map((part) => `${part.text}.`).join('\n'), espeakVoice, options) : [];
  if (ipa.length !== spoken.length) {
    ipa = await Promise.all(spoken.map(async (part) => (await espeakIpa(`${part.text}.`, espeakVoice, options)).join(' ')));
  }
  let next = 0;
  return parts.map((part) => {
    const phonemes = part.text ? kokoroPhonemes(ipa[next++], espeakVoice) : '';
    const tail = [...part.tail].filter((c) => c === ' ' || KOKORO_PUNCTUATION.includes(c)).join('');
    return { phonemes: phonemes + tail, end: part.end };
  });
}

/** The text as one Kokoro phoneme string. */
export async function phonemize(text: string, espeakVoice: string, options: EspeakOptions = {}): Promise<string> {
  return (await phonemePieces(text, espeakVoice, options)).map((piece) => piece.phonemes).join('').trim();
}

/** Kokoro's symbol → id table (tokenizer.json `model.vocab`); one symbol per id, each a single code point. */
export class PhonemeVocab {
  private constructor(private readonly ids: Map<string, number>) {}

  static fromFile(tokenizerJson: string): PhonemeVocab {
    const parsed = JSON.parse(readFileSync(tokenizerJson, 'utf8')) as { model?: { vocab?: Record<string, number> } };
    const vocab = parsed.model?.vocab;
    if (!vocab || typeof vocab !== 'object') throw new Error(`${tokenizerJson} has no model.vocab`);
    return new PhonemeVocab(new Map(Object.entries(vocab)));
  }

  /**
   * Ids of the phonemes, without the pads; symbols the model has no id for are dropped. A precomposed letter the
   * model lacks is taken apart first, so its base letter stays (Japanese ä → a, its diaeresis dropped).
   */
  encode(phonemes: string): number[] {
    const out: number[] = [];
    const add = (symbol: string) => {
      const id = this.ids.get(symbol);
      if (id !== undefined && id !== 0) out.push(id);
    };
    for (const symbol of phonemes) {
      if (this.ids.has(symbol)) add(symbol);
      else for (const part of symbol.normalize('NFD')) add(part);
    }
    return out;
  }
}

/** A piece too long for one call, cut between words (and a word longer than that between symbols). */
function splitLong(phonemes: string, vocab: PhonemeVocab, maxIds: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of phonemes.split(/(?<= )/)) {
    if (vocab.encode(current + word).length <= maxIds) {
      current += word;
      continue;
    }
    if (current) out.push(current);
    current = word;
    while (vocab.encode(current).length > maxIds) {
      const symbols = [...current];
      let cut = 0;
      for (let kept = 0; cut < symbols.length && kept + vocab.encode(symbols[cut]).length <= maxIds; cut++) kept += vocab.encode(
        symbols[cut],
      ).length;
      out.push(symbols.slice(0, cut).join(''));
      current = symbols.slice(cut).join('');
    }
  }
  if (current) out.push(current);
  return out;
}

/**
 * Groups of pieces that fit one call each: whole sentences packed together while they fit; a sentence that
 * does not fit alone is cut at its clauses, and a clause that does not fit at its words. `firstSentenceAlone`
 * keeps the first sentence a chunk of its own (streaming: the first audio comes sooner).
 */
export function chunkPieces(
  pieces: PhonemePiece[], vocab: PhonemeVocab, options: { maxIds?: number; firstSentenceAlone?: boolean } = {},
): PhonemeChunk[] {
  const maxIds = options.maxIds ?? MAX_PHONEME_IDS;
  const fits = (phonemes: string) => vocab.encode(phonemes).length <= maxIds;
  // Units: sentences that fit, else their clauses (or clause parts) that do.
  const units: { phonemes: string; sentenceStart: boolean }[] = [];
  let sentence: PhonemePiece[] = [];
  const flush = () => {
    const whole = sentence.map((piece) => piece.phonemes).join('');
    if (fits(whole)) units.push({ phonemes: whole, sentenceStart: true });
    else {
      sentence.flatMap((piece) => (fits(piece.phonemes) ? [piece.phonemes] : splitLong(piece.phonemes, vocab, maxIds)))
        .forEach((phonemes, i) => units.push({ phonemes, sentenceStart: i === 0 }));
    }
    sentence = [];
  };
  for (const piece of pieces) {
    sentence.push(piece);
    if (piece.end === 'sentence') flush();
  }
  if (sentence.length) flush();

  const chunks: string[] = [];
  let sentences = 0;
  for (const unit of units) {
    if (unit.sentenceStart) sentences++;
    const last = chunks.length - 1;
    const firstAlone = options.firstSentenceAlone && sentences === 2 && unit.sentenceStart && chunks.length === 1;
    if (last >= 0 && !firstAlone && fits(chunks[last] + unit.phonemes)) chunks[last] += unit.phonemes;
    else chunks.push(unit.phonemes);
  }
  return chunks
    .map((phonemes) => phonemes.trim())
    .map((phonemes) => ({ phonemes, ids: vocab.encode(phonemes) }))
    // Punctuation alone says nothing.
    .filter((chunk) => [...chunk.phonemes].some((symbol) => symbol !== ' ' && !KOKORO_PUNCTUATION.includes(symbol)));
}

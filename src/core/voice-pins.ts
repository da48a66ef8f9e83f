/**
 * `settings.voiceByLang`, read wherever settings are (transcriptions, recordings): below the modules, since both the
 * transcriptions and the recordings parse it and the voices module (cloned voices) depends on the recordings.
 */
import { errors } from './errors.js';
import { findVoice, findVoiceLanguage, VOICE_LANGUAGES } from '../../workers/engine/index.js';

/** A cloned voice's id (`voi_…`; src/voices/service.ts) as opposed to a catalogue voice's (`ef_dora`). */
export const CLONED_VOICE_ID = /^voi_[A-Za-z0-9_-]{1,64}$/;

/**
 * `settings.voiceByLang`: which voice speaks each language of a recording's spoken translation (`{"es": "ef_dora",
 * "fr": "voi_…"}`), or null / `{}` for none. Keys are voice languages (GET /v1/languages `voice`); a value is a
 * catalogue voice that speaks that language, or the id of one of the account's cloned voices (checked when it
 * speaks: one not ready, switched off or deleted leaves the language's default voice speaking). `field` names it in
 * a refusal (`settings.voiceByLang.es`).
 */
export function parseVoicePins(value: unknown, field: string): Record<string, string> | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw errors.invalidOptions(`${field} must be an object from a voice language to a voice, or null.`, { field });
  }
  const pins: Record<string, string> = {};
  for (const [lang, voice] of Object.entries(value as Record<string, unknown>)) {
    const name = `${field}.${lang}`;
    const language = findVoiceLanguage(lang);
    if (!language) {
      throw errors.invalidOptions(`${name}: no voice speaks '${lang}' (the voice languages: `
        + `${VOICE_LANGUAGES.map((l) => l.code).join(', ')}).`, { field: name });
    }
    if (typeof voice !== 'string') {
      throw errors.invalidOptions(
        `${name} must be a voice id (GET /v1/voices/available?lang=${language.code} lists them).`, { field: name },
      );
    }
    if (!CLONED_VOICE_ID.test(voice)) {
      const catalogue = findVoice(voice);
      if (!catalogue) {
        throw errors.invalidOptions(`${name}: '${voice}' is neither a catalogue voice nor a cloned voice id (GET `
          + `/v1/voices/available?lang=${language.code} lists them).`, { field: name });
      }
      if (catalogue.language !== language.code) {
        throw errors.invalidOptions(`${name}: '${voice}' speaks ${catalogue.language}, not ${language.code}.`, { field: name });
      }
    }
    pins[language.code] = voice;
  }
  return pins;
}

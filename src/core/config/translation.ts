/**
 * Settings of text translation (src/translation), read by `loadConfig` into `config.translation`. Every variable
 * has a row in docs/translation.md. A mistake here (an unknown provider, Google without a key, an
 * LLM without an address, Apertium named but not installed) stops the start with one line, rather than failing
 * the first listener who asks for a language.
 */
import fs from 'node:fs';
import path from 'node:path';
import { envBool as bool, envInt as int, envString as str, type Env } from './env.js';

export const TRANSLATION_PROVIDER_NAMES = ['apertium', 'google', 'llm'] as const;
export type TranslationProviderName = (typeof TRANSLATION_PROVIDER_NAMES)[number];

/**
 * Targets the LLM provider offers unless TRANSLATION_LLM_LANGUAGES says otherwise: languages general chat models
 * translate into well. An operator running a small local model narrows it; one running a large model widens it.
 */
export const DEFAULT_LLM_LANGUAGES = [
  'ar', 'ca', 'cs', 'da', 'de', 'el', 'en', 'es', 'fi', 'fr', 'he', 'hi', 'hu', 'id', 'it', 'ja', 'ko', 'nb', 'nl',
  'pl', 'pt', 'ro', 'ru', 'sv', 'th', 'tr', 'uk', 'vi', 'zh',
];

export interface TranslationSettings {
  /**
   * TRANSLATION_PROVIDERS: the providers, in order of preference; a language pair goes to the first that serves it.
   * Default: `apertium` when its binary is installed, else none (`none` says none explicitly).
   */
  providers: TranslationProviderName[];
  /** TRANSLATION_TIMEOUT_MS: one Google request's or one Apertium run's limit (default 15000). */
  timeoutMs: number;
  google: {
    /** TRANSLATION_GOOGLE_API_KEY: required with `google`. */
    apiKey: string | null;
    /** TRANSLATION_GOOGLE_URL: the API's base (default https://translation.googleapis.com); tests point it at a fake. */
    apiUrl: string;
  };
  llm: {
    /** TRANSLATION_LLM_URL, else SUMMARY_API_URL: an OpenAI-compatible API's base; required with `llm`. */
    apiUrl: string | null;
    /** TRANSLATION_LLM_KEY (with TRANSLATION_LLM_URL), else SUMMARY_API_KEY (with SUMMARY_API_URL). */
    apiKey: string | null;
    /** TRANSLATION_LLM_MODEL, else SUMMARY_MODEL, else gpt-4o-mini. */
    model: string;
    /** TRANSLATION_LLM_TIMEOUT_MS: one chat request's limit (default 60000). */
    timeoutMs: number;
    /** TRANSLATION_LLM_LANGUAGES: comma-separated target codes it offers (default DEFAULT_LLM_LANGUAGES). */
    languages: string[];
  };
  apertium: {
    /** TRANSLATION_APERTIUM_BIN: the `apertium` command (default `apertium` on PATH). */
    bin: string;
    /** Where `bin` was found on this environment's PATH; null when it was not (then Apertium is not offered). */
    path: string | null;
  };
  /**
   * TRANSLATION_SPEECH (default on): the English pivot of recordings (src/translation/speech.ts) — a sentence's audio
   * read again by the accurate Whisper model's speech→English task when no text provider serves the pair. `off`
   * turns it off (a pair no text provider serves is then 400, as before).
   */
  speech: boolean;
}

/** The executable `bin` names: itself when it holds a slash, else the first match on PATH; null when there is none. */
export function findExecutable(bin: string, pathVariable: string | undefined): string | null {
  const candidates = bin.includes('/') ? [bin] : (pathVariable ?? '').split(path.delimiter).filter(Boolean).map(
    (dir) => path.join(dir, bin),
  );
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not there, or not executable: try the next
    }
  }
  return null;
}

/**
 * A language code in its canonical BCP 47 form (`PT-br` → `pt-BR`, `EN` → `en`), null when it is not one. Canonical
 * codes keep one cache row per pair whatever case a caller writes, and are what Google expects (`zh-TW`).
 */
export function canonicalLanguage(code: string): string | null {
  try {
    return Intl.getCanonicalLocales(code.trim())[0] ?? null;
  } catch {
    return null;
  }
}

function list(raw: string | null): string[] {
  return (raw ?? '').split(',').map((item) => item.trim()).filter(Boolean);
}

function parseProviders(raw: string | null, apertiumInstalled: boolean): TranslationProviderName[] {
  if (raw === null) return apertiumInstalled ? ['apertium'] : [];
  const names = list(raw.toLowerCase());
  if (names.length === 1 && names[0] === 'none') return [];
  const known: readonly string[] = TRANSLATION_PROVIDER_NAMES;
  for (const name of names) {
    if (!known.includes(name)) {
      throw new Error(`TRANSLATION_PROVIDERS: unknown provider "${name}"; known: ${TRANSLATION_PROVIDER_NAMES.join(', ')} (or none)`);
    }
  }
  if (new Set(names).size !== names.length) throw new Error(`TRANSLATION_PROVIDERS names a provider twice: "${raw}"`);
  return names as TranslationProviderName[];
}

export function loadTranslationSettings(env: Env): TranslationSettings {
  const bin = str(env, 'TRANSLATION_APERTIUM_BIN') ?? 'apertium';
  const apertiumPath = findExecutable(bin, env.PATH);
  const apertiumInstalled = apertiumPath !== null;
  const providers = parseProviders(str(env, 'TRANSLATION_PROVIDERS'), apertiumInstalled);
  const ownLlmUrl = str(env, 'TRANSLATION_LLM_URL');
  const settings: TranslationSettings = {
    providers,
    timeoutMs: Math.max(1, int(env, 'TRANSLATION_TIMEOUT_MS', 15_000)),
    google: {
      apiKey: str(env, 'TRANSLATION_GOOGLE_API_KEY'),
      apiUrl: (str(env, 'TRANSLATION_GOOGLE_URL') ?? 'https://translation.googleapis.com').replace(/\/+$/, ''),
    },
    llm: {
      // One LLM server for summaries and translation is common: it need not be named twice. Its key goes only
      // with its own address, never to another server.
      apiUrl: (ownLlmUrl ?? str(env, 'SUMMARY_API_URL'))?.replace(/\/+$/, '') ?? null,
      apiKey: ownLlmUrl ? str(env, 'TRANSLATION_LLM_KEY') : str(env, 'SUMMARY_API_KEY'),
      model: str(env, 'TRANSLATION_LLM_MODEL') ?? str(env, 'SUMMARY_MODEL') ?? 'gpt-4o-mini',
      timeoutMs: Math.max(1, int(env, 'TRANSLATION_LLM_TIMEOUT_MS', 60_000)),
      languages: list(str(env, 'TRANSLATION_LLM_LANGUAGES')).map((code) => {
        const canonical = canonicalLanguage(code);
        if (!canonical) throw new Error(`TRANSLATION_LLM_LANGUAGES: "${code}" is not a language code`);
        return canonical;
      }),
    },
    apertium: { bin, path: apertiumPath },
    speech: bool(env, 'TRANSLATION_SPEECH', true),
  };
  if (!settings.llm.languages.length) settings.llm.languages = [...DEFAULT_LLM_LANGUAGES];
  if (providers.includes('google') && !settings.google.apiKey) throw new Error('TRANSLATION_PROVIDERS names google, which needs '
    + 'TRANSLATION_GOOGLE_API_KEY');
  if (providers.includes('llm') && !settings.llm.apiUrl) throw new Error('TRANSLATION_PROVIDERS names llm, which needs '
    + 'TRANSLATION_LLM_URL (the base of an OpenAI-compatible API) or SUMMARY_API_URL');
  if (providers.includes('apertium') && !apertiumInstalled) {
    throw new Error(`TRANSLATION_PROVIDERS names apertium, but "${bin}" is not an executable on PATH; install the apertium package and `
      + `its language pairs (e.g. apertium-eng-spa) or set TRANSLATION_APERTIUM_BIN`);
  }
  return settings;
}

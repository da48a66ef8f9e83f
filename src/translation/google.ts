/**
 * Google Cloud Translation, the v2 ("basic") REST API with an API key:
 *
 *   POST {base}/language/translate/v2?key=KEY   {q: [texts], target, source?, format: "text"}
 *        → {data: {translations: [{translatedText, detectedSourceLanguage?}]}} in the order of `q`
 *   GET  {base}/language/translate/v2/languages?key=KEY → {data: {languages: [{language}]}}
 *
 * `format: "text"` because transcripts are plain text: the default (`html`) would answer `&#39;` for an apostrophe.
 * Errors come as `{error: {code, message, errors: [{reason}]}}`; quota (`rateLimitExceeded`, `userRateLimitExceeded`,
 * `dailyLimitExceeded`, `quotaExceeded`, or a 429), a timeout, a network failure or a 5xx is a retryable
 * `503 unavailable`; a refused key (400 `keyInvalid` / `API_KEY_INVALID`, 401, another 403) is a `503 unavailable`,
 * not retryable, that an operator must fix.
 */
import type { TranslationSettings } from '../core/config/translation.js';
import { inBatches, offeredCode, providerError, type TranslationProvider } from './provider.js';

/** Google's own limits are 128 texts and 30k characters a request; stay under both. */
const MAX_TEXTS = 100;
const MAX_CHARS = 20_000;
/** The language list changes rarely: asked again after a day, or after a minute when asking failed. */
const LANGUAGES_TTL_MS = 24 * 3600_000;
const LANGUAGES_RETRY_MS = 60_000;

const QUOTA_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'dailyLimitExceeded', 'quotaExceeded']);

interface GoogleErrorBody {
  error?: { code?: number; message?: string; errors?: Array<{ reason?: string }>; status?: string; details?: Array<{ reason?: string }> };
}

export function googleProvider(
  settings: Pick<TranslationSettings, 'google' | 'timeoutMs'>, fetchImpl: typeof fetch = fetch,
): TranslationProvider {
  const base = `${settings.google.apiUrl}/language/translate/v2`;
  const key = encodeURIComponent(settings.google.apiKey ?? '');
  let languages: { list: Promise<string[]>; until: number } | null = null;

  /** One call: the parsed JSON of a 2xx answer, or the error the failure stands for. */
  async function call(url: string, init: RequestInit): Promise<unknown> {
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(settings.timeoutMs) });
      text = await response.text();
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw providerError('google', 'timeout', `Google Translation did not answer within ${settings.timeoutMs} ms.`, { cause: error });
      }
      throw providerError(
        'google', 'unreachable', `Google Translation could not be reached: ${(error as Error).message}`, { cause: error },
      );
    }
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // handled below: a 2xx must be JSON; an error's message is optional
    }
    if (response.ok) {
      if (body === null) {
        throw providerError('google', 'bad_answer', `Google Translation answered ${response.status} with a body that is not JSON.`);
      }
      return body;
    }
    const error = (body as GoogleErrorBody | null)?.error;
    const reasons = (error?.errors ?? []).map((e) => e.reason ?? '');
    const said = `Google Translation answered `
      + `${response.status}${reasons.length ? ` (${reasons.join(', ')})` : ''}${error?.message ? `: ${error.message}` : ''}`;
    if (response.status === 429 || reasons.some((reason) => QUOTA_REASONS.has(reason))) {
      const daily = reasons.includes('dailyLimitExceeded');
      throw providerError('google', 'quota', `${said}. Its quota is spent; retry later.`, { retryAfterS: daily ? 3600 : 60 });
    }
    // A refused key: 400 `keyInvalid` (older answers) or `badRequest` with the `API_KEY_INVALID` detail (newer), 401, 403.
    const keyRefused = reasons.includes('keyInvalid') || (error?.details ?? []).some((detail) => detail.reason === 'API_KEY_INVALID');
    if ((response.status === 400 && keyRefused) || response.status === 401 || response.status === 403) {
      throw providerError(
        'google', 'credentials', `${said}. The server's TRANSLATION_GOOGLE_API_KEY is refused; the operator must fix it.`,
      );
    }
    throw providerError('google', 'failed', `${said}.`);
  }

  async function offered(): Promise<string[]> {
    if (!languages || languages.until < Date.now()) {
      const list = call(`${base}/languages?key=${key}`, { method: 'GET' }).then((body) => {
        const entries = (body as { data?: { languages?: Array<{ language?: unknown }> } }).data?.languages;
        if (!Array.isArray(entries)) throw providerError('google', 'bad_answer', 'Google Translation\'s language list has no '
          + 'data.languages.');
        return entries.map((entry) => entry.language).filter((code): code is string => typeof code === 'string');
      });
      languages = { list, until: Date.now() + LANGUAGES_TTL_MS };
      list.catch(() => {
        if (languages?.list === list) languages.until = Date.now() + LANGUAGES_RETRY_MS;
      });
    }
    return languages.list;
  }

  async function translateBatch(q: string[], source: string | null, target: string): Promise<string[]> {
    const body = await call(`${base}?key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q, target, ...(source ? { source } : {}), format: 'text' }),
    });
    const translations = (body as { data?: { translations?: Array<{ translatedText?: unknown }> } }).data?.translations;
    if (!Array.isArray(translations) || translations.length !== q.length || translations.some(
      (t) => typeof t?.translatedText !== 'string',
    )) {
      throw providerError('google', 'bad_answer', `Google Translation answered `
        + `${Array.isArray(translations) ? translations.length : 'no'} translations for ${q.length} texts.`);
    }
    return translations.map((t) => t.translatedText as string);
  }

  return {
    name: 'google',
    targets: offered,
    async serves(from, to) {
      const list = await offered();
      return offeredCode(to, list) !== null && (from === null || offeredCode(from, list) !== null);
    },
    async translate(texts, from, to) {
      const list = await offered();
      const target = offeredCode(to, list) ?? to;
      const source = from && (offeredCode(from, list) ?? from);
      return inBatches(texts, MAX_TEXTS, MAX_CHARS, (batch) => translateBatch(batch, source, target));
    },
  };
}

/**
 * The one small interface every translation provider implements — Apertium (apertium.ts, local), Google Cloud
 * Translation v2 (google.ts), an OpenAI-compatible chat model (llm.ts) — and the errors they throw. The service
 * (service.ts) picks the first configured provider that serves a pair and caches what it answers.
 */
import { ApiError } from '../core/errors.js';
import type { TranslationProviderName } from '../core/config/translation.js';

/**
 * Where a translation came from: the spec's `translationSources` values. `cache`: a translation made earlier (by
 * any provider); `google`, `llm`: those providers; `apertium`: the local rule-based engine (this server's own value,
 * not in the spec's list, which names only `cache`, `google` and `llm`); `whisper`: English read from the speech
 * itself by the speech engine (speech.ts, the English pivot of recordings; also this server's own value). `none`:
 * nothing was translated, the text is empty or already in the target language; a caller leaves it out of
 * `translationSources`.
 */
export type TranslationSource = 'cache' | TranslationProviderName | 'whisper' | 'none';

export interface TranslationProvider {
  readonly name: TranslationProviderName;
  /** The target languages it offers (canonical BCP 47 codes), for `GET /v1/languages`. */
  targets(): Promise<string[]>;
  /** Whether it translates `from` (null: it must detect the language) into `to`; codes are canonical. */
  serves(from: string | null, to: string): Promise<boolean>;
  /** One translation per text, in order. Throws an ApiError (`providerError`) when it cannot. */
  translate(texts: string[], from: string | null, to: string): Promise<string[]>;
}

/** Why a provider failed, in `details.reason` of its error. */
export type ProviderFailure = 'quota' | 'timeout' | 'unreachable' | 'credentials' | 'bad_answer' | 'not_installed' | 'failed';

/** Failures a later attempt can get past (the quota refills, the server comes back, the model answers better). */
const RETRYABLE: ReadonlySet<ProviderFailure> = new Set(['quota', 'timeout', 'unreachable', 'bad_answer', 'failed']);

/**
 * A provider that could not translate: `503 unavailable`, the spec's code for "not now, on the server's side"
 * (the caller did nothing wrong). `retryable` with a `Retry-After` for what passes (quota, timeouts, an outage, a
 * bad model answer); not retryable for what an operator must fix (a refused key, a missing binary).
 */
export function providerError(
  provider: TranslationProviderName | 'whisper', reason: ProviderFailure, message: string,
  options: { retryAfterS?: number; cause?: unknown } = {},
): ApiError {
  const retryable = RETRYABLE.has(reason);
  const retryAfterS = options.retryAfterS ?? (reason === 'quota' ? 60 : 5);
  return new ApiError('unavailable', 503, message, {
    retryable,
    details: { provider, reason, ...(retryable ? { retryAfterS } : {}) },
    headers: retryable ? { 'Retry-After': String(retryAfterS) } : {},
    cause: options.cause,
  });
}

/**
 * The code a provider knows for `code`: itself, else its primary language (`en-US` → `en`), else null. Lets a
 * caller ask with a regional code while the provider knows only the language.
 */
export function offeredCode(code: string, offered: readonly string[]): string | null {
  if (offered.includes(code)) return code;
  const primary = code.split('-')[0]!;
  return offered.includes(primary) ? primary : null;
}

/**
 * Translates `texts` in runs of at most `maxItems` texts and about `maxChars` characters (a longer text goes alone),
 * one run after another, so one call never exceeds what a provider takes in one request.
 */
export async function inBatches(
  texts: string[], maxItems: number, maxChars: number, translateBatch: (batch: string[]) => Promise<string[]>,
): Promise<string[]> {
  const translated: string[] = [];
  for (const batch of batches(texts, maxItems, maxChars)) translated.push(...(await translateBatch(batch)));
  return translated;
}

function batches(texts: string[], maxItems: number, maxChars: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (current.length && (current.length >= maxItems || chars + text.length > maxChars)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(text);
    chars += text.length;
  }
  if (current.length) out.push(current);
  return out;
}

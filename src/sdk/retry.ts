/**
 * The spec's retry rules (Errors; Limits: "SDK retries 429, 503: twice by default"):
 *   - 429 (any code) and 503 `unavailable` — or a bare 503 with no envelope — are retried after `Retry-After`;
 *   - a 503 only for safe calls: GET, HEAD, DELETE, or a call carrying an `Idempotency-Key` (a create without a key
 *     may have run: repeating it could create twice);
 *   - nothing else is retried, and a request that got no answer (`network_error`) is not retried either.
 * A `Retry-After` longer than `maxRetryDelayMs` is not waited out: the error surfaces at once (e.g. the hourly
 * creation rate), rather than blocking the caller for an hour.
 */
import { envelopeOf, errorFromResponse, networkError, retryAfterValueMs } from './errors.js';

export interface RetryOptions {
  /** How many times a retryable answer is retried (default 2: three attempts in all). */
  retries?: number;
  /** The longest `Retry-After` the SDK waits out (default 60 000 ms); a longer one surfaces the error at once. */
  maxRetryDelayMs?: number;
  /** How to wait (default a timer); tests pass their own to shorten the wait and to see what was asked for. */
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRIES = 2;
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;
/** Without `Retry-After` (a bare 503): 1 s, then 2 s, 4 s... */
const FALLBACK_DELAY_MS = 1_000;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Whether a 503 may be retried: a safe method, or a request the server de-duplicates by its key. */
export function isSafeToRepeat(method: string, headers: Headers): boolean {
  return SAFE_METHODS.has(method.toUpperCase()) || headers.has(IDEMPOTENCY_KEY_HEADER);
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(response: Response, now = Date.now()): number | null {
  return retryAfterValueMs(response.headers.get('retry-after'), now);
}

/** Whether this answer is one the rules retry (given that repeating the request is safe for 503s). */
async function isRetryableAnswer(response: Response, safeToRepeat: boolean): Promise<boolean> {
  if (response.status === 429) return true;
  if (response.status !== 503 || !safeToRepeat) return false;
  const body: unknown = await response.clone().json().catch(() => null);
  const envelope = envelopeOf(body);
  // `unavailable` (the service waking) or a bare 503 (a busy fleet); not `engine_unavailable` and the like.
  return !envelope || envelope.code === 'unavailable';
}

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Attempt {
  /** Sends the request once; a fresh body each call (a body stream is read once). */
  send: () => Promise<Response>;
  /** Whether a 503 may be retried (see isSafeToRepeat). */
  safeToRepeat: boolean;
}

/**
 * Sends, retrying by the rules; resolves with the first 2xx (or other non-error) answer and throws a
 * SpeechgateError for the final failure. A fetch that throws (no answer) becomes `network_error`, unretried.
 */
export async function sendWithRetries(attempt: Attempt, options: RetryOptions = {}): Promise<Response> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  const maxDelay = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const sleep = options.sleep ?? timerSleep;
  for (let retry = 0; ; retry += 1) {
    let response: Response;
    try {
      response = await attempt.send();
    } catch (error) {
      throw networkError(error);
    }
    if (response.ok) return response;
    if (retry < retries && (await isRetryableAnswer(response, attempt.safeToRepeat))) {
      const delay = retryAfterMs(response) ?? FALLBACK_DELAY_MS * 2 ** retry;
      if (delay <= maxDelay) {
        // The answer is dropped unread: release its connection before waiting.
        await response.body?.cancel().catch(() => undefined);
        await sleep(delay);
        continue;
      }
    }
    throw await errorFromResponse(response);
  }
}

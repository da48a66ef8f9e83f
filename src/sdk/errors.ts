/**
 * Every failure the SDK surfaces: a `SpeechgateError` carrying the spec's error envelope (`code`, `status`,
 * `message`, `data.retryable`, `data.details`, `requestId`). Non-envelope answers map too: GraphQL's
 * `errors[].extensions` (same fields), a bare status from a busy fleet or a proxy (`unavailable` for a 503,
 * otherwise `http_<status>`), and a request that got no answer at all (`network_error`, status 0).
 */

import type { components } from '../generated/openapi.js';

/** The error envelope as the server sends it (spec: Resources), typed from the OpenAPI document's `ApiErrorBody`. */
export type ErrorEnvelope = components['schemas']['ApiErrorBody'];

export const NETWORK_ERROR = 'network_error';

export interface SpeechgateErrorFields {
  code: string;
  status: number;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  requestId?: string | null;
  /** How long the answer's `Retry-After` asks to wait, in milliseconds; null when it gave none. */
  retryAfterMs?: number | null;
  /** The whole body when it was JSON (an envelope, a GraphQL answer), for what the fields above leave out. */
  body?: unknown;
  cause?: unknown;
}

export class SpeechgateError extends Error {
  /** Branch on this (spec: Errors); `network_error` when no answer came back. */
  readonly code: string;
  /** The HTTP status; 0 for a network failure. */
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  /** The failed request's `X-Request-Id`, to quote when reporting a problem; null when there was no answer. */
  readonly requestId: string | null;
  /** The answer's `Retry-After` in milliseconds (a 429, a 503, a refused socket upgrade); null when it gave none. */
  readonly retryAfterMs: number | null;
  readonly body: unknown;

  constructor(fields: SpeechgateErrorFields) {
    super(fields.message, { cause: fields.cause });
    this.name = 'SpeechgateError';
    this.code = fields.code;
    this.status = fields.status;
    this.retryable = fields.retryable;
    this.details = fields.details ?? {};
    this.requestId = fields.requestId ?? null;
    this.retryAfterMs = fields.retryAfterMs ?? null;
    this.body = fields.body;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The envelope in a parsed body, or null when the body is not one (a bare 503, a proxy's HTML page). */
export function envelopeOf(body: unknown): ErrorEnvelope | null {
  if (!isRecord(body) || typeof body.code !== 'string' || typeof body.message !== 'string') return null;
  return body as unknown as ErrorEnvelope;
}

/** A GraphQL error's extensions as the envelope's fields (src/core/plugins/use-api-errors.ts puts them there). */
export function graphqlErrorOf(error: unknown, status: number, requestId: string | null, body: unknown): SpeechgateError {
  const record = isRecord(error) ? error : {};
  const extensions = isRecord(record.extensions) ? record.extensions : {};
  return new SpeechgateError({
    code: typeof extensions.code === 'string' ? extensions.code : 'graphql_error',
    status: typeof extensions.status === 'number' ? extensions.status : status,
    message: typeof record.message === 'string' ? record.message : 'The GraphQL operation failed.',
    retryable: extensions.retryable === true,
    details: isRecord(extensions.details) ? extensions.details : {},
    requestId: typeof extensions.requestId === 'string' ? extensions.requestId : requestId,
    body,
  });
}

/** A `Retry-After` value in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterValueMs(value: string | null | undefined, now = Date.now()): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The error a non-2xx answer stands for; reads the body (pass a clone to keep the response readable). */
export async function errorFromResponse(response: Response): Promise<SpeechgateError> {
  const headerRequestId = response.headers.get('x-request-id');
  const retryAfterMs = retryAfterValueMs(response.headers.get('retry-after'));
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: a bare answer from something in front of the server; the status says what it is.
  }
  const envelope = envelopeOf(body);
  if (envelope) {
    return new SpeechgateError({
      code: envelope.code,
      status: typeof envelope.status === 'number' ? envelope.status : response.status,
      message: envelope.message,
      retryable: envelope.data?.retryable === true,
      details: isRecord(envelope.data?.details) ? envelope.data.details : {},
      requestId: typeof envelope.requestId === 'string' ? envelope.requestId : headerRequestId,
      retryAfterMs,
      body,
    });
  }
  if (isRecord(body) && Array.isArray(body.errors) && body.errors.length) {
    return graphqlErrorOf(body.errors[0], response.status, headerRequestId, body);
  }
  // A busy fleet answers a bare 503 (spec: Errors): the same condition as `unavailable`.
  const bare = response.status === 503 ? 'unavailable' : response.status === 429 ? 'rate_limited' : `http_${response.status}`;
  return new SpeechgateError({
    code: bare,
    status: response.status,
    message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} without an error envelope.`,
    retryable: response.status === 503 || response.status === 429,
    requestId: headerRequestId,
    retryAfterMs,
    body,
  });
}

export function networkError(cause: unknown): SpeechgateError {
  const reason = cause instanceof Error ? (cause.cause instanceof Error ? `${cause.message}: `
    + `${cause.cause.message}` : cause.message) : String(cause);
  return new SpeechgateError({ code: NETWORK_ERROR, status: 0, message: `No answer from the server (${reason}).`, retryable: true, cause });
}

/**
 * The one error type of the service. Everything that fails on purpose throws an ApiError carrying the
 * spec's `code`, HTTP `status`, whether a retry can help, and code-specific `details`. GraphQL renders it
 * into `extensions`, the REST adapter and the sockets render it into the spec's envelope.
 */
import { STATUS_CODES as STATUS_TEXT } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { EngineError } from '../../workers/engine/index.js';

export interface ErrorEnvelope {
  defined: boolean;
  code: string;
  status: number;
  message: string;
  data: { retryable: boolean; details: Record<string, unknown> };
  requestId?: string | null;
}

export interface ApiErrorOptions {
  retryable?: boolean;
  details?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After) the REST layer must send with this error. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * Folders of this machine whose paths never reach a client (an error message quoting a file it could not read, a
 * model folder, an engine failure): the working directory, the temporary and home folders, and the data and
 * models folders the configuration adds (`hidePathsUnder`). A path under one is shown by its last name only.
 */
const hiddenRoots = new Set<string>();

export function hidePathsUnder(...roots: Array<string | null | undefined>): void {
  for (const root of roots) {
    if (root && path.isAbsolute(root) && path.resolve(root) !== path.parse(root).root) hiddenRoots.add(path.resolve(root));
  }
}
hidePathsUnder(process.cwd(), os.tmpdir(), os.homedir());

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `message` with every path under a hidden folder cut to `…/<last name>`. */
export function withoutLocalPaths(message: string): string {
  let out = message;
  // Longest first: a data folder inside the working directory is cut as a whole.
  for (const root of [...hiddenRoots].sort((a, b) => b.length - a.length)) {
    if (!out.includes(root)) continue;
    // The root where a path starts (not inside a URL or a longer name), then the rest of the path (not a sentence's
    // closing period or colon).
    const pattern = new RegExp(`(?<![\\w./-])${escapeRegExp(root)}(?![\\w.-])(?:/[^\\s'"()\`,;]*[^\\s'"()\`,;.:])?`, 'g');
    out = out.replace(pattern, (found) => `…/${path.basename(found)}`);
  }
  return out;
}

/** Codes whose retry can succeed unless the caller says otherwise. */
const RETRYABLE_BY_DEFAULT = new Set(['rate_limited', 'unavailable', 'engine_unavailable', 'conflict']);

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: string, status: number, message: string, options: ApiErrorOptions = {}) {
    super(withoutLocalPaths(message), { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  toEnvelope(requestId?: string | null): ErrorEnvelope {
    const envelope: ErrorEnvelope = {
      defined: true,
      code: this.code,
      status: this.status,
      message: this.message,
      data: { retryable: this.retryable, details: this.details },
    };
    if (requestId !== undefined) envelope.requestId = requestId;
    return envelope;
  }
}

/** Shorthands for the codes used everywhere; the message must name the field or the missing thing. */
export const errors = {
  invalidOptions: (message: string, details: Record<string, unknown> = {}) =>
    new ApiError('invalid_options', 400, message, { details }),
  invalidBody: (message: string, details: Record<string, unknown> = {}) =>
    new ApiError('invalid_body', 422, message, { details }),
  invalidAudio: (message: string, details: Record<string, unknown> = {}) =>
    new ApiError('invalid_audio', 400, message, { details }),
  invalidToken: (message = 'The bearer token is missing, malformed or unknown.') =>
    new ApiError('invalid_token', 401, message),
  forbidden: (message: string, details: Record<string, unknown> = {}) =>
    new ApiError('forbidden', 403, message, { details }),
  notFound: (what: string) => new ApiError('not_found', 404, `${what} was not found.`),
  /** `409 conflict`, retryable (a concurrent change: read again and retry) unless the same request can never pass. */
  conflict: (message: string, details: Record<string, unknown> = {}) =>
    new ApiError('conflict', 409, message, { details }),
  /** `409 conflict` that the same request meets again: a value already taken (a code, a source's URL). */
  taken: (message: string, details: Record<string, unknown> = {}) =>
    new ApiError('conflict', 409, message, { details, retryable: false }),
  invalidState: (message: string, details: Record<string, unknown> = {}) =>
    new ApiError('invalid_state', 409, message, { details, retryable: false }),
  /** `429 rate_limited` with `Retry-After`; `details` adds to `retryAfterS` (the REST budget, the per-field limits). */
  rateLimited: (retryAfterS: number, details: Record<string, unknown> = {}) =>
    new ApiError('rate_limited', 429, `Too many requests; retry in ${retryAfterS} s.`, {
      details: { retryAfterS, ...details },
      headers: { 'Retry-After': String(retryAfterS) },
    }),
  internal: (cause?: unknown) =>
    new ApiError('internal', 500, 'Something went wrong on our side; the failure was logged.', { cause, retryable: true }),
};

/**
 * An error answered by design, not a fault of ours: the caller's (status < 500) or a temporary state the client is
 * told to wait out (503 `unavailable`: busy, waking, model not installed yet; 503 `engine_unavailable`: a line's audio
 * not here yet). Logged at info at most, never as an error.
 */
export function isExpectedError(error: ApiError): boolean {
  return error.status < 500 || (error.status === 503 && (error.code === 'unavailable' || error.code === 'engine_unavailable'));
}

/** Turns anything thrown into an ApiError; unexpected exceptions become `500 internal` (the caller logs the cause). */
export function toApiError(error: unknown): ApiError {
  return knownError(error) ?? knownError((error as { originalError?: unknown } | null)?.originalError) ?? errors.internal(error);
}

/**
 * The ApiError a failure stands for when it was raised on purpose: an ApiError itself, or the speech engine's
 * own refusal (`EngineError`: a 400 with the same code, the input is the caller's; or a 503 `unavailable` with
 * its Retry-After). Null for anything else.
 */
export function knownError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) {
    if (error.code === 'unavailable') {
      return new ApiError('unavailable', 503, error.message, {
        cause: error, headers: { 'Retry-After': String(error.details.retryAfterS ?? 5) },
      });
    }
    return new ApiError(error.code, 400, error.message, { details: error.details, cause: error });
  }
  return null;
}

/**
 * The envelope as a whole raw HTTP/1.1 answer (status line, headers, body), for the places that answer on a bare
 * socket rather than through express: refused WebSocket upgrades and requests Node's parser rejects.
 */
export function rawHttpAnswer(error: ApiError, requestId: string): string {
  const body = JSON.stringify(error.toEnvelope(requestId));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    Connection: 'close',
    ...error.headers,
  };
  return (
    `HTTP/1.1 ${error.status} `
    + `${STATUS_TEXT[error.status] ?? 'Error'}\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n')}\r\n\r\n${body}`
  );
}

/** Prisma's unique-constraint violation: a concurrent writer took the key first (idempotency keys, broadcast codes). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'P2002';
}

/**
 * How the CLI fails: an exit code per class of failure (scripts branch on it; the table is in `--help` and the
 * README) and one line on stderr saying what to do about it. Server refusals arrive as the SDK's SpeechgateError
 * (the spec's envelope): the class comes from the HTTP status, or from the code when there was none (a socket's
 * `error` frame, a connection that never answered). The CLI's own refusals (a file that is not there, a missing
 * key) are CliErrors carrying their code.
 */
import { SpeechgateError } from '../sdk/index.js';

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  invalidInput: 5,
  credit: 6,
  busy: 7,
  network: 8,
  /** Ctrl-C (128 + SIGINT), as shells report it. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The table `--help` and the README show. */
const EXIT_CODE_ROWS: Array<[ExitCode, string]> = [
  [EXIT.ok, 'ok'],
  [EXIT.failure, 'anything else (a failed job, a server error)'],
  [EXIT.usage, 'usage: a bad option or argument, a local file that cannot be read'],
  [EXIT.auth, 'authentication: no key, a bad, expired or revoked key, a missing scope (401, 403)'],
  [EXIT.notFound, 'not found (404, 410)'],
  [EXIT.invalidInput, 'invalid input: refused options, audio that cannot be decoded, a conflict (400, 409, 413, 415, 422)'],
  [EXIT.credit, 'credit or quota: out of credit, plan limit reached (402)'],
  [EXIT.busy, 'rate limited or unavailable: try again later (429, 503, every engine busy)'],
  [EXIT.network, 'network: no answer from the server'],
  [EXIT.interrupted, 'interrupted by Ctrl-C before the command finished (listen ends with 0 on Ctrl-C)'],
];
export const EXIT_CODE_HELP = `Exit codes:\n${EXIT_CODE_ROWS.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join(
  '\n',
)}`;

/** A refusal made by the CLI itself, with the exit code it ends with. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: ExitCode, readonly code = 'cli_error') {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage, 'usage');

const AUTH_CODES = new Set(['invalid_token', 'key_expired', 'key_revoked', 'forbidden', 'key_from_browser', 'suspended', 'unauthorized']);
const NOT_FOUND_CODES = new Set(['not_found', 'session_expired', 'promo_code_invalid']);
const CREDIT_CODES = new Set(['insufficient_credit', 'quota_exceeded']);
const BUSY_CODES = new Set(['rate_limited', 'unavailable', 'engine_unavailable', 'capacity_exceeded', 'slow_consumer']);

function exitCodeOfStatus(status: number): ExitCode | null {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404 || status === 410) return EXIT.notFound;
  if ([400, 409, 413, 415, 422].includes(status)) return EXIT.invalidInput;
  if (status === 402) return EXIT.credit;
  if (status === 429 || status === 503) return EXIT.busy;
  return null;
}

/** The exit code of a code alone: socket frames and failed jobs carry a code and no HTTP status. */
export function exitCodeOfCode(code: string): ExitCode {
  if (AUTH_CODES.has(code)) return EXIT.auth;
  if (NOT_FOUND_CODES.has(code)) return EXIT.notFound;
  if (CREDIT_CODES.has(code)) return EXIT.credit;
  if (BUSY_CODES.has(code)) return EXIT.busy;
  if (code === 'network_error') return EXIT.network;
  if (code.startsWith('invalid_') || code === 'conflict' || code === 'idempotency_key_reused') return EXIT.invalidInput;
  return EXIT.failure;
}

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof SpeechgateError) return exitCodeOfStatus(error.status) ?? exitCodeOfCode(error.code);
  return EXIT.failure;
}

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);

/** Seconds until a time, for "retry in" hints; null when the time is unreadable or past. */
function secondsUntil(when: unknown): number | null {
  const at = typeof when === 'string' ? Date.parse(when) : NaN;
  return Number.isNaN(at) || at <= Date.now() ? null : Math.ceil((at - Date.now()) / 1000);
}

/** What to do about an envelope's code, after its own message; null when the message says it all. */
function adviceFor(error: SpeechgateError): string | null {
  const details = error.details;
  switch (error.code) {
    case 'invalid_token':
    case 'key_expired':
    case 'key_revoked':
    case 'unauthorized':
      return 'run `speechgate login` with a valid key (or pass --key / set SPEECHGATE_API_KEY)';
    case 'forbidden':
      return 'this key lacks the scope the message names: create one that has it (`speechgate keys create --scope …`)';
    case 'suspended':
      return 'the account is suspended: contact the server\'s operator';
    case 'insufficient_credit': {
      const balance = text(details.balance);
      const url = text(details.topUpUrl);
      return `${balance !== null ? `balance ${balance}; ` : ''}add credit${url ? ` at ${url}` : ''}`;
    }
    case 'quota_exceeded': {
      const used = text(details.used);
      const limit = text(details.limit);
      const resets = secondsUntil(details.resetsAt);
      const metric = text(details.metric);
      const usage = used !== null && limit !== null ? `${used} of ${limit}${metric ? ` ${metric}` : ''} in use; ` : '';
      const when = resets !== null ? `it resets in ${resets} s` : 'it frees as running transcriptions end';
      return `${usage}${when}${details.topUpUrl ? `; change plan at ${String(details.topUpUrl)}` : ''}`;
    }
    case 'rate_limited': {
      const seconds = text(details.retryAfterS) ?? secondsUntil(details.resetsAt);
      return seconds !== null ? `retry in ${seconds} s` : 'retry in a moment';
    }
    case 'unavailable':
    case 'engine_unavailable':
    case 'capacity_exceeded':
      return 'the server is busy or waking up: retry in a little while';
    case 'network_error':
      return 'check the server address (--url, SPEECHGATE_URL or `speechgate login`) and that it is running';
    case 'not_found':
      // Said after the server's "The broadcast was not found." and the like: the hint follows what was looked for.
      if (/broadcast/i.test(error.message)) return 'check the broadcast\'s code (the end of the link its owner shared); it may have ended '
        + 'or been deleted';
      if (/api key|key /i.test(error.message)) return 'check the key id (list them with `speechgate keys list`)';
      return 'check the id (list them with `speechgate transcriptions list`)';
    default:
      return null;
  }
}

/** The one line a person reads on stderr. */
export function messageOf(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof SpeechgateError) {
    const advice = adviceFor(error);
    const field = text(error.details.field);
    const where = field && !error.message.includes(field) ? ` (${field})` : '';
    const request = error.requestId ? ` [request ${error.requestId}]` : '';
    return `${error.code}: ${error.message.replace(/\s+/g, ' ').trim()}${where}${advice ? ` — ${advice}` : ''}${request}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The error as `--json` prints it. */
export function jsonOf(error: unknown): Record<string, unknown> {
  if (error instanceof SpeechgateError) {
    return {
      error: {
        code: error.code, status: error.status, message: error.message, retryable: error.retryable, details: error.details,
        requestId: error.requestId,
      },
      exitCode: exitCodeOf(error),
    };
  }
  return { error: { code: error instanceof CliError ? error.code : 'cli_error', message: messageOf(error) }, exitCode: exitCodeOf(error) };
}

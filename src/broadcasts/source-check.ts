/**
 * `GET /v1/broadcasts/{id}/audio-sources/{source}/check`: does the address give audio? It is opened for real, the way
 * a recording from it would open it (`sourceBytes` of the stream pull: a plain HTTP stream, or an HLS playlist whose
 * segments are fetched in turn; every connection through the link policy), and decoded with ffmpeg until a second of
 * audio came back. Nothing is stored.
 *
 * `ready` means exactly that: the address *as given* gives audio, so a recording started from it will too. Anything
 * else is `error` with a `problem` (SourceProblem) and, when a corrected address was opened and gave audio, a `fix`
 * (FixKind) the client can offer to save instead:
 *
 * | problem           | what happened                                                                  | fix tried      |
 * |-------------------|--------------------------------------------------------------------------------|----------------|
 * | `address_refused` | the address (or a redirect, or what its name resolves to) is private, loopback, metadata | none |
 * | `unreachable`     | no connection: DNS, refused, reset, TLS, too many redirects                    | `https`        |
 * | `http_error`      | it answered an HTTP error (`httpStatus`)                                       | `https`        |
 * | `not_audio`       | it answered something ffmpeg cannot decode as audio                            | `https`        |
 * | `playlist`        | it answered a playlist file (.m3u, .pls) the pull cannot follow                | `playlist`     |
 * | `page`            | it answered a web page                                                         | `page`         |
 * | `timeout`         | no second of audio within CHECK_MS                                             | none (no time) |
 *
 * A playlist or page that merely *names* the stream is `error` rather than `ready`, because a recording pulls the
 * address it is given, not what a page links to; the fix is the address that works. An HLS playlist is the stream
 * (the pull follows it), so it is `ready` when its segments decode.
 */
import { decodeStream, SAMPLE_RATE } from '../../workers/engine/index.js';
import { knownError } from '../core/errors.js';
import { sourceBytes } from '../live/index.js';
import { LinkError, findMediaOnPage, openLink, type LinkFetchPolicy } from '../links/index.js';

export const SOURCE_PROBLEMS = ['address_refused', 'unreachable', 'http_error', 'not_audio', 'playlist', 'page', 'timeout'] as const;
export type SourceProblem = (typeof SOURCE_PROBLEMS)[number];
export const FIX_KINDS = ['https', 'playlist', 'page'] as const;
export type FixKind = (typeof FIX_KINDS)[number];

export interface AudioSourceFix { url: string; kind: FixKind; label: string }

export interface AudioSourceCheck {
  state: 'ready' | 'error';
  checkedAt: string;
  problem: SourceProblem | null;
  message: string | null;
  httpStatus: number | null;
  fix: AudioSourceFix | null;
}

/** The whole check (the address, then any corrected ones) ends within this; a live source takes a moment to start. */
export const CHECK_MS = 10_000;
/** Decoded audio enough to say the source plays. */
const ENOUGH_SAMPLES = SAMPLE_RATE;
/** A page or playlist is read this far for the stream it names; a playlist entry or page medium is tried at most this often. */
const PEEK_BYTES = 512 * 1024;
const MAX_CANDIDATES = 3;
const PLAYLIST_TYPES = /mpegurl|x-scpls/;
const PLAYLIST_PATH = /\.(m3u8?|pls)$/i;
const PLAYLIST_HEAD = /^\s*(#EXTM3U|\[playlist\])/i;
const PAGE_TYPES = /^(text\/html|application\/xhtml\+xml)$/;
const PAGE_HEAD = /^\s*(<!doctype html|<html)/i;

interface Failure { problem: SourceProblem; message: string; httpStatus: number | null }

/** Checks `url` within CHECK_MS: `ready`, or `error` with the problem of the address as given and a fix when one worked. */
export async function checkSource(url: string, policy: LinkFetchPolicy): Promise<AudioSourceCheck> {
  const deadline = Date.now() + CHECK_MS;
  const failure = await listen(url, policy, deadline);
  const answer = (problem: Failure | null, fix: AudioSourceFix | null = null): AudioSourceCheck => ({
    state: problem ? 'error' : 'ready', checkedAt: new Date().toISOString(),
    problem: problem?.problem ?? null, message: problem?.message ?? null, httpStatus: problem?.httpStatus ?? null, fix,
  });
  if (!failure) return answer(null);
  if (failure.problem === 'address_refused' || failure.problem === 'timeout') return answer(failure);
  if (failure.problem === 'not_audio') {
    const named = await namedStreams(url, policy, deadline);
    if (named) {
      const works = await firstWorking(named.urls.filter((candidate) => candidate !== url), policy, deadline);
      const what = named.kind === 'page' ? 'a web page' : 'a playlist';
      const message = works
        ? `The address is ${what}, not the stream itself; \`fix\` names the stream it ${named.kind === 'page' ? 'plays' : 'lists'}.`
        : `The address is ${what}, not the stream itself, and no stream it names gave audio.`;
      const fix = works && {
        url: works, kind: named.kind, label: named.kind === 'page' ? 'The audio the page plays' : 'The stream the playlist lists',
      };
      return answer({ problem: named.kind, message, httpStatus: null }, fix || null);
    }
  }
  const twin = httpsTwin(url);
  const works = twin && (await firstWorking([twin], policy, deadline));
  return answer(failure, works ? { url: works, kind: 'https', label: 'https instead of http' } : null);
}

/** Null when `url` gave a second of audio (or ended after some) before the deadline; else what went wrong. */
async function listen(url: string, policy: LinkFetchPolicy, deadline: number): Promise<Failure | null> {
  const connection = new AbortController();
  const timer = setTimeout(() => connection.abort(), Math.max(0, deadline - Date.now()));
  let samples = 0;
  try {
    for await (const pcm of decodeStream(sourceBytes(url, policy, connection.signal), { signal: connection.signal, what: 'The address' })) {
      samples += pcm.length;
      if (samples >= ENOUGH_SAMPLES) return null;
    }
    // The source ended after some audio (decodeStream refuses none at all): a short file, still audio.
    return null;
  } catch (error) {
    if (connection.signal.aborted) {
      return { problem: 'timeout', message: `No audio came back within ${CHECK_MS / 1000} s.`, httpStatus: null };
    }
    return failureOf(error);
  } finally {
    clearTimeout(timer);
    // Closes the source connection and ffmpeg whatever state the read was in.
    connection.abort();
  }
}

function failureOf(error: unknown): Failure {
  if (error instanceof LinkError) {
    const status = typeof error.details.httpStatus === 'number' ? error.details.httpStatus : null;
    if (error.problem === 'link_refused') return { problem: 'address_refused', message: error.message, httpStatus: null };
    if (error.problem === 'link_http_error' && status !== null) {
      return { problem: 'http_error', message: `The address answered HTTP ${status}.`, httpStatus: status };
    }
    if (error.problem === 'link_http_error' || error.problem === 'too_large') {
      return { problem: 'not_audio', message: error.message.replace(/^source\.url:\s*/, ''), httpStatus: null };
    }
    return { problem: 'unreachable', message: error.message, httpStatus: null };
  }
  const known = knownError(error);
  if (known?.code === 'invalid_audio') return { problem: 'not_audio', message: known.message, httpStatus: null };
  // The connection broke while the answer was arriving (reset, closed early): the socket's error, not a LinkError.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(E[A-Z]+|ERR_STREAM_PREMATURE_CLOSE)$/.test(code)) {
    return { problem: 'unreachable', message: `The connection to the address broke: ${(error as Error).message}.`, httpStatus: null };
  }
  throw error;
}

/** The first of `urls` that gives audio before the deadline, or null. */
async function firstWorking(urls: string[], policy: LinkFetchPolicy, deadline: number): Promise<string | null> {
  for (const candidate of urls.slice(0, MAX_CANDIDATES)) {
    if (Date.now() >= deadline) return null;
    if (!(await listen(candidate, policy, deadline))) return candidate;
  }
  return null;
}

/**
 * When `url` answers a playlist or a web page: the streams it names (playlist entries in order; a page's audio and
 * video elements, Open Graph audio and links to media files). Null for anything else, or when it cannot be read.
 */
async function namedStreams(
  url: string, policy: LinkFetchPolicy, deadline: number,
): Promise<{ kind: 'playlist' | 'page'; urls: string[] } | null> {
  const connection = new AbortController();
  const timer = setTimeout(() => connection.abort(), Math.max(0, deadline - Date.now()));
  try {
    const opened = await openLink(url, { policy, signal: connection.signal });
    if ((opened.response.statusCode ?? 0) >= 400) return null;
    const type = String(opened.response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    let text = '';
    for await (const chunk of opened.response as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8');
      // The first chunk tells a text answer from audio or other binary data; only text is read on.
      if (
        text.length >= PEEK_BYTES ||
        !(
          PLAYLIST_TYPES.test(type) ||
          PAGE_TYPES.test(type) ||
          PLAYLIST_PATH.test(opened.url.pathname) ||
          PLAYLIST_HEAD.test(text) ||
          PAGE_HEAD.test(text)
        )
      )
        break;
    }
    if (PAGE_TYPES.test(type) || PAGE_HEAD.test(text)) {
      return { kind: 'page', urls: findMediaOnPage(text, opened.url).map((medium) => medium.url) };
    }
    if (PLAYLIST_TYPES.test(type) || PLAYLIST_PATH.test(opened.url.pathname) || PLAYLIST_HEAD.test(text)) {
      return { kind: 'playlist', urls: playlistEntries(text, opened.url) };
    }
    return null;
  } catch {
    return null; // it answered audio a moment ago; now it cannot be read again, so nothing to say about its kind
  } finally {
    clearTimeout(timer);
    connection.abort();
  }
}

/** The addresses an M3U (`#` lines are comments) or PLS (`FileN=` keys) playlist lists, absolute, http(s) only. */
export function playlistEntries(text: string, base: URL): string[] {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  const pls = lines.some((line) => /^\[playlist\]$/i.test(line));
  const listed = pls ? lines.flatMap((line) => /^File\d+\s*=\s*(.+)$/i.exec(line)?.[1] ?? []) : lines.filter(
    (line) => !line.startsWith('#'),
  );
  const urls = new Set<string>();
  for (const entry of listed) {
    try {
      const url = new URL(entry, base);
      if (url.protocol === 'http:' || url.protocol === 'https:') urls.add(url.toString());
    } catch {
      /* not an address: a title line of a malformed playlist */
    }
  }
  return [...urls];
}

function httpsTwin(url: string): string | null {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:') return null;
  parsed.protocol = 'https:';
  // An explicit port belongs to the http server; the https twin is on its default port.
  parsed.port = '';
  return parsed.toString();
}

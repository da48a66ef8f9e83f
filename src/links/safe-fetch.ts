import dns from 'node:dns';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { ApiError } from '../core/errors.js';
import { refusedAddressReason, refusedHostNameReason } from './address-policy.js';

/** Machine-readable reasons a link could not be read; a failed link job carries them as `errorCode`. */
export type LinkProblem = 'link_refused' | 'link_unreachable' | 'link_http_error' | 'too_large' | 'too_many_redirects';

export class LinkError extends ApiError {
  readonly problem: LinkProblem;
  constructor(problem: LinkProblem, message: string, details: Record<string, unknown> = {}) {
    // A refused or oversized link is the caller's input: 400 naming `url`. Network trouble may pass on retry.
    super('invalid_options', 400, message, {
      details: { field: 'url', problem, ...details },
      retryable: problem === 'link_unreachable',
    });
    this.problem = problem;
  }
}

export interface LinkFetchPolicy {
  /**
   * Host names or IP literals (as written in the URL) exempt from the address policy. For tests and private
   * deployments that must read links on their own network: `LINK_FETCH_ALLOW_HOSTS=127.0.0.1,media.lan`.
   * A host only passes when the URL names it; another name that resolves to the same address is still refused.
   */
  allowHosts: readonly string[];
  maxRedirects: number;
  /** No byte for this long ends the fetch. */
  idleTimeoutMs: number;
}

/** The policy from the service configuration (`config.transcriptions`, env LINK_FETCH_*). */
export function linkFetchPolicyOf(
  settings: { linkAllowHosts: string[]; linkMaxRedirects: number; linkIdleTimeoutMs: number },
): LinkFetchPolicy {
  return {
    allowHosts: settings.linkAllowHosts.map(normaliseHost),
    maxRedirects: settings.linkMaxRedirects,
    idleTimeoutMs: settings.linkIdleTimeoutMs,
  };
}

export interface FetchProgress { fetchedBytes: number; fetchTotalBytes: number | null }

export interface OpenLinkOptions {
  policy: LinkFetchPolicy;
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Replaces the system resolver (tests simulate hostile DNS answers with it). */
  lookup?: typeof dns.lookup;
}

export interface OpenedLink {
  response: http.IncomingMessage;
  /** The URL after redirects. */
  url: URL;
  redirects: number;
}

function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '');
}

/** Parses and checks a user's link before anything touches the network; `field` names it in refusals. */
export function parseLinkUrl(raw: string, field = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LinkError('link_refused', `${field} is not a valid absolute http or https address.`, { url: raw, field });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LinkError('link_refused', `${field} must use http or https, not ${url.protocol.replace(':', '')}.`, { url: raw, field });
  }
  if (url.username || url.password) {
    throw new LinkError('link_refused', `${field} must not carry a user name or password.`, { url: url.origin, field });
  }
  return url;
}

/** Refusals of an address say how a server that must read links on its own network allows a host. */
const ALLOW_HINT = '; the server\'s operator can allow a host with LINK_FETCH_ALLOW_HOSTS';

function refuse(url: URL, reason: string): never {
  throw new LinkError('link_refused', `url points to an address the server does not fetch from (${reason}): `
    + `${url.hostname}${ALLOW_HINT}.`, {
    host: url.hostname,
    reason,
  });
}

/**
 * Checks the host as written, then returns a DNS lookup function that checks every address the socket may use.
 * net.connect calls `lookup` for names only; IP literals are checked here directly.
 */
function guardedLookup(url: URL, options: OpenLinkOptions): net.LookupFunction | undefined {
  const host = normaliseHost(url.hostname);
  if (options.policy.allowHosts.includes(host)) return undefined;
  if (net.isIP(host)) {
    const reason = refusedAddressReason(host);
    if (reason) refuse(url, reason);
    return undefined;
  }
  const nameReason = refusedHostNameReason(host);
  if (nameReason) refuse(url, nameReason);
  const resolve = options.lookup ?? dns.lookup;
  return ((hostname: string, lookupOptions: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const list = addresses as unknown as dns.LookupAddress[];
      // One bad answer refuses the name: a mixed answer is how rebinding attacks hedge.
      for (const entry of list) {
        const reason = refusedAddressReason(entry.address);
        if (reason) {
          return callback(
            new LinkError('link_refused', `url's host ${hostname} resolves to an address the server does not fetch from `
              + `(${reason})${ALLOW_HINT}.`, {
              host: hostname,
              reason,
            }),
          );
        }
      }
      if (list.length === 0) return callback(new LinkError('link_unreachable', `url's host ${hostname} has no address.`));
      if (lookupOptions.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  }) as unknown as net.LookupFunction;
}

function requestOnce(url: URL, options: OpenLinkOptions): Promise<http.IncomingMessage> {
  const lookup = guardedLookup(url, options);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { 'user-agent': 'speechgate-link-fetcher/1', accept: '*/*', ...options.headers },
        lookup,
        signal: options.signal,
        // A fresh connection per request: a pooled socket could have been opened for another (allowed) host.
        agent: false,
        timeout: options.policy.idleTimeoutMs,
      },
      resolve,
    );
    request.on('timeout', () => request.destroy(new LinkError('link_unreachable', `url did not answer within `
      + `${options.policy.idleTimeoutMs / 1000} s.`)));
    request.on('error', (error) => {
      if (error instanceof ApiError) return reject(error);
      // Node wraps errors thrown by `lookup`; keep our refusal when it is the cause.
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof ApiError) return reject(cause);
      reject(new LinkError('link_unreachable', `url could not be reached: ${(error as Error).message}.`, { host: url.hostname }));
    });
    request.end();
  });
}

/** Opens a link, following at most `policy.maxRedirects` redirects; every hop passes the address policy. */
export async function openLink(raw: string, options: OpenLinkOptions): Promise<OpenedLink> {
  let url = parseLinkUrl(raw);
  for (let redirects = 0; ; redirects++) {
    const response = await requestOnce(url, options);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      if (redirects >= options.policy.maxRedirects) {
        throw new LinkError('too_many_redirects', `url redirected more than ${options.policy.maxRedirects} times.`);
      }
      url = parseLinkUrl(new URL(location, url).toString());
      continue;
    }
    return { response, url, redirects };
  }
}

export interface FetchedLink {
  url: URL;
  bytes: number;
  contentType: string | null;
  /** From Content-Disposition or the URL's last path part; used as the default transcription name. */
  fileName: string | null;
}

/**
 * Downloads a link to `destination` with a byte cap and progress. A partial file is removed on any failure so
 * nothing half-fetched is kept.
 */
export async function fetchLinkToFile(
  raw: string,
  destination: string,
  options: OpenLinkOptions & { maxBytes: number; onProgress?: (progress: FetchProgress) => void },
): Promise<FetchedLink> {
  const { response, url } = await openLink(raw, options);
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    response.resume();
    throw new LinkError('link_http_error', `url answered HTTP ${status}.`, { httpStatus: status });
  }
  const declared = Number(response.headers['content-length']);
  const total = Number.isFinite(declared) && declared >= 0 ? declared : null;
  if (total !== null && total > options.maxBytes) {
    response.destroy();
    throw new LinkError('too_large', `url's file is ${total} bytes, more than limits.maxUploadBytes (${options.maxBytes}).`, {
      bytes: total,
      limit: options.maxBytes,
    });
  }
  let fetched = 0;
  options.onProgress?.({ fetchedBytes: 0, fetchTotalBytes: total });
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      fetched += chunk.length;
      if (fetched > options.maxBytes) {
        done(new LinkError(
          'too_large', `url's file is larger than limits.maxUploadBytes (${options.maxBytes} bytes).`, { limit: options.maxBytes },
        ));
        return;
      }
      options.onProgress?.({ fetchedBytes: fetched, fetchTotalBytes: total });
      done(null, chunk);
    },
  });
  try {
    await pipeline(response, counter, createWriteStream(destination), { signal: options.signal });
  } catch (error) {
    await rm(destination, { force: true });
    if (error instanceof ApiError) throw error;
    throw new LinkError('link_unreachable', `url stopped answering after ${fetched} bytes: ${(error as Error).message}.`);
  }
  return { url, bytes: fetched, contentType: response.headers['content-type'] ?? null, fileName: fileNameOf(response, url) };
}

export function fileNameOf(response: http.IncomingMessage, url: URL): string | null {
  const disposition = response.headers['content-disposition'];
  const match = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition) : null;
  if (match) {
    try {
      return decodeURIComponent(match[1]!);
    } catch {
      return match[1]!;
    }
  }
  const last = url.pathname.split('/').filter(Boolean).pop();
  return last ? decodeURIComponent(last) : null;
}

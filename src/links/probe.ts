import { ApiError } from '../core/errors.js';
import { LinkError, openLink, type OpenLinkOptions } from './safe-fetch.js';

/** The probe record of `GET /v1/transcriptions/probe`. */
export interface ProbeRecord {
  kind: 'file' | 'live' | 'unknown';
  ok: boolean;
  /** A sentence for people when `ok` is false (or a caveat when it is true); null otherwise. */
  problem: string | null;
  /** For a live link: `radio`, or the video platform's name. */
  source: string | null;
  /** Recordings found on a web page, each with an absolute `url` and a `title` when the page gave one. */
  media: Array<{ url: string; title: string | null }>;
  /** What the link answered, for clients that show it. */
  contentType: string | null;
  bytes: number | null;
  /** The address after redirects. */
  url: string;
}

/** A web page is read up to this many bytes to look for media; a media file only for its first bytes. */
const PAGE_SCAN_BYTES = 512 * 1024;
const SNIFF_BYTES = 64;

const VIDEO_PLATFORMS: Array<[RegExp, string]> = [
  [/(^|\.)(youtube\.com|youtu\.be)$/, 'youtube'],
  [/(^|\.)twitch\.tv$/, 'twitch'],
  [/(^|\.)vimeo\.com$/, 'vimeo'],
  [/(^|\.)facebook\.com$/, 'facebook'],
  [/(^|\.)tiktok\.com$/, 'tiktok'],
];
const MEDIA_EXTENSIONS = /\.(mp3|wav|flac|ogg|oga|opus|m4a|aac|mp4|m4v|mov|webm|mkv|wma)(\?|#|$)/i;
const PLAYLIST_TYPES = /^(audio\/(x-)?mpegurl|application\/(vnd\.apple\.mpegurl|x-mpegurl)|audio\/x-scpls)$/i;

/** Recognises media containers by their first bytes, for servers that answer application/octet-stream. */
export function sniffMedia(head: Buffer): boolean {
  const ascii = head.subarray(0, 12).toString('latin1');
  return (
    ascii.startsWith('ID3') ||
    ascii.startsWith('OggS') ||
    ascii.startsWith('fLaC') ||
    (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WAVE') ||
    ascii.slice(4, 8) === 'ftyp' ||
    (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0) || // MPEG audio frame sync
    (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) // Matroska / WebM
  );
}

/** Finds media on an HTML page: audio/video/source elements, Open Graph media and links to media files. */
export function findMediaOnPage(html: string, base: URL): ProbeRecord['media'] {
  const found = new Map<string, string | null>();
  const pageTitle = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim() || null;
  const add = (raw: string | undefined, title: string | null) => {
    if (!raw) return;
    try {
      const url = new URL(decodeEntities(raw), base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
      if (!found.has(url.toString())) found.set(url.toString(), title);
    } catch {
      /* not a URL: ignore */
    }
  };
  const attr = (tag: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tag)?.slice(2).find(Boolean);
  for (const match of html.matchAll(/<(audio|video|source)\b[^>]*>/gi)) {
    add(attr(match[0], 'src'), attr(match[0], 'title') ?? pageTitle);
  }
  for (const match of html.matchAll(/<meta\b[^>]*>/gi)) {
    const property = attr(match[0], 'property') ?? attr(match[0], 'name');
    if (property && /^og:(audio|video)(:url|:secure_url)?$/i.test(property)) add(attr(match[0], 'content'), pageTitle);
  }
  for (const match of html.matchAll(/<a\b[^>]*>([\s\S]*?)<\/a>/gi)) {
    const href = attr(match[0], 'href');
    if (href && MEDIA_EXTENSIONS.test(href)) add(href, match[1]!.replace(/<[^>]+>/g, '').trim() || pageTitle);
  }
  return [...found].map(([url, title]) => ({ url, title }));
}

function decodeEntities(text: string): string {
  return text.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

async function readHead(response: import('node:http').IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  response.destroy();
  return Buffer.concat(chunks).subarray(0, limit);
}

/**
 * Looks at a link without storing anything: is it a file we can transcribe, a live stream, a page with
 * recordings on it, or nothing usable. Address-policy refusals are thrown (400 naming `url`); everything
 * else the link does wrong is reported in the record with `ok: false`.
 */
export async function probeLink(raw: string, options: OpenLinkOptions & { beforePageSearch?: () => Promise<void> }): Promise<ProbeRecord> {
  const base: Omit<ProbeRecord, 'kind' | 'ok' | 'problem'> = { source: null, media: [], contentType: null, bytes: null, url: raw };
  const host = (() => {
    try {
      return new URL(raw).hostname.toLowerCase();
    } catch {
      return '';
    }
  })();
  const platform = VIDEO_PLATFORMS.find(([pattern]) => pattern.test(host))?.[1];
  if (platform) {
    return {
      ...base,
      kind: 'unknown',
      ok: false,
      source: platform,
      problem: `Links to ${platform} pages are not read by this server; link the audio or video file itself.`,
    };
  }
  let opened;
  try {
    opened = await openLink(raw, options);
  } catch (error) {
    if (error instanceof LinkError && error.problem === 'link_refused') throw error;
    if (error instanceof ApiError) return { ...base, kind: 'unknown', ok: false, problem: error.message };
    throw error;
  }
  const { response, url } = opened;
  const status = response.statusCode ?? 0;
  const contentType = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() || null;
  const declared = Number(response.headers['content-length']);
  const bytes = Number.isFinite(declared) && response.headers['content-length'] !== undefined ? declared : null;
  const record = { ...base, url: url.toString(), contentType, bytes };
  if (status < 200 || status >= 300) {
    response.destroy();
    return { ...record, kind: 'unknown', ok: false, problem: `The link answered HTTP ${status}.` };
  }
  const icy = Object.keys(response.headers).some((h) => h.startsWith('icy-'));
  if (icy || (contentType && PLAYLIST_TYPES.test(contentType))) {
    response.destroy();
    return { ...record, kind: 'live', ok: true, source: 'radio', problem: null };
  }
  if (contentType === 'text/html' || contentType === 'application/xhtml+xml') {
    // Searching a page is what the hourly page-search allowance limits; a refusal leaves the page unread.
    await options.beforePageSearch?.().catch((error: unknown) => {
      response.destroy();
      throw error;
    });
    const html = (await readHead(response, PAGE_SCAN_BYTES)).toString('utf8');
    const media = findMediaOnPage(html, url);
    return {
      ...record,
      kind: 'unknown',
      ok: media.length > 0,
      media,
      problem: media.length ? null : 'The link is a web page without audio or video on it.',
    };
  }
  const head = await readHead(response, SNIFF_BYTES);
  const mediaType = !!contentType && (/^(audio|video)\//.test(contentType) || contentType === 'application/ogg');
  if (mediaType || sniffMedia(head)) {
    // An audio answer without a length is an endless stream (internet radio), not a file.
    if (bytes === null && mediaType && contentType?.startsWith('audio/')) {
      return { ...record, kind: 'live', ok: true, source: 'radio', problem: null };
    }
    return { ...record, kind: 'file', ok: true, problem: null };
  }
  return { ...record, kind: 'unknown', ok: false, problem: `The link is not audio or video (it answered `
    + `${contentType ?? 'no content type'}).` };
}

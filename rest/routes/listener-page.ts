/**
 * The listener page behind a broadcast's `shareUrl` (`<server>/b/<code>`): plain HTML, CSS and one ES module checked
 * in under rest/pages/listener/, no build step, nothing loaded from another host (the Content-Security-Policy says
 * so to the browser too). The page reads the code from its own path and talks to `/v1/listen/{code}`, the
 * broadcast's events socket and the recording's subscribe socket like any other client.
 */
import fs from 'node:fs';
import type { Response } from 'express';
import { requestBaseUrl } from '../../src/core/base-url.js';
import { errors } from '../../src/core/errors.js';
import type { RouteEntry } from '../types.js';

const PAGE_DIR = new URL('../pages/listener/', import.meta.url);

/** The assets the page loads, by the name it asks for. */
const ASSETS: Record<string, string> = {
  'listener.js': 'text/javascript; charset=utf-8',
  'listener.css': 'text/css; charset=utf-8',
};

/** Read once and kept: the files are part of the checked-in source. */
const files = new Map<string, Buffer>();
function pageFile(name: string): Buffer {
  let body = files.get(name);
  if (!body) {
    body = fs.readFileSync(new URL(name, PAGE_DIR));
    files.set(name, body);
  }
  return body;
}

/** Revalidated on each load (a deploy changes them), never sniffed as another type. */
function sendPageFile(res: Response, contentType: string, body: string | Buffer): void {
  res.setHeader('Content-Type', contentType);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-cache');
  res.status(200).send(body);
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** Where this server's paths start as a browser sees them: PUBLIC_URL's path (`https://host/speech` → `/speech`), else the root. */
function pathPrefix(publicUrl: string | null): string {
  if (!publicUrl) return '';
  try {
    return new URL(publicUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * Only this server: scripts, styles and sockets from the page's own origin (its `ws:`/`wss:` origin, which `'self'`
 * covers in current browsers, is named for older ones), no inline script, no framing, no plugins.
 */
function contentSecurityPolicy(baseUrl: string): string {
  let socketOrigin = '';
  try {
    const origin = new URL(baseUrl).origin.replace(/^http/, 'ws');
    // A Host header is the caller's to write: only a plain host and port goes into the header.
    if (/^wss?:\/\/[A-Za-z0-9.\-[\]:]+$/.test(origin)) socketOrigin = ` ${origin}`;
  } catch { /* a Host header that is no origin: 'self' alone */ }
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${socketOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const listenerPageRoutes: RouteEntry[] = [
  {
    method: 'get', path: '/b/{code}', operationId: 'getListenerPage', tags: ['broadcasts'], undocumented: true,
    summary: 'The listener page of a broadcast (its `shareUrl`): live captions, a password form for a private one, live audio on a tap.',
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    handler: (req, res, ctx) => {
      // The page finds the code in its own address; only where its assets live is filled in here.
      const html = pageFile('index.html').toString('utf8').replaceAll('%ASSETS%', escapeHtml(`${pathPrefix(ctx.config.publicUrl)}/b/_assets`));
      res.setHeader('Content-Security-Policy', contentSecurityPolicy(requestBaseUrl(req, ctx.config.publicUrl)));
      res.setHeader('Referrer-Policy', 'no-referrer'); // the address may carry a shareCode
      sendPageFile(res, 'text/html; charset=utf-8', html);
    },
  },
  {
    method: 'get', path: '/b/_assets/{asset}', operationId: 'getListenerPageAsset', tags: ['broadcasts'], undocumented: true,
    summary: 'The listener page\'s script and styles.',
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: '`listener.js` (an ES module) or `listener.css`.', contentType: 'text/javascript' },
    handler: ({ params }, res) => {
      const name = String(params.asset);
      if (!Object.hasOwn(ASSETS, name)) throw errors.notFound('Listener page asset');
      sendPageFile(res, ASSETS[name]!, pageFile(name));
    },
  },
];

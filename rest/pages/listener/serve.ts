/**
 * The listener page behind a broadcast's `shareUrl` (`<server>/b/<code>`, rest/routes/listener-page.ts): plain HTML,
 * CSS and one ES module checked in beside this file, nothing loaded from another host (the Content-Security-Policy
 * says so to the browser too). The page reads the code from its own path and talks to `/v1/listen/{code}` and the
 * broadcast's events socket itself; each recording it follows through the SDK's subscribe procedure
 * (src/sdk/subscribe.ts), served next to the page's script as one same-origin ES module that esbuild bundles once per
 * process: the page runs the procedure every SDK user runs, with no build step of its own.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Request, Response } from 'express';
import { requestBaseUrl } from '../../../src/core/base-url.js';
import { errors } from '../../../src/core/errors.js';

const PAGE_DIR = new URL('./', import.meta.url);

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** The checked-in assets the page loads, by the name it asks for. */
const ASSETS: Record<string, string> = {
  'listener.js': JAVASCRIPT,
  'listener.css': 'text/css; charset=utf-8',
};

/** The SDK's subscribe module as the page imports it (`./sdk-subscribe.js` from listener.js). */
const SDK_SUBSCRIBE_ASSET = 'sdk-subscribe.js';
const SDK_SUBSCRIBE_SOURCE = fileURLToPath(new URL('../../../src/sdk/subscribe.ts', import.meta.url));

/**
 * The bundle, built on first request and kept for the process (the source is part of the deploy). A failed build is
 * not kept: the request answers a logged 500 and the next one tries again, the process goes on.
 */
let sdkSubscribeBuild: Promise<string> | null = null;
function sdkSubscribeModule(): Promise<string> {
  if (!sdkSubscribeBuild) {
    const building = build({
      entryPoints: [SDK_SUBSCRIBE_SOURCE], bundle: true, format: 'esm', platform: 'browser', target: 'es2020', write: false,
      logLevel: 'silent',
    }).then((result) => result.outputFiles[0]!.text);
    sdkSubscribeBuild = building;
    building.catch(() => {
      if (sdkSubscribeBuild === building) sdkSubscribeBuild = null;
    });
  }
  return sdkSubscribeBuild;
}

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

/** `GET /b/{code}`: the page, its policy headers set. */
export function sendListenerPage(req: Request, res: Response, publicUrl: string | null): void {
  // The page finds the code in its own address; only where its assets live is filled in here.
  const html = pageFile('index.html').toString('utf8').replaceAll('%ASSETS%', escapeHtml(`${pathPrefix(publicUrl)}/b/_assets`));
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(requestBaseUrl(req, publicUrl)));
  res.setHeader('Referrer-Policy', 'no-referrer'); // the address may carry a shareCode
  sendPageFile(res, 'text/html; charset=utf-8', html);
}

/** `GET /b/_assets/{asset}`: a checked-in asset, or the SDK's subscribe module; another name is a 404. */
export async function sendListenerPageAsset(res: Response, name: string): Promise<void> {
  if (name === SDK_SUBSCRIBE_ASSET) {
    // A build failure throws: the error handler logs it and answers `500 internal`.
    sendPageFile(res, JAVASCRIPT, await sdkSubscribeModule());
    return;
  }
  if (!Object.hasOwn(ASSETS, name)) throw errors.notFound('Listener page asset');
  sendPageFile(res, ASSETS[name]!, pageFile(name));
}

/**
 * Connect's pages (rest/pages/connect/authorize.ts answers with them): server-rendered HTML with no script and one
 * inline style allowed by its hash, so the Content-Security-Policy can forbid everything else: nothing from another
 * host, no framing, forms only to this server and the app's own origin.
 */
import crypto from 'node:crypto';
import type { Response } from 'express';
import type { ConnectRequest } from '../../../src/connect/service.js';

const SCOPE_TEXT: Record<string, string> = {
  read: 'read your transcriptions, recordings and settings',
  write: 'create and change transcriptions, recordings, broadcasts and keys',
  'recordings:publish': 'publish live audio to your recordings',
  '*': 'everything your account can do',
};

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}'
  + 'code{background:#f1f1f1;padding:0 .2rem}label,input{display:block;width:100%}'
  + 'input{margin:.3rem 0 1rem;padding:.4rem;box-sizing:border-box}'
  + 'button{padding:.5rem 1.2rem;margin-right:.5rem}.error{color:#a40000}';
const STYLE_HASH = crypto.createHash('sha256').update(STYLE).digest('base64');

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** No script at all; the form may post here and (Chrome applies form-action to the redirect after it) to the app. */
export function sendPage(res: Response, status: number, title: string, body: string, redirectUri?: string): void {
  let appOrigin = '';
  if (redirectUri) {
    const url = new URL(redirectUri);
    const origin = url.origin !== 'null' ? url.origin : url.protocol;
    if (/^[A-Za-z0-9.+\-:/[\]]+$/.test(origin)) appOrigin = ` ${origin}`;
  }
  res.setHeader('Content-Security-Policy', [
    "default-src 'none'", `style-src 'sha256-${STYLE_HASH}'`, `form-action 'self'${appOrigin}`, "base-uri 'none'", "frame-ancestors 'none'",
  ].join('; '));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer'); // the address may carry the person's token
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.status(status).type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>
${body}</body></html>`);
}

/** The consent form: what the app asks for, where the key goes, and the person's token field. */
export function consentPage(
  res: Response, status: number, request: ConnectRequest, formToken: string,
  options: { accessToken?: string; message?: string; prefix: string },
) {
  const target = new URL(request.redirectUri);
  const scopes = request.scopes.map(
    (scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_TEXT[scope] ?? scope)}</li>`,
  ).join('');
  sendPage(res, status, `Connect ${request.clientId}`, `
<p>The app <strong>${escapeHtml(request.clientId)}</strong> asks for an API key of your account with these scopes:</p><ul>${scopes}</ul>
<p>It will receive the key at <code>${escapeHtml(target.host || target.protocol)}</code> (<code>${escapeHtml(request.redirectUri)}</code>).
The key appears in your API keys, where you can revoke it.</p>
${options.message ? `<p class="error">${escapeHtml(options.message)}</p>` : ''}
<form method="post" action="${escapeHtml(`${options.prefix}/connect/authorize`)}">
<input type="hidden" name="request" value="${escapeHtml(formToken)}">
<label for="access_token">Your access token (you are signed in with it; it is not given to the app)</label>
<input type="password" id="access_token" name="access_token" autocomplete="off" value="${escapeHtml(options.accessToken ?? '')}">
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button>
</form>`, request.redirectUri);
}

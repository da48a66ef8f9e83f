/**
 * The consent page of Connect (`GET`/`POST /connect/authorize`, declared in rest/routes/connect.ts; rendered by
 * consent.ts): a signed-in person approves an app, and the code or the error goes back to the app.
 *
 * The page is server-rendered HTML with no script and one hashed inline style: nothing from another host, no framing.
 * A person signs in on it with their access token (the local issuer's or an OIDC provider's JWT), given as
 * `access_token` in the page's address by the app that sends them there, or pasted into the form; it travels in the
 * POST body, never in a cookie, so there is no ambient credential a cross-site form could ride. The form also carries
 * the request signed by the server (what is approved is exactly what was shown, for ten minutes), and a POST whose
 * `Origin`/`Sec-Fetch-Site` names another site is refused.
 */
import type { Request, Response } from 'express';
import { requestBaseUrl } from '../../../src/core/base-url.js';
import { toApiError } from '../../../src/core/errors.js';
import type { Context } from '../../../src/core/context.js';
import { OAuthError, type ConnectRequest } from '../../../src/connect/service.js';
import { parseBody, strings } from '../../connect.js';
import { consentPage, escapeHtml, sendPage } from './consent.js';

/** Where this server's paths start as a browser sees them: PUBLIC_URL's path, else the root. */
const pathPrefix = (ctx: Context) => (ctx.config.publicUrl ? new URL(ctx.config.publicUrl).pathname.replace(/\/+$/, '') : '');

/** The code or the error goes back to the app (RFC 6749 §4.1.2), with `iss` (RFC 9207) against mix-ups. */
function redirectBack(res: Response, redirectUri: string, params: Record<string, string | null>, issuer: string): void {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...params, iss: issuer })) if (value !== null) url.searchParams.append(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, url.href);
}

/** A request a browser made for another site's page (a cross-site form post or fetch). */
function crossSite(req: Request, baseUrl: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.get('origin');
  return Boolean(origin && origin !== new URL(baseUrl).origin);
}

/** The consent page for the request in the address, or the error sent back to the app (or shown, where it cannot be). */
export async function showConsent(req: Request, res: Response, ctx: Context): Promise<void> {
  const params = strings(req.query as Record<string, unknown>);
  const issuer = requestBaseUrl(req, ctx.config.publicUrl);
  let request: ConnectRequest;
  try {
    request = ctx.services.connect.validate(params);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    if (error.redirect) {
      return redirectBack(
        res, params.redirect_uri!, { error: error.error, error_description: error.description, state: params.state ?? null }, issuer,
      );
    }
    return sendPage(res, 400, 'This sign-in link is not valid', `<p class="error">${escapeHtml(error.description)}</p><p>Tell the app `
      + `that sent you here.</p>`);
  }
  consentPage(res, 200, request, await ctx.services.connect.formToken(request), {
    accessToken: params.access_token, prefix: pathPrefix(ctx),
  });
}

/** The consent form's answer: approve (a code) or deny (access_denied), sent back to the app's redirect_uri. */
export async function answerConsent(req: Request, res: Response, ctx: Context): Promise<void> {
  const issuer = requestBaseUrl(req, ctx.config.publicUrl);
  if (crossSite(req, issuer)) return sendPage(res, 403, 'Refused', '<p class="error">This form can only be sent from its own '
    + 'page.</p>');
  let request: ConnectRequest;
  let body: Record<string, string>;
  try {
    body = strings(await parseBody(req, res, false));
    request = await ctx.services.connect.openFormToken(body.request);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return sendPage(res, 400, 'This consent form is not valid', `<p class="error">${escapeHtml(error.description)}</p>`);
  }
  if (body.decision !== 'approve') {
    return redirectBack(
      res, request.redirectUri, { error: 'access_denied', error_description: 'The person denied the request.', state: request.state },
      issuer,
    );
  }
  const again = (status: number, message: string) => consentPage(
    res, status, request, body.request!, { message, prefix: pathPrefix(ctx) },
  );
  if (!body.access_token) return again(401, 'Sign in: paste your access token, then approve.');
  let identity;
  try {
    identity = await ctx.services.auth.resolver.resolve({ authorization: `Bearer ${body.access_token}` });
  } catch (error) {
    const refusal = toApiError(error);
    if (refusal.status >= 500) throw error;
    return again(401, `Sign-in failed: ${refusal.message}`);
  }
  if (!identity || identity.principal.kind !== 'user') return again(403, 'Only a signed-in person can approve, not an API key.');
  const code = await ctx.services.connect.approve(identity, request);
  redirectBack(res, request.redirectUri, { code, state: request.state }, issuer);
}

/**
 * Connect (OAuth 2.0 authorization code with PKCE → an API key): the consent page a signed-in person approves an
 * app on, the token endpoint that swaps the code for a key, and the authorization-server metadata (RFC 8414).
 *
 * The consent page is server-rendered HTML with no script and one hashed inline style: nothing from another host,
 * no framing. A person signs in on it with their access token (the local issuer's or an OIDC provider's JWT), given
 * as `access_token` in the page's address by the app that sends them there, or pasted into the form; it travels
 * in the POST body, never in a cookie, so there is no ambient credential a cross-site form could ride. The form
 * also carries the request signed by the server (what is approved is exactly what was shown, for ten minutes),
 * and a POST whose `Origin`/`Sec-Fetch-Site` names another site is refused.
 */
import express, { type Request, type Response } from 'express';
import { requestBaseUrl } from '../../src/core/base-url.js';
import { SCOPES } from '../../src/core/identity/scopes.js';
import { toApiError } from '../../src/core/errors.js';
import type { Context } from '../../src/core/context.js';
import { OAuthError, type ConnectRequest } from '../../src/connect/service.js';
import { consentPage, escapeHtml, sendPage } from '../pages/connect/consent.js';
import type { RouteSpec } from '../types.js';

/** Where this server's paths start as a browser sees them: PUBLIC_URL's path, else the root. */
const pathPrefix = (ctx: Context) => (ctx.config.publicUrl ? new URL(ctx.config.publicUrl).pathname.replace(/\/+$/, '') : '');

/** The code or the error goes back to the app (RFC 6749 §4.1.2), with `iss` (RFC 9207) against mix-ups. */
function redirectBack(res: Response, redirectUri: string, params: Record<string, string | null>, issuer: string): void {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...params, iss: issuer })) if (value !== null) url.searchParams.append(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, url.href);
}

const strings = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

/** Parses a form-encoded (or, for the token endpoint, JSON) body with express' own parsers. */
function parseBody(req: Request, res: Response, json: boolean): Promise<Record<string, unknown>> {
  const parser = req.is('application/x-www-form-urlencoded') ? express.urlencoded({ extended: false, limit: '64kb' })
    : json && req.is('application/json') ? express.json({ limit: '64kb' }) : null;
  if (!parser) {
    return Promise.reject(new OAuthError('invalid_request', `The body must be `
      + `application/x-www-form-urlencoded${json ? ' or application/json' : ''}.`));
  }
  return new Promise((resolve, reject) => parser(req, res, (error?: unknown) => {
    if (error) return reject(new OAuthError('invalid_request', 'The body could not be parsed.'));
    const body = req.body as unknown;
    resolve(body && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {});
  }));
}

/** A request a browser made for another site's page (a cross-site form post or fetch). */
function crossSite(req: Request, baseUrl: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.get('origin');
  return Boolean(origin && origin !== new URL(baseUrl).origin);
}

const oauthError = (res: Response, error: OAuthError) => res.status(error.status).json({
  error: error.error, error_description: error.description,
});

export const connectRoutes: RouteSpec[] = [
  {
    method: 'get', path: '/connect/authorize', operationId: 'getConnectAuthorize', tags: ['connect'], undocumented: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    handler: async (req, res, ctx) => {
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
    },
  },
  {
    method: 'post', path: '/connect/authorize', operationId: 'postConnectAuthorize', tags: ['connect'], undocumented: true, ownBody: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 303, description: 'Back to the app\'s redirect_uri with `code` and `state`, or `error=access_denied`.' },
    handler: async (req, res, ctx) => {
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
    },
  },
  {
    method: 'get', path: '/.well-known/oauth-authorization-server', operationId: 'getAuthorizationServerMetadata', tags: ['meta'],
    auth: { mode: 'public', scopes: [] },
    response: {
      status: 200, description: 'RFC 8414 metadata; `issuer` is this server\'s address.',
      schema: {
        type: 'object', required: ['issuer', 'authorization_endpoint', 'token_endpoint'],
        properties: { issuer: { type: 'string' }, authorization_endpoint: { type: 'string' }, token_endpoint: { type: 'string' } },
      },
    },
    handler: (req, res, ctx) => {
      const base = requestBaseUrl(req, ctx.config.publicUrl);
      res.json({
        issuer: base,
        authorization_endpoint: `${base}/connect/authorize`,
        token_endpoint: `${base}/v1/connect/token`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: [...SCOPES],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${base}/docs`,
      });
    },
  },
  {
    method: 'post', path: '/v1/connect/token', operationId: 'redeemConnectCode', tags: ['connect'], ownBody: true,
    auth: { mode: 'public', scopes: [] },
    request: {
      contentType: 'application/x-www-form-urlencoded',
      schema: {
        type: 'object', required: ['grant_type', 'code', 'code_verifier', 'redirect_uri'],
        properties: {
          grant_type: { type: 'string', enum: ['authorization_code'] },
          code: { type: 'string', description: 'The `code` sent to the redirect_uri.' },
          code_verifier: { type: 'string', description: 'The PKCE verifier (43–128 characters) whose S256 is the `code_challenge`.' },
          redirect_uri: { type: 'string', description: 'Exactly the redirect_uri of the authorization request.' },
          client_id: { type: 'string', description: 'Optional; when given, exactly the client_id of the authorization request.' },
        },
      },
      alternatives: [{
        contentType: 'application/json',
        schema: {
          type: 'object', required: ['grant_type', 'code', 'code_verifier', 'redirect_uri'],
          properties: {
            grant_type: { type: 'string', description: '`authorization_code`.' }, code: { type: 'string' },
            code_verifier: { type: 'string' }, redirect_uri: { type: 'string' }, client_id: { type: 'string' },
          },
        },
      }],
    },
    response: {
      status: 200, description: 'The access token: a new API key (it does not expire; revoke it like any key).',
      schema: {
        type: 'object', required: ['access_token', 'token_type', 'scope'],
        properties: {
          access_token: { type: 'string' }, token_type: { type: 'string', enum: ['Bearer'] },
          scope: { type: 'string', description: 'The approved scopes, space-separated.' },
        },
      },
    },
    errors: [
      { status: 400, code: 'invalid_grant' }, { status: 400, code: 'invalid_request' }, { status: 400, code: 'unsupported_grant_type' },
      { status: 403, code: 'key_from_browser' },
    ],
    protocolError: {
      type: 'object', required: ['error', 'error_description'], additionalProperties: false, description: 'The OAuth 2.0 error form (RFC '
        + '6749 section 5.2).',
      properties: {
        error: { type: 'string', enum: ['invalid_grant', 'invalid_request', 'unsupported_grant_type', 'key_from_browser'] },
        error_description: { type: 'string' },
      },
    },
    handler: async (req, res, ctx) => {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Pragma', 'no-cache');
      try {
        if (req.get('origin') || req.get('sec-fetch-site') || req.get('sec-fetch-dest')) {
          throw new OAuthError(
            'key_from_browser', 'Connect codes are redeemed by the app\'s server or native code, not from a web page.', 403,
          );
        }
        const raw = await parseBody(req, res, true);
        const repeated = Object.entries(raw).find(([, value]) => typeof value !== 'string');
        if (repeated) throw new OAuthError('invalid_request', `${repeated[0]} must be given once, as a string.`);
        const body = strings(raw);
        if (!body.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
        if (body.grant_type !== 'authorization_code') {
          throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code.');
        }
        if (!body.code) throw new OAuthError('invalid_request', 'code is required.');
        const redeemed = await ctx.services.connect.redeem({
          code: body.code, codeVerifier: body.code_verifier, redirectUri: body.redirect_uri, clientId: body.client_id,
        });
        res.status(200).json({ access_token: redeemed.key, token_type: 'Bearer', scope: redeemed.scopes.join(' ') });
      } catch (error) {
        if (error instanceof OAuthError) return void oauthError(res, error);
        throw error;
      }
    },
  },
];

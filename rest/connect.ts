/**
 * Connect's OAuth 2.0 endpoints over HTTP (declared in rest/routes/connect.ts): the token endpoint that swaps a code for
 * an API key and the authorization-server metadata (RFC 8414); the body parsing is shared with the consent page
 * (rest/pages/connect/authorize.ts).
 */
import express, { type Request, type Response } from 'express';
import { SCOPES } from '../src/core/identity/scopes.js';
import type { Context } from '../src/core/context.js';
import { OAuthError } from '../src/connect/service.js';

/** A record's string values (a field given twice, which the parsers make an array, is left out). */
export const strings = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

/** Parses a form-encoded (or, for the token endpoint, JSON) body with express' own parsers. */
export function parseBody(req: Request, res: Response, json: boolean): Promise<Record<string, unknown>> {
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

const oauthError = (res: Response, error: OAuthError) => res.status(error.status).json({
  error: error.error, error_description: error.description,
});

/** RFC 8414 metadata of the server at `base`: authorization code with PKCE (S256) for public clients. */
export function authorizationServerMetadata(base: string) {
  return {
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
  };
}

/** The token endpoint: a code redeemed for an API key, or an error in the OAuth form (RFC 6749 section 5.2). */
export async function redeemCode(req: Request, res: Response, ctx: Context): Promise<void> {
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
}

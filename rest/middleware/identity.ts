/**
 * Judges the request's credential once (Authorization header, browser hints, tokens in the URL). A refused
 * credential is kept, not answered here: public routes still work, and the first field that needs a credential
 * throws the exact refusal (see the scope-auth loaders in src/schema/builder.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { URL_TOKEN_PARAMS, type CredentialSource, type IdentityResolver } from '../../src/auth/identity.js';
import { toApiError } from '../../src/errors.js';

export function credentialSourceOf(req: IncomingMessage): CredentialSource {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] ?? null : value ?? null;
  };
  return {
    authorization: header('authorization'),
    origin: header('origin'),
    secFetchSite: header('sec-fetch-site'),
    secFetchDest: header('sec-fetch-dest'),
    urlTokens: URL_TOKEN_PARAMS.flatMap((name) => url.searchParams.getAll(name)),
  };
}

export function useIdentity(resolver: IdentityResolver): RequestHandler {
  return async (req, _res, next) => {
    try {
      req.sg.identity = await resolver.resolve(credentialSourceOf(req));
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500) return next(error);
      req.sg.credentialError = apiError;
    }
    next();
  };
}

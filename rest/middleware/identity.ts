/**
 * Judges the request's credential once (Authorization header, browser hints, tokens in the URL). A refused
 * credential is kept, not answered here: public routes still work, and the first field that needs a credential
 * throws the exact refusal (see the scope-auth loaders in src/core/builder.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { URL_TOKEN_PARAMS, type CredentialSource, type IdentityResolver } from '../../src/core/identity/identity.js';
import type { Caller } from '../../src/core/identity/scopes.js';
import { toApiError } from '../../src/core/errors.js';

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
    host: header('host'),
    urlTokens: URL_TOKEN_PARAMS.flatMap((name) => url.searchParams.getAll(name)),
  };
}

/**
 * What a credential proves: its identity (null without one), or the refusal kept as `credentialError`. A failure
 * on our side (5xx: the database or a JWKS host unreachable) is the one difference between the callers:
 * `serverErrors: 'throw'` rethrows it as thrown (HTTP: the request fails with the envelope's 5xx), `'keep'` keeps it
 * as `credentialError` like a refusal (sockets: `authorize` or the first field needing a credential answers it).
 */
export async function judgeCredential(
  resolver: IdentityResolver, source: CredentialSource, options: { serverErrors: 'throw' | 'keep' },
): Promise<Caller> {
  try {
    return { identity: await resolver.resolve(source), credentialError: null };
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && options.serverErrors === 'throw') throw error;
    return { identity: null, credentialError: apiError };
  }
}

export function useIdentity(resolver: IdentityResolver): RequestHandler {
  return async (req, _res, next) => {
    let caller: Caller;
    try {
      caller = await judgeCredential(resolver, credentialSourceOf(req), { serverErrors: 'throw' });
    } catch (error) {
      return next(error);
    }
    req.sg.identity = caller.identity;
    req.sg.credentialError = caller.credentialError;
    next();
  };
}

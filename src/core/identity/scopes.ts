/** The scopes a credential can carry (spec, Authentication 2). A signed-in person acts with every scope. */
import { errors, type ApiError } from '../errors.js';
import type { Identity } from './identity.js';

export const SCOPES = ['read', 'write', 'recordings:publish', '*'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function grants(held: readonly string[], needed: Scope): boolean {
  return held.includes('*') || held.includes(needed);
}

/** What a request proved about its caller: who it is, or why its credential was refused. */
export interface Caller {
  identity: Identity | null;
  credentialError: ApiError | null;
}

const NO_CREDENTIAL = 'This operation needs a credential: send "Authorization: Bearer <API key or access token>".';

/** The caller's identity, or the exact refusal: the credential's own error, else 401 invalid_token. */
export function requireIdentity(caller: Caller, missingMessage = NO_CREDENTIAL): Identity {
  if (caller.credentialError) throw caller.credentialError;
  if (!caller.identity) throw errors.invalidToken(missingMessage);
  return caller.identity;
}

/** The caller's identity when it holds `scope`; otherwise 401 as above, or 403 forbidden naming the scope. */
export function requireScope(caller: Caller, scope: Scope, missingMessage = NO_CREDENTIAL): Identity {
  const identity = requireIdentity(caller, missingMessage);
  if (!grants(identity.principal.scopes, scope)) throw errors.forbidden(`This API key lacks the "${scope}" scope.`, { scope });
  return identity;
}

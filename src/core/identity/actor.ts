/** Who acts: the account and principal a piece of work or a change is done for (billing, corrections, recordings). */
import type { Identity } from './identity.js';

/** Who is creating the work: a person (usage source `dashboard`) or an API key (source: its id). */
export interface Creator {
  accountId: string;
  principalId: string;
  principalKind: 'user' | 'api_key';
}

/**
 * Who asks for the work, as callers know it: the principal's kind comes from the request's identity; callers
 * without one (an RTMP publish, which acts for the key's owner) leave it out and it is read from the principal.
 */
export interface Actor {
  accountId: string;
  principalId: string;
  principalKind?: Creator['principalKind'];
}

/** The actor of a request: its account and principal, with the principal's kind (no query needed). */
export function actorOf(identity: Identity): Required<Actor> {
  return { accountId: identity.account.id, principalId: identity.principal.id, principalKind: identity.principal.kind };
}

/**
 * Who is calling: turns a request's credential into an Identity (principal + account) or the spec's exact
 * refusal (Authentication 3–4). No credential is not an error here: it gives `null`, and the schema's scopes
 * decide whether the operation needs one.
 */
import { ApiError, errors } from '../errors.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { newId } from '../ids.js';
import { hashApiKey, KEY_FAMILY, looksLikeApiKey } from './api-keys.js';
import { JwtVerifier, LOCAL_ISSUER, type JwtFailure } from './jwt.js';

export interface Identity {
  principal: {
    id: string;
    kind: 'user' | 'api_key';
    displayName: string;
    email: string | null;
    keyPrefix: string | null;
    /** A person acts with every scope; a key with its own. */
    scopes: string[];
    expiresAt: Date | null;
  };
  account: { id: string; name: string };
}

/** What a credential is judged from: the Authorization header, browser hints and any token placed in the URL. */
export interface CredentialSource {
  authorization?: string | null;
  origin?: string | null;
  secFetchSite?: string | null;
  secFetchDest?: string | null;
  /** The Host the request was sent to (a browser's `Origin` naming it is this server's own page). */
  host?: string | null;
  /** Values of query parameters that can carry a token (access_token, api_key, key, token). */
  urlTokens?: string[];
}

export const URL_TOKEN_PARAMS = ['access_token', 'api_key', 'apiKey', 'key', 'token'];

export const keyErrors = {
  fromBrowser: (how: string) => new ApiError('key_from_browser', 403,
    `API keys must not be ${how}; a browser streams through a realtime session that your server creates with its key.`),
  expired: () => new ApiError('key_expired', 401, 'This API key has expired.'),
  revoked: () => new ApiError('key_revoked', 401, 'This API key was revoked.'),
  suspended: () => new ApiError('suspended', 403, 'This account is suspended.'),
};

/**
 * Whether a key comes from a web page of another site: front-end code that would ship the key to everyone who loads
 * it, which is what the rule guards against. Browsers mark their requests: `Origin` on cross-origin and state-changing
 * requests and WebSocket handshakes, `Sec-Fetch-Site` and `Sec-Fetch-Dest` on every request. Server HTTP clients
 * (curl, Node's fetch) send none of those three (Node's fetch does send `Sec-Fetch-Mode`, which therefore says
 * nothing). A page of this server's own origin (GraphiQL at /graphql, the API reference at /docs, where an operator
 * pastes the printed key) is not another site: the browser says `Sec-Fetch-Site: same-origin`, or, where it sends no
 * fetch metadata, an `Origin` naming the host the request went to. Another origin cannot make the browser say that.
 */
function sentFromAnotherSite(source: CredentialSource): boolean {
  if (!source.origin && !source.secFetchSite && !source.secFetchDest) return false;
  if (source.secFetchSite) return source.secFetchSite !== 'same-origin';
  return !source.origin || !source.host || originHost(source.origin) !== source.host.toLowerCase();
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}

export class IdentityResolver {
  /** Last-used stamps are written at most once a minute per principal. */
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(private readonly prisma: PrismaClient, private readonly jwt: JwtVerifier) {}

  async resolve(source: CredentialSource): Promise<Identity | null> {
    // Media URLs may carry other tokens (media tokens, a person's JWT); an API key is recognised by its prefix.
    for (const value of source.urlTokens ?? []) {
      if (value.startsWith(KEY_FAMILY)) throw keyErrors.fromBrowser('placed in a URL');
    }
    const header = source.authorization?.trim();
    if (!header) return null;
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw errors.invalidToken('The Authorization header must be "Bearer <token>".');
    const token = match[1]!;
    return looksLikeApiKey(token) ? this.resolveKey(token, source) : this.resolvePerson(token);
  }

  private async resolveKey(key: string, source: CredentialSource): Promise<Identity> {
    if (sentFromAnotherSite(source)) throw keyErrors.fromBrowser('sent from a web page of another site');
    const principal = await this.prisma.principal.findUnique({ where: { keyHash: hashApiKey(key) }, include: { account: true } });
    if (!principal || principal.kind !== 'api_key') throw errors.invalidToken('Unknown API key.');
    if (principal.revokedAt) throw keyErrors.revoked();
    if (principal.expiresAt && principal.expiresAt.getTime() <= Date.now()) throw keyErrors.expired();
    if (principal.account.suspendedAt) throw keyErrors.suspended();
    this.touch(principal.id);
    return {
      principal: {
        id: principal.id, kind: 'api_key', displayName: principal.displayName, email: null,
        keyPrefix: principal.keyPrefix, scopes: principal.scopes, expiresAt: principal.expiresAt,
      },
      account: { id: principal.account.id, name: principal.account.name },
    };
  }

  private async resolvePerson(token: string): Promise<Identity> {
    let person;
    try {
      person = await this.jwt.verify(token);
    } catch (failure) {
      if (failure === ('expired' satisfies JwtFailure)) throw errors.invalidToken('The access token has expired.');
      throw errors.invalidToken('The access token is not valid here.');
    }
    let principal = await this.prisma.principal.findUnique({
      where: { issuer_subject: { issuer: person.issuer, subject: person.subject } },
      include: { account: true },
    });
    // The built-in issuer signs only for persons it knows; one that is gone is not signed up again.
    if (!principal && person.issuer === LOCAL_ISSUER) throw errors.invalidToken('This person no longer exists.');
    // A person of an external issuer signing in for the first time gets an account of their own.
    principal ??= await this.prisma.principal.create({
      data: {
        id: newId('usr'),
        kind: 'user',
        displayName: person.name ?? person.email ?? person.subject,
        email: person.email,
        issuer: person.issuer,
        subject: person.subject,
        scopes: ['*'],
        account: { create: { id: newId('acct'), name: person.name ?? person.email ?? person.subject } },
      },
      include: { account: true },
    }).catch(async (error) => {
      // Two first requests at once: the other one created it.
      const existing = await this.prisma.principal.findUnique({
        where: { issuer_subject: { issuer: person.issuer, subject: person.subject } }, include: { account: true },
      });
      if (!existing) throw error;
      return existing;
    });
    if (principal.revokedAt) throw errors.invalidToken('This person was removed from the account.');
    if (principal.account.suspendedAt) throw keyErrors.suspended();
    this.touch(principal.id);
    return {
      principal: {
        id: principal.id, kind: 'user', displayName: principal.displayName, email: principal.email,
        keyPrefix: null, scopes: ['*'], expiresAt: null,
      },
      account: { id: principal.account.id, name: principal.account.name },
    };
  }

  private touch(principalId: string) {
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(principalId) ?? 0) < 60_000) return;
    this.lastUsedWritten.set(principalId, now);
    this.prisma.principal.update({ where: { id: principalId }, data: { lastUsedAt: new Date(now) } }).catch(() => undefined);
  }
}

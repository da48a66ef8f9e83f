/**
 * Connect: OAuth 2.0 authorization code with PKCE (RFC 6749 §4.1, RFC 7636 S256 only), whose access token is an API
 * key of the approving person's account. No client registration: clients are public (no secret) and name
 * themselves with `client_id`; what binds a code to a client is its `redirect_uri` (checked here, the same string
 * must come back at the token endpoint) and its PKCE challenge. The consent page shows the `redirect_uri`'s host,
 * the one thing about an unregistered client that is true.
 *
 *   authorize request → validated (bad client_id/redirect_uri: no redirect; else errors go back to the redirect_uri)
 *   → consent form (the request signed into a form token) → the person approves with their token → a code, kept
 *   only hashed, for CONNECT_CODE_TTL_S (120 s) → redeemed once (spent on the first try whatever its outcome) → key.
 */
import crypto from 'node:crypto';
import type { AccountsService } from '../account/service.js';
import type { Identity } from '../core/identity/identity.js';
import { isScope, SCOPES } from '../core/identity/scopes.js';
import { newId } from '../core/ids.js';
import { purposeKey } from '../core/signing-secret.js';
import type { ServiceDeps } from '../core/services.js';

declare module '../core/services.js' {
  interface Services {
    connect: ConnectService;
  }
}

/** A validated authorization request. */
export interface ConnectRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scopes: string[];
}

/**
 * A refusal in OAuth's words. `redirect`: the redirect_uri was valid, so RFC 6749 §4.1.2.1 sends the error back to
 * the client there; otherwise it is shown to the person and never redirected.
 */
export class OAuthError extends Error {
  constructor(readonly error: string, readonly description: string, readonly status = 400, readonly redirect = false) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const MAX_CLIENT_ID = 100;
const MAX_REDIRECT_URI = 2000;
const MAX_STATE = 1000;
/** How long the consent form stays good after the page was shown. */
const FORM_TTL_MS = 10 * 60_000;
/** RFC 7636 §4.1: 43 to 128 unreserved characters; the S256 challenge is 43 base64url characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** RFC 8252 §7.1 private-use scheme of a native app: a reverse domain name (it holds a dot). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('base64url');
const printable = (text: string) => !/[\u0000-\u001f\u007f]/.test(text);

/**
 * Where a code may be sent: an absolute `https` URL, `http` on a loopback address (native and command-line apps,
 * RFC 8252 §7.3), or a native app's private-use scheme (RFC 8252 §7.1); never with a fragment or user info.
 */
export function checkRedirectUri(value: string | undefined): URL {
  if (!value) throw new OAuthError('invalid_request', 'redirect_uri is required.');
  if (value.length > MAX_REDIRECT_URI || !printable(value)) throw new OAuthError('invalid_request', 'redirect_uri is not a valid address.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthError('invalid_request', 'redirect_uri must be an absolute URL.');
  }
  if (url.hash || value.includes('#')) throw new OAuthError('invalid_request', 'redirect_uri must not have a fragment.');
  if (url.username || url.password) throw new OAuthError('invalid_request', 'redirect_uri must not carry user info.');
  if (url.protocol === 'https:' && url.hostname) return url;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return url;
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return url;
  throw new OAuthError('invalid_request', 'redirect_uri must be https, http on a loopback address (127.0.0.1, [::1], localhost), or a '
    + 'reverse-domain private-use scheme.');
}

type Params = Record<string, string | undefined>;

export class ConnectService {
  constructor(private readonly deps: ServiceDeps, private readonly accounts: AccountsService) {}

  /** Checks an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3). */
  validate(params: Params): ConnectRequest {
    const clientId = params.client_id;
    if (!clientId || clientId.length > MAX_CLIENT_ID || !clientId.trim() || !printable(clientId)) {
      throw new OAuthError('invalid_request', `client_id is required: a name of at most ${MAX_CLIENT_ID} printable characters.`);
    }
    checkRedirectUri(params.redirect_uri);
    // Kept as given: the token endpoint compares the exact string (RFC 6749 §4.1.3).
    const redirectUri = params.redirect_uri!;
    // From here on the redirect_uri is trusted enough to carry errors back to the client.
    const back = (error: string, description: string) => new OAuthError(error, description, 400, true);
    if (params.response_type !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code.', 400, true);
    if (params.state !== undefined && (params.state.length > MAX_STATE || !printable(params.state))) {
      throw back('invalid_request', `state: at most ${MAX_STATE} printable characters.`);
    }
    if (params.code_challenge_method !== 'S256') throw back('invalid_request', 'code_challenge_method must be S256 (plain is refused).');
    if (!params.code_challenge || !CHALLENGE.test(params.code_challenge)) throw back('invalid_request', 'code_challenge must be the '
      + 'base64url SHA-256 of the code_verifier (43 characters).');
    const scopes = [...new Set((params.scope ?? '').split(' ').filter(Boolean))];
    if (!scopes.length) throw back('invalid_scope', `scope is required: space-separated, from ${SCOPES.join(', ')}.`);
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length) throw back('invalid_scope', `Unknown scope: ${unknown.join(', ')}; known: ${SCOPES.join(', ')}.`);
    return { clientId, redirectUri, state: params.state ?? null, codeChallenge: params.code_challenge, scopes };
  }

  /** The request signed into the consent form, so what the person approves is exactly what was shown. */
  async formToken(request: ConnectRequest, now = Date.now()): Promise<string> {
    const payload = Buffer.from(JSON.stringify({ ...request, exp: now + FORM_TTL_MS })).toString('base64url');
    return `${payload}.${await this.sign(payload)}`;
  }

  /** The request of a consent form, or an error when the form was altered or is too old. */
  async openFormToken(token: string | undefined, now = Date.now()): Promise<ConnectRequest> {
    const [payload, signature, extra] = (token ?? '').split('.');
    const expected = payload ? await this.sign(payload) : '';
    if (!payload || !signature || extra !== undefined || signature.length !== expected.length
      || !crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
      throw new OAuthError('invalid_request', 'The consent form is not valid; open the app\'s sign-in link again.');
    }
    const { exp, ...request } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ConnectRequest & { exp: number };
    if (exp <= now) throw new OAuthError('invalid_request', 'The consent form expired; open the app\'s sign-in link again.');
    return request;
  }

  /** A person approved: a fresh code (returned in clear, stored hashed) for CONNECT_CODE_TTL_S. */
  async approve(identity: Identity, request: ConnectRequest): Promise<string> {
    const code = crypto.randomBytes(32).toString('base64url');
    // Codes long past their time are of no use to anyone (nor to a support question after a day): swept as new ones come.
    await this.deps.prisma.connectCode.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - 24 * 3600_000) } } });
    await this.deps.prisma.connectCode.create({
      data: {
        id: newId('cc'), codeHash: sha256(code), accountId: identity.account.id, principalId: identity.principal.id,
        clientId: request.clientId, redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, scopes: request.scopes,
        expiresAt: new Date(Date.now() + this.deps.config.auth.connectCodeTtlS * 1000),
      },
    });
    return code;
  }

  /**
   * Redeems a code for a new API key. The code is spent by the first attempt whatever its outcome (a conditional
   * update: of concurrent redemptions exactly one finds it unspent); every mismatch is `invalid_grant`.
   */
  async redeem(input: { code: string; codeVerifier?: string; redirectUri?: string; clientId?: string }) {
    const grant = (description: string) => ({ refused: new OAuthError('invalid_grant', description) });
    const outcome = await this.deps.prisma.$transaction(async (tx) => {
      const codeHash = sha256(input.code);
      const spent = await tx.connectCode.updateMany({ where: { codeHash, usedAt: null }, data: { usedAt: new Date() } });
      const row = await tx.connectCode.findUnique({ where: { codeHash } });
      if (!row) return grant('Unknown code.');
      if (spent.count === 0) return grant('This code was already used.');
      if (row.expiresAt.getTime() <= Date.now()) return grant('This code has expired.');
      if (input.redirectUri !== row.redirectUri) return grant('redirect_uri differs from the one the code was sent to.');
      if (input.clientId !== undefined && input.clientId !== row.clientId) return grant('client_id differs from the one the code was '
        + 'issued to.');
      if (!input.codeVerifier || !VERIFIER.test(input.codeVerifier) || sha256(input.codeVerifier) !== row.codeChallenge) {
        return grant('code_verifier does not match the code_challenge.');
      }
      const person = await tx.principal.findUnique({ where: { id: row.principalId }, include: { account: true } });
      if (!person || person.revokedAt || person.account.suspendedAt) return grant('The person who approved can no longer grant access.');
      const created = await this.accounts.createApiKey(row.accountId, {
        scopes: row.scopes, displayName: `Connect: ${row.clientId}`, createdById: row.principalId,
      }, tx);
      await tx.connectCode.update({ where: { id: row.id }, data: { apiKeyId: created.principalId } });
      return { created, scopes: row.scopes, accountId: row.accountId };
    });
    if ('refused' in outcome) throw outcome.refused;
    this.deps.pubsub.publish(`gateway:account:${outcome.accountId}`, {
      type: 'api_key.created', apiKeyId: outcome.created.principalId, keyPrefix: outcome.created.keyPrefix,
    });
    return { key: outcome.created.key, apiKeyId: outcome.created.principalId, scopes: outcome.scopes };
  }

  private async sign(payload: string): Promise<string> {
    return crypto.createHmac('sha256', await purposeKey(this.deps.config, 'connect-consent')).update(payload).digest('base64url');
  }
}

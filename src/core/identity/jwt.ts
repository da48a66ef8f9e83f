/**
 * Signed-in persons' access tokens: JWTs verified against a JWKS. Two kinds of issuer:
 * - the built-in local issuer (development, admin command): an ES256 key pair kept in DATA_DIR/auth, its
 *   public JWKS served at /auth/jwks.json;
 * - any OIDC issuer listed in OIDC_ISSUERS, its JWKS taken from configuration or from OIDC discovery.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as jose from 'jose';
import type { Config } from '../config/index.js';

export const LOCAL_ISSUER = 'urn:speechgate:local';
export const LOCAL_AUDIENCE = 'speechgate';

export interface VerifiedPerson {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
}

export interface LocalIssuer {
  jwks: jose.JSONWebKeySet;
  /** Signs an access token for a person of the local issuer (`sub` = their principal id). */
  sign(claims: { subject: string; email?: string | null; name?: string | null }, ttlS?: number): Promise<string>;
}

async function loadOrCreateLocalKey(dataDir: string): Promise<{ privateJwk: jose.JWK; publicJwk: jose.JWK }> {
  const file = path.join(dataDir, 'auth', 'local-issuer.jwk.json');
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const kid = crypto.randomBytes(8).toString('hex');
    const privateJwk = { ...(await jose.exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
    const publicJwk = { ...(await jose.exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    await fs.mkdir(path.dirname(file), { recursive: true });
    // wx: two processes starting at once on one DATA_DIR keep the first one's key.
    await fs.writeFile(file, JSON.stringify({ privateJwk, publicJwk }), { mode: 0o600, flag: 'wx' }).catch(async () => undefined);
    return JSON.parse(await fs.readFile(file, 'utf8'));
  }
}

export async function createLocalIssuer(dataDir: string): Promise<LocalIssuer> {
  const { privateJwk, publicJwk } = await loadOrCreateLocalKey(dataDir);
  const privateKey = await jose.importJWK(privateJwk, 'ES256');
  return {
    jwks: { keys: [publicJwk] },
    async sign(claims, ttlS = 3600) {
      return new jose.SignJWT({ email: claims.email ?? undefined, name: claims.name ?? undefined })
        .setProtectedHeader({ alg: 'ES256', kid: publicJwk.kid })
        .setIssuer(LOCAL_ISSUER)
        .setAudience(LOCAL_AUDIENCE)
        .setSubject(claims.subject)
        .setIssuedAt()
        .setExpirationTime(`${ttlS}s`)
        .sign(privateKey);
    },
  };
}

type KeyResolver = ReturnType<typeof jose.createLocalJWKSet>;

export type JwtFailure = 'expired' | 'invalid';

/** Verifies a person's JWT against the issuer named in it; throws a JwtFailure string when it cannot. */
export class JwtVerifier {
  private readonly resolvers = new Map<string, { keys: () => Promise<KeyResolver>; audience: string | null }>();

  constructor(local: Promise<LocalIssuer> | null, issuers: Config['auth']['oidcIssuers']) {
    if (local) {
      const keys = local.then((issuer) => jose.createLocalJWKSet(issuer.jwks));
      this.resolvers.set(LOCAL_ISSUER, { keys: () => keys, audience: LOCAL_AUDIENCE });
    }
    for (const { issuer, jwksUrl, audience } of issuers) {
      let keys: Promise<KeyResolver> | null = null;
      // Discovery runs on first use and again after a failure (the issuer may have been down at our start).
      const load = () => {
        keys ??= (async () => {
          const url = jwksUrl ?? (await discoverJwksUrl(issuer));
          return jose.createRemoteJWKSet(new URL(url)) as unknown as KeyResolver;
        })().catch((error) => {
          keys = null;
          throw error;
        });
        return keys;
      };
      this.resolvers.set(issuer, { keys: load, audience });
    }
  }

  async verify(token: string): Promise<VerifiedPerson> {
    let issuer: string | undefined;
    try {
      issuer = jose.decodeJwt(token).iss;
    } catch {
      throw 'invalid' satisfies JwtFailure;
    }
    const resolver = issuer ? this.resolvers.get(issuer) : undefined;
    if (!resolver) throw 'invalid' satisfies JwtFailure;
    try {
      const { payload } = await jose.jwtVerify(token, await resolver.keys(), {
        issuer,
        ...(resolver.audience ? { audience: resolver.audience } : {}),
      });
      if (!payload.sub) throw 'invalid' satisfies JwtFailure;
      return {
        issuer: issuer!,
        subject: payload.sub,
        email: typeof payload.email === 'string' ? payload.email : null,
        name: typeof payload.name === 'string' ? payload.name : null,
      };
    } catch (error) {
      if (error instanceof jose.errors.JWTExpired) throw 'expired' satisfies JwtFailure;
      throw 'invalid' satisfies JwtFailure;
    }
  }
}

async function discoverJwksUrl(issuer: string): Promise<string> {
  const response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`OIDC discovery for ${issuer} answered ${response.status}`);
  const document = (await response.json()) as { jwks_uri?: string };
  if (!document.jwks_uri) throw new Error(`OIDC discovery for ${issuer} has no jwks_uri`);
  return document.jwks_uri;
}

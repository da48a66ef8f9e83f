/**
 * API keys: `sg_live_<lookup>_<secret>`. The fixed `sg_` prefix lets anyone (and secret scanners) recognise a
 * key; `sg_live_<lookup>` is the public part shown in listings; the whole key is stored only as a sha256 hash,
 * which is also how a request's key is found (the secret has 240 bits, so a plain hash is enough).
 */
import crypto from 'node:crypto';

export const KEY_PREFIX = 'sg_live_';

export interface NewApiKey {
  key: string;
  keyPrefix: string;
  keyHash: string;
}

export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): NewApiKey {
  const lookup = crypto.randomBytes(6).toString('hex');
  const secret = crypto.randomBytes(30).toString('base64url');
  const key = `${KEY_PREFIX}${lookup}_${secret}`;
  return { key, keyPrefix: `${KEY_PREFIX}${lookup}`, keyHash: hashApiKey(key) };
}

/** Describes a key given from outside (BOOTSTRAP_API_KEY): any string; its display prefix is what fits the format. */
export function describeGivenKey(key: string): NewApiKey {
  const match = /^(sg_live_[0-9a-f]{12})_/.exec(key);
  const keyHash = hashApiKey(key);
  return { key, keyPrefix: match?.[1] ?? `given_${keyHash.slice(0, 12)}`, keyHash };
}

/** Whether a bearer token is shaped like an API key rather than a JWT (three base64url parts). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith('sg_') || token.split('.').length !== 3;
}

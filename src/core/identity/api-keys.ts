/**
 * API keys: `sg_live_<lookup>_<secret>`. The fixed `sg_` prefix lets anyone (and secret scanners) recognise a
 * key; `sg_live_<lookup>` is the public part shown in listings; the whole key is stored only as a sha256 hash,
 * which is also how a request's key is found (the secret has 240 bits, so a plain hash is enough).
 */
import crypto from 'node:crypto';

export const KEY_PREFIX = 'sg_live_';
/** What every API key looks like, generated or given: the prefix, 12 hex characters of lookup, then the secret. */
export const API_KEY_FORMAT = /^sg_live_[0-9a-f]{12}_[A-Za-z0-9_-]{20,128}$/;

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

/**
 * Describes a key given from outside (BOOTSTRAP_API_KEY). It must have the format of a generated key, so that it
 * is recognised everywhere a key is (refused in URLs, found by secret scanners, shown by its prefix).
 */
export function describeGivenKey(key: string): NewApiKey {
  if (!API_KEY_FORMAT.test(key)) {
    throw new Error('BOOTSTRAP_API_KEY must have the API key format sg_live_<12 hex characters>_<secret of 20 to 128 letters, digits, _ '
      + 'or ->.');
  }
  return { key, keyPrefix: key.slice(0, KEY_PREFIX.length + 12), keyHash: hashApiKey(key) };
}

/** Whether a bearer token is shaped like an API key rather than a JWT (three base64url parts). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(KEY_FAMILY) || token.split('.').length !== 3;
}

/** Every key of ours starts so (`sg_live_` today, other environments later): anything so shaped is refused in a URL. */
export const KEY_FAMILY = 'sg_';

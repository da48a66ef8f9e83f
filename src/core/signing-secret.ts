/**
 * The server's signing key: media URLs, media tokens and listener tokens are HMACs under keys derived from it.
 * MEDIA_SIGNING_SECRET in production (every gateway must share it); otherwise one random secret is made once and
 * kept in DATA_DIR, so restarts keep URLs and tokens valid.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import crypto from 'node:crypto';
import path from 'node:path';
import type { Config } from './config/index.js';

const secrets = new Map<string, Promise<string>>();

export function signingSecret(config: Pick<Config, 'dataDir' | 'transcriptions'>): Promise<string> {
  if (config.transcriptions.mediaSigningSecret) return Promise.resolve(config.transcriptions.mediaSigningSecret);
  const file = path.join(config.dataDir, 'media-signing-secret');
  let secret = secrets.get(file);
  if (!secret) {
    secret = (async () => {
      if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
      await mkdir(config.dataDir, { recursive: true });
      // `wx`: two processes starting together both read the one file that was written first.
      await writeFile(file, crypto.randomBytes(32).toString('base64url'), { flag: 'wx' }).catch(() => undefined);
      return (await readFile(file, 'utf8')).trim();
    })();
    secrets.set(file, secret);
  }
  return secret;
}

/** A key for one purpose, so a signature made for one kind of token never verifies as another. */
export async function purposeKey(config: Pick<Config, 'dataDir' | 'transcriptions'>, purpose: string): Promise<Buffer> {
  return crypto.createHmac('sha256', await signingSecret(config)).update(purpose).digest();
}

/**
 * A broadcast's audio sources (spec: AudioSource, CreateAudioSource): streams it can record besides the microphone,
 * kept with it oldest first. What this file holds: the CreateAudioSource parser, and the cache of checks
 * (source-check.ts does the checking).
 *
 * The cache is Redis, under REDIS_PREFIX (`<prefix>audio-source-check:<source id>`), so every gateway behind a load
 * balancer answers the same cached check and a `fresh=true` on one is seen by all. A ready answer is reused for a
 * minute, a failed one for 20 s (spec, Limits). Redis failing only costs the cache: the check then runs every time.
 */
import type { Redis } from 'ioredis';
import { requestRedis } from '../core/redis-client.js';
import { errors } from '../core/errors.js';
import { isObject } from '../core/validate.js';
import { parseLinkUrl } from '../links/index.js';
import { parseName } from '../transcriptions/service.js';
import type { AudioSourceCheck } from './source-check.js';

const CREATE_FIELDS = ['url', 'name'] as const;
/** Longer addresses are not stream addresses people paste; refused rather than stored. */
export const MAX_SOURCE_URL = 2048;
const READY_TTL_MS = 60_000;
const FAILED_TTL_MS = 20_000;

export interface AudioSourceView { id: string; name: string; url: string }

/** CreateAudioSource (no extra properties): `url` http(s), required; `name` (default: the address's host). */
export function parseAudioSourceInput(body: unknown): { url: string; name: string } {
  if (!isObject(body)) throw errors.invalidOptions('The body must be a JSON object (CreateAudioSource: url, name).', { field: 'body' });
  for (const key of Object.keys(body)) {
    if (!(CREATE_FIELDS as readonly string[]).includes(key)) {
      throw errors.invalidOptions(`${key} is not a field of CreateAudioSource (${CREATE_FIELDS.join(', ')}).`, { field: key });
    }
  }
  if (typeof body.url !== 'string' || !body.url.trim()) throw errors.invalidOptions('url is required: the http or https address of the '
    + 'stream.', { field: 'url' });
  if (body.url.length > MAX_SOURCE_URL) throw errors.invalidOptions(`url must be at most ${MAX_SOURCE_URL} characters.`, { field: 'url' });
  const url = parseLinkUrl(body.url.trim(), 'url');
  const name = body.name === undefined || body.name === null ? url.host : parseName(body.name);
  return { url: url.toString(), name };
}

/** The check cache (see above); the Redis connection opens with the first check, so a process that never checks holds none. */
export class AudioSourceCheckCache {
  private client: Redis | null = null;

  constructor(private readonly redisUrl: string, private readonly prefix: string) {}

  private redis(): Redis {
    if (!this.client) {
      this.client = requestRedis(this.redisUrl, {
        name: 'audio source checks', lazyConnect: true, keyPrefix: `${this.prefix}audio-source-check:`, timeoutMs: 2_000,
      });
    }
    return this.client;
  }

  async get(sourceId: string): Promise<AudioSourceCheck | null> {
    const stored = await this.redis().get(sourceId).catch(() => null);
    return stored ? (JSON.parse(stored) as AudioSourceCheck) : null;
  }

  async set(sourceId: string, check: AudioSourceCheck): Promise<void> {
    await this.redis().set(sourceId, JSON.stringify(check), 'PX', check.state === 'ready' ? READY_TTL_MS : FAILED_TTL_MS).catch(
      () => undefined,
    );
  }

  async close(): Promise<void> {
    this.client?.disconnect();
    this.client = null;
  }
}

/**
 * The languages listeners read a recording in. A broadcast's listener who asks for a language the recording is not
 * translated into (`lang` on the subscribe socket, the snapshot, or a translation read) adds a (recording, language)
 * pair: from then on the publisher's commits are translated into it too (LiveRecordingsService.translateCommit
 * reads the pairs), so every listener of that language gets `transcript.translated` frames.
 *
 * Each new pair costs translation for the rest of the recording, so new pairs are limited per network (an IPv4
 * /24, an IPv6 /48: one household, office or phone carrier's customers behind one address range) per hour:
 * `429 rate_limited` with `Retry-After` past `LISTENER_TRANSLATION_PAIRS_PER_HOUR`. Asking for a pair that exists
 * costs nothing. Both live in Redis so every gateway process counts the same; a pair is kept a day after it was
 * last asked for. When Redis cannot be reached the ask is let through uncounted (the limit protects the service, it
 * must not take it down) and the pair is not recorded (the reads still translate on demand).
 */
import { isIP } from 'node:net';
import type { Redis } from 'ioredis';
import { ApiError } from '../core/errors.js';
import { requestRedis } from '../core/redis-client.js';
import type { Closable } from '../core/services.js';

declare module '../core/services.js' {
  interface Services {
    listenerLanguages: ListenerLanguages;
  }
}

/** How long a pair is kept after a listener last asked for it. */
const PAIR_TTL_S = 24 * 3600;
const HOUR_S = 3600;

/** The network an address belongs to, for the pair limit: an IPv4 /24 or an IPv6 /48 (`unknown` without one). */
export function networkOf(address: string | null | undefined): string {
  if (!address) return 'unknown';
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(plain) === 4) return `${plain.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIP(plain) === 6) return `${expandIPv6(plain.split('%')[0]!).slice(0, 3).join(':')}::/48`;
  return 'unknown';
}

/** The eight groups of an IPv6 address, `::` filled with zeros, lower case. */
function expandIPv6(address: string): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, null];
  const before = head ? head.split(':') : [];
  const after = tail ? tail.split(':') : [];
  const zeros = tail === null ? [] : Array<string>(8 - before.length - after.length).fill('0');
  return [...before, ...zeros, ...after].map((group) => group.toLowerCase());
}

export class ListenerLanguages implements Closable {
  private client: Redis | null = null;

  constructor(private readonly options: { redisUrl: string; prefix: string; pairsPerHour: number }) {}

  private get redis(): Redis {
    return (this.client ??= requestRedis(this.options.redisUrl, { name: 'listener languages', timeoutMs: 1_000 }));
  }

  private pairsKey(recordingId: string): string {
    return `${this.options.prefix}listener-langs:${recordingId}`;
  }

  /**
   * A listener on `network` reads `recordingId` in `lang`: a new pair is counted against the network's hour (429 past
   * the limit) and recorded; a known one is only kept longer.
   */
  async admit(recordingId: string, lang: string, network: string): Promise<void> {
    const key = this.pairsKey(recordingId);
    let known: number;
    try {
      known = await this.redis.sismember(key, lang);
    } catch {
      return;
    }
    if (!known) {
      const counter = `${this.options.prefix}listener-pairs:${network}`;
      let used: number;
      let ttl: number;
      try {
        const [[, count], [, left]] = (await this.redis.multi().incr(counter).ttl(counter).exec()) as [[null, number], [null, number]];
        used = count;
        ttl = left;
        if (ttl < 0) await this.redis.expire(counter, HOUR_S);
      } catch {
        return;
      }
      if (used > this.options.pairsPerHour) {
        const retryAfterS = ttl > 0 ? ttl : HOUR_S;
        throw new ApiError('rate_limited', 429, `lang: listeners on this network asked for ${this.options.pairsPerHour} new translation `
          + `languages of recordings this hour, the most allowed; ${lang} can be read in ${retryAfterS} s (the spoken language, or a `
            + `language already asked for, now).`, {
          details: { retryAfterS, metric: 'translation_pairs', limit: this.options.pairsPerHour, field: 'lang' },
          headers: { 'Retry-After': String(retryAfterS) },
        });
      }
    }
    await this.redis.multi().sadd(key, lang).expire(key, PAIR_TTL_S).exec().catch(() => undefined);
  }

  /** The languages listeners asked `recordingId` in (none when Redis cannot answer). */
  async of(recordingId: string): Promise<string[]> {
    return this.redis.smembers(this.pairsKey(recordingId)).catch(() => []);
  }

  async close(): Promise<void> {
    this.client?.disconnect();
    this.client = null;
  }
}

/**
 * Counts per key an hour, in Redis so every gateway counts the same (a sliding window: the same script as the
 * request budget): promo checks per account, web-page searches of the link probe per account. When Redis cannot be
 * reached the hit is let through uncounted: these limits slow guessing and scraping, they guard no money.
 */
import type { Redis } from 'ioredis';
import { RedisRateLimitStore } from './rate-limit-store.js';
import { requestRedis } from './redis-client.js';
import type { Closable } from './services.js';

const HOUR_MS = 3_600_000;

export interface HourlyLimiter {
  /** Counts one for `key` when fewer than `perHour` were counted in the last hour; `resetMs` until one frees up. */
  hit(key: string, perHour: number): Promise<{ allowed: boolean; resetMs: number }>;
}

export class RedisHourlyLimiter implements HourlyLimiter, Closable {
  private client: Redis | null = null;
  private store: RedisRateLimitStore | null = null;

  constructor(private readonly options: { redisUrl: string; prefix: string }) {}

  private get limiter(): RedisRateLimitStore {
    this.client ??= requestRedis(this.options.redisUrl, { name: 'hourly limits', timeoutMs: 1_000 });
    return (this.store ??= new RedisRateLimitStore(this.client));
  }

  async hit(key: string, perHour: number): Promise<{ allowed: boolean; resetMs: number }> {
    try {
      const hit = await this.limiter.hit(`${this.options.prefix}hourly:${key}`, HOUR_MS, perHour);
      return { allowed: hit.allowed, resetMs: hit.resetMs };
    } catch {
      return { allowed: true, resetMs: 0 };
    }
  }

  async close(): Promise<void> {
    await this.client?.quit().catch(() => undefined);
    this.client = null;
    this.store = null;
  }
}

/**
 * @envelop/rate-limiter's Redis store (per-field limits read and write it as the plugin does), plus an atomic
 * `hit` for the per-account request budget: the plugin's get-then-set would let a burst of parallel requests all
 * read the same count and pass together; a Lua script over a sorted set of request times counts each exactly once.
 */
import crypto from 'node:crypto';
import { RedisStore } from '@envelop/rate-limiter';
import type { Redis } from 'ioredis';

const SLIDING_WINDOW = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < max then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return { allowed, count, tonumber(oldest[2] or now) }
`;

export interface Hit {
  allowed: boolean;
  /** Requests counted in the current window, this one included when allowed. */
  count: number;
  /** Milliseconds until the oldest counted request leaves the window. */
  resetMs: number;
}

export class RedisRateLimitStore extends RedisStore {
  constructor(private readonly redis: Redis) {
    super(redis);
  }

  async hit(identity: string, windowMs: number, max: number): Promise<Hit> {
    return this.take(identity, windowMs, max);
  }

  /**
   * A hit that can be taken back: counted (atomically, as `hit`) before the outcome is known, and forgiven when it
   * turns out not to count (a right password where only wrong ones are limited). Parallel tries each take their own.
   */
  async tryCounted(identity: string, windowMs: number, max: number): Promise<Hit & { forgive(): Promise<void> }> {
    const member = `${Date.now()}:${crypto.randomBytes(4).toString('hex')}`;
    const hit = await this.take(identity, windowMs, max, member);
    return { ...hit, forgive: async () => void (await this.redis.zrem(`window:${identity}`, member)) };
  }

  private async take(
    identity: string, windowMs: number, max: number, member = `${Date.now()}:${crypto.randomBytes(4).toString('hex')}`,
  ): Promise<Hit> {
    const now = Date.now();
    const [allowed, count, oldest] = (await this.redis.eval(
      SLIDING_WINDOW, 1, `window:${identity}`, now, windowMs, max, member,
    )) as [number, number, number];
    return { allowed: allowed === 1, count, resetMs: Math.max(0, oldest + windowMs - now) };
  }
}

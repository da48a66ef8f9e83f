/**
 * Per-account request budget: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` on every response and
 * `429 rate_limited` with `Retry-After` past the limit. Counted atomically in the Redis store shared with
 * @envelop/rate-limiter (a sliding window of request times per identity, src/core/rate-limit-store.ts), so every gateway
 * process shares one budget per account and a parallel burst cannot slip past it. Callers without a
 * valid credential are counted per client address. When Redis cannot be reached the request is let through (and
 * logged): the limiter protects the service, it must not take it down.
 */
import type { RequestHandler } from 'express';
import { errors } from '../../src/core/errors.js';
import type { Logger } from '../../src/core/logger.js';
import type { RedisRateLimitStore } from '../../src/core/rate-limit-store.js';

export interface RateLimitOptions {
  store: Pick<RedisRateLimitStore, 'hit'>;
  /** Requests per window. */
  max: number;
  windowS: number;
  logger?: Logger;
}

export function useRateLimit(options: RateLimitOptions): RequestHandler {
  const windowMs = options.windowS * 1000;
  return async (req, res, next) => {
    let limited: { resetS: number } | null = null;
    try {
      const who = req.sg.identity ? `account:${req.sg.identity.account.id}` : `address:${req.ip ?? 'unknown'}`;
      const hit = await options.store.hit(who, windowMs, options.max);
      const resetS = Math.max(1, Math.ceil(hit.resetMs / 1000));
      res.setHeader('RateLimit-Limit', String(options.max));
      res.setHeader('RateLimit-Remaining', String(Math.max(0, options.max - hit.count)));
      res.setHeader('RateLimit-Reset', String(resetS));
      if (!hit.allowed) limited = { resetS };
    } catch (error) {
      options.logger?.warn({ err: error, requestId: req.sg.requestId }, 'rate limit store unavailable; request let through');
    }
    if (limited) next(errors.rateLimited(limited.resetS, { limit: options.max, windowS: options.windowS }));
    else next();
  };
}

/**
 * Per-account request budget: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` on every response and
 * `429 rate_limited` with `Retry-After` past the limit. Counted in @envelop/rate-limiter's Redis store (a sliding
 * log of request times per identity), so every gateway process shares one budget per account. Callers without a
 * valid credential are counted per client address. When Redis cannot be reached the request is let through (and
 * logged): the limiter protects the service, it must not take it down.
 */
import type { RequestHandler } from 'express';
import type { Store } from '@envelop/rate-limiter';
import { ApiError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';

export interface RateLimitOptions {
  store: Store;
  /** Requests per window. */
  max: number;
  windowS: number;
  logger?: Logger;
}

export function rateLimitedError(retryAfterS: number, details: Record<string, unknown> = {}) {
  return new ApiError('rate_limited', 429, `Too many requests; retry in ${retryAfterS} s.`, {
    details: { retryAfterS, ...details },
    headers: { 'Retry-After': String(retryAfterS) },
  });
}

export function useRateLimit(options: RateLimitOptions): RequestHandler {
  const windowMs = options.windowS * 1000;
  return async (req, res, next) => {
    let limited: { resetS: number } | null = null;
    try {
      const who = req.sg.identity ? `account:${req.sg.identity.account.id}` : `address:${req.ip ?? 'unknown'}`;
      const identity = { contextIdentity: who, fieldIdentity: 'requests' };
      const now = Date.now();
      const live = (await options.store.getForIdentity(identity)).filter((at) => at + windowMs > now);
      const kept = live.length >= options.max ? live : [...live, now];
      await options.store.setForIdentity(identity, kept, windowMs);
      const resetS = Math.max(1, Math.ceil((Math.min(...kept) + windowMs - now) / 1000));
      res.setHeader('RateLimit-Limit', String(options.max));
      res.setHeader('RateLimit-Remaining', String(Math.max(0, options.max - kept.length)));
      res.setHeader('RateLimit-Reset', String(resetS));
      if (live.length >= options.max) limited = { resetS };
    } catch (error) {
      options.logger?.warn({ err: error, requestId: req.sg.requestId }, 'rate limit store unavailable; request let through');
    }
    if (limited) next(rateLimitedError(limited.resetS, { limit: options.max, windowS: options.windowS }));
    else next();
  };
}

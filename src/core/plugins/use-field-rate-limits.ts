/**
 * Per-field limits on top of the per-account request budget (rest/middleware/rate-limit.ts): @envelop/rate-limiter
 * with the same Redis store, per account. A resource that needs a tighter limit on one operation (probe calls,
 * promo-code checks) adds an entry to `fieldRateLimits` below; past it the field fails with `429 rate_limited`.
 */
import { useRateLimiter, type ConfigByField, type Store } from '@envelop/rate-limiter';
import { errors } from '../errors.js';
import type { Context } from '../context.js';

/** `{ type: 'Query', field: 'probe', max: 60, window: '1m' }`: one line per limited field. */
export const fieldRateLimits: ConfigByField[] = [
  { type: 'Query', field: 'transcriptionProbe', max: 60, window: '1m' },
];

const DEFAULT_WINDOW_MS = 60_000;

/** `'1m'`, `'30s'`, `'1h'`, or milliseconds as a number string. */
function windowMs(window: string | undefined): number {
  if (!window) return DEFAULT_WINDOW_MS;
  const match = /^(\d+)\s*(ms|s|m|h)?$/.exec(window.trim());
  if (!match) return DEFAULT_WINDOW_MS;
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h' ?? 'ms'];
}

export function useFieldRateLimits(options: { store: Store; limits?: ConfigByField[] }) {
  const limits = options.limits ?? fieldRateLimits;
  // The plugin does not say which field refused; the longest configured window is a Retry-After that always suffices.
  const retryAfterS = Math.ceil(Math.max(DEFAULT_WINDOW_MS, ...limits.map((limit) => windowMs(limit.window))) / 1000);
  return useRateLimiter({
    store: options.store,
    identifyFn: (context) => {
      const ctx = context as Context;
      return ctx.identity ? `account:${ctx.identity.account.id}` : `anonymous:${ctx.requestId}`;
    },
    configByField: limits,
    transformError: (message) => errors.rateLimited(retryAfterS, { message }),
  });
}

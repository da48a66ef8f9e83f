/**
 * Per-field limits on top of the per-account request budget (rest/middleware/rate-limit.ts): @envelop/rate-limiter
 * with the same Redis store, per account. A resource that needs a tighter limit on one operation (probe calls,
 * promo-code checks) adds an entry to `fieldRateLimits` below; past it the field fails with `429 rate_limited`.
 */
import { useRateLimiter, type ConfigByField, type Store } from '@envelop/rate-limiter';
import { rateLimitedError } from '../../rest/middleware/rate-limit.js';
import type { Context } from '../schema/context.js';

/** `{ type: 'Query', field: 'probe', max: 60, window: '1m' }`: one line per limited field. */
export const fieldRateLimits: ConfigByField[] = [
  { type: 'Query', field: 'transcriptionProbe', max: 60, window: '1m' },
];

export function useFieldRateLimits(options: { store: Store; limits?: ConfigByField[] }) {
  return useRateLimiter({
    store: options.store,
    identifyFn: (context) => {
      const ctx = context as Context;
      return ctx.identity ? `account:${ctx.identity.account.id}` : `anonymous:${ctx.requestId}`;
    },
    configByField: options.limits ?? fieldRateLimits,
    transformError: (message) => rateLimitedError(60, { message }),
  });
}

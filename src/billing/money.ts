/** Amounts a client gives: dollars that must be whole cents inside an operator's range. */
import type { MoneyRange } from '../core/config/billing.js';
import { errors } from '../core/errors.js';
import { dollars } from './service.js';

/** A whole-cent amount in dollars inside `range`, or the 422 naming `field`. */
export function centsIn(value: unknown, field: string, range: MoneyRange): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw errors.invalidBody(`${field} must be an amount in dollars.`, { field });
  const cents = Math.round(value * 100);
  if (Math.abs(cents - value * 100) > 1e-6) {
    throw errors.invalidBody(`${field} must be whole cents (at most two decimals); got ${value}.`, { field });
  }
  if (cents < range.minCents || cents > range.maxCents) {
    throw errors.invalidBody(
      `${field} must be between ${dollars(range.minCents)} and ${dollars(range.maxCents)}; got ${value}.`,
      { field, min: dollars(range.minCents), max: dollars(range.maxCents) },
    );
  }
  return cents;
}


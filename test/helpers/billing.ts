/**
 * Billing on for a test server: writes an operator's plans file (the defaults below, changed by `overrides`) and
 * returns the environment that points the server at it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';

export const TEST_PLANS = {
  currency: 'usd',
  provider: 'manual',
  defaultPlan: 'payg',
  signupCredit: 1,
  termsVersion: '2026-11',
  topUp: { presets: [10, 25], range: { min: 5, max: 500 } },
  autoTopUp: { thresholds: [2, 5], amounts: [10, 25], thresholdRange: { min: 1, max: 100 }, amountRange: { min: 5, max: 500 }, perDay: 3 },
  lowBalanceAlert: { thresholds: [2, 5], range: { min: 1, max: 100 } },
  downgradeGraceDays: 14,
  promoChecksPerHour: 5,
  plans: [
    {
      id: 'payg', name: 'Pay as you go', rates: { file: 0.6, live: 1.2, minimumSeconds: 60 },
      limits: { concurrentTranscriptions: 2, createsPerHour: 100, createsPerHourUnpaid: 100 },
    },
    {
      id: 'pro', name: 'Pro', rates: { file: 0.3, live: 0.6, minimumSeconds: 30 }, includedMonthlyCredit: 20, graceOnZero: 5,
      prices: { month: 20, year: 200, providerMonth: 'price_pro_month', providerYear: 'price_pro_year' },
      limits: { concurrentTranscriptions: 5, createsPerHour: 500, retentionDays: 365 }, features: ['priority'],
    },
  ],
};

export type PlansFile = Record<string, unknown>;

/** Env for startTestServer: BILLING_CONFIG → a temporary file with TEST_PLANS merged with `overrides` (top level). */
export function billingEnv(overrides: PlansFile = {}, extraEnv: Record<string, string> = {}): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-billing-'));
  const file = path.join(dir, 'plans.json');
  fs.writeFileSync(file, JSON.stringify({ ...TEST_PLANS, ...overrides }, null, 2));
  return { BILLING_CONFIG: file, ...extraEnv };
}

/** Each body is refused with 422 `invalid_body` naming its field in `details.field`. */
export async function expectInvalidBodies(
  cases: Array<[unknown, string]>, send: (body: unknown) => Promise<{ status: number; body: Record<string, any> }>,
): Promise<void> {
  for (const [body, field] of cases) {
    const answer = await send(body);
    expect({ body, status: answer.status, code: answer.body.code, field: answer.body.data?.details?.field }).toEqual({
      body, status: 422, code: 'invalid_body', field,
    });
  }
}


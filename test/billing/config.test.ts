/** The operator's plans file: checked whole at start, one line per mistake naming its place. */
import { describe, expect, it } from 'vitest';
import { parseBillingSettings } from '../../src/core/config/billing.js';
import { costCents } from '../../src/billing/ledger.js';
import { TEST_PLANS } from '../helpers/billing.js';

describe('BILLING_CONFIG', () => {
  it('reads the file into cents and millionths', () => {
    const settings = parseBillingSettings(TEST_PLANS, {});
    expect(settings.plans[1]).toMatchObject({
      id: 'pro', rates: { fileMicros: 300_000, liveMicros: 600_000, minimumSeconds: 30 }, includedMonthlyCreditCents: 2000,
      graceCapCents: 500,
    });
    expect(settings.topUp.range).toEqual({ minCents: 500, maxCents: 50_000 });
    expect(settings.provider).toEqual({ kind: 'manual' });
  });

  it('reports every mistake on its own line', () => {
    const broken = {
      ...TEST_PLANS,
      currency: 'dollars',
      defaultPlan: 'gold',
      provider: { kind: 'stripe' },
      topUp: { presets: [1], range: { min: 50, max: 5 } },
      plans: [{ id: 'payg', rates: { file: 0.1234567, live: -1, minimumSeconds: 1.5 }, limits: {}, colour: 'red' }],
    };
    let message = '';
    try {
      parseBillingSettings(broken, {});
    } catch (error) {
      message = (error as Error).message;
    }
    const lines = message.split('\n').slice(1).map((line) => line.trim());
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringMatching(/^plans\[0\]\.colour: is not a known setting/),
      expect.stringMatching(/^plans\[0\]\.rates\.file: must have at most 6 decimals/),
      expect.stringMatching(/^plans\[0\]\.rates\.live: must be an amount in dollars ≥ 0/),
      expect.stringMatching(/^plans\[0\]\.rates\.minimumSeconds: must be a whole number/),
      expect.stringMatching(/^defaultPlan: "gold" is not one of the plans/),
      expect.stringMatching(/^provider: stripe needs the STRIPE_SECRET_KEY/),
      expect.stringMatching(/^provider: stripe needs the STRIPE_WEBHOOK_SECRET/),
      expect.stringMatching(/^topUp\.range: min \(50\) is above max \(5\)/),
      expect.stringMatching(/^currency: must be an ISO 4217 code/),
    ]));
    expect(message).toMatch(/^BILLING_CONFIG has \d+ mistakes:/);
  });

  it('costs are exact whole cents, rounded once over the total', () => {
    expect(costCents(3600, 600_000)).toBe(60);
    expect(costCents(60, 600_000)).toBe(1);
    expect(costCents(30, 600_000)).toBe(1); // 0.5 cent rounds half up
    expect(costCents(29, 600_000)).toBe(0);
    // Metering minute by minute sums to the cost of the whole: each step bills cost(total) − cost(before).
    let billed = 0;
    for (let minute = 1; minute <= 125; minute++) billed += costCents(minute * 60, 123_457) - costCents((minute - 1) * 60, 123_457);
    expect(billed).toBe(costCents(125 * 60, 123_457));
  });
});

/** GET /v1/billing and GET /v1/billing/plans, with billing off (the default) and on, through REST and GraphQL. */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';

describe('billing off (the self-hosted default)', () => {
  const server = useTestServer();

  it('answers enabled: false, every check passing, plan, rates and limits null', async () => {
    const res = await server.request('/v1/billing');
    expect(res.status).toBe(200);
    const view = await res.json();
    expect(view).toMatchObject({
      enabled: false, balance: 0, inGrace: false, canStart: true, startBlock: null, canStartLive: true, plan: null, rates: null,
      limits: null, hasPaid: false,
    });
    expect(view.autoTopUp).toEqual({ enabled: false, available: false, amount: null, threshold: null, last: null });
    const plans = await (await server.request('/v1/billing/plans', { auth: null })).json();
    expect(plans).toMatchObject({ enabled: false, plans: [] });
  });
});

describe('billing on', () => {
  const server = useTestServer({ env: billingEnv() });

  it('lists the visible plans without a credential, in dollars', async () => {
    const res = await server.request('/v1/billing/plans', { auth: null });
    expect(res.status).toBe(200);
    const list = await res.json();
    expect(list.enabled).toBe(true);
    expect(list.plans.map((plan: { id: string }) => plan.id)).toEqual(['payg', 'pro']);
    const pro = list.plans[1];
    expect(pro).toMatchObject({
      rates: { file: 0.3, live: 0.6, minimumSeconds: 30 }, prices: { month: 20, year: 200 }, includedMonthlyCredit: 20, graceOnZero: true,
      features: ['priority'],
    });
    expect(JSON.stringify(list)).not.toContain('"5"');
    expect(list.topUpRange).toEqual({ min: 5, max: 500 });
    expect(list.autoTopUp).toMatchObject({ offered: false, thresholds: [2, 5], amountRange: { min: 5, max: 500 } });
    expect(list.signupCredit).toBe(1);
  });

  it('a new account starts on the default plan with the signup credit as its first ledger row', async () => {
    const accountId = await server.createAccount('fresh');
    const { key } = await server.createKey(['*'], { accountId });
    const view = await (await server.request('/v1/billing', { auth: key })).json();
    expect(view).toMatchObject({
      enabled: true, balance: 1, inGrace: false, canStart: true, startBlock: null, plan: { id: 'payg' },
      rates: { file: 0.6, live: 1.2, minimumSeconds: 60, currency: 'usd' }, hasPaid: false, currency: 'usd',
    });
    expect(view.limits.concurrentTranscriptions).toBe(2);
    // DateRange: inclusive days; without a subscription, this calendar month and the one before.
    const today = new Date();
    const month = `${today.getUTCFullYear()}-${String(today.getUTCMonth() + 1).padStart(2, '0')}`;
    const lastDay = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)).getUTCDate();
    expect(view.period).toEqual({ start: `${month}-01`, end: `${month}-${lastDay}` });
    expect(view.previousPeriod.end).toBe(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0)).toISOString().slice(0, 10));
    expect(view.previousPeriod.start).toMatch(/^\d{4}-\d{2}-01$/);
    const rows = await server.prisma.ledgerEntry.findMany({ where: { accountId } });
    expect(rows).toMatchObject([{ kind: 'signup_credit', amountCents: 100, balanceAfterCents: 100 }]);
  });

  it('GraphQL answers the same view', async () => {
    const res = await server.graphql('{ billing { enabled balance plan { id } canStartLive startBlockLive } billingPlans { plans { id } } '
      + '}');
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.billing).toMatchObject({ enabled: true, plan: { id: 'payg' }, canStartLive: true, startBlockLive: null });
  });
});

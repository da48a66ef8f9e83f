/**
 * The whole Stripe flow against a faithful fake of Stripe's HTTP API on loopback: checkout → signed webhook →
 * credit; subscriptions (monthly credit, interval switch, cancel, renewal, downgrade at period end); cards, the
 * portal, payments and their documents; promo codes; auto top-up paid and declined. Through REST and GraphQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { lockBillingAccount, post } from '../../src/billing/ledger.js';

let fake: FakeStripe;
let server: TestServer;

const CARD = { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 };

beforeAll(async () => {
  fake = await startFakeStripe({ currency: 'usd' });
  fake.addPrice({ id: 'price_pro_month', unitAmount: 2000, interval: 'month' });
  fake.addPrice({ id: 'price_pro_year', unitAmount: 20000, interval: 'year' });
  server = await startTestServer({
    env: billingEnv({
      provider: { kind: 'stripe' },
      promoCodes: [
        { code: 'BONUS5', for: 'topup', bonusCredit: 5, maxRedemptions: 10 },
        { code: 'HALF', for: ['topup', 'subscribe'], percentOff: 50 },
        { code: 'OLD', for: 'topup', percentOff: 10, expiresAt: '2020-01-01T00:00:00Z' },
      ],
    }, { STRIPE_SECRET_KEY: fake.secretKey, STRIPE_WEBHOOK_SECRET: fake.webhookSecret, STRIPE_API_BASE: fake.baseUrl }),
  });
  fake.webhookUrl = `${server.url}/v1/billing/webhooks/stripe`;
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

/** A fresh account with a signed-in person (checkouts refuse API keys) and a key. */
async function customer() {
  const accountId = await server.createAccount('customer');
  const user = await server.createUser({ accountId, email: `buyer-${accountId}@example.com` });
  const { key } = await server.createKey(['*'], { accountId });
  return { accountId, token: user.token, key };
}

/** Spends credit as metering would and tells billing the balance fell (what a metered minute does). */
async function spendAll(accountId: string, cents: number) {
  const settings = server.app.services.billing.on();
  await server.prisma.$transaction(async (tx) => {
    const account = await lockBillingAccount(tx, settings, accountId);
    await post(tx, account, {
      kind: 'adjustment', amountCents: -cents, key: `test-spend:${crypto.randomUUID()}`, description: 'test spend',
    });
  });
  await server.app.services.billing.balanceFell(accountId);
}

async function json(res: Response) {
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function billing(auth: string) {
  return (await server.request('/v1/billing', { auth })).json();
}

async function checkout(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return json(await server.postJson('/v1/billing/checkouts', body, { auth: token, headers }));
}

describe('top-up checkouts', () => {
  it('refuses API keys, unaccepted terms, amounts outside the range or not whole cents, naming the field', async () => {
    const { token, key } = await customer();
    expect((await checkout(key, { kind: 'topup', amount: 20, acceptTerms: true })).status).toBe(403);
    const terms = await checkout(token, { kind: 'topup', amount: 20 });
    expect(terms.status).toBe(422);
    expect(terms.body).toMatchObject({ code: 'invalid_body', data: { details: { field: 'acceptTerms' } } });
    for (const amount of [1, 1000, 10.005, '20']) {
      const refused = await checkout(token, { kind: 'topup', amount, acceptTerms: true });
      expect(refused.status, `amount ${amount}`).toBe(422);
      expect(refused.body.data.details.field).toBe('amount');
    }
    const unknown = await checkout(token, { kind: 'topup', amount: 20, acceptTerms: true, tip: 1 });
    expect(unknown.body.data.details.field).toBe('tip');
  });

  it('checkout → signed webhook → credit once, a receipt, the card saved, hasPaid', async () => {
    const { accountId, token, key } = await customer();
    const opened = await checkout(token, { kind: 'topup', amount: 20, acceptTerms: true, waiveWithdrawal: true });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ kind: 'topup', status: 'open', amount: 20 });
    expect(opened.body.url).toContain(fake.baseUrl);
    expect((await billing(key)).pendingPayment).toMatchObject({ checkoutId: opened.body.checkoutId, amount: 20 });

    const deliveries = await fake.completeCheckout(opened.body.providerId, { card: CARD });
    expect(deliveries.every((delivery) => delivery.status === 200)).toBe(true);
    const view = await billing(key);
    expect(view).toMatchObject({ balance: 21, hasPaid: true, card: { brand: 'visa', last4: '4242', declined: false } });

    // Stripe delivers at least once: the same event again changes nothing.
    const completed = deliveries.find((delivery) => delivery.event.type === 'checkout.session.completed')!;
    const again = await fetch(fake.webhookUrl!, {
      method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': completed.signature }, body: completed.payload,
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ applied: false });
    expect((await billing(key)).balance).toBe(21);
    const topUps = await server.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'top_up' } });
    expect(topUps).toHaveLength(1);

    const byOurs = await json(await server.request(`/v1/billing/checkouts/${opened.body.checkoutId}`, { auth: key }));
    expect(byOurs.body).toMatchObject({ status: 'succeeded', url: null });
    const byProvider = await json(await server.request(`/v1/billing/checkouts/${opened.body.providerId}`, { auth: key }));
    expect(byProvider.body.checkoutId).toBe(opened.body.checkoutId);

    const payments = await json(await server.request('/v1/billing/payments', { auth: key }));
    expect(payments.body.payments).toMatchObject([{
      kind: 'topup', status: 'paid', amount: 20, document: 'receipt', businessPurchase: false,
    }]);
    const cards = await json(await server.request('/v1/billing/payment-methods', { auth: key }));
    expect(cards.body.paymentMethods).toMatchObject([{
      brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, isDefault: true, declined: false,
    }]);
  });

  it('a missed webhook is made good when the checkout is read', async () => {
    const { token, key } = await customer();
    const opened = await checkout(token, { kind: 'topup', amount: 10, acceptTerms: true });
    fake.webhookUrl = null;
    try {
      await fake.completeCheckout(opened.body.providerId, { card: CARD });
    } finally {
      fake.webhookUrl = `${server.url}/v1/billing/webhooks/stripe`;
    }
    expect((await billing(key)).balance).toBe(1);
    const read = await json(await server.request(`/v1/billing/checkouts/${opened.body.checkoutId}`, { auth: key }));
    expect(read.body.status).toBe('succeeded');
    expect((await billing(key)).balance).toBe(11);
  });

  it('Idempotency-Key gives the first answer again; a refused signature changes nothing', async () => {
    const { token } = await customer();
    const key = crypto.randomUUID();
    const first = await checkout(token, { kind: 'topup', amount: 15, acceptTerms: true }, { 'idempotency-key': key });
    const second = await checkout(token, { kind: 'topup', amount: 15, acceptTerms: true }, { 'idempotency-key': key });
    expect(second.body.checkoutId).toBe(first.body.checkoutId);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const forged = await fetch(fake.webhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': fake.sign('{"id":"evt_x"}', { secret: 'whsec_other' }) },
      body: '{"id":"evt_x"}',
    });
    expect(forged.status).toBe(400);
    expect((await forged.json()).code).toBe('invalid_signature');
  });

  it('the provider not answering is 503 unavailable with Retry-After', async () => {
    const { token } = await customer();
    fake.down();
    try {
      const refused = await checkout(token, { kind: 'topup', amount: 10, acceptTerms: true });
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('unavailable');
      expect(refused.headers.get('retry-after')).toBeTruthy();
    } finally {
      fake.up();
    }
  });

  it('GraphQL opens a checkout for a person and refuses a key', async () => {
    const { token, key } = await customer();
    const mutation = 'mutation($input: CreateCheckoutInput!) { createCheckout(input: $input) { checkoutId status amount kind } }';
    const ok = await (await server.graphql(
      mutation, { input: { kind: 'topup', amount: 12.5, acceptTerms: true } }, { auth: token },
    )).json();
    expect(ok.data.createCheckout).toMatchObject({ status: 'open', amount: 12.5, kind: 'topup' });
    const refused = await (await server.graphql(
      mutation, { input: { kind: 'topup', amount: 12.5, acceptTerms: true } }, { auth: key },
    )).json();
    expect(refused.errors[0].extensions.code).toBe('forbidden');
  });
});

describe('promo codes', () => {
  it('checks a code, refuses unknown, expired, wrong-purchase and redeemed codes with 404 promo_code_invalid', async () => {
    const { token, key } = await customer();
    const ok = await json(await server.postJson('/v1/billing/promo-codes/check', { code: 'bonus5', for: 'topup' }, { auth: key }));
    expect(ok.body).toEqual({ code: 'BONUS5', for: 'topup', percentOff: null, amountOff: null, bonusCredit: 5 });
    for (const [code, kind] of [['NOPE', 'topup'], ['OLD', 'topup'], ['BONUS5', 'subscribe']]) {
      const refused = await json(await server.postJson('/v1/billing/promo-codes/check', { code, for: kind }, { auth: key }));
      expect(refused.status, code).toBe(404);
      expect(refused.body.code).toBe('promo_code_invalid');
    }
    const opened = await checkout(token, { kind: 'topup', amount: 10, acceptTerms: true, promoCode: 'BONUS5' });
    await fake.completeCheckout(opened.body.providerId, { card: CARD });
    expect((await billing(key)).balance).toBe(16);
    const redeemed = await json(await server.postJson('/v1/billing/promo-codes/check', { code: 'BONUS5', for: 'topup' }, { auth: key }));
    expect(redeemed.status).toBe(429); // the account's five checks an hour are used (checkouts with a code count)
  });

  it('past the hourly limit promo checks answer 429 rate_limited', async () => {
    const { key } = await customer();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await server.postJson(
      '/v1/billing/promo-codes/check', { code: 'HALF', for: 'topup' }, { auth: key },
    )).status);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('subscriptions', () => {
  it('subscribe → plan, monthly credit, invoice; switch interval and take it back; cancel, uncancel; renew; end → default '
    + 'plan', async () => {
    const { accountId, token, key } = await customer();
    const opened = await checkout(token, { kind: 'subscribe', planId: 'pro', interval: 'month', acceptTerms: true });
    expect(opened.body).toMatchObject({ kind: 'subscribe', planId: 'pro', interval: 'month', amount: 20 });
    await fake.completeCheckout(opened.body.providerId, { card: CARD });
    let view = await billing(key);
    expect(view).toMatchObject({
      plan: { id: 'pro' }, balance: 21, monthlyCredit: { amount: 20, left: 20 },
      subscription: { planId: 'pro', interval: 'month', cancelAtPeriodEnd: false, pendingInterval: null },
    });
    expect(view.limits.concurrentTranscriptions).toBe(5);
    expect((await server.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).concurrencyLimit).toBe(5);

    const second = await checkout(token, { kind: 'subscribe', planId: 'pro', interval: 'year', acceptTerms: true });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('invalid_state');

    const switched = await json(await server.postJson('/v1/billing/subscription/interval', { interval: 'year' }, { auth: key }));
    expect(switched.body.subscription.pendingInterval).toBe('year');
    expect(switched.body.pendingChange).toMatchObject({ kind: 'interval', interval: 'year' });
    const back = await json(await server.request('/v1/billing/subscription/interval', { method: 'DELETE', auth: key }));
    expect(back.body.subscription.pendingInterval).toBeNull();

    const canceled = await json(await server.postJson('/v1/billing/subscription/cancel', {}, { auth: key }));
    expect(canceled.body).toMatchObject({ subscription: { cancelAtPeriodEnd: true }, pendingChange: { kind: 'cancel', planId: 'payg' } });
    const noSwitch = await json(await server.postJson('/v1/billing/subscription/interval', { interval: 'year' }, { auth: key }));
    expect(noSwitch.body.code).toBe('invalid_state');
    const uncanceled = await json(await server.postJson('/v1/billing/subscription/uncancel', {}, { auth: key }));
    expect(uncanceled.body.subscription.cancelAtPeriodEnd).toBe(false);

    const subscriptionId = (await server.prisma.subscription.findUniqueOrThrow({ where: { accountId } })).providerId!;
    await fake.renewSubscription(subscriptionId);
    const payments = await json(await server.request('/v1/billing/payments', { auth: key }));
    expect(payments.body.payments.map((payment: { kind: string; document: string }) => `${payment.kind}/${payment.document}`)).toEqual(
      ['subscription/invoice', 'subscription/invoice'],
    );

    const inUse = await json(await server.request(
      `/v1/billing/payment-methods/${(await server.prisma.paymentMethod.findFirstOrThrow({ where: { accountId } })).id}`,
      { method: 'DELETE', auth: key },
    ));
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe('payment_method_in_use');

    await json(await server.postJson('/v1/billing/subscription/cancel', {}, { auth: key }));
    await fake.endPeriod(subscriptionId);
    view = await billing(key);
    expect(view).toMatchObject({ plan: { id: 'payg' }, subscription: null, pendingChange: null });
    expect(view.retentionDeadline).toBeNull(); // the default plan keeps data until deleted: nothing to delete after the grace
    const removed = await server.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'monthly_credit_removed' } });
    expect(removed.length).toBeGreaterThan(0);
    const rows = await server.prisma.ledgerEntry.findMany({ where: { accountId } });
    expect(view.balance * 100).toBe(rows.reduce((sum, row) => sum + row.amountCents, 0));
    expect((await json(await server.postJson('/v1/billing/subscription/cancel', {}, { auth: key }))).body.code).toBe('invalid_state');
  });
});

describe('the subscription sweep', () => {
  it('grants a yearly subscription its monthly credit each month, and makes good a missed end-of-period webhook', async () => {
    const { accountId, token, key } = await customer();
    const opened = await checkout(token, { kind: 'subscribe', planId: 'pro', interval: 'year', acceptTerms: true });
    await fake.completeCheckout(opened.body.providerId, { card: CARD });
    expect(await billing(key)).toMatchObject({ balance: 21, subscription: { interval: 'year' } });
    await spendAll(accountId, 500); // 5 of this month's 20 spent: 15 left
    const nextMonth = new Date();
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 15);
    await server.app.services.payments.grantDueMonthlyCredit(nextMonth);
    await server.app.services.payments.grantDueMonthlyCredit(nextMonth); // a second sweep grants nothing more
    let view = await billing(key);
    expect(view.balance).toBe(21 - 5 - 15 + 20);
    expect(view.monthlyCredit).toMatchObject({ amount: 20, left: 20 });

    const subscription = await server.prisma.subscription.findUniqueOrThrow({ where: { accountId } });
    await server.postJson('/v1/billing/subscription/cancel', {}, { auth: key });
    fake.webhookUrl = null;
    try {
      await fake.endPeriod(subscription.providerId!);
    } finally {
      fake.webhookUrl = `${server.url}/v1/billing/webhooks/stripe`;
    }
    expect((await billing(key)).plan.id).toBe('pro');
    await server.app.services.payments.reconcileSubscriptions(new Date(subscription.currentPeriodEnd.getTime() + 1000));
    view = await billing(key);
    expect(view).toMatchObject({ plan: { id: 'payg' }, subscription: null, monthlyCredit: null });
  });
});

describe('documents, portal and cards', () => {
  it('a receipt is 202 pending until made; an invoice needs billing details first', async () => {
    const { token, key } = await customer();
    fake.documentDelay = 1;
    const opened = await checkout(token, { kind: 'topup', amount: 10, acceptTerms: true });
    await fake.completeCheckout(opened.body.providerId, { card: CARD });
    const [payment] = (await json(await server.request('/v1/billing/payments', { auth: key }))).body.payments;
    expect((await server.request(`/v1/billing/payments/${payment.id}/document`, { auth: key })).status).toBe(403);
    const pending = await json(await server.request(`/v1/billing/payments/${payment.id}/document`, { auth: token }));
    expect(pending.status).toBe(202);
    expect(pending.body).toEqual({ pending: true });
    const made = await json(await server.request(`/v1/billing/payments/${payment.id}/document`, { auth: token }));
    expect(made.body).toMatchObject({ pending: false, document: 'receipt' });
    expect(made.body.url).toMatch(/^http/);
    fake.documentDelay = 0;

    const sub = await checkout(token, { kind: 'subscribe', planId: 'pro', interval: 'month', acceptTerms: true });
    await fake.completeCheckout(sub.body.providerId, { card: CARD });
    const invoice = (await json(await server.request('/v1/billing/payments', { auth: key }))).body.payments.find(
      (p: { document: string }) => p.document === 'invoice',
    );
    const needsDetails = await json(await server.request(`/v1/billing/payments/${invoice.id}/document`, { auth: token }));
    expect(needsDetails.status).toBe(409);
    expect(needsDetails.body.code).toBe('billing_details_required');
  });

  it('the portal needs a saved card; manage works before the first payment', async () => {
    const { key } = await customer();
    const portal = await json(await server.request('/v1/billing/portal', { auth: key }));
    expect(portal.status).toBe(409);
    expect(portal.body.code).toBe('payment_method_required');
    const manage = await json(await server.postJson('/v1/billing/payment-methods/manage', {}, { auth: key }));
    expect(manage.status).toBe(200);
    expect(manage.body.url).toContain(fake.baseUrl);
    expect((await json(await server.request('/v1/billing/payment-methods', { auth: key }))).body.paymentMethods).toEqual([]);
  });
});

describe('auto top-up', () => {
  const spend = spendAll;

  it('charges the card when the balance falls to the threshold; a declined card is marked; retries count against the day', async () => {
    const { accountId, token, key } = await customer();
    const opened = await checkout(token, { kind: 'topup', amount: 10, acceptTerms: true });
    await fake.completeCheckout(opened.body.providerId, { card: CARD });
    const enabled = await json(await server.request('/v1/billing/auto-top-up', {
      method: 'PUT', auth: key, headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true, threshold: 5, amount: 25 }),
    }));
    expect(enabled.status).toBe(200);

    await spend(accountId, 700); // 11 → 4: at or below 5
    let view = await billing(key);
    expect(view.balance).toBe(29);
    expect(view.autoTopUp.last).toMatchObject({ amount: 25, outcome: 'paid' });

    const card = await server.prisma.paymentMethod.findFirstOrThrow({ where: { accountId } });
    fake.setDeclining(card.providerId, true);
    await spend(accountId, 2500); // 29 → 4
    view = await billing(key);
    expect(view.balance).toBe(4);
    expect(view.autoTopUp.last.outcome).toBe('declined');
    expect(view.card.declined).toBe(true);

    const retried = await json(await server.postJson('/v1/billing/auto-top-up/retry', {}, { auth: key }));
    expect(retried.status).toBe(200);
    expect(retried.body.last).toMatchObject({ amount: 25, outcome: 'declined' });
    fake.setDeclining(card.providerId, false);
    const capped = await json(await server.postJson('/v1/billing/auto-top-up/retry', {}, { auth: key }));
    expect(capped.status).toBe(429); // paid, declined, retried: the day's three are used
    expect(capped.body.code).toBe('rate_limited');
    expect((await billing(key)).balance).toBe(4);

    await server.request('/v1/billing/auto-top-up', {
      method: 'PUT', auth: key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false }),
    });
    const off = await json(await server.postJson('/v1/billing/auto-top-up/retry', {}, { auth: key }));
    expect(off.status).toBe(409);
    expect(off.body.code).toBe('auto_top_up_off');
  });
});

/**
 * StripeProvider against the fake Stripe (test/helpers/fake-stripe.ts) through the official `stripe` package: what
 * the billing service sees of customers, checkouts, cards, off-session charges, subscriptions and their scheduled
 * switch, documents, signed webhooks, and the two ways Stripe can fail (not answering; saying no).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualProvider } from '../../src/billing/payments/manual.js';
import { ProviderRefused, ProviderUnavailable, WebhookSignatureError, type ProviderEvent } from '../../src/billing/payments/provider.js';
import { StripeProvider } from '../../src/billing/payments/stripe.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { listenOnLoopback, type Loopback } from '../helpers/loopback.js';

let fake: FakeStripe;
let receiver: Loopback;
let provider: StripeProvider;
/** What our webhook endpoint verified, and how many deliveries it turned away. */
const received: ProviderEvent[] = [];

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: 'sk_test_provider', webhookSecret: 'whsec_provider' });
  fake.addPrice({ id: 'price_pro_month', unitAmount: 1900, interval: 'month' });
  fake.addPrice({ id: 'price_pro_year', unitAmount: 19000, interval: 'year' });
  provider = new StripeProvider({
    secretKey: fake.secretKey, webhookSecret: fake.webhookSecret, apiBase: fake.baseUrl, currency: 'EUR', timeoutMs: 3000,
  });
  receiver = await listenOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        received.push(provider.verifyWebhook(Buffer.concat(chunks), req.headers['stripe-signature'] as string | undefined));
        res.writeHead(200).end();
      } catch (error) {
        res.writeHead(error instanceof WebhookSignatureError ? 400 : 500).end();
      }
    });
  });
  fake.webhookUrl = `${receiver.url}/v1/billing/webhooks/stripe`;
});

afterAll(async () => {
  await fake?.close();
  await receiver?.close();
});

const lastEvent = <T extends ProviderEvent['type']>(type: T) => received.filter((event) => event.type === type).at(-1) as (ProviderEvent & {
  type: T;
}) | undefined;

async function newCustomer(accountId: string) {
  return provider.ensureCustomer({ existingId: null, accountId, email: `${accountId}@example.com`, name: accountId });
}

async function paidTopUp(
  customerId: string, amountCents: number, card?: { brand: string; last4: string; expMonth: number; expYear: number },
) {
  const checkout = await provider.createCheckout({
    customerId, kind: 'topup', amountCents, priceId: null, successUrl: 'https://app.example/billing?checkout=c1',
    cancelUrl: 'https://app.example/billing',
    idempotencyKey: `topup-${customerId}-${amountCents}-${received.length}`, metadata: { checkoutId: `chk_${amountCents}` },
  });
  const deliveries = await fake.completeCheckout(checkout.providerId, { card });
  expect(deliveries.map((delivery) => delivery.status)).toEqual(deliveries.map(() => 200));
  return checkout;
}

async function subscribe(customerId: string) {
  const checkout = await provider.createCheckout({
    customerId, kind: 'subscribe', amountCents: null, priceId: 'price_pro_month', successUrl: 'https://app.example/ok',
    cancelUrl: 'https://app.example/no',
    idempotencyKey: `sub-${customerId}`, metadata: { planId: 'pro' },
  });
  await fake.completeCheckout(checkout.providerId);
  return (await provider.getCheckout(checkout.providerId)).subscriptionId!;
}

describe('customers', () => {
  it('creates one, keeps it up to date, and makes a new one when it was deleted', async () => {
    const id = await newCustomer('acct_a');
    expect(fake.get(id)).toMatchObject({ object: 'customer', email: 'acct_a@example.com', metadata: { accountId: 'acct_a' } });
    const creates = () => fake.requests.filter((request) => request.method === 'POST' && request.path === '/v1/customers').length;
    const before = creates();
    expect(await provider.ensureCustomer({ existingId: id, accountId: 'acct_a', email: 'new@example.com', name: null })).toBe(id);
    expect(creates()).toBe(before);
    expect(fake.get(id)).toMatchObject({ email: 'new@example.com', name: 'acct_a' });
    fake.deleteCustomer(id);
    const replacement = await provider.ensureCustomer({ existingId: id, accountId: 'acct_a', email: null, name: null });
    expect(replacement).not.toBe(id);
    expect(await provider.ensureCustomer({ existingId: 'cus_never', accountId: 'acct_a', email: null, name: null })).toMatch(/^cus_/);
  });
});

describe('top-up checkout', () => {
  it('sends the customer to a page of a custom amount, and the signed completion says what was paid', async () => {
    const customerId = await newCustomer('acct_topup');
    const checkout = await provider.createCheckout({
      customerId, kind: 'topup', amountCents: 2500, priceId: null, successUrl: 'https://app.example/ok',
      cancelUrl: 'https://app.example/no',
      idempotencyKey: 'topup-1', metadata: { checkoutId: 'chk_1', accountId: 'acct_topup' },
    });
    expect(checkout).toMatchObject({
      providerId: expect.stringMatching(/^cs_test_/), url: expect.stringContaining(fake.baseUrl), amountCents: 2500,
    });
    expect(checkout.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const sent = fake.requests.filter((request) => request.path === '/v1/checkout/sessions').at(-1)!;
    expect(sent.params).toMatchObject({
      mode: 'payment', customer: customerId,
      line_items: [{ quantity: '1', price_data: { currency: 'eur', unit_amount: '2500', product_data: { name: 'Prepaid credit' } } }],
      payment_intent_data: { setup_future_usage: 'off_session', metadata: { checkoutId: 'chk_1' } },
    });
    expect(sent.idempotencyKey).toBe('topup-1');
    expect(await provider.getCheckout(checkout.providerId)).toMatchObject({
      status: 'open', paid: false, paymentId: null, paymentMethodId: null,
    });

    await fake.completeCheckout(checkout.providerId, { card: { brand: 'mastercard', last4: '4444', expMonth: 3, expYear: 2031 } });
    const completed = lastEvent('checkout.completed')!;
    expect(completed).toMatchObject({
      checkoutProviderId: checkout.providerId, kind: 'topup', customerId, amountCents: 2500, paid: true,
      paymentId: expect.stringMatching(/^pi_/), subscriptionId: null, metadata: { checkoutId: 'chk_1', accountId: 'acct_topup' },
    });
    expect(lastEvent('payment.succeeded')).toMatchObject({
      paymentId: completed.paymentId, amountCents: 2500, metadata: { checkoutId: 'chk_1' },
    });
    const read = await provider.getCheckout(checkout.providerId);
    expect(read).toMatchObject({
      status: 'complete', paid: true, paymentId: completed.paymentId, paymentMethodId: expect.stringMatching(/^pm_/),
    });
  });

  it('takes a promo reduction as a single-use coupon', async () => {
    const customerId = await newCustomer('acct_promo');
    const base = {
      customerId, kind: 'topup' as const, amountCents: 5000, priceId: null, successUrl: 'https://a.example/',
      cancelUrl: 'https://a.example/', metadata: {},
    };
    expect((await provider.createCheckout({ ...base, percentOff: 20, idempotencyKey: 'promo-1' })).amountCents).toBe(4000);
    expect((await provider.createCheckout({ ...base, discountCents: 700, idempotencyKey: 'promo-2' })).amountCents).toBe(4300);
  });

  it('answers a repeated idempotency key with the first checkout, and refuses the key for a different one', async () => {
    const customerId = await newCustomer('acct_idem');
    const input = {
      customerId, kind: 'topup' as const, amountCents: 1000, priceId: null, successUrl: 'https://a.example/',
      cancelUrl: 'https://a.example/', idempotencyKey: 'same-key', metadata: {},
    };
    const first = await provider.createCheckout(input);
    const again = await provider.createCheckout(input);
    expect(again).toEqual(first);
    await expect(provider.createCheckout({ ...input, amountCents: 2000 })).rejects.toThrow(ProviderRefused);
  });

  it('reports an expired checkout', async () => {
    const customerId = await newCustomer('acct_expire');
    const checkout = await provider.createCheckout({
      customerId, kind: 'topup', amountCents: 1500, priceId: null, successUrl: 'https://a.example/', cancelUrl: 'https://a.example/',
      idempotencyKey: 'expire-1', metadata: { checkoutId: 'chk_x' },
    });
    await fake.expireCheckout(checkout.providerId);
    expect(lastEvent('checkout.expired')).toMatchObject({ checkoutProviderId: checkout.providerId, metadata: { checkoutId: 'chk_x' } });
    expect((await provider.getCheckout(checkout.providerId)).status).toBe('expired');
  });
});

describe('webhook signatures', () => {
  it('refuses a tampered body, an old signature, another secret and no signature', async () => {
    const customerId = await newCustomer('acct_sig');
    await paidTopUp(customerId, 1200);
    const { payload, signature } = fake.deliveries.at(-1)!;
    expect(provider.verifyWebhook(payload, signature).type).toBe('checkout.completed');
    expect(() => provider.verifyWebhook(payload.replace('"amount_total": 1200', '"amount_total": 120000'), signature)).toThrow(
      WebhookSignatureError,
    );
    expect(() => provider.verifyWebhook(payload, fake.sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 600 }))).toThrow(
      WebhookSignatureError,
    );
    expect(() => provider.verifyWebhook(payload, fake.sign(payload, { secret: 'whsec_other' }))).toThrow(WebhookSignatureError);
    expect(() => provider.verifyWebhook(payload, undefined)).toThrow(WebhookSignatureError);
  });

  it('passes over events billing does not act on', () => {
    const payload = JSON.stringify({
      id: 'evt_1', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer' } },
    });
    expect(provider.verifyWebhook(payload, fake.sign(payload))).toEqual({ id: 'evt_1', type: 'ignored', providerType: 'customer.created' });
  });
});

describe('subscriptions', () => {
  it('starts with a paid first invoice for its first period', async () => {
    const customerId = await newCustomer('acct_sub');
    const subscriptionId = await subscribe(customerId);
    expect(
      fake.requests.find(
        (request) => request.path === '/v1/checkout/sessions' && request.params.mode === 'subscription',
      )!.params.line_items,
    ).toEqual([{ price: 'price_pro_month', quantity: '1' }]);
    const invoicePaid = lastEvent('invoice.paid')!;
    expect(invoicePaid).toMatchObject({ subscriptionId, amountCents: 1900, billingReason: 'subscription_create' });
    expect(lastEvent('checkout.completed')).toMatchObject({ kind: 'subscribe', subscriptionId, paymentId: null, amountCents: 1900 });
    const subscription = await provider.getSubscription(subscriptionId);
    expect(subscription).toMatchObject({
      id: subscriptionId, customerId, status: 'active', priceId: 'price_pro_month', interval: 'month', cancelAtPeriodEnd: false,
      pendingPriceId: null, defaultPaymentMethodId: expect.stringMatching(/^pm_/), metadata: { planId: 'pro' },
    });
    expect(subscription.currentPeriodStart).toEqual(invoicePaid.periodStart);
    expect(subscription.currentPeriodEnd).toEqual(invoicePaid.periodEnd);
    const next = new Date(subscription.currentPeriodStart);
    next.setUTCMonth(next.getUTCMonth() + 1);
    expect(subscription.currentPeriodEnd).toEqual(next);
  });

  it('cancels at the period end and takes that back; the period ends in a deletion', async () => {
    const subscriptionId = await subscribe(await newCustomer('acct_cancel'));
    expect((await provider.setCancelAtPeriodEnd(subscriptionId, true)).cancelAtPeriodEnd).toBe(true);
    expect((await provider.setCancelAtPeriodEnd(subscriptionId, false)).cancelAtPeriodEnd).toBe(false);
    await provider.setCancelAtPeriodEnd(subscriptionId, true);
    await fake.endPeriod(subscriptionId);
    expect(lastEvent('subscription.deleted')!.subscription).toMatchObject({
      id: subscriptionId, status: 'canceled', cancelAtPeriodEnd: true,
    });
  });

  it('switches the interval at the next period, or not once taken back', async () => {
    const subscriptionId = await subscribe(await newCustomer('acct_switch'));
    const before = await provider.getSubscription(subscriptionId);
    const scheduled = await provider.scheduleInterval(subscriptionId, 'price_pro_year');
    expect(scheduled).toMatchObject({
      priceId: 'price_pro_month', interval: 'month', pendingPriceId: 'price_pro_year', currentPeriodEnd: before.currentPeriodEnd,
    });
    const scheduleUpdate = fake.requests.filter((request) => request.path.startsWith('/v1/subscription_schedules/')).at(-1)!;
    expect(scheduleUpdate.params.phases[1]).toMatchObject({
      items: [{ price: 'price_pro_year' }], duration: { interval: 'year' }, proration_behavior: 'none',
    });

    expect((await provider.scheduleInterval(subscriptionId, null)).pendingPriceId).toBeNull();
    await provider.scheduleInterval(subscriptionId, 'price_pro_year');
    await fake.renewSubscription(subscriptionId);
    const renewed = await provider.getSubscription(subscriptionId);
    expect(renewed).toMatchObject({
      priceId: 'price_pro_year', interval: 'year', pendingPriceId: null, currentPeriodStart: before.currentPeriodEnd,
    });
    expect(lastEvent('invoice.paid')).toMatchObject({
      subscriptionId, amountCents: 19000, billingReason: 'subscription_cycle', periodStart: before.currentPeriodEnd,
      periodEnd: renewed.currentPeriodEnd,
    });
    expect(lastEvent('subscription.updated')!.subscription).toMatchObject({
      id: subscriptionId, priceId: 'price_pro_year', interval: 'year',
    });
  });

  it('falls past due when the renewal is declined', async () => {
    const subscriptionId = await subscribe(await newCustomer('acct_past_due'));
    fake.setDeclining((await provider.getSubscription(subscriptionId)).defaultPaymentMethodId!, true);
    const deliveries = await fake.renewSubscription(subscriptionId);
    expect(deliveries.map((delivery) => delivery.event.type)).toEqual(['customer.subscription.updated', 'invoice.payment_failed']);
    expect(lastEvent('subscription.updated')!.subscription).toMatchObject({ id: subscriptionId, status: 'past_due' });
  });

  it('keeps a scheduled switch while the subscription goes on, and drops it when it is set to end', async () => {
    const subscriptionId = await subscribe(await newCustomer('acct_switch_cancel'));
    await provider.scheduleInterval(subscriptionId, 'price_pro_year');
    expect((await provider.setCancelAtPeriodEnd(subscriptionId, false)).pendingPriceId).toBe('price_pro_year');
    expect(await provider.setCancelAtPeriodEnd(subscriptionId, true)).toMatchObject({ cancelAtPeriodEnd: true, pendingPriceId: null });
    await expect(provider.scheduleInterval(subscriptionId, 'price_pro_year')).rejects.toThrow(ProviderRefused);
  });
});

describe('saved cards and off-session charges', () => {
  it('lists the saved card, charges it, reports a decline with its reason, and detaches it', async () => {
    const customerId = await newCustomer('acct_cards');
    await paidTopUp(customerId, 2000, { brand: 'visa', last4: '1881', expMonth: 9, expYear: 2030 });
    const [card, ...others] = await provider.listPaymentMethods(customerId);
    expect(others).toEqual([]);
    expect(card).toEqual({
      id: expect.stringMatching(/^pm_/), brand: 'visa', last4: '1881', expMonth: 9, expYear: 2030, wallet: null, isDefault: true,
    });

    const charge = {
      customerId, paymentMethodId: card!.id, amountCents: 3000, description: 'Auto top-up', metadata: { kind: 'auto_topup' },
    };
    const paid = await provider.chargeOffSession({ ...charge, idempotencyKey: 'auto-1' });
    expect(paid).toEqual({ providerId: expect.stringMatching(/^pi_/), outcome: 'paid', message: null });
    expect(await provider.chargeOffSession({ ...charge, idempotencyKey: 'auto-1' })).toEqual(paid);
    expect(fake.requests.filter((request) => request.path === '/v1/payment_intents').at(-1)!.params).toMatchObject({
      off_session: 'true', confirm: 'true', amount: '3000', currency: 'eur',
    });

    fake.setDeclining(card!.id, true);
    const declined = await provider.chargeOffSession({ ...charge, idempotencyKey: 'auto-2' });
    expect(declined).toEqual({ providerId: expect.stringMatching(/^pi_/), outcome: 'declined', message: 'Your card was declined.' });

    await provider.detachPaymentMethod(card!.id);
    expect(await provider.listPaymentMethods(customerId)).toEqual([]);
    await expect(provider.detachPaymentMethod(card!.id)).rejects.toThrow(ProviderRefused);
  });

  it('links to the customer portal', async () => {
    const customerId = await newCustomer('acct_portal');
    expect(await provider.portalUrl(customerId, 'https://app.example/billing')).toMatch(new RegExp(`^${fake.baseUrl}/p/session/bps_`));
  });
});

describe('documents', () => {
  it('has no receipt or invoice link until Stripe has made it', async () => {
    fake.documentDelay = 1;
    try {
      const customerId = await newCustomer('acct_docs');
      await paidTopUp(customerId, 1000);
      const paymentId = lastEvent('checkout.completed')!.paymentId!;
      expect(await provider.documentUrl({ providerId: paymentId, kind: 'receipt' })).toBeNull();
      expect(await provider.documentUrl({ providerId: paymentId, kind: 'receipt' })).toMatch(/\/receipts\/ch_/);
      await subscribe(customerId);
      const invoiceId = lastEvent('invoice.paid')!.invoiceId;
      expect(await provider.documentUrl({ providerId: invoiceId, kind: 'invoice' })).toBeNull();
      expect(await provider.documentUrl({ providerId: invoiceId, kind: 'invoice' })).toMatch(/\/invoices\/in_.*\/pdf$/);
    } finally {
      fake.documentDelay = 0;
    }
  });
});

describe('failures', () => {
  it('is unavailable when Stripe does not answer, and retries one failure', async () => {
    const customerId = await newCustomer('acct_down');
    fake.failNextRequests(1);
    expect(await provider.portalUrl(customerId, 'https://a.example/')).toContain(fake.baseUrl);
    fake.failNextRequests(2);
    await expect(provider.portalUrl(customerId, 'https://a.example/')).rejects.toThrow(ProviderUnavailable);
    fake.down();
    try {
      await expect(provider.listPaymentMethods(customerId)).rejects.toThrow(ProviderUnavailable);
    } finally {
      fake.up();
    }
  });

  it('passes on what Stripe refuses, in its words', async () => {
    await expect(
      provider.createCheckout({
        customerId: 'cus_missing', kind: 'topup', amountCents: 1000, priceId: null, successUrl: 'https://a.example/',
        cancelUrl: 'https://a.example/', idempotencyKey: 'missing-1', metadata: {},
      }),
    ).rejects.toMatchObject({ name: 'ProviderRefused', code: 'resource_missing', message: "No such customer: 'cus_missing'" });
    const customerId = await newCustomer('acct_refused');
    await expect(
      provider.createCheckout({
        customerId, kind: 'subscribe', amountCents: null, priceId: 'price_none', successUrl: 'https://a.example/',
        cancelUrl: 'https://a.example/', idempotencyKey: 'missing-2', metadata: {},
      }),
    ).rejects.toThrow(/No such price: 'price_none'/);
    const wrongKey = new StripeProvider({ secretKey: 'sk_test_wrong', webhookSecret: 'x', apiBase: fake.baseUrl, currency: 'eur' });
    await expect(wrongKey.getSubscription('sub_1')).rejects.toThrow(ProviderRefused);
  });
});

describe('billing by hand', () => {
  it('offers no checkout, portal, cards or automatic charges', async () => {
    const manual = new ManualProvider();
    expect(manual.offersAutomaticCharges).toBe(false);
    await expect(manual.createCheckout()).rejects.toThrow('this server bills by hand; ask the operator');
    await expect(manual.portalUrl()).rejects.toThrow(ProviderRefused);
    expect(await manual.listPaymentMethods()).toEqual([]);
    expect(() => manual.verifyWebhook()).toThrow(WebhookSignatureError);
  });
});

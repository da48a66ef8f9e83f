/**
 * Stripe behind the PaymentProvider interface, through the official `stripe` package. Every Stripe type stays in
 * this file: callers get neutral values and events, and two error classes (ProviderUnavailable: Stripe did not
 * answer; ProviderRefused: Stripe said no, with its reason).
 *
 * Interval switches (month <-> year at the next period) use a subscription schedule: a subscription's own update
 * cannot do it, because changing the interval resets the billing cycle and invoices at once even with
 * `proration_behavior: 'none'`. The schedule keeps the current price until the current period ends, then runs one
 * period on the new price and releases the subscription (which then simply renews on it). Taking the switch back
 * releases the schedule, leaving the subscription as it is.
 */
import Stripe from 'stripe';
import {
  ProviderRefused,
  ProviderUnavailable,
  WebhookSignatureError,
  type BillingInterval,
  type ChargeOffSessionInput,
  type ChargeOutcome,
  type CreateCheckoutInput,
  type CreatedCheckout,
  type PaymentProvider,
  type ProviderCheckout,
  type ProviderEvent,
  type ProviderPaymentMethod,
  type ProviderSubscription,
  type SubscriptionSnapshot,
} from './provider.js';

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** e.g. `http://127.0.0.1:4242` (a test double); null = Stripe's own API. */
  apiBase: string | null;
  /** ISO 4217, lower case as Stripe writes it (`eur`). */
  currency: string;
  /** Retries of a request that got no answer; low, so that a customer waits seconds, not minutes. */
  maxNetworkRetries?: number;
  timeoutMs?: number;
  /** How old a webhook signature may be; Stripe's own default. */
  webhookToleranceS?: number;
}

/** What a top-up's checkout line reads on Stripe's page and the receipt. */
const TOP_UP_PRODUCT_NAME = 'Prepaid credit';

const seconds = (unix: number) => new Date(unix * 1000);
const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

export class StripeProvider implements PaymentProvider {
  readonly kind = 'stripe' as const;
  readonly offersAutomaticCharges = true;
  private readonly stripe: Stripe;
  private readonly webhookSecret: string;
  private readonly currency: string;
  private readonly webhookToleranceS: number;

  constructor(options: StripeProviderOptions) {
    const base = options.apiBase === null ? null : new URL(options.apiBase);
    this.stripe = new Stripe(options.secretKey, {
      maxNetworkRetries: options.maxNetworkRetries ?? 1,
      timeout: options.timeoutMs ?? 10_000,
      telemetry: false,
      appInfo: { name: 'speechgate' },
      ...(base && {
        host: base.hostname,
        port: base.port || (base.protocol === 'https:' ? 443 : 80),
        protocol: base.protocol === 'https:' ? 'https' : 'http',
      }),
    });
    this.webhookSecret = options.webhookSecret;
    this.currency = options.currency.toLowerCase();
    this.webhookToleranceS = options.webhookToleranceS ?? 300;
  }

  async ensureCustomer(
    input: { existingId: string | null; accountId: string; email: string | null; name: string | null },
  ): Promise<string> {
    if (input.existingId) {
      const existing = await this.call(() => this.stripe.customers.retrieve(input.existingId!), { missingIsNull: true });
      if (existing && !existing.deleted) {
        const email = input.email ?? existing.email;
        const name = input.name ?? existing.name;
        if (email !== existing.email || name !== existing.name) {
          await this.call(() => this.stripe.customers.update(existing.id, { email: email ?? '', name: name ?? '' }));
        }
        return existing.id;
      }
    }
    // Keyed by account (and the customer it replaces) so that two racing first checkouts make one customer.
    const created = await this.call(() =>
      this.stripe.customers.create(
        { ...(input.email && { email: input.email }), ...(input.name && { name: input.name }), metadata: { accountId: input.accountId } },
        { idempotencyKey: `customer:${input.accountId}:${input.existingId ?? 'first'}` },
      ),
    );
    return created.id;
  }

  async createCheckout(input: CreateCheckoutInput): Promise<CreatedCheckout> {
    const discounts = await this.oneOffDiscount(input);
    const common = {
      customer: input.customerId,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      metadata: input.metadata,
      ...(discounts && { discounts }),
    };
    let params: Stripe.Checkout.SessionCreateParams;
    if (input.kind === 'topup') {
      if (!Number.isSafeInteger(input.amountCents) || input.amountCents! <= 0) throw new TypeError('a top-up checkout needs a positive '
        + 'whole-cent amount');
      params = {
        ...common,
        mode: 'payment',
        line_items: [{
          quantity: 1,
          price_data: { currency: this.currency, unit_amount: input.amountCents!, product_data: { name: TOP_UP_PRODUCT_NAME } },
        }],
        // Saves the card for auto top-up; the metadata follows the payment into payment_intent.* events.
        payment_intent_data: { setup_future_usage: 'off_session', metadata: input.metadata },
      };
    } else {
      if (!input.priceId) throw new TypeError('a subscription checkout needs a price');
      params = {
        ...common, mode: 'subscription', line_items: [{ price: input.priceId, quantity: 1 }],
        subscription_data: { metadata: input.metadata },
      };
    }
    const session = await this.call(() => this.stripe.checkout.sessions.create(params, { idempotencyKey: input.idempotencyKey }));
    if (!session.url) throw new ProviderRefused('Stripe made a checkout without a page to send the customer to');
    return { providerId: session.id, url: session.url, expiresAt: seconds(session.expires_at), amountCents: session.amount_total };
  }

  async getCheckout(providerId: string): Promise<ProviderCheckout> {
    // Expanded: the card the customer paid with is on the payment intent (top-up) or the subscription.
    const session = await this.call(
      () => this.stripe.checkout.sessions.retrieve(providerId, { expand: ['payment_intent', 'subscription'] }),
    );
    const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
    const subscription = typeof session.subscription === 'object' ? session.subscription : null;
    return {
      providerId: session.id,
      kind: session.mode === 'subscription' ? 'subscribe' : 'topup',
      status: session.status === 'complete' ? 'complete' : session.status === 'expired' ? 'expired' : 'open',
      paid: session.payment_status !== 'unpaid',
      amountCents: session.amount_total,
      customerId: idOf(session.customer),
      subscriptionId: idOf(session.subscription),
      paymentId: idOf(session.payment_intent),
      paymentMethodId: idOf(intent?.payment_method) ?? idOf(subscription?.default_payment_method),
      metadata: session.metadata ?? {},
    };
  }

  async listPaymentMethods(customerId: string): Promise<ProviderPaymentMethod[]> {
    const customer = await this.call(() => this.stripe.customers.retrieve(customerId));
    if (customer.deleted) return [];
    const methods = await this.call(() => this.stripe.paymentMethods.list({ customer: customerId, type: 'card', limit: 100 }));
    // Checkout saves cards without making one the customer's default; until the portal sets one, the newest card pays.
    const defaultId = idOf(customer.invoice_settings?.default_payment_method) ?? methods.data[0]?.id ?? null;
    return methods.data.flatMap((method) =>
      method.card
        ? [{
            id: method.id,
            brand: method.card.brand,
            last4: method.card.last4,
            expMonth: method.card.exp_month,
            expYear: method.card.exp_year,
            wallet: method.card.wallet?.type ?? null,
            isDefault: method.id === defaultId,
          }]
        : [],
    );
  }

  async detachPaymentMethod(id: string): Promise<void> {
    await this.call(() => this.stripe.paymentMethods.detach(id));
  }

  async portalUrl(customerId: string, returnUrl: string): Promise<string> {
    const session = await this.call(() => this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }));
    return session.url;
  }

  async chargeOffSession(input: ChargeOffSessionInput): Promise<ChargeOutcome> {
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: this.currency,
          customer: input.customerId,
          payment_method: input.paymentMethodId,
          off_session: true,
          confirm: true,
          description: input.description,
          metadata: input.metadata,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      if (intent.status === 'succeeded') return { providerId: intent.id, outcome: 'paid', message: null };
      if (intent.status === 'processing') return { providerId: intent.id, outcome: 'pending', message: null };
      return { providerId: intent.id, outcome: 'declined', message: intent.last_payment_error?.message ?? `the payment is `
        + `${intent.status.replaceAll('_', ' ')}` };
    } catch (error) {
      // Stripe answers a decline (or a card that needs its holder present) with a card error naming the intent.
      if (error instanceof Stripe.errors.StripeCardError) {
        return { providerId: error.payment_intent?.id ?? null, outcome: 'declined', message: error.message };
      }
      throw translateError(error);
    }
  }

  async getSubscription(id: string): Promise<ProviderSubscription> {
    return toProviderSubscription(await this.getSubscriptionWithSchedule(id));
  }

  async setCancelAtPeriodEnd(id: string, cancel: boolean): Promise<ProviderSubscription> {
    const current = await this.getSubscriptionWithSchedule(id);
    if (current.cancel_at_period_end === cancel) return toProviderSubscription(current);
    // Stripe refuses cancellation changes on a subscription its schedule manages; a subscription that ends has no
    // next period to switch into anyway, so the scheduled switch goes.
    const scheduleId = idOf(current.schedule);
    if (cancel && scheduleId) await this.call(() => this.stripe.subscriptionSchedules.release(scheduleId));
    const updated = await this.call(() => this.stripe.subscriptions.update(id, { cancel_at_period_end: cancel, expand: ['schedule'] }));
    return toProviderSubscription(updated);
  }

  async scheduleInterval(id: string, priceId: string | null): Promise<ProviderSubscription> {
    const current = await this.getSubscriptionWithSchedule(id);
    const item = firstItem(current);
    const scheduleId = idOf(current.schedule);
    if (priceId === null || priceId === item.price.id) {
      if (scheduleId) await this.call(() => this.stripe.subscriptionSchedules.release(scheduleId));
      return this.getSubscription(id);
    }
    if (current.cancel_at_period_end) throw new ProviderRefused('the subscription ends with this period; there is no next period to '
      + 'switch');
    const price = await this.call(() => this.stripe.prices.retrieve(priceId));
    if (!price.recurring) throw new ProviderRefused(`price ${priceId} is not a recurring price`);
    const schedule = scheduleId
      ? await this.call(() => this.stripe.subscriptionSchedules.retrieve(scheduleId))
      : await this.call(() => this.stripe.subscriptionSchedules.create({ from_subscription: id }));
    const phaseStart = schedule.current_phase?.start_date ?? item.current_period_start;
    await this.call(() =>
      this.stripe.subscriptionSchedules.update(schedule.id, {
        end_behavior: 'release',
        phases: [
          {
            items: [{ price: item.price.id, quantity: item.quantity ?? 1 }], start_date: phaseStart, end_date: item.current_period_end,
            proration_behavior: 'none',
          },
          {
            items: [{ price: priceId, quantity: item.quantity ?? 1 }],
            duration: { interval: price.recurring!.interval, interval_count: price.recurring!.interval_count },
            proration_behavior: 'none',
          },
        ],
      }),
    );
    return this.getSubscription(id);
  }

  async documentUrl(payment: { providerId: string; kind: 'invoice' | 'receipt' }): Promise<string | null> {
    if (payment.kind === 'invoice') {
      const invoice = await this.call(() => this.stripe.invoices.retrieve(payment.providerId));
      return invoice.invoice_pdf ?? invoice.hosted_invoice_url ?? null;
    }
    if (payment.providerId.startsWith('ch_')) {
      const charge = await this.call(() => this.stripe.charges.retrieve(payment.providerId));
      return charge.receipt_url;
    }
    const intent = await this.call(() => this.stripe.paymentIntents.retrieve(payment.providerId, { expand: ['latest_charge'] }));
    return typeof intent.latest_charge === 'object' ? (intent.latest_charge?.receipt_url ?? null) : null;
  }

  verifyWebhook(rawBody: Buffer | string, signatureHeader: string | undefined): ProviderEvent {
    if (!signatureHeader) throw new WebhookSignatureError('the Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signatureHeader, this.webhookSecret, this.webhookToleranceS);
    } catch (error) {
      throw new WebhookSignatureError(error instanceof Error ? error.message : 'the webhook signature does not verify', { cause: error });
    }
    return toProviderEvent(event);
  }

  /** The schedule comes expanded: it holds the scheduled switch. */
  private getSubscriptionWithSchedule(id: string) {
    return this.call(() => this.stripe.subscriptions.retrieve(id, { expand: ['schedule'] }));
  }

  /** A promo code's reduction as a single-use coupon for this checkout's first payment (Checkout takes coupons only). */
  private async oneOffDiscount(input: CreateCheckoutInput): Promise<Array<{ coupon: string }> | null> {
    const off = input.percentOff ? { percent_off: input.percentOff } : input.discountCents ? {
      amount_off: input.discountCents, currency: this.currency,
    } : null;
    if (!off) return null;
    const coupon = await this.call(() =>
      this.stripe.coupons.create({ ...off, duration: 'once', max_redemptions: 1 }, { idempotencyKey: `${input.idempotencyKey}:coupon` }),
    );
    return [{ coupon: coupon.id }];
  }

  /** Runs one Stripe request and turns its failure into a provider error; `missingIsNull`: a missing object is null. */
  private async call<T>(request: () => Promise<T>, options: { missingIsNull: true }): Promise<T | null>;
  private async call<T>(request: () => Promise<T>): Promise<T>;
  private async call<T>(request: () => Promise<T>, options?: { missingIsNull: true }): Promise<T | null> {
    try {
      return await request();
    } catch (error) {
      if (options?.missingIsNull && error instanceof Stripe.errors.StripeError && error.code === 'resource_missing') return null;
      throw translateError(error);
    }
  }
}

/** No answer (network, timeout, Stripe's 5xx, its rate limit) is "unavailable"; any other answer is a refusal. */
function translateError(error: unknown): Error {
  if (!(error instanceof Stripe.errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  const status = error.statusCode;
  if (error instanceof Stripe.errors.StripeConnectionError || status === undefined || status >= 500 || status === 429) {
    return new ProviderUnavailable(`Stripe did not answer: ${error.message}`, { cause: error });
  }
  return new ProviderRefused(error.message, { code: error.code ?? null, cause: error });
}

function firstItem(subscription: Stripe.Subscription): Stripe.SubscriptionItem {
  const item = subscription.items.data[0];
  if (!item) throw new ProviderRefused(`subscription ${subscription.id} has no items`);
  return item;
}

function toInterval(price: Stripe.Price): BillingInterval {
  const interval = price.recurring?.interval;
  if (interval === 'month') return 'month';
  if (interval === 'year') return 'year';
  throw new ProviderRefused(`price ${price.id} bills by ${interval ?? 'nothing'}, not by month or year`);
}

function toSnapshot(subscription: Stripe.Subscription): SubscriptionSnapshot {
  // Since API version 2025-03-31 the period lives on the subscription's item, not on the subscription.
  const item = firstItem(subscription);
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer)!,
    status: subscription.status,
    priceId: item.price.id,
    interval: toInterval(item.price),
    currentPeriodStart: seconds(item.current_period_start),
    currentPeriodEnd: seconds(item.current_period_end),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    defaultPaymentMethodId: idOf(subscription.default_payment_method),
    metadata: subscription.metadata ?? {},
  };
}

/** The subscription with the switch its (expanded) schedule holds: the price of the phase that starts when this period ends. */
function toProviderSubscription(subscription: Stripe.Subscription): ProviderSubscription {
  const snapshot = toSnapshot(subscription);
  const schedule = typeof subscription.schedule === 'object' ? subscription.schedule : null;
  const periodEnd = firstItem(subscription).current_period_end;
  const next = schedule && (schedule.status === 'active' || schedule.status === 'not_started') ? schedule.phases.find(
    (phase) => phase.start_date >= periodEnd,
  ) : undefined;
  const nextPriceId = idOf(next?.items[0]?.price);
  return { ...snapshot, pendingPriceId: nextPriceId && nextPriceId !== snapshot.priceId ? nextPriceId : null };
}

/** The service period an invoice pays for: its subscription line's (the invoice's own period is the one before). */
function paidPeriod(invoice: Stripe.Invoice): { start: number; end: number } {
  const line = invoice.lines.data.find(
    (candidate) => candidate.parent?.subscription_item_details && !candidate.parent.subscription_item_details.proration,
  );
  return line ? line.period : { start: invoice.period_start, end: invoice.period_end };
}

function toProviderEvent(event: Stripe.Event): ProviderEvent {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      return {
        id: event.id,
        type: 'checkout.completed',
        checkoutProviderId: session.id,
        kind: session.mode === 'subscription' ? 'subscribe' : 'topup',
        customerId: idOf(session.customer) ?? '',
        amountCents: session.amount_total ?? 0,
        paid: session.payment_status !== 'unpaid',
        paymentId: idOf(session.payment_intent),
        subscriptionId: idOf(session.subscription),
        metadata: session.metadata ?? {},
      };
    }
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed': {
      const session = event.data.object;
      const type = event.type === 'checkout.session.expired' ? 'checkout.expired' : 'checkout.failed';
      return { id: event.id, type, checkoutProviderId: session.id, metadata: session.metadata ?? {} };
    }
    case 'invoice.paid': {
      const invoice = event.data.object;
      const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription);
      if (!subscriptionId || !invoice.id) return { id: event.id, type: 'ignored', providerType: event.type };
      const period = paidPeriod(invoice);
      return {
        id: event.id,
        type: 'invoice.paid',
        invoiceId: invoice.id,
        subscriptionId,
        amountCents: invoice.amount_paid,
        periodStart: seconds(period.start),
        periodEnd: seconds(period.end),
        billingReason:
          invoice.billing_reason === 'subscription_create'
            ? 'subscription_create'
            : invoice.billing_reason === 'subscription_cycle'
              ? 'subscription_cycle'
              : 'other',
      };
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return {
        id: event.id, type: event.type === 'customer.subscription.updated' ? 'subscription.updated' : 'subscription.deleted',
        subscription: toSnapshot(event.data.object),
      };
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const intent = event.data.object;
      return {
        id: event.id,
        type: event.type === 'payment_intent.succeeded' ? 'payment.succeeded' : 'payment.failed',
        paymentId: intent.id,
        amountCents: intent.amount,
        metadata: intent.metadata ?? {},
        message: intent.last_payment_error?.message ?? null,
      };
    }
    default:
      return { id: event.id, type: 'ignored', providerType: event.type };
  }
}

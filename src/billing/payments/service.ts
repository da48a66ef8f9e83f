/**
 * Payments: checkouts (top-ups and subscriptions), the provider's webhook events, subscriptions (cancel, interval
 * switch, monthly credit, downgrade at period end), saved cards, payment history and documents, promo codes and auto
 * top-up. The provider (src/billing/payments/provider.ts) is called outside any database transaction; what it did is
 * then written in one transaction with the ledger movement it pays for, keyed so that a webhook delivered twice, a
 * checkout reconciled by a read and by its webhook, or an auto top-up retried after a crash credits once.
 */
import type { BillingSettings, PlanSettings, PromoCodeSettings } from '../../core/config/billing.js';
import { ApiError, errors } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { pageNewestFirst } from '../../core/cursor.js';
import type { Logger } from '../../core/logger.js';
import type { ServiceDeps } from '../../core/services.js';
import type { HourlyLimiter } from '../../core/hourly-limiter.js';
import { lockBillingAccount, post, syncConcurrency, type BillingAccountRow } from '../ledger.js';
import type { Tx } from '../../core/db/transactions.js';
import { dollars, type BillingService } from '../service.js';
import { centsIn } from '../money.js';
import {
  ProviderRefused, ProviderUnavailable, WebhookSignatureError, type BillingInterval, type PaymentProvider, type ProviderEvent,
  type ProviderSubscription,
} from './provider.js';
import { bodyWithFields, isObject } from '../../core/validate.js';
import { ManualProvider } from './manual.js';
import { StripeProvider } from './stripe.js';
import { TX_OPTIONS } from '../../core/db/transactions.js';

export interface CheckoutView {
  checkoutId: string;
  kind: 'topup' | 'subscribe';
  status: 'open' | 'succeeded' | 'expired' | 'failed';
  createdAt: string;
  amount: number | null;
  completedAt: string | null;
  expiresAt: string | null;
  interval: string | null;
  planId: string | null;
  url: string | null;
  providerId: string | null;
}

export interface PaymentView {
  id: string;
  kind: string;
  status: string;
  amount: number;
  currency: string;
  createdAt: string;
  document: 'invoice' | 'receipt';
  businessPurchase: boolean;
  taxId: string | null;
}

export interface PaymentMethodView {
  id: string;
  brand: string;
  last4: string;
  expMonth: number | null;
  expYear: number | null;
  wallet: string | null;
  isDefault: boolean;
  declined: boolean;
}

export interface PromoView {
  code: string;
  for: 'topup' | 'subscribe';
  percentOff: number | null;
  amountOff: number | null;
  bonusCredit: number | null;
}

/** Who opens a checkout: a signed-in person of the account (never an API key). */
export interface Buyer {
  accountId: string;
  principalId: string;
  email: string | null;
}

type CheckoutRow = NonNullable<Awaited<ReturnType<Tx['checkout']['findUnique']>>>;

const DAY_MS = 86_400_000;

export function checkoutView(row: CheckoutRow): CheckoutView {
  return {
    checkoutId: row.id,
    kind: row.kind as CheckoutView['kind'],
    status: row.status as CheckoutView['status'],
    createdAt: row.createdAt.toISOString(),
    amount: row.amountCents === null ? null : dollars(row.amountCents),
    completedAt: row.completedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    interval: row.interval,
    planId: row.planId,
    url: row.status === 'open' ? row.url : null,
    providerId: row.providerId,
  };
}

/** The provider's failure as the interface's: it did not answer → 503 unavailable (retry); it refused → 409 invalid_state. */
function providerError(error: unknown): unknown {
  if (error instanceof ProviderUnavailable) {
    return new ApiError('unavailable', 503, `The payment provider did not answer: ${error.message}. Try again shortly.`, {
      headers: { 'Retry-After': '5' }, retryable: true,
    });
  }
  if (error instanceof ProviderRefused) {
    return errors.invalidState(`The payment provider refused: ${error.message}.`, { providerCode: error.code });
  }
  return error;
}

async function callProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw providerError(error);
  }
}

declare module '../../core/services.js' {
  interface Services {
    payments: PaymentsService;
  }
}

/** The provider the operator's file names (manual when billing is off: nothing is ever asked of it then). */
export function createPaymentProvider(settings: BillingSettings | null): PaymentProvider {
  if (settings?.provider.kind === 'stripe') {
    const { secretKey, webhookSecret, apiBase } = settings.provider;
    return new StripeProvider({ secretKey, webhookSecret, apiBase, currency: settings.currency });
  }
  return new ManualProvider();
}

export class PaymentsService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly billing: BillingService,
    readonly provider: PaymentProvider,
    /** Promo checks per account an hour (checkouts carrying a code count too), shared by every gateway. */
    private readonly promoChecks: HourlyLimiter,
    private readonly logger: Logger,
  ) {}

  private get settings(): BillingSettings {
    return this.billing.on();
  }

  /** Billing off: payments do not exist here; the caller is told so instead of a half answer. */
  private requireOn(): BillingSettings {
    return this.billing.requireOn('payment to make');
  }

  private async transaction<T>(accountId: string, change: (tx: Tx, account: BillingAccountRow) => Promise<T>): Promise<T> {
    return this.deps.prisma.$transaction(async (tx) => change(tx, await lockBillingAccount(tx, this.settings, accountId)), TX_OPTIONS);
  }

  private planFor(priceId: string): { plan: PlanSettings; interval: BillingInterval } | null {
    for (const plan of this.settings.plans) {
      if (plan.prices?.providerMonth === priceId) return { plan, interval: 'month' };
      if (plan.prices?.providerYear === priceId) return { plan, interval: 'year' };
    }
    return null;
  }

  private priceOf(plan: PlanSettings, interval: BillingInterval): string {
    const id = interval === 'month' ? plan.prices?.providerMonth : plan.prices?.providerYear;
    // Plans sold through the manual provider have no provider prices; the provider refuses their checkout anyway.
    return id ?? `${plan.id}:${interval}`;
  }

  // ── promo codes ────────────────────────────────────────────────────────────────────────────────────────────

  /** The code's terms for this purchase, or 404 promo_code_invalid (unknown, expired, used up, redeemed, gives nothing). */
  private async promo(accountId: string, code: string, kind: 'topup' | 'subscribe'): Promise<PromoCodeSettings> {
    const hit = await this.promoChecks.hit(`promo-checks:${accountId}`, this.settings.promoChecksPerHour);
    if (!hit.allowed) {
      throw errors.rateLimited(Math.max(1, Math.ceil(hit.resetMs / 1000)), {
        metric: 'promo_checks', limit: this.settings.promoChecksPerHour,
      });
    }
    const invalid = (why: string) => new ApiError('promo_code_invalid', 404, `The promo code ${JSON.stringify(code)} ${why}.`, {
      details: { field: 'code' }, retryable: false,
    });
    const promo = this.settings.promoCodes.find((entry) => entry.code.toLowerCase() === code.trim().toLowerCase());
    if (!promo) throw invalid('does not exist');
    if (promo.expiresAt && promo.expiresAt.getTime() <= Date.now()) throw invalid('has expired');
    if (!promo.for.includes(kind)) throw invalid(`gives nothing for a ${kind === 'topup' ? 'top-up' : 'subscription'}`);
    if (kind === 'subscribe' && promo.percentOff === null && promo.amountOffCents === null) {
      throw invalid('gives nothing for a subscription');
    }
    const [mine, used] = await Promise.all([
      this.deps.prisma.promoRedemption.findUnique({ where: { accountId_code: { accountId, code: promo.code } } }),
      this.deps.prisma.promoRedemption.count({ where: { code: promo.code } }),
    ]);
    if (mine) throw invalid('was already redeemed by this account');
    if (promo.maxRedemptions !== null && used >= promo.maxRedemptions) throw invalid('is used up');
    return promo;
  }

  async checkPromo(accountId: string, body: unknown): Promise<PromoView> {
    const { code, for: kind } = promoFields(body);
    this.requireOn();
    const promo = await this.promo(accountId, code, kind);
    return {
      code: promo.code,
      for: kind,
      percentOff: promo.percentOff,
      amountOff: promo.amountOffCents === null ? null : dollars(promo.amountOffCents),
      bonusCredit: kind === 'topup' && promo.bonusCreditCents !== null ? dollars(promo.bonusCreditCents) : null,
    };
  }

  // ── checkouts ──────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Opens a checkout at the provider and answers where to send the customer. Refusals come before the provider is
   * asked (terms not accepted, amount outside the range, a subscription already active, a plan billed by hand, a
   * promo code that gives nothing); the provider not answering is 503 `unavailable`, its refusal 409 `invalid_state`.
   */
  async createCheckout(buyer: Buyer, body: unknown, baseUrl: string, idempotencyKey: string | null): Promise<CheckoutView> {
    const settings = this.requireOn();
    const { kind, amount, planId, interval, promoCode } = checkoutFields(body);
    let amountCents: number | null = null;
    let plan: PlanSettings | null = null;
    let chosenInterval: BillingInterval | null = null;
    if (kind === 'topup') {
      if (planId != null) throw errors.invalidBody('planId is for a subscription; a top-up has none.', { field: 'planId' });
      if (interval != null) throw errors.invalidBody('interval is for a subscription; a top-up has none.', { field: 'interval' });
      amountCents = centsIn(amount, 'amount', settings.topUp.range);
    } else {
      if (amount != null) throw errors.invalidBody('amount is for a top-up; a subscription\'s price decides.', { field: 'amount' });
      if (typeof planId !== 'string') throw errors.invalidBody('planId must name a plan with prices.', { field: 'planId' });
      if (interval !== 'month' && interval !== 'year') {
        throw errors.invalidBody('interval must be "month" or "year".', { field: 'interval' });
      }
      plan = settings.plans.find((entry) => entry.id === planId && entry.visible && entry.prices) ?? null;
      if (!plan) throw errors.invalidBody(`planId ${JSON.stringify(planId)} is not a plan that can be subscribed to.`, { field: 'planId' });
      if (plan.billedByHand) throw errors.invalidState(`The plan ${plan.id} is billed by hand; ask the operator.`);
      chosenInterval = interval;
      const active = await this.deps.prisma.subscription.findFirst({ where: { accountId: buyer.accountId, status: 'active' } });
      if (active) {
        throw errors.invalidState(
          'The account already has an active subscription; cancel it or change its interval instead.', { subscriptionId: active.id },
        );
      }
      amountCents = interval === 'month' ? plan.prices!.monthCents : plan.prices!.yearCents;
    }
    const promo = promoCode !== null ? await this.promo(buyer.accountId, promoCode, kind) : null;
    const account = await this.billing.account(buyer.accountId);
    const details = isObject(account.details) ? account.details : {};
    const customerId = await this.providerCustomer(buyer.accountId, account, {
      email: typeof details.email === 'string' && details.email ? details.email : buyer.email,
      name: typeof details.name === 'string' && details.name ? details.name : null,
    });
    const id = newId('chk');
    const back = new URL(this.billing.topUpUrl(baseUrl));
    back.searchParams.set('checkout', id);
    const cancel = new URL(back);
    cancel.searchParams.set('canceled', '1');
    // What is paid now: a top-up's amount or the first period, less the promo's discount (bonus credit is added on top).
    const discountCents = promo?.amountOffCents ?? undefined;
    const created = await callProvider(() => this.provider.createCheckout({
      customerId,
      kind,
      amountCents: kind === 'topup' ? amountCents : null,
      priceId: plan && chosenInterval ? this.priceOf(plan, chosenInterval) : null,
      ...(discountCents !== undefined ? { discountCents } : {}),
      ...(promo?.percentOff != null ? { percentOff: promo.percentOff } : {}),
      successUrl: back.toString(),
      cancelUrl: cancel.toString(),
      idempotencyKey: idempotencyKey ? `${buyer.accountId}:${idempotencyKey}` : id,
      metadata: {
        accountId: buyer.accountId, checkoutId: id, kind, ...(plan ? { planId: plan.id, interval: chosenInterval! } : {}),
        ...(promo ? { promoCode: promo.code } : {}),
      },
    }));
    const paidFirst = kind === 'subscribe' ? (created.amountCents ?? discounted(amountCents!, promo)) : amountCents;
    const row = await this.deps.prisma.checkout.upsert({
      where: { providerId: created.providerId },
      // The provider answered a repeat of this key with the first checkout: answer ours for it too.
      update: {},
      create: {
        id, accountId: buyer.accountId, principalId: buyer.principalId, kind, status: 'open', amountCents: paidFirst,
        planId: plan?.id ?? null, interval: chosenInterval, promoCode: promo?.code ?? null, providerId: created.providerId,
        url: created.url, expiresAt: created.expiresAt,
      },
    });
    return checkoutView(row);
  }

  /** By our id or the provider's. An open checkout is reconciled with the provider (a missed webhook cannot strand a payment). */
  async getCheckout(accountId: string, id: string): Promise<CheckoutView> {
    this.requireOn();
    let row = await this.deps.prisma.checkout.findFirst({ where: { accountId, OR: [{ id }, { providerId: id }] } });
    if (!row) throw errors.notFound('The checkout');
    if (row.status === 'open' && row.providerId) {
      try {
        const remote = await this.provider.getCheckout(row.providerId);
        if (remote.status === 'complete' && remote.paid) await this.completeCheckout(row, {
          paymentId: remote.paymentId, subscriptionId: remote.subscriptionId, amountPaidCents: remote.amountCents,
        });
        else if (remote.status === 'expired') await this.deps.prisma.checkout.updateMany({
          where: { id: row.id, status: 'open' }, data: { status: 'expired' },
        });
        row = await this.deps.prisma.checkout.findUniqueOrThrow({ where: { id: row.id } });
      } catch (error) {
        // The stored state is still true as far as we know; the webhook will move it.
        if (!(error instanceof ProviderUnavailable || error instanceof ProviderRefused)) throw error;
        this.logger.warn({ checkoutId: row.id, error: String(error) }, 'reconciling a checkout with the provider failed');
      }
    }
    return checkoutView(row);
  }

  /**
   * A paid checkout: a top-up's credit (and a promo's bonus) or a subscription's plan, the payment and the card,
   * the promo's redemption — one transaction, keyed by the checkout so a second completion changes nothing.
   */
  private async completeCheckout(
    checkout: CheckoutRow, paid: { paymentId: string | null; subscriptionId: string | null; amountPaidCents: number | null },
  ): Promise<void> {
    const settings = this.settings;
    const subscription = paid.subscriptionId ? await this.provider.getSubscription(paid.subscriptionId) : null;
    await this.syncPaymentMethods(checkout.accountId);
    await this.transaction(checkout.accountId, async (tx, account) => {
      const moved = await tx.checkout.updateMany({
        where: { id: checkout.id, status: 'open' }, data: { status: 'succeeded', completedAt: new Date() },
      });
      if (!moved.count) return;
      const details = isObject(account.details) ? account.details : {};
      const taxId = typeof details.taxId === 'string' && details.taxId ? details.taxId : null;
      if (checkout.promoCode) {
        await tx.promoRedemption.upsert({
          where: { accountId_code: { accountId: checkout.accountId, code: checkout.promoCode } }, update: {},
          create: { accountId: checkout.accountId, code: checkout.promoCode, checkoutId: checkout.id },
        });
      }
      if (checkout.kind === 'topup') {
        const paymentId = newId('pay');
        await tx.payment.create({
          data: {
            id: paymentId, accountId: checkout.accountId, kind: 'topup', status: 'paid',
            amountCents: paid.amountPaidCents ?? checkout.amountCents ?? 0, currency: settings.currency, providerId: paid.paymentId,
            document: 'receipt', businessPurchase: taxId !== null, taxId,
          },
        });
        let current = (await post(tx, account, {
          kind: 'top_up', amountCents: checkout.amountCents ?? 0, key: `checkout:${checkout.id}`, description: 'Top-up', paymentId,
        })).account;
        const promo = settings.promoCodes.find((entry) => entry.code === checkout.promoCode);
        if (promo?.bonusCreditCents) {
          current = (await post(tx, current, {
            kind: 'adjustment', amountCents: promo.bonusCreditCents, key: `checkout:${checkout.id}:bonus`,
            description: `Promo ${promo.code}: bonus credit`, paymentId,
          })).account;
        }
      } else if (subscription) {
        await this.adoptSubscription(tx, account, subscription, checkout.planId);
      }
      await tx.billingAccount.update({ where: { accountId: checkout.accountId }, data: { hasPaid: true } });
    });
  }

  // ── subscriptions ──────────────────────────────────────────────────────────────────────────────────────────

  /** The account moves onto the subscription's plan (its limits with it); the row mirrors the provider's. */
  private async adoptSubscription(tx: Tx, account: BillingAccountRow, remote: ProviderSubscription, planId: string | null): Promise<void> {
    const priced = this.planFor(remote.priceId);
    const plan = priced?.plan ?? this.settings.plans.find((entry) => entry.id === planId);
    if (!plan) {
      this.logger.warn({ subscription: remote.id, priceId: remote.priceId }, 'a subscription to a price no plan names was ignored');
      return;
    }
    const data = {
      planId: plan.id,
      interval: priced?.interval ?? remote.interval,
      status: 'active',
      currentPeriodStart: remote.currentPeriodStart,
      currentPeriodEnd: remote.currentPeriodEnd,
      cancelAtPeriodEnd: remote.cancelAtPeriodEnd,
      pendingInterval: remote.pendingPriceId ? this.planFor(remote.pendingPriceId)?.interval ?? null : null,
      paymentMethodId: remote.defaultPaymentMethodId,
    };
    await tx.subscription.upsert({
      where: { accountId: account.accountId },
      update: { ...data, providerId: remote.id },
      create: { id: newId('sub'), accountId: account.accountId, providerId: remote.id, ...data },
    });
    if (account.planId !== plan.id) {
      const moved = await tx.billingAccount.update({
        where: { accountId: account.accountId }, data: { planId: plan.id, retentionDeadline: null },
      });
      await syncConcurrency(tx, this.settings, moved);
    }
  }

  private async activeSubscription(accountId: string) {
    const subscription = await this.deps.prisma.subscription.findFirst({ where: { accountId, status: 'active' } });
    if (!subscription?.providerId) throw errors.invalidState('The account has no subscription.');
    return subscription as typeof subscription & { providerId: string };
  }

  private async mirror(accountId: string, remote: ProviderSubscription): Promise<void> {
    await this.transaction(accountId, async (tx, account) => this.adoptSubscription(tx, account, remote, null));
  }

  async cancel(accountId: string): Promise<void> {
    this.requireOn();
    const subscription = await this.activeSubscription(accountId);
    await this.mirror(accountId, await callProvider(() => this.provider.setCancelAtPeriodEnd(subscription.providerId, true)));
  }

  async uncancel(accountId: string): Promise<void> {
    this.requireOn();
    const subscription = await this.activeSubscription(accountId);
    if (!subscription.cancelAtPeriodEnd) throw errors.invalidState('No cancellation is scheduled.');
    await this.mirror(accountId, await callProvider(() => this.provider.setCancelAtPeriodEnd(subscription.providerId, false)));
  }

  /** Schedules `month` or `year` from the next period (nothing charged now); null takes a scheduled switch back. */
  async switchInterval(accountId: string, target: BillingInterval | null): Promise<void> {
    this.requireOn();
    const subscription = await this.activeSubscription(accountId);
    if (target !== null) {
      if (subscription.cancelAtPeriodEnd) throw errors.invalidState('The subscription ends at period end; take the cancellation back '
        + 'first.');
      if (target === subscription.interval) throw errors.invalidState(`The subscription is already billed every ${target}.`);
    } else if (!subscription.pendingInterval) throw errors.invalidState('No interval switch is scheduled.');
    const plan = this.settings.plans.find((entry) => entry.id === subscription.planId);
    if (!plan) throw errors.invalidState('The subscription\'s plan is no longer offered.');
    const remote = await callProvider(() => this.provider.scheduleInterval(
      subscription.providerId, target === null ? null : this.priceOf(plan, target),
    ));
    await this.mirror(accountId, remote);
  }

  /**
   * The month's included credit: what is left of the last month's goes, this month's comes (keyed by month, so
   * renewals, webhooks and the monthly sweep grant it once).
   */
  private async grantMonthlyCredit(tx: Tx, account: BillingAccountRow, month: Date): Promise<BillingAccountRow> {
    const plan = this.billing.plan(account);
    if (plan.includedMonthlyCreditCents <= 0) return account;
    const label = month.toISOString().slice(0, 7);
    const key = `monthly:${label}`;
    if (await tx.ledgerEntry.findUnique({ where: { accountId_key: { accountId: account.accountId, key } } })) return account;
    let current = account;
    if (current.monthlyCreditLeftCents > 0) {
      current = (await post(tx, current, {
        kind: 'monthly_credit_removed', amountCents: -current.monthlyCreditLeftCents, key: `${key}:expired`,
        description: 'Unspent monthly credit of last month',
      })).account;
    }
    current = (await post(tx, current, {
      kind: 'monthly_credit', amountCents: plan.includedMonthlyCreditCents, key, description: `Monthly credit ${label} (${plan.name})`,
    })).account;
    return tx.billingAccount.update({
      where: { accountId: account.accountId },
      data: { monthlyCreditPeriodStart: new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1)) },
    });
  }

  /** Yearly subscriptions get their monthly credit each month without an invoice: granted by the background sweep. */
  async grantDueMonthlyCredit(now = new Date()): Promise<void> {
    if (!this.billing.settings) return;
    const subscriptions = await this.deps.prisma.subscription.findMany({
      where: { status: 'active', currentPeriodEnd: { gt: now } }, select: { accountId: true },
    });
    for (const { accountId } of subscriptions) {
      await this.transaction(accountId, (tx, account) => this.grantMonthlyCredit(tx, account, now));
    }
  }

  /**
   * Subscriptions whose period has ended by our clock are read again from the provider: renewed ones move on, ended
   * ones downgrade. What the webhooks would have done, for a server that missed them.
   */
  async reconcileSubscriptions(now = new Date()): Promise<void> {
    if (!this.billing.settings) return;
    const due = await this.deps.prisma.subscription.findMany({ where: {
      status: 'active', currentPeriodEnd: { lte: now }, providerId: { not: null },
    } });
    for (const subscription of due) {
      try {
        const remote = await this.provider.getSubscription(subscription.providerId!);
        if (remote.status === 'canceled' || remote.status === 'incomplete_expired') {
          await this.transaction(subscription.accountId, (tx, account) => this.downgrade(tx, account, remote.id));
        } else await this.mirror(subscription.accountId, remote);
      } catch (error) {
        this.logger.warn({ subscription: subscription.id, error: String(error) }, 'reconciling a subscription with the provider failed');
      }
    }
  }

  /** The period ended without renewal: back to the default plan, unspent monthly credit removed, old data kept a grace. */
  private async downgrade(tx: Tx, account: BillingAccountRow, subscriptionProviderId: string): Promise<void> {
    const ended = await tx.subscription.updateMany({
      where: { accountId: account.accountId, providerId: subscriptionProviderId, status: 'active' },
      data: { status: 'ended', cancelAtPeriodEnd: false, pendingInterval: null },
    });
    if (!ended.count) return;
    let current = account;
    if (current.monthlyCreditLeftCents > 0) {
      current = (await post(tx, current, {
        kind: 'monthly_credit_removed', amountCents: -current.monthlyCreditLeftCents, key: `downgrade:${subscriptionProviderId}`,
        description: 'Unspent monthly credit removed at the end of the subscription',
      })).account;
    }
    const settings = this.settings;
    // Data older than the default plan's retention is deleted once the grace has passed (none without a retention).
    const keepsFor = this.billing.plan({ planId: settings.defaultPlanId }).limits.retentionDays;
    const retentionDeadline = keepsFor === null ? null : new Date(Date.now() + settings.downgradeGraceDays * DAY_MS);
    const moved = await tx.billingAccount.update({
      where: { accountId: account.accountId }, data: { planId: settings.defaultPlanId, retentionDeadline },
    });
    await syncConcurrency(tx, settings, moved);
  }

  // ── webhooks ───────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * A webhook delivery: verified, then applied once (a redelivered event id is acknowledged and ignored). Answers
   * what was done, for the log. A bad signature is 400 and changes nothing.
   */
  async handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ applied: boolean; type: string }> {
    this.requireOn();
    let event: ProviderEvent;
    try {
      event = this.provider.verifyWebhook(rawBody, signature);
    } catch (error) {
      if (error instanceof WebhookSignatureError) {
        throw new ApiError('invalid_signature', 400, `The webhook signature was refused: ${error.message}.`, {
          details: { field: 'Stripe-Signature' },
        });
      }
      throw error;
    }
    if (event.type === 'ignored') return { applied: false, type: event.providerType };
    const seen = await this.deps.prisma.providerEvent.findUnique({ where: { id: event.id } });
    if (seen) return { applied: false, type: event.type };
    await this.apply(event);
    // Recorded after applying: a crash between the two re-applies an event whose effects are keyed (no double credit).
    await this.deps.prisma.providerEvent.upsert({ where: { id: event.id }, update: {}, create: { id: event.id, type: event.type } });
    return { applied: true, type: event.type };
  }

  private async accountOfCustomer(customerId: string): Promise<string | null> {
    const account = await this.deps.prisma.billingAccount.findUnique({
      where: { providerCustomerId: customerId }, select: { accountId: true },
    });
    return account?.accountId ?? null;
  }

  private async apply(event: Exclude<ProviderEvent, { type: 'ignored' }>): Promise<void> {
    switch (event.type) {
      case 'checkout.completed': {
        const checkout = await this.deps.prisma.checkout.findUnique({ where: { providerId: event.checkoutProviderId } });
        if (!checkout) return this.logger.warn({ checkout: event.checkoutProviderId }, 'a completed checkout this server did not open was '
          + 'ignored');
        if (event.paid) {
          await this.completeCheckout(checkout, {
            paymentId: event.paymentId, subscriptionId: event.subscriptionId, amountPaidCents: event.amountCents,
          });
        }
        return;
      }
      case 'checkout.expired':
      case 'checkout.failed':
        await this.deps.prisma.checkout.updateMany({
          where: { providerId: event.checkoutProviderId, status: 'open' },
          data: { status: event.type === 'checkout.expired' ? 'expired' : 'failed' },
        });
        return;
      case 'invoice.paid': {
        const remote = await callProvider(() => this.provider.getSubscription(event.subscriptionId));
        const accountId = await this.accountOfCustomer(remote.customerId);
        if (!accountId) return this.logger.warn({ subscription: remote.id }, 'an invoice of an unknown customer was ignored');
        await this.syncPaymentMethods(accountId);
        await this.transaction(accountId, async (tx, account) => {
          const details = isObject(account.details) ? account.details : {};
          const taxId = typeof details.taxId === 'string' && details.taxId ? details.taxId : null;
          await this.adoptSubscription(tx, account, remote, remote.metadata.planId ?? null);
          await tx.payment.upsert({
            where: { providerId: event.invoiceId },
            update: { status: 'paid' },
            create: {
              id: newId('pay'), accountId, kind: 'subscription', status: 'paid', amountCents: event.amountCents,
              currency: this.settings.currency, providerId: event.invoiceId, document: 'invoice', businessPurchase: taxId !== null, taxId,
            },
          });
          const current = await tx.billingAccount.update({ where: { accountId }, data: { hasPaid: true } });
          await this.grantMonthlyCredit(tx, current, event.periodStart);
          if (remote.defaultPaymentMethodId) {
            await tx.paymentMethod.updateMany({ where: { providerId: remote.defaultPaymentMethodId }, data: { declined: false } });
          }
        });
        return;
      }
      case 'subscription.updated': {
        const accountId = await this.accountOfCustomer(event.subscription.customerId);
        if (!accountId) return;
        const remote = await callProvider(() => this.provider.getSubscription(event.subscription.id));
        const known = await this.deps.prisma.subscription.findFirst({ where: { providerId: remote.id, status: 'active' } });
        if (known) await this.mirror(accountId, remote);
        return;
      }
      case 'subscription.deleted': {
        const accountId = await this.accountOfCustomer(event.subscription.customerId);
        if (!accountId) return;
        await this.transaction(accountId, (tx, account) => this.downgrade(tx, account, event.subscription.id));
        return;
      }
      case 'payment.succeeded':
      case 'payment.failed': {
        const attemptId = event.metadata.autoTopUpAttemptId;
        if (attemptId) {
          await this.settleAttempt(attemptId, event.type === 'payment.succeeded' ? 'paid' : 'declined', event.paymentId, event.message);
        }
        return;
      }
    }
  }

  // ── payment methods, portal, payments ──────────────────────────────────────────────────────────────────────

  /** Mirrors the provider's saved cards (a card's `declined` mark is ours and survives). */
  async syncPaymentMethods(accountId: string): Promise<void> {
    const account = await this.deps.prisma.billingAccount.findUnique({ where: { accountId } });
    if (!account?.providerCustomerId) return;
    const remote = await callProvider(() => this.provider.listPaymentMethods(account.providerCustomerId!));
    await this.deps.prisma.$transaction(async (tx) => {
      await tx.paymentMethod.deleteMany({ where: { accountId, providerId: { notIn: remote.map((method) => method.id) } } });
      for (const method of remote) {
        const data = {
          brand: method.brand, last4: method.last4, expMonth: method.expMonth, expYear: method.expYear, wallet: method.wallet,
          isDefault: method.isDefault,
        };
        await tx.paymentMethod.upsert({
          where: { providerId: method.id }, update: data, create: { id: newId('pm'), accountId, providerId: method.id, ...data },
        });
      }
      // Without any card there is nothing to charge automatically.
      if (remote.length === 0) await tx.billingAccount.update({ where: { accountId }, data: { autoTopUpEnabled: false } });
    }, TX_OPTIONS);
  }

  async paymentMethods(accountId: string): Promise<PaymentMethodView[]> {
    if (!this.billing.settings) return [];
    await this.syncPaymentMethods(accountId);
    const rows = await this.deps.prisma.paymentMethod.findMany({
      where: { accountId }, orderBy: [{ isDefault: 'desc' }, { createdAt: 'desc' }, { id: 'asc' }],
    });
    return rows.map((row) => ({
      id: row.id, brand: row.brand, last4: row.last4, expMonth: row.expMonth, expYear: row.expYear, wallet: row.wallet,
      isDefault: row.isDefault, declined: row.declined,
    }));
  }

  /** The account's customer at the provider, made on first use; its id is kept on the billing account. */
  private async providerCustomer(
    accountId: string, account: { providerCustomerId: string | null }, contact: { email: string | null; name: string | null },
  ): Promise<string> {
    const customerId = await callProvider(() => this.provider.ensureCustomer({
      existingId: account.providerCustomerId, accountId, ...contact,
    }));
    if (customerId !== account.providerCustomerId) {
      await this.deps.prisma.billingAccount.update({ where: { accountId }, data: { providerCustomerId: customerId } });
    }
    return customerId;
  }

  /** The provider's portal to add, replace or default a card; works before the first payment (the customer is made). */
  async manageUrl(buyer: Buyer, baseUrl: string): Promise<string> {
    this.requireOn();
    const account = await this.billing.account(buyer.accountId);
    const customerId = await this.providerCustomer(buyer.accountId, account, { email: buyer.email, name: null });
    return callProvider(() => this.provider.portalUrl(customerId, this.billing.topUpUrl(baseUrl)));
  }

  /** The customer portal: 409 payment_method_required before the first checkout saved a card. */
  async portalUrl(accountId: string, baseUrl: string): Promise<string> {
    this.requireOn();
    const account = await this.billing.account(accountId);
    const cards = await this.deps.prisma.paymentMethod.count({ where: { accountId } });
    if (!account.providerCustomerId || cards === 0) {
      throw new ApiError('payment_method_required', 409, 'No payment method is saved yet: pay once by checkout (or add a card through '
        + 'POST /v1/billing/payment-methods/manage).', { retryable: false });
    }
    return callProvider(() => this.provider.portalUrl(account.providerCustomerId!, this.billing.topUpUrl(baseUrl)));
  }

  /** 409 payment_method_in_use while it pays the subscription; removing the last card turns auto top-up off. */
  async deletePaymentMethod(accountId: string, id: string): Promise<void> {
    this.requireOn();
    const method = await this.deps.prisma.paymentMethod.findFirst({ where: { accountId, OR: [{ id }, { providerId: id }] } });
    if (!method) throw errors.notFound('The payment method');
    const subscription = await this.deps.prisma.subscription.findFirst({ where: { accountId, status: 'active' } });
    if (subscription && (subscription.paymentMethodId === method.providerId || (!subscription.paymentMethodId && method.isDefault))) {
      throw new ApiError('payment_method_in_use', 409, 'This card pays the subscription; make another card the default first, or cancel '
        + 'the subscription.', { details: { subscriptionId: subscription.id }, retryable: false });
    }
    await callProvider(() => this.provider.detachPaymentMethod(method.providerId));
    await this.deps.prisma.$transaction(async (tx) => {
      await tx.paymentMethod.delete({ where: { id: method.id } });
      if (await tx.paymentMethod.count({ where: { accountId } }) === 0) {
        await tx.billingAccount.updateMany({ where: { accountId }, data: { autoTopUpEnabled: false } });
      }
    }, TX_OPTIONS);
  }

  /** Payment history newest first, paged by `cursor` (src/core/cursor.ts). */
  async payments(accountId: string, query: { cursor?: string | null; limit?: number | null }): Promise<{
    items: PaymentView[]; nextCursor: string | null;
  }> {
    if (!this.billing.settings) return { items: [], nextCursor: null };
    const page = await pageNewestFirst(
      query,
      (after, take) => this.deps.prisma.payment.findMany({
        where: { accountId, ...after }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take,
      }),
    );
    return {
      items: page.rows.map((row) => ({
        id: row.id, kind: row.kind, status: row.status, amount: dollars(row.amountCents), currency: row.currency,
        createdAt: row.createdAt.toISOString(), document: row.document as PaymentView['document'], businessPurchase: row.businessPurchase,
        taxId: row.taxId,
      })),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * A short-lived link to the payment's invoice or receipt, or `pending` until the provider has made it. An
   * invoice is addressed: the billing details' name, address and country must be saved first.
   */
  async document(accountId: string, paymentId: string): Promise<{ pending: true } | { pending: false; url: string; document: string }> {
    this.requireOn();
    const payment = await this.deps.prisma.payment.findFirst({ where: { accountId, id: paymentId } });
    if (!payment) throw errors.notFound('The payment');
    if (!payment.providerId) throw errors.notFound('The payment\'s document');
    const account = await this.billing.account(accountId);
    const details = isObject(account.details) ? account.details : {};
    const missing = ['name', 'line1', 'city', 'postalCode', 'country'].filter(
      (field) => typeof details[field] !== 'string' || !(details[field] as string).trim(),
    );
    if (payment.document === 'invoice' && missing.length) {
      throw new ApiError('billing_details_required', 409, `An invoice is addressed: save the billing details first (missing: `
        + `${missing.join(', ')}).`, { details: { fields: missing }, retryable: false });
    }
    const url = await callProvider(() => this.provider.documentUrl({
      providerId: payment.providerId!, kind: payment.document as 'invoice' | 'receipt',
    }));
    return url ? { pending: false, url, document: payment.document } : { pending: true };
  }

  // ── auto top-up ────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Charges the configured amount to the default card when the balance has fallen to the threshold (trigger
   * `threshold`), or now (`retry`). At most `perDay` attempts a UTC day, one at a time: the attempt row is written
   * `pending` under the account lock before the provider is asked, and settled (credit, payment, declined card)
   * in one keyed transaction after.
   */
  async autoTopUp(accountId: string, trigger: 'threshold' | 'retry'): Promise<void> {
    const settings = this.requireOn();
    const started = await this.transaction(accountId, async (tx, account) => {
      if (!account.autoTopUpEnabled || account.autoTopUpAmountCents === null) {
        if (trigger === 'retry') throw new ApiError('auto_top_up_off', 409, 'Auto top-up is off; turn it on with PUT '
          + '/v1/billing/auto-top-up.', { retryable: false });
        return null;
      }
      if (!this.provider.offersAutomaticCharges) {
        if (trigger === 'retry') throw errors.invalidState('The payment provider takes no automatic charges.');
        return null;
      }
      if (trigger === 'threshold' && (account.autoTopUpThresholdCents === null || account.balanceCents > account.autoTopUpThresholdCents)) {
        return null;
      }
      if (await tx.autoTopUpAttempt.findFirst({ where: { accountId, outcome: 'pending' } })) {
        if (trigger === 'retry') throw errors.invalidState('An automatic charge is in progress; wait for its outcome.');
        return null;
      }
      const dayStart = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
      const today = await tx.autoTopUpAttempt.count({ where: { accountId, at: { gte: dayStart } } });
      if (today >= settings.autoTopUp.perDay) {
        if (trigger === 'retry') {
          throw errors.rateLimited(Math.max(1, Math.ceil((dayStart.getTime() + DAY_MS - Date.now()) / 1000)), {
            metric: 'auto_top_up_per_day', limit: settings.autoTopUp.perDay,
          });
        }
        return null;
      }
      const card = await tx.paymentMethod.findFirst({ where: { accountId }, orderBy: [{ isDefault: 'desc' }, { createdAt: 'desc' }] });
      if (!card || !account.providerCustomerId) {
        if (trigger === 'retry') throw new ApiError('payment_method_required', 409, 'No payment method is saved.', { retryable: false });
        return null;
      }
      const attempt = await tx.autoTopUpAttempt.create({ data: {
        id: newId('atu'), accountId, amountCents: account.autoTopUpAmountCents, outcome: 'pending', trigger,
      } });
      return { attempt, card, customerId: account.providerCustomerId };
    });
    if (!started) return;
    let outcome: Awaited<ReturnType<PaymentProvider['chargeOffSession']>>;
    try {
      outcome = await this.provider.chargeOffSession({
        customerId: started.customerId,
        paymentMethodId: started.card.providerId,
        amountCents: started.attempt.amountCents,
        idempotencyKey: started.attempt.id,
        description: 'Auto top-up',
        metadata: { accountId, autoTopUpAttemptId: started.attempt.id },
      });
    } catch (error) {
      // Not answered: the attempt stays pending and counts; the provider's webhook settles it if it was made.
      this.logger.warn({ accountId, attempt: started.attempt.id, error: String(error) }, 'an auto top-up charge was not answered');
      if (error instanceof ProviderRefused) await this.settleAttempt(started.attempt.id, 'declined', null, error.message);
      else if (trigger === 'retry') throw providerError(error);
      return;
    }
    await this.settleAttempt(started.attempt.id, outcome.outcome, outcome.providerId, outcome.message);
  }

  /** An attempt's outcome: paid → credit and a receipt; declined → the card is marked. Once per attempt. */
  private async settleAttempt(
    attemptId: string, outcome: 'paid' | 'declined' | 'pending', providerPaymentId: string | null, message: string | null,
  ): Promise<void> {
    if (outcome === 'pending') return;
    const attempt = await this.deps.prisma.autoTopUpAttempt.findUnique({ where: { id: attemptId } });
    if (!attempt) return;
    await this.transaction(attempt.accountId, async (tx, account) => {
      const moved = await tx.autoTopUpAttempt.updateMany({ where: { id: attemptId, outcome: 'pending' }, data: { outcome, message } });
      if (!moved.count) return;
      if (outcome === 'declined') {
        await tx.paymentMethod.updateMany({ where: { accountId: attempt.accountId, isDefault: true }, data: { declined: true } });
        return;
      }
      const paymentId = newId('pay');
      await tx.payment.create({ data: {
        id: paymentId, accountId: attempt.accountId, kind: 'auto_top_up', status: 'paid', amountCents: attempt.amountCents,
        currency: this.settings.currency, providerId: providerPaymentId, document: 'receipt',
      } });
      await tx.autoTopUpAttempt.update({ where: { id: attemptId }, data: { paymentId } });
      await post(tx, account, {
        kind: 'top_up', amountCents: attempt.amountCents, key: `auto-top-up:${attemptId}`, description: 'Auto top-up', paymentId,
      });
      await tx.billingAccount.update({ where: { accountId: attempt.accountId }, data: { hasPaid: true } });
    });
  }
}

/** The CheckPromoCode body: `{code, for}`. */
export function promoFields(body: unknown): { code: string; for: 'topup' | 'subscribe' } {
  const { code, for: kind } = bodyWithFields(body, ['code', 'for'], '{code, for}');
  if (typeof code !== 'string' || !code.trim() || code.length > 100) throw errors.invalidBody('code must be a non-empty string of at most '
    + '100 characters.', { field: 'code' });
  if (kind !== 'topup' && kind !== 'subscribe') throw errors.invalidBody('for must be "topup" or "subscribe".', { field: 'for' });
  return { code, for: kind };
}

/** The body of POST /v1/billing/subscription/interval: `{interval: "month" | "year"}`. */
export function intervalField(body: unknown): BillingInterval {
  const { interval } = bodyWithFields(body, ['interval'], '{interval}');
  if (interval !== 'month' && interval !== 'year') throw errors.invalidBody('interval must be "month" or "year".', { field: 'interval' });
  return interval;
}

/**
 * The CreateCheckout body's shape (unknown fields, types, terms accepted), checked before anything else; ranges,
 * plans and codes are the service's. The REST adapter runs it first so the 422 names the field.
 */
export function checkoutFields(body: unknown): {
  kind: 'topup' | 'subscribe'; amount: unknown; planId: unknown; interval: unknown; promoCode: string | null;
} {
  const { kind, amount, planId, interval, promoCode, acceptTerms, waiveWithdrawal } = bodyWithFields(
    body, ['kind', 'amount', 'planId', 'interval', 'promoCode', 'acceptTerms', 'waiveWithdrawal'], 'a CreateCheckout object',
  );
  if (kind !== 'topup' && kind !== 'subscribe') throw errors.invalidBody('kind must be "topup" or "subscribe".', { field: 'kind' });
  if (amount != null && (typeof amount !== 'number' || !Number.isFinite(amount))) {
    throw errors.invalidBody('amount must be an amount in dollars or null.', { field: 'amount' });
  }
  if (planId != null && typeof planId !== 'string') throw errors.invalidBody('planId must be a string or null.', { field: 'planId' });
  if (interval != null && typeof interval !== 'string') {
    throw errors.invalidBody('interval must be "month", "year" or null.', { field: 'interval' });
  }
  if (acceptTerms !== undefined && acceptTerms !== null && typeof acceptTerms !== 'boolean') {
    throw errors.invalidBody('acceptTerms must be a boolean.', { field: 'acceptTerms' });
  }
  if (waiveWithdrawal !== undefined && waiveWithdrawal !== null && typeof waiveWithdrawal !== 'boolean') {
    throw errors.invalidBody('waiveWithdrawal must be a boolean (it is deprecated and ignored).', { field: 'waiveWithdrawal' });
  }
  if (acceptTerms !== true) {
    throw errors.invalidBody('acceptTerms must be true: the terms must be accepted to pay.', { field: 'acceptTerms' });
  }
  if (promoCode != null && (typeof promoCode !== 'string' || !promoCode.trim() || promoCode.length > 100)) {
    throw errors.invalidBody('promoCode must be a non-empty string of at most 100 characters, or null.', { field: 'promoCode' });
  }
  return { kind, amount, planId, interval, promoCode: promoCode ?? null };
}

/** A subscription's first payment less a promo's discount, when the provider did not say. */
function discounted(cents: number, promo: PromoCodeSettings | null): number {
  if (!promo) return cents;
  if (promo.percentOff !== null) return Math.round(cents * (100 - promo.percentOff) / 100);
  return Math.max(0, cents - (promo.amountOffCents ?? 0));
}

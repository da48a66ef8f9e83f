/**
 * What billing answers: the account's BillingView (`GET /v1/billing`) and the plan list (`GET /v1/billing/plans`),
 * in dollars. Read-only; every number comes from the ledger's rows and the operator's plans file.
 */
import type { BillingSettings, MoneyRange, PlanSettings } from '../core/config/billing.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { dollars, ratePerHour, type BillingService, type StartBlock } from './service.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

export interface MoneyRangeView { min: number; max: number }
/** The spec's DateRange: both days inclusive, `YYYY-MM-DD` (UTC). */
export interface DateRange { start: string; end: string }

/** The days of the instants [start, end): the last day is the one before `end`'s instant. */
export function daysOf(start: Date, end: Date): DateRange {
  return { start: start.toISOString().slice(0, 10), end: new Date(end.getTime() - 1).toISOString().slice(0, 10) };
}

export interface PlanView {
  id: string;
  name: string;
  rates: { file: number; live: number; minimumSeconds: number };
  prices: { month: number; year: number } | null;
  includedMonthlyCredit: number;
  graceOnZero: boolean;
  limits: { concurrentTranscriptions: number; createsPerHour: number; createsPerHourUnpaid: number; retentionDays: number | null };
  features: string[];
  billedByHand: boolean;
}

export interface PlanListView {
  enabled: boolean;
  currency: string | null;
  plans: PlanView[];
  defaultPlanId: string | null;
  topUpPresets: number[];
  topUpRange: MoneyRangeView | null;
  autoTopUp: {
    offered: boolean; thresholds: number[]; amounts: number[]; thresholdRange: MoneyRangeView; amountRange: MoneyRangeView; perDay: number;
  } | null;
  lowBalanceAlert: { thresholds: number[]; range: MoneyRangeView } | null;
  signupCredit: number;
  downgradeGraceDays: number | null;
}

export interface AutoTopUpView {
  enabled: boolean;
  available: boolean;
  amount: number | null;
  threshold: number | null;
  last: { at: string; amount: number; outcome: string } | null;
}

export interface BillingView {
  enabled: boolean;
  balance: number;
  inGrace: boolean;
  canStart: boolean;
  startBlock: StartBlock | null;
  canStartLive: boolean;
  startBlockLive: StartBlock | null;
  currency: string | null;
  plan: { id: string; name: string } | null;
  rates: { file: number; live: number; minimumSeconds: number; currency: string } | null;
  limits: PlanView['limits'] | null;
  limitsUsage: { concurrentTranscriptions: number; createsThisHour: number; createsResetAt: string | null } | null;
  subscription: {
    id: string; planId: string; interval: string; status: string; currentPeriodStart: string; currentPeriodEnd: string;
    cancelAtPeriodEnd: boolean; pendingInterval: string | null;
  } | null;
  pendingChange: { kind: 'cancel' | 'interval'; at: string; planId: string | null; interval: string | null } | null;
  pendingPayment: { checkoutId: string; kind: string; amount: number | null; url: string | null; createdAt: string } | null;
  monthlyCredit: { amount: number; left: number; periodStart: string | null } | null;
  card: { brand: string; last4: string; declined: boolean; expMonth: number | null; expYear: number | null } | null;
  period: DateRange | null;
  previousPeriod: DateRange | null;
  accountCreated: string | null;
  retentionDeadline: string | null;
  hasPaid: boolean;
  topUpUrl: string;
  autoTopUp: AutoTopUpView;
  lowBalanceAlert: { enabled: boolean; threshold: number | null };
}

const rangeView = (range: MoneyRange): MoneyRangeView => ({ min: dollars(range.minCents), max: dollars(range.maxCents) });

export function planView(plan: PlanSettings): PlanView {
  return {
    id: plan.id,
    name: plan.name,
    rates: {
      file: ratePerHour(plan.rates.fileMicros), live: ratePerHour(plan.rates.liveMicros), minimumSeconds: plan.rates.minimumSeconds,
    },
    prices: plan.prices ? { month: dollars(plan.prices.monthCents), year: dollars(plan.prices.yearCents) } : null,
    includedMonthlyCredit: dollars(plan.includedMonthlyCreditCents),
    graceOnZero: plan.graceCapCents > 0,
    limits: { ...plan.limits },
    features: plan.features,
    billedByHand: plan.billedByHand,
  };
}

export function planListView(settings: BillingSettings | null, offersAutomaticCharges: boolean): PlanListView {
  if (!settings) {
    return {
      enabled: false, currency: null, plans: [], defaultPlanId: null, topUpPresets: [], topUpRange: null, autoTopUp: null,
      lowBalanceAlert: null, signupCredit: 0, downgradeGraceDays: null,
    };
  }
  return {
    enabled: true,
    currency: settings.currency,
    plans: settings.plans.filter((plan) => plan.visible).map(planView),
    defaultPlanId: settings.defaultPlanId,
    topUpPresets: settings.topUp.presetsCents.map(dollars),
    topUpRange: rangeView(settings.topUp.range),
    autoTopUp: {
      offered: offersAutomaticCharges,
      thresholds: settings.autoTopUp.thresholdsCents.map(dollars),
      amounts: settings.autoTopUp.amountsCents.map(dollars),
      thresholdRange: rangeView(settings.autoTopUp.thresholdRange),
      amountRange: rangeView(settings.autoTopUp.amountRange),
      perDay: settings.autoTopUp.perDay,
    },
    lowBalanceAlert: {
      thresholds: settings.lowBalanceAlert.thresholdsCents.map(dollars), range: rangeView(settings.lowBalanceAlert.range),
    },
    signupCredit: dollars(settings.signupCreditCents),
    downgradeGraceDays: settings.downgradeGraceDays,
  };
}

/** The calendar month (UTC) holding `at`, and the one before it. */
export function calendarMonth(at: Date, offset = 0): DateRange {
  return daysOf(
    new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1)),
    new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset + 1, 1)),
  );
}

const OFF_VIEW = (topUpUrl: string): BillingView => ({
  enabled: false, balance: 0, inGrace: false, canStart: true, startBlock: null, canStartLive: true, startBlockLive: null, currency: null,
  plan: null, rates: null, limits: null, limitsUsage: null, subscription: null, pendingChange: null, pendingPayment: null,
  monthlyCredit: null,
  card: null, period: null, previousPeriod: null, accountCreated: null, retentionDeadline: null, hasPaid: false, topUpUrl,
  autoTopUp: { enabled: false, available: false, amount: null, threshold: null, last: null },
  lowBalanceAlert: { enabled: false, threshold: null },
});

export async function billingView(prisma: PrismaClient, billing: BillingService, accountId: string, baseUrl: string): Promise<BillingView> {
  const topUpUrl = billing.topUpUrl(baseUrl);
  const settings = billing.settings;
  if (!settings) return OFF_VIEW(topUpUrl);
  await billing.account(accountId);
  return prisma.$transaction(async (tx) => {
    const account = await tx.billingAccount.findUniqueOrThrow({ where: { accountId } });
    const plan = billing.plan(account);
    const [file, live, subscription, card, openCheckout, lastAttempt, owner] = await Promise.all([
      billing.blockFor(tx, account, plan, 'file'),
      billing.blockFor(tx, account, plan, 'live'),
      tx.subscription.findFirst({ where: { accountId, status: 'active' } }),
      tx.paymentMethod.findFirst({ where: { accountId }, orderBy: [{ isDefault: 'desc' }, { createdAt: 'desc' }] }),
      tx.checkout.findFirst({
        where: { accountId, status: 'open', OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] }, orderBy: { createdAt: 'desc' },
      }),
      tx.autoTopUpAttempt.findFirst({ where: { accountId }, orderBy: { at: 'desc' } }),
      tx.account.findUniqueOrThrow({ where: { id: accountId }, select: { createdAt: true } }),
    ]);
    const createsThisHour = await tx.billingAdmission.count({ where: { accountId, at: { gt: new Date(Date.now() - 3_600_000) } } });
    const now = new Date();
    const period = subscription ? daysOf(subscription.currentPeriodStart, subscription.currentPeriodEnd) : calendarMonth(now);
    const previousPeriod = subscription
      ? daysOf(
        new Date(
          subscription.currentPeriodStart.getTime() - (subscription.currentPeriodEnd.getTime() - subscription.currentPeriodStart.getTime()),
        ),
        subscription.currentPeriodStart,
      )
      : calendarMonth(now, -1);
    let pendingChange: BillingView['pendingChange'] = null;
    if (subscription?.cancelAtPeriodEnd) pendingChange = {
      kind: 'cancel', at: subscription.currentPeriodEnd.toISOString(), planId: settings.defaultPlanId, interval: null,
    };
    else if (subscription?.pendingInterval) pendingChange = {
      kind: 'interval', at: subscription.currentPeriodEnd.toISOString(), planId: subscription.planId,
      interval: subscription.pendingInterval,
    };
    return {
      enabled: true,
      balance: dollars(account.balanceCents),
      inGrace: account.balanceCents < 0 && plan.graceCapCents > 0,
      canStart: file.block === null,
      startBlock: file.block,
      canStartLive: live.block === null,
      startBlockLive: live.block,
      currency: settings.currency,
      plan: { id: plan.id, name: plan.name },
      rates: {
        file: ratePerHour(plan.rates.fileMicros), live: ratePerHour(plan.rates.liveMicros), minimumSeconds: plan.rates.minimumSeconds,
        currency: settings.currency,
      },
      limits: { ...plan.limits },
      limitsUsage: { concurrentTranscriptions: file.used, createsThisHour, createsResetAt: file.resetsAt?.toISOString() ?? null },
      subscription: subscription ? {
        id: subscription.id, planId: subscription.planId, interval: subscription.interval,
        status: subscription.cancelAtPeriodEnd ? 'canceling' : subscription.status,
        currentPeriodStart: subscription.currentPeriodStart.toISOString(), currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
        cancelAtPeriodEnd: subscription.cancelAtPeriodEnd, pendingInterval: subscription.pendingInterval,
      } : null,
      pendingChange,
      pendingPayment: openCheckout ? {
        checkoutId: openCheckout.id, kind: openCheckout.kind,
        amount: openCheckout.amountCents === null ? null : dollars(openCheckout.amountCents), url: openCheckout.url,
        createdAt: openCheckout.createdAt.toISOString(),
      } : null,
      monthlyCredit: plan.includedMonthlyCreditCents > 0 ? {
        amount: dollars(plan.includedMonthlyCreditCents), left: dollars(account.monthlyCreditLeftCents),
        periodStart: account.monthlyCreditPeriodStart?.toISOString() ?? null,
      } : null,
      card: card ? { brand: card.brand, last4: card.last4, declined: card.declined, expMonth: card.expMonth, expYear: card.expYear } : null,
      period,
      previousPeriod,
      accountCreated: owner.createdAt.toISOString().slice(0, 10),
      retentionDeadline: account.retentionDeadline?.toISOString() ?? null,
      hasPaid: account.hasPaid,
      topUpUrl,
      autoTopUp: {
        enabled: account.autoTopUpEnabled,
        available: card !== null,
        amount: account.autoTopUpAmountCents === null ? null : dollars(account.autoTopUpAmountCents),
        threshold: account.autoTopUpThresholdCents === null ? null : dollars(account.autoTopUpThresholdCents),
        last: lastAttempt ? {
          at: lastAttempt.at.toISOString(), amount: dollars(lastAttempt.amountCents), outcome: lastAttempt.outcome,
        } : null,
      },
      lowBalanceAlert: {
        enabled: account.lowBalanceAlertEnabled,
        threshold: account.lowBalanceThresholdCents === null ? null : dollars(account.lowBalanceThresholdCents),
      },
    };
  }, TX_OPTIONS);
}

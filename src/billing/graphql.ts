import { builder } from '../core/builder.js';
import { baseUrlOf } from '../core/context.js';
import { billingView, planListView, type BillingView, type MoneyRangeView, type PlanListView, type PlanView } from './views.js';

/** Money is dollars (whole cents) everywhere in the interface. */

export const MoneyRangeType = builder.objectRef<MoneyRangeView>('MoneyRange').implement({
  description: 'Inclusive range of whole-cent amounts, in dollars.',
  fields: (t) => ({ min: t.exposeFloat('min'), max: t.exposeFloat('max') }),
});

const RatesType = builder.objectRef<PlanView['rates'] & { currency?: string }>('Rates').implement({
  description: 'Dollars per hour of audio, and the least a transcription is billed.',
  fields: (t) => ({
    file: t.exposeFloat('file', { description: 'File and link transcriptions.' }),
    live: t.exposeFloat('live', { description: 'Live transcriptions and realtime sessions.' }),
    minimumSeconds: t.exposeInt('minimumSeconds'),
    currency: t.string({ nullable: true, resolve: (rates) => rates.currency ?? null }),
  }),
});

const PricesType = builder.objectRef<NonNullable<PlanView['prices']>>('PlanPrices').implement({
  description: 'Subscription prices in dollars, before tax.',
  fields: (t) => ({ month: t.exposeFloat('month'), year: t.exposeFloat('year') }),
});

const LimitsType = builder.objectRef<PlanView['limits']>('PlanLimits').implement({
  fields: (t) => ({
    concurrentTranscriptions: t.exposeInt('concurrentTranscriptions', { description: 'File jobs beyond it queue; live ones are refused '
      + '(402 quota_exceeded).' }),
    createsPerHour: t.exposeInt('createsPerHour', { description: 'New transcriptions an hour once the account has paid.' }),
    createsPerHourUnpaid: t.exposeInt('createsPerHourUnpaid', { description: 'New transcriptions an hour before the first payment.' }),
    retentionDays: t.exposeInt('retentionDays', { nullable: true, description: 'Days recordings are kept; null: until deleted.' }),
  }),
});

export const PlanType = builder.objectRef<PlanView>('Plan').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    rates: t.field({ type: RatesType, resolve: (plan) => plan.rates }),
    prices: t.field({
      type: PricesType, nullable: true, description: 'Null: no subscription (pay as you go).', resolve: (plan) => plan.prices,
    }),
    includedMonthlyCredit: t.exposeFloat('includedMonthlyCredit'),
    graceOnZero: t.exposeBoolean('graceOnZero', { description: 'Running transcriptions continue for a while below zero (new ones are '
      + 'refused).' }),
    limits: t.field({ type: LimitsType, resolve: (plan) => plan.limits }),
    features: t.exposeStringList('features'),
    billedByHand: t.exposeBoolean('billedByHand', { description: 'Invoiced by the operator: no checkout.' }),
  }),
});

const AutoTopUpChoicesType = builder.objectRef<NonNullable<PlanListView['autoTopUp']>>('AutoTopUpChoices').implement({
  description: 'Presets and ranges for auto top-up; any whole-cent value inside a range is accepted.',
  fields: (t) => ({
    offered: t.exposeBoolean('offered', { description: 'False: the payment provider takes no automatic charges.' }),
    thresholds: t.exposeFloatList('thresholds'),
    amounts: t.exposeFloatList('amounts'),
    thresholdRange: t.field({ type: MoneyRangeType, resolve: (choices) => choices.thresholdRange }),
    amountRange: t.field({ type: MoneyRangeType, resolve: (choices) => choices.amountRange }),
    perDay: t.exposeInt('perDay', { description: 'Automatic charges a day at most (retries included).' }),
  }),
});

const LowBalanceChoicesType = builder.objectRef<NonNullable<PlanListView['lowBalanceAlert']>>('LowBalanceAlertChoices').implement({
  fields: (t) => ({
    thresholds: t.exposeFloatList('thresholds'),
    range: t.field({ type: MoneyRangeType, resolve: (choices) => choices.range }),
  }),
});

const PlanListType = builder.objectRef<PlanListView>('PlanList').implement({
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    currency: t.exposeString('currency', { nullable: true }),
    plans: t.field({ type: [PlanType], resolve: (list) => list.plans }),
    defaultPlanId: t.exposeString('defaultPlanId', { nullable: true }),
    topUpPresets: t.exposeFloatList('topUpPresets'),
    topUpRange: t.field({ type: MoneyRangeType, nullable: true, resolve: (list) => list.topUpRange }),
    autoTopUp: t.field({ type: AutoTopUpChoicesType, nullable: true, resolve: (list) => list.autoTopUp }),
    lowBalanceAlert: t.field({ type: LowBalanceChoicesType, nullable: true, resolve: (list) => list.lowBalanceAlert }),
    signupCredit: t.exposeFloat('signupCredit'),
    downgradeGraceDays: t.exposeInt('downgradeGraceDays', { nullable: true }),
  }),
});

const PlanRefType = builder.objectRef<NonNullable<BillingView['plan']>>('PlanRef').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

const LimitsUsageType = builder.objectRef<NonNullable<BillingView['limitsUsage']>>('LimitsUsage').implement({
  fields: (t) => ({
    concurrentTranscriptions: t.exposeInt('concurrentTranscriptions', { description: 'Transcriptions running now (file jobs transcribing, '
      + 'live audio metered).' }),
    createsThisHour: t.exposeInt('createsThisHour'),
    createsResetAt: t.exposeString('createsResetAt', { nullable: true, description: 'When a creation frees up, while the hour\'s are '
      + 'used.' }),
  }),
});

const SubscriptionViewType = builder.objectRef<NonNullable<BillingView['subscription']>>('SubscriptionView').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    planId: t.exposeString('planId'),
    interval: t.exposeString('interval', { description: '`month` or `year`.' }),
    status: t.exposeString('status', { description: '`active`, or `canceling` while a cancellation is scheduled.' }),
    currentPeriodStart: t.exposeString('currentPeriodStart'),
    currentPeriodEnd: t.exposeString('currentPeriodEnd'),
    cancelAtPeriodEnd: t.exposeBoolean('cancelAtPeriodEnd'),
    pendingInterval: t.exposeString('pendingInterval', { nullable: true, description: 'A switch scheduled from the next period.' }),
  }),
});

const PendingChangeType = builder.objectRef<NonNullable<BillingView['pendingChange']>>('PendingChange').implement({
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '`cancel` (to the default plan) or `interval`.' }),
    at: t.exposeString('at'),
    planId: t.exposeString('planId', { nullable: true }),
    interval: t.exposeString('interval', { nullable: true }),
  }),
});

const PendingPaymentType = builder.objectRef<NonNullable<BillingView['pendingPayment']>>('PendingPayment').implement({
  description: 'A checkout still open.',
  fields: (t) => ({
    checkoutId: t.exposeID('checkoutId'),
    kind: t.exposeString('kind'),
    amount: t.exposeFloat('amount', { nullable: true }),
    url: t.exposeString('url', { nullable: true }),
    createdAt: t.exposeString('createdAt'),
  }),
});

const MonthlyCreditType = builder.objectRef<NonNullable<BillingView['monthlyCredit']>>('MonthlyCreditView').implement({
  fields: (t) => ({
    amount: t.exposeFloat('amount', { description: 'Included each month.' }),
    left: t.exposeFloat('left', { description: 'Unspent this month (spent before bought credit).' }),
    periodStart: t.exposeString('periodStart', { nullable: true }),
  }),
});

export const CardViewType = builder.objectRef<NonNullable<BillingView['card']>>('CardView').implement({
  fields: (t) => ({
    brand: t.exposeString('brand'),
    last4: t.exposeString('last4'),
    declined: t.exposeBoolean('declined', { description: 'The last automatic charge or renewal on it was declined.' }),
    expMonth: t.exposeInt('expMonth', { nullable: true }),
    expYear: t.exposeInt('expYear', { nullable: true }),
  }),
});

const DateRangeType = builder.objectRef<{ start: string; end: string }>('DateRange').implement({
  description: 'UTC days, both inclusive.',
  fields: (t) => ({
    start: t.exposeString('start', { description: 'The first day, `YYYY-MM-DD`.' }),
    end: t.exposeString('end', { description: 'The last day, `YYYY-MM-DD`.' }),
  }),
});

export const AutoTopUpAttemptType = builder.objectRef<NonNullable<BillingView['autoTopUp']['last']>>('AutoTopUpAttempt').implement({
  fields: (t) => ({
    at: t.exposeString('at'),
    amount: t.exposeFloat('amount'),
    outcome: t.exposeString('outcome', { description: '`paid`, `declined` or `pending`.' }),
  }),
});

export const AutoTopUpViewType = builder.objectRef<BillingView['autoTopUp']>('AutoTopUpView').implement({
  description: 'Auto top-up as set; amounts in dollars.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    available: t.exposeBoolean('available', { description: 'A saved payment method exists.' }),
    amount: t.exposeFloat('amount', { nullable: true }),
    threshold: t.exposeFloat('threshold', { nullable: true }),
    last: t.field({ type: AutoTopUpAttemptType, nullable: true, resolve: (view) => view.last }),
  }),
});

export const LowBalanceAlertViewType = builder.objectRef<BillingView['lowBalanceAlert']>('LowBalanceAlertView').implement({
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    threshold: t.exposeFloat('threshold', { nullable: true }),
  }),
});

const StartBlockEnum = builder.enumType('StartBlock', { values: ['no_credit', 'concurrency', 'hourly_limit'] as const });

export const BillingViewType = builder.objectRef<BillingView>('BillingView').implement({
  description: 'With billing off: `enabled: false`, every check passes, plan, rates and limits null.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { description: 'False: the server does not bill (every check passes).' }),
    balance: t.exposeFloat('balance', { description: 'Credit left in dollars; negative while a plan with a grace period runs on.' }),
    inGrace: t.exposeBoolean('inGrace'),
    canStart: t.exposeBoolean('canStart'),
    startBlock: t.field({ type: StartBlockEnum, nullable: true, resolve: (view) => view.startBlock }),
    canStartLive: t.exposeBoolean('canStartLive'),
    startBlockLive: t.field({ type: StartBlockEnum, nullable: true, resolve: (view) => view.startBlockLive }),
    currency: t.exposeString('currency', { nullable: true }),
    plan: t.field({ type: PlanRefType, nullable: true, resolve: (view) => view.plan }),
    rates: t.field({ type: RatesType, nullable: true, resolve: (view) => view.rates }),
    limits: t.field({ type: LimitsType, nullable: true, resolve: (view) => view.limits }),
    limitsUsage: t.field({ type: LimitsUsageType, nullable: true, resolve: (view) => view.limitsUsage }),
    subscription: t.field({ type: SubscriptionViewType, nullable: true, resolve: (view) => view.subscription }),
    pendingChange: t.field({ type: PendingChangeType, nullable: true, resolve: (view) => view.pendingChange }),
    pendingPayment: t.field({ type: PendingPaymentType, nullable: true, resolve: (view) => view.pendingPayment }),
    monthlyCredit: t.field({ type: MonthlyCreditType, nullable: true, resolve: (view) => view.monthlyCredit }),
    card: t.field({ type: CardViewType, nullable: true, resolve: (view) => view.card }),
    period: t.field({ type: DateRangeType, nullable: true, resolve: (view) => view.period }),
    previousPeriod: t.field({ type: DateRangeType, nullable: true, resolve: (view) => view.previousPeriod }),
    accountCreated: t.exposeString('accountCreated', { nullable: true }),
    retentionDeadline: t.exposeString('retentionDeadline', { nullable: true }),
    hasPaid: t.exposeBoolean('hasPaid'),
    topUpUrl: t.exposeString('topUpUrl'),
    autoTopUp: t.field({ type: AutoTopUpViewType, resolve: (view) => view.autoTopUp }),
    lowBalanceAlert: t.field({ type: LowBalanceAlertViewType, resolve: (view) => view.lowBalanceAlert }),
  }),
});

builder.queryFields((t) => ({
  billing: t.field({
    type: BillingViewType,
    description: 'The account\'s credit, plan, limits and choices.',
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => billingView(ctx.prisma, ctx.services.billing, ctx.identity!.account.id, baseUrlOf(ctx)),
  }),
  billingPlans: t.field({
    type: PlanListType,
    description: 'Visible plans with rates, prices, limits, and the top-up, auto top-up and alert choices. No credential needed.',
    authScopes: { public: true },
    resolve: (_root, _args, ctx) => planListView(ctx.services.billing.settings, ctx.services.billing.offersAutomaticCharges),
  }),
}));

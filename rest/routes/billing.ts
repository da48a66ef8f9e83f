/**
 * Billing (src/billing): the account's credit and plan, the plan list, and (in the files beside this one's other
 * arrays) ledger, charges, usage, payments. Money is dollars with whole cents.
 */
import { BillingDocument, BillingPlansDocument } from '../../src/generated/graphql.js';
import { graphqlRoute, type JsonSchema, type RouteEntry } from '../types.js';

const num = { type: 'number' };
const nullableNum = { type: 'number', nullable: true };
const str = { type: 'string' };
const nullableStr = { type: 'string', nullable: true };
const bool = { type: 'boolean' };

/** An object schema whose listed properties are all required unless `optional` names them. */
export function record(properties: Record<string, JsonSchema>, options: { optional?: string[]; nullable?: boolean; description?: string } = {}): JsonSchema {
  const required = Object.keys(properties).filter((key) => !options.optional?.includes(key));
  return { type: 'object', required, properties, ...(options.nullable ? { nullable: true } : {}), ...(options.description ? { description: options.description } : {}) };
}

export const moneyRange = record({ min: num, max: num }, { description: 'Inclusive range of whole-cent amounts in dollars.' });
const rates = record({ file: num, live: num, minimumSeconds: { type: 'integer' }, currency: nullableStr }, { optional: ['currency'], description: 'Dollars per hour of audio; the least a transcription is billed.' });
const limits = record({
  concurrentTranscriptions: { type: 'integer' }, createsPerHour: { type: 'integer' }, createsPerHourUnpaid: { type: 'integer' }, retentionDays: { type: 'integer', nullable: true },
});
const startBlock = { type: 'string', nullable: true, enum: ['no_credit', 'concurrency', 'hourly_limit', null] };
const day = { type: 'string', format: 'date', description: 'A UTC day, `YYYY-MM-DD`.' } as const;
const dateRange = (nullable: boolean) => record({ start: day, end: day }, { nullable, description: 'DateRange: both days inclusive.' });
const autoTopUpAttempt = record({ at: str, amount: num, outcome: { type: 'string', enum: ['paid', 'declined', 'pending'] } });
export const autoTopUpView = record({ enabled: bool, available: bool, amount: nullableNum, threshold: nullableNum, last: { ...autoTopUpAttempt, nullable: true } }, { description: 'AutoTopUpView: amounts in dollars.' });
export const lowBalanceAlertView = record({ enabled: bool, threshold: nullableNum });

const billingView = record({
  enabled: bool, balance: num, inGrace: bool, canStart: bool, startBlock, canStartLive: bool, startBlockLive: startBlock,
  currency: nullableStr,
  plan: record({ id: str, name: str }, { nullable: true }),
  rates: { ...rates, nullable: true },
  limits: { ...limits, nullable: true },
  limitsUsage: record({ concurrentTranscriptions: { type: 'integer' }, createsThisHour: { type: 'integer' }, createsResetAt: nullableStr }, { nullable: true }),
  subscription: record({
    id: str, planId: str, interval: { type: 'string', enum: ['month', 'year'] }, status: str, currentPeriodStart: str, currentPeriodEnd: str,
    cancelAtPeriodEnd: bool, pendingInterval: nullableStr,
  }, { nullable: true }),
  pendingChange: record({ kind: { type: 'string', enum: ['cancel', 'interval'] }, at: str, planId: nullableStr, interval: nullableStr }, { nullable: true }),
  pendingPayment: record({ checkoutId: str, kind: str, amount: nullableNum, url: nullableStr, createdAt: str }, { nullable: true }),
  monthlyCredit: record({ amount: num, left: num, periodStart: nullableStr }, { nullable: true }),
  card: record({ brand: str, last4: str, declined: bool, expMonth: { type: 'integer', nullable: true }, expYear: { type: 'integer', nullable: true } }, { nullable: true }),
  period: dateRange(true),
  previousPeriod: dateRange(true),
  accountCreated: nullableStr,
  retentionDeadline: nullableStr,
  hasPaid: bool,
  topUpUrl: str,
  autoTopUp: autoTopUpView,
  lowBalanceAlert: lowBalanceAlertView,
}, { description: 'BillingView. With billing off: `enabled: false`, every check passes, plan, rates and limits null.' });

const planList = record({
  enabled: bool, currency: nullableStr, defaultPlanId: nullableStr, signupCredit: num, downgradeGraceDays: { type: 'integer', nullable: true },
  topUpPresets: { type: 'array', items: num },
  topUpRange: { ...moneyRange, nullable: true },
  plans: {
    type: 'array',
    items: record({
      id: str, name: str, rates, prices: record({ month: num, year: num }, { nullable: true }), includedMonthlyCredit: num, graceOnZero: bool,
      limits, features: { type: 'array', items: str }, billedByHand: bool,
    }),
  },
  autoTopUp: record({ offered: bool, thresholds: { type: 'array', items: num }, amounts: { type: 'array', items: num }, thresholdRange: moneyRange, amountRange: moneyRange, perDay: { type: 'integer' } }, { nullable: true }),
  lowBalanceAlert: record({ thresholds: { type: 'array', items: num }, range: moneyRange }, { nullable: true }),
});

/** What a creation point answers when billing refuses it (only while the server bills). */
export const creationRefusals = [
  { status: 402, code: 'insufficient_credit', description: 'The credit is out or would be overdrawn, or does not cover the minimum '
    + 'billed; `details`: `balance`, `plan`, `topUpUrl`, `currency`, and `required` when the cost is known up front. Nothing was '
    + 'charged.' },
  { status: 429, code: 'rate_limited', description: 'With `details.metric: creates_per_hour`: the plan\'s new transcriptions an hour are '
    + 'used; `details.limit`, `details.resetsAt`, `Retry-After`.' },
];

/** Live work besides: the plan's concurrent transcriptions (file jobs queue instead). */
export const liveCreationRefusals = [
  ...creationRefusals,
  { status: 402, code: 'quota_exceeded', description: '`details.metric: concurrent_transcriptions`: the plan\'s concurrent transcriptions '
    + 'are running; `limit`, `used`, `resetsAt` (null: frees as transcriptions end), `plan`, `topUpUrl`.' },
];

export const billingRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/billing', operationId: 'getBilling', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: BillingDocument,
    result: (data) => ({ status: 200, body: data.billing }),
    response: { status: 200, description: 'BillingView.', schema: billingView },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/plans', operationId: 'listBillingPlans', tags: ['billing'],
    auth: { mode: 'public', scopes: [] },
    document: BillingPlansDocument,
    result: (data) => ({ status: 200, body: data.billingPlans }),
    response: { status: 200, description: 'The plan list (`enabled: false` and no plans when the server does not bill).', schema: planList },
  }),
];

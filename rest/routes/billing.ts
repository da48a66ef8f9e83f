/**
 * Billing (src/billing): the account's credit and plan, the plan list, and (in the files beside this one's other
 * arrays) ledger, charges, usage, payments. Money is dollars with whole cents.
 */
import { BillingDocument, BillingPlansDocument } from '../../src/generated/graphql.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

/** What a creation point answers when billing refuses it (only while the server bills). */
export const creationRefusals = [
  { status: 402, code: 'insufficient_credit', description: 'The credit is out or would be overdrawn, or does not cover the minimum billed; '
    + '`details`: `balance`, `plan`, `topUpUrl`, `currency`, and `required` when the cost is known up front. Nothing was charged.' },
  { status: 429, code: 'rate_limited', description: 'With `details.metric: creates_per_hour`: the plan\'s new transcriptions an hour are '
    + 'used; `details.limit`, `details.resetsAt`, `Retry-After`.' },
];

/** Live work besides: the plan's concurrent transcriptions (file jobs queue instead). */
export const liveCreationRefusals = [
  ...creationRefusals,
  { status: 402, code: 'quota_exceeded', description: '`details.metric: concurrent_transcriptions`: the plan\'s concurrent transcriptions '
    + 'are running; `limit`, `used`, `resetsAt` (null: frees as transcriptions end), `plan`, `topUpUrl`.' },
];

export const billingRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/billing', operationId: 'getBilling', tags: ['billing'], document: BillingDocument,
    response: { status: 200, description: 'BillingView. With billing off: `enabled: false`, every check passes, plan, rates and limits '
      + 'null.' },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/plans', operationId: 'listBillingPlans', tags: ['billing'], auth: { mode: 'public', scopes: [] },
    document: BillingPlansDocument,
    response: { status: 200, description: 'The plan list (`enabled: false` and no plans when the server does not bill).' },
  }),
];

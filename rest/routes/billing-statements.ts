/**
 * The account's statements (src/billing/statements.ts): ledger, charges, the usage report and the charges behind it.
 * Money is dollars with whole cents. With billing off each answers empty (the usage report: its days with zeros),
 * never an error beyond a bad request.
 */
import {
  BillingChargesDocument, BillingLedgerDocument, BillingUsageChargesDocument, BillingUsageDocument,
} from '../../src/generated/graphql.js';
import { USAGE_MAX_DAYS } from '../../src/billing/index.js';
import { intParam, single, withoutLastCursor } from '../query.js';
import { graphqlRoute, type RestInput, type RouteParameter, type RouteEntry } from '../types.js';
import { record } from './billing.js';

const num = { type: 'number' };
const str = { type: 'string' };
const nullableStr = { type: 'string', nullable: true };
const dateTime = { type: 'string', format: 'date-time' };
const kindEnum = { type: 'string', enum: ['file', 'live'] };
const nextCursor = { type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' };
/** The lists' convention (ChargePage's row in the spec alone says "string or null"): absent on the last page. */
const nextCursorIfAny = { type: 'string', description: 'Pass as `cursor` for the next page; absent on the last page.' };

const pageParameters: RouteParameter[] = [
  { name: 'cursor', in: 'query', description: 'The `nextCursor` of the previous page.', schema: { type: 'string' } },
  { name: 'limit', in: 'query', description: 'Items a page (default 50).', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
];
const page = ({ query }: RestInput) => ({
  cursor: single(query.cursor),
  limit: intParam(query, 'limit', 'limit must be an integer from 1 to 500.', { minimum: 1, maximum: 500 }),
});

const rangeParameters: RouteParameter[] = [
  { name: 'startDate', in: 'query', required: true, description: 'First day, YYYY-MM-DD in `tz`; before the account\'s first day it is '
    + 'moved to it.', schema: { type: 'string', format: 'date' } },
  { name: 'endDate', in: 'query', required: true, description: `Last day (inclusive), YYYY-MM-DD in \`tz\`; after today it is moved to today. At most ${USAGE_MAX_DAYS} days from startDate.`, schema: { type: 'string', format: 'date' } },
  { name: 'tz', in: 'query', description: 'IANA time zone the days are cut in (default UTC).', schema: { type: 'string', default: 'UTC' } },
];
const range = ({ query }: RestInput) => ({ startDate: single(query.startDate)!, endDate: single(query.endDate)!, tz: single(query.tz) });

const rangeErrors = [
  { status: 400, code: 'invalid_options', description: 'A date that is not YYYY-MM-DD, an unknown `tz`, or startDate after endDate '
    + '(`details.field` names it).' },
  { status: 400, code: 'range_too_long', description: `More than ${USAGE_MAX_DAYS} days asked (\`details.maxDays\`, \`details.days\`).` },
];
const pageError = { status: 400, code: 'invalid_options', description: 'A cursor this endpoint did not return, or a `limit` out of range.' };

const ledgerEntry = record({
  id: str,
  kind: { type: 'string', enum: ['signup_credit', 'top_up', 'monthly_credit', 'monthly_credit_removed', 'charge', 'correction', 'refund', 'adjustment'] },
  amount: { type: 'number', description: 'Dollars, signed: credit added positive, spent negative.' },
  balanceAfter: { type: 'number', description: 'The balance this movement left, in dollars.' },
  description: str,
  chargeId: nullableStr,
  paymentId: nullableStr,
  createdAt: dateTime,
});

const recordingCharge = record({
  id: str,
  recordingId: { type: 'string', nullable: true, description: 'The recording billed (kept after it is deleted).' },
  sessionId: { type: 'string', nullable: true, description: 'A realtime session billed without a recording.' },
  name: str,
  kind: kindEnum,
  source: { type: 'string', description: '`dashboard` (a signed-in person) or the API key\'s id.' },
  state: { type: 'string', enum: ['open', 'settled', 'void'] },
  secondsBilled: { type: 'number', description: 'Audio seconds charged so far (live while open: whole minutes; at settle the exact '
    + 'length, at least `minimumSeconds`).' },
  minimumSeconds: { type: 'integer' },
  rate: { type: 'number', description: 'Dollars per hour of audio, the plan\'s rate when it opened.' },
  cost: { type: 'number', description: 'Dollars charged so far; a void charge keeps what it cost before its refund (a `refund` ledger '
    + 'movement).' },
  openedAt: dateTime,
  settledAt: { ...dateTime, nullable: true },
}, { description: 'RecordingCharge: `open` while audio runs (live: metered every minute), `settled` once it ends, `void` when waived.' });

const amount = { seconds: { type: 'number', description: 'Audio seconds billed.' }, amount: { type: 'number', description: 'Dollars.' } };
const bySource = { type: 'array', items: record({ source: { type: 'string', description: '`dashboard` or the API key\'s id.' }, ...amount }), description: 'Sources with spend, largest first.' };
const byKind = { type: 'array', items: record({ kind: kindEnum, ...amount }), description: '`file` and `live`, always both.' };
const rangeUsed = {
  startDate: { type: 'string', format: 'date', description: 'The first day used (the asked start, or the account\'s first day).' },
  endDate: { type: 'string', format: 'date', description: 'The last day used (the asked end, or today). Before startDate only when the '
    + 'asked range lies wholly before the account\'s first day or after today: nothing is reported.' },
  tz: { type: 'string', description: 'The zone used (canonical IANA name).' },
  currency: nullableStr,
};

const usageReport = record({
  ...rangeUsed,
  totals: record(amount),
  bySource,
  byKind,
  days: {
    type: 'array', description: 'Every day from startDate to endDate, zeros included.',
    items: record({ date: { type: 'string', format: 'date' }, ...amount, bySource, byKind }),
  },
});

const usageCharge = record({
  id: { type: 'string', description: 'The charge\'s id, or (a correction) the ledger movement\'s.' },
  type: { type: 'string', enum: ['charge', 'correction'], description: '`correction`: a refund or correction of a charge, negative cost.' },
  chargeId: str,
  recordingId: nullableStr,
  sessionId: nullableStr,
  name: str,
  kind: kindEnum,
  source: str,
  state: { type: 'string', enum: ['open', 'settled', 'void'], description: 'The charge\'s state; `open` while it runs.' },
  secondsBilled: { type: 'number', description: 'Audio seconds billed inside the range (a correction: what it took back, zero or '
    + 'negative).' },
  rate: { type: 'number', description: 'Dollars per hour of audio.' },
  cost: { type: 'number', description: 'Dollars inside the range (a correction: negative).' },
  description: { type: 'string', nullable: true, description: 'A correction\'s ledger description; null for a charge.' },
  at: { ...dateTime, description: 'When the charge opened, or when the correction was written (the paging order).' },
});

const USAGE_RULES = 'A charge counts on the day (in `tz`) of each of its ledger movements: a file charge on the day it was charged, a '
  + 'live recording on the day of each metered minute (one crossing midnight splits), a running transcription at what it has been '
  + 'charged so far, a refund or correction on the day it happens (reducing that day). Audio seconds follow the metered points (a '
  + 'settle\'s trim and a void take theirs back). Charges keep their name and source: a deleted recording\'s charges are still '
  + 'reported. The range is checked as asked (at most 92 days), then clamped to the account\'s first day and today. Billing off: zeros.';

export const billingStatementRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/billing/ledger', operationId: 'listBillingLedger', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: pageParameters,
    document: BillingLedgerDocument,
    variables: page,
    result: (data) => ({ status: 200, body: withoutLastCursor(data.billingLedger) }),
    response: { status: 200, description: 'A page of ledger entries.', schema: record({ entries: { type: 'array', items: ledgerEntry }, nextCursor: nextCursorIfAny }, { optional: ['nextCursor'] }) },
    errors: [pageError],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/charges', operationId: 'listBillingCharges', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: pageParameters,
    document: BillingChargesDocument,
    variables: page,
    result: (data) => ({ status: 200, body: data.billingCharges }),
    response: { status: 200, description: 'ChargePage.', schema: record({ charges: { type: 'array', items: recordingCharge }, nextCursor }) },
    errors: [pageError],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/usage', operationId: 'getBillingUsage', tags: ['billing'],
    summary: 'Spend per day in `tz`, per source (`dashboard` or the API key id) and per kind (`file`, `live`): audio seconds and dollars.',
    description: `Answer \`{startDate, endDate, tz, currency, totals: {seconds, amount}, bySource: [{source, seconds, amount}], byKind: [{kind, seconds, amount}], days: [{date, seconds, amount, bySource, byKind}]}\`. ${USAGE_RULES}`,
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: rangeParameters,
    document: BillingUsageDocument,
    variables: range,
    result: (data) => ({ status: 200, body: data.billingUsage }),
    response: { status: 200, description: 'The usage report.', schema: usageReport },
    errors: rangeErrors,
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/usage/charges', operationId: 'listBillingUsageCharges', tags: ['billing'],
    summary: 'The charges behind the usage report, newest first, paged with `cursor`; `kind` and `source` narrow; `count`, `total` and '
      + '`seconds` cover all matches.',
    description: `Answer \`{startDate, endDate, tz, currency, count, total, seconds, charges: [UsageCharge], nextCursor}\`. One \`charge\` item per charge opened or metered in the range (its seconds and cost inside the range; \`state\` \`open\` while running) and one \`correction\` item per refund or correction of a charge in the range (negative cost). The items add up to the report: \`total\` equals the report's total with the same filters. ${USAGE_RULES}`,
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: [
      ...rangeParameters,
      { name: 'kind', in: 'query', description: 'Only `file` or only `live`.', schema: kindEnum },
      { name: 'source', in: 'query', description: 'Only `dashboard` or one API key\'s id.', schema: { type: 'string', maxLength: 200 } },
      ...pageParameters,
    ],
    document: BillingUsageChargesDocument,
    variables: (input) => ({ ...range(input), ...page(input), kind: single(input.query.kind), source: single(input.query.source) }),
    result: (data) => ({ status: 200, body: withoutLastCursor(data.billingUsageCharges) }),
    response: {
      status: 200, description: 'A page of the charges behind the report.',
      schema: record({ ...rangeUsed, count: { type: 'integer', description: 'Items matching, all pages.' }, total: { ...num, description: 'Dollars of all matching items.' }, seconds: { ...num, description: 'Audio seconds of all matching items.' }, charges: { type: 'array', items: usageCharge }, nextCursor: nextCursorIfAny }, { optional: ['nextCursor'] }),
    },
    errors: [...rangeErrors, pageError],
  }),
];

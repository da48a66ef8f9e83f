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
import { cursorPageSchema, resultSchema } from '../shapes.js';
import { graphqlRoute, type RestInput, type RouteParameter, type RouteSpec } from '../types.js';

const kindEnum = { type: 'string', enum: ['file', 'live'] };

const pageParameters: RouteParameter[] = [
  { name: 'cursor', in: 'query', description: 'The `nextCursor` of the previous page.', schema: { type: 'string' } },
  {
    name: 'limit', in: 'query', description: 'Items a page (default 50).',
    schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
  },
];
const page = ({ query }: RestInput) => ({
  cursor: single(query.cursor),
  limit: intParam(query, 'limit', 'limit must be an integer from 1 to 500.', { minimum: 1, maximum: 500 }),
});

const rangeParameters: RouteParameter[] = [
  { name: 'startDate', in: 'query', required: true, description: 'First day, YYYY-MM-DD in `tz`; before the account\'s first day it is '
    + 'moved to it.', schema: { type: 'string', format: 'date' } },
  { name: 'endDate', in: 'query', required: true, description: `Last day (inclusive), YYYY-MM-DD in \`tz\`; after today it is moved to `
    + `today. At most ${USAGE_MAX_DAYS} days from startDate.`, schema: { type: 'string', format: 'date' } },
  { name: 'tz', in: 'query', description: 'IANA time zone the days are cut in (default UTC).', schema: { type: 'string', default: 'UTC' } },
];
const range = ({ query }: RestInput) => ({ startDate: single(query.startDate)!, endDate: single(query.endDate)!, tz: single(query.tz) });

const rangeErrors = [
  { status: 400, code: 'invalid_options', description: 'A date that is not YYYY-MM-DD, an unknown `tz`, or startDate after endDate '
    + '(`details.field` names it).' },
  { status: 400, code: 'range_too_long', description: `More than ${USAGE_MAX_DAYS} days asked (\`details.maxDays\`, \`details.days\`).` },
];
const pageError = {
  status: 400, code: 'invalid_options', description: 'A cursor this endpoint did not return, or a `limit` out of range.',
};

const USAGE_RULES = 'A charge counts on the day (in `tz`) of each of its ledger movements: a file charge on the day it was charged, a '
  + 'live recording on the day of each metered minute (one crossing midnight splits), a running transcription at what it has been '
  + 'charged so far, a refund or correction on the day it happens (reducing that day). Audio seconds follow the metered points (a '
  + 'settle\'s trim and a void take theirs back). Charges keep their name and source: a deleted recording\'s charges are still '
  + 'reported. The range is checked as asked (at most 92 days), then clamped to the account\'s first day and today. Billing off: zeros.';

export const billingStatementRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/billing/ledger', operationId: 'listBillingLedger', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: pageParameters,
    document: BillingLedgerDocument,
    variables: page,
    result: (data) => ({ status: 200, body: withoutLastCursor(data.billingLedger) }),
    response: { status: 200, description: 'A page of ledger entries.', schema: cursorPageSchema(BillingLedgerDocument) },
    errors: [pageError],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/charges', operationId: 'listBillingCharges', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: pageParameters,
    document: BillingChargesDocument,
    variables: page,
    response: { status: 200, description: 'ChargePage.', schema: resultSchema(BillingChargesDocument) },
    errors: [pageError],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/usage', operationId: 'getBillingUsage', tags: ['billing'],
    summary: 'Spend per day in `tz`, per source (`dashboard` or the API key id) and per kind (`file`, `live`): audio seconds and dollars.',
    description: `Answer \`{startDate, endDate, tz, currency, totals: {seconds, amount}, bySource: [{source, seconds, amount}], byKind: `
      + `[{kind, seconds, amount}], days: [{date, seconds, amount, bySource, byKind}]}\`. ${USAGE_RULES}`,
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: rangeParameters,
    document: BillingUsageDocument,
    variables: range,
    response: { status: 200, description: 'The usage report.', schema: resultSchema(BillingUsageDocument) },
    errors: rangeErrors,
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/usage/charges', operationId: 'listBillingUsageCharges', tags: ['billing'],
    summary: 'The charges behind the usage report, newest first, paged with `cursor`; `kind` and `source` narrow; `count`, `total` and '
      + '`seconds` cover all matches.',
    description: `Answer \`{startDate, endDate, tz, currency, count, total, seconds, charges: [UsageCharge], nextCursor}\`. One `
      + `\`charge\` item per charge opened or metered in the range (its seconds and cost inside the range; \`state\` \`open\` while `
        + `running) and one \`correction\` item per refund or correction of a charge in the range (negative cost). The items add up to `
          + `the report: \`total\` equals the report's total with the same filters. ${USAGE_RULES}`,
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: [
      ...rangeParameters, { name: 'kind', in: 'query', schema: kindEnum },
      { name: 'source', in: 'query', schema: { type: 'string', maxLength: 200 } }, ...pageParameters,
    ],
    document: BillingUsageChargesDocument,
    variables: (input) => ({ ...range(input), ...page(input), kind: single(input.query.kind), source: single(input.query.source) }),
    result: (data) => ({ status: 200, body: withoutLastCursor(data.billingUsageCharges) }),
    response: {
      status: 200, description: 'A page of the charges behind the report.', schema: cursorPageSchema(BillingUsageChargesDocument),
    },
    errors: [...rangeErrors, pageError],
  }),
];

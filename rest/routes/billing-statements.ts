/**
 * The account's statements (src/billing/statements.ts): ledger, charges, the usage report and the charges behind it.
 * Money is dollars with whole cents. With billing off each answers empty (the usage report: its days with zeros),
 * never an error beyond a bad request.
 */
import {
  BillingChargesDocument, BillingLedgerDocument, BillingUsageChargesDocument, BillingUsageDocument,
} from '../../src/generated/graphql.js';
import { USAGE_MAX_DAYS } from '../../src/billing/index.js';
import { intParam, pageParameters, single, withoutLastCursor } from '../query.js';
import { cursorPageSchema } from '../shapes.js';
import { graphqlRoute, type RestInput, type RouteParameter, type RouteSpec } from '../types.js';

const page = ({ query }: RestInput) => ({
  cursor: single(query.cursor),
  limit: intParam(query, 'limit', 'limit must be an integer from 1 to 500.', { minimum: 1, maximum: 500 }),
});
const pageError = { status: 400, code: 'invalid_options', description: 'A cursor this endpoint did not return, or a `limit` out of '
  + 'range.' };

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

export const billingStatementRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/billing/ledger', operationId: 'listBillingLedger', tags: ['billing'], parameters: pageParameters(50),
    document: BillingLedgerDocument, variables: page, result: (data) => ({ status: 200, body: withoutLastCursor(data.billingLedger) }),
    response: { status: 200, description: 'A page of ledger entries.', schema: cursorPageSchema(BillingLedgerDocument) },
    errors: [pageError],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/charges', operationId: 'listBillingCharges', tags: ['billing'], parameters: pageParameters(50),
    document: BillingChargesDocument, variables: page, response: { status: 200, description: 'ChargePage.' }, errors: [pageError],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/usage', operationId: 'getBillingUsage', tags: ['billing'], textValues: { USAGE_MAX_DAYS },
    parameters: rangeParameters, document: BillingUsageDocument, variables: range,
    response: { status: 200, description: 'The usage report.' }, errors: rangeErrors,
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/usage/charges', operationId: 'listBillingUsageCharges', tags: ['billing'],
    textValues: { USAGE_MAX_DAYS }, parameters: [
      ...rangeParameters, { name: 'kind', in: 'query', schema: { type: 'string', enum: ['file', 'live'] } },
      { name: 'source', in: 'query', schema: { type: 'string', maxLength: 200 } }, ...pageParameters(50),
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

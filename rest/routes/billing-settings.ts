/**
 * The account's billing settings (src/billing/details.ts, alerts.ts, auto-top-up-settings.ts): billing details,
 * the low-balance alert, auto top-up. Bodies are checked by the module's parsers first, so a bad field is a 422
 * `invalid_body` naming `details.field` before GraphQL coerces anything.
 */
import { parseLowBalanceAlert, parseAutoTopUpSettings, parseBillingDetails } from '../../src/billing/index.js';
import {
  BillingDetailsDocument, SetAutoTopUpDocument, SetLowBalanceAlertDocument, UpdateBillingDetailsDocument,
  type AutoTopUpSettingsInput, type BillingDetailsInput, type LowBalanceAlertInput,
} from '../../src/generated/graphql.js';
import { checkedBody } from '../bodies.js';
import { inputSchema } from '../shapes.js';
import { graphqlRoute, type JsonSchema, type RouteSpec } from '../types.js';

/**
 * Longest values are stated in words rather than as `maxLength`: a string at a declared maxLength must be accepted
 * and one longer refused with 400, but this body is refused with 422 `invalid_body` (the spec's rule for details),
 * and a country, an email or a tax ID of any length can still be wrong for what it is.
 */
const text = (maxLength: number, description?: string): JsonSchema => ({
  type: 'string', description: `${description ? `${description} ` : ''}At most ${maxLength} characters.`,
});
const TAX_ID = 'Normalised (spaces, dots and dashes dropped, uppercase). With an EU `country`: that country\'s VAT ID, its prefix '
  + '(Greece: `EL`, not `GR`) and 8 to 12 letters or digits after it; with any other country: 4 to 20 letters or digits.';

const detailsBody: JsonSchema = {
  type: 'object', additionalProperties: false,
  description: 'BillingDetails. Replaces the saved record: a field left out takes its default (empty string; null for `country` and '
    + '`taxId`).',
  properties: {
    name: text(200, 'Invoice addressee.'), email: text(254, 'Empty: the sign-in email is used.'),
    line1: text(200), city: text(100), postalCode: text(20),
    country: { type: 'string', nullable: true, description: 'ISO 3166-1 alpha-2 (any case; answered uppercase); required with a `taxId`.' },
    taxId: { type: 'string', nullable: true, description: `${TAX_ID} At most 40 characters as typed.` },
  },
};

export const billingSettingsRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/billing/details', operationId: 'getBillingDetails', tags: ['billing'], document: BillingDetailsDocument,
    response: { status: 200, description: 'BillingDetails.' },
  }),
  graphqlRoute({
    method: 'put', path: '/v1/billing/details', operationId: 'updateBillingDetails', tags: ['billing'],
    document: UpdateBillingDetailsDocument,
    variables: ({ body }) => ({ input: checkedBody(body, parseBillingDetails) as BillingDetailsInput }),
    request: { schema: detailsBody }, response: { status: 200, description: 'BillingDetails as saved.' },
    errors: [{ status: 422, code: 'invalid_body' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'put', path: '/v1/billing/low-balance-alert', operationId: 'setLowBalanceAlert', tags: ['billing'],
    document: SetLowBalanceAlertDocument,
    variables: ({ body }, ctx) => {
      parseLowBalanceAlert(body, ctx.services.billing.requireOn('low-balance alert to set'));
      return { input: body as LowBalanceAlertInput };
    },
    request: { schema: inputSchema('LowBalanceAlertInput', {
      properties: { threshold: { description: 'Dollars, whole cents inside `lowBalanceAlert.range`; required when enabling.' } },
    }) },
    response: { status: 200, description: 'LowBalanceAlertView.' },
    errors: [{ status: 422, code: 'invalid_body' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'put', path: '/v1/billing/auto-top-up', operationId: 'setAutoTopUp', tags: ['billing'], document: SetAutoTopUpDocument,
    variables: ({ body }, ctx) => {
      parseAutoTopUpSettings(body, ctx.services.billing.requireOn('auto top-up to set'));
      return { input: body as AutoTopUpSettingsInput };
    },
    request: { schema: inputSchema('AutoTopUpSettingsInput', { schema: { description: 'AutoTopUpSettings.' }, properties: {
      threshold: { description: 'Dollars, whole cents inside `autoTopUp.thresholdRange`; required when enabling.' },
      amount: { description: 'Dollars, whole cents inside `autoTopUp.amountRange`; required when enabling.' },
    } }) },
    response: { status: 200, description: 'AutoTopUpView.' },
    errors: [
      { status: 422, code: 'invalid_body' }, { status: 409, code: 'payment_method_required' }, { status: 409, code: 'invalid_state' },
    ],
  }),
];

/**
 * Payments (src/billing/payments): checkouts, promo codes, saved cards and the provider's portal, payments and their
 * documents, subscription changes, auto top-up retries, and the provider's webhook.
 */
import {
  BillingPortalDocument, CancelSubscriptionDocument, CancelSubscriptionIntervalDocument, CheckPromoCodeDocument, CheckoutDocument,
  CreateCheckoutDocument, DeletePaymentMethodDocument, ManagePaymentMethodsDocument, PaymentDocumentDocument, PaymentMethodsDocument,
  PaymentMethodFieldsFragmentDoc, PaymentsDocument, RetryAutoTopUpDocument, ScheduleSubscriptionIntervalDocument,
  UncancelSubscriptionDocument, type CreateCheckoutInput,
} from '../../src/generated/graphql.js';
import { checkoutFields, intervalField, promoFields } from '../../src/billing/index.js';
import { single, withoutLastCursor } from '../query.js';
import { checkedBody, readRawBody } from '../bodies.js';
import { cursorPageSchema, fragmentSchema, listSchema, resultSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

const paymentMethodsSchema = listSchema('paymentMethods', fragmentSchema(PaymentMethodFieldsFragmentDoc));
const planNow = { status: 200, description: 'The plan and subscription now.' };
const noSubscription = { status: 409, code: 'invalid_state', description: 'The account has no subscription (or nothing of this kind is '
  + 'scheduled).' };
const providerDown = { status: 503, code: 'unavailable', description: 'The payment provider did not answer; retry after `Retry-After`.' };
const billingOff = { status: 409, code: 'invalid_state', description: 'The server does not bill.' };

export const billingPaymentRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'post', path: '/v1/billing/checkouts', operationId: 'createCheckout', tags: ['billing'], idempotent: true,
    auth: { mode: 'user', scopes: [] }, document: CreateCheckoutDocument,
    variables: ({ body }) => ({ input: checkedBody(body, checkoutFields) as CreateCheckoutInput }),
    request: { schema: { type: 'object', additionalProperties: false, required: ['kind'], properties: {
      kind: { type: 'string', enum: ['topup', 'subscribe'] },
      amount: { type: 'number', nullable: true, description: 'Top-up: whole cents inside `topUpRange` of GET /v1/billing/plans.' },
      planId: { type: 'string', nullable: true, description: 'Subscription: a visible plan with prices.' },
      interval: { type: 'string', nullable: true, enum: ['month', 'year', null] },
      promoCode: { type: 'string', nullable: true, description: 'A promo code (1 to 100 characters; refused with 422 naming the field '
        + 'otherwise).' },
      acceptTerms: { type: 'boolean', default: false, description: 'Must be true.' },
      waiveWithdrawal: { type: 'boolean', default: false, deprecated: true, description: 'Deprecated and ignored.' },
    } } },
    response: { status: 201, description: 'The checkout.' }, errors: [
      { status: 422, code: 'invalid_body' }, { status: 404, code: 'promo_code_invalid' }, { status: 409, code: 'invalid_state' },
      { status: 429, code: 'rate_limited' }, providerDown,
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/checkouts/{id}', operationId: 'getCheckout', tags: ['billing'], document: CheckoutDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The checkout.' }, errors: [{ status: 404, code: 'not_found' }, billingOff],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/promo-codes/check', operationId: 'checkPromoCode', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] }, document: CheckPromoCodeDocument,
    variables: ({ body }) => ({ input: promoFields(body) }),
    request: { schema: { type: 'object', additionalProperties: false, required: ['code', 'for'], properties: {
      code: { type: 'string', description: '1 to 100 characters (422 naming `code` otherwise); matched without regard to case.' },
      for: { type: 'string', enum: ['topup', 'subscribe'] },
    } } },
    response: { status: 200, description: 'The code\'s terms for this purchase.' }, errors: [
      { status: 404, code: 'promo_code_invalid' }, { status: 422, code: 'invalid_body' }, { status: 429, code: 'rate_limited' }, billingOff,
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/payment-methods', operationId: 'listPaymentMethods', tags: ['billing'],
    document: PaymentMethodsDocument, result: (data) => ({ status: 200, body: { paymentMethods: data.paymentMethods } }),
    response: { status: 200, description: 'The cards, default first.', schema: paymentMethodsSchema }, errors: [providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/payment-methods/manage', operationId: 'managePaymentMethods', tags: ['billing'],
    document: ManagePaymentMethodsDocument, response: { status: 200, description: 'The link.' }, errors: [billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/billing/payment-methods/{id}', operationId: 'deletePaymentMethod', tags: ['billing'],
    document: DeletePaymentMethodDocument, variables: ({ params }) => ({ id: params.id! }),
    result: (data) => ({ status: 200, body: { paymentMethods: data.deletePaymentMethod } }),
    response: { status: 200, description: 'The cards left.', schema: paymentMethodsSchema },
    errors: [{ status: 404, code: 'not_found' }, { status: 409, code: 'payment_method_in_use' }, billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/payments', operationId: 'listPayments', tags: ['billing'], document: PaymentsDocument,
    parameters: [
      { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
    ],
    variables: ({ query }) => ({
      cursor: single(query.cursor) ?? null, limit: query.limit === undefined ? null : Number(single(query.limit)),
    }),
    result: (data) => ({ status: 200, body: withoutLastCursor(data.payments) }),
    response: { status: 200, description: 'A page of payments.', schema: cursorPageSchema(PaymentsDocument) },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/payments/{id}/document', operationId: 'getPaymentDocument', tags: ['billing'],
    auth: { mode: 'user', scopes: [] }, document: PaymentDocumentDocument, variables: ({ params }) => ({ id: params.id! }),
    result: (data) => (data.paymentDocument.pending ? { status: 202, body: { pending: true }, headers: { 'Retry-After': '5' } }
      : { status: 200, body: data.paymentDocument }),
    response: {
      status: 200, description: 'The link (202 `{pending: true}` while it is being made).', schema: resultSchema(PaymentDocumentDocument),
    },
    errors: [{ status: 404, code: 'not_found' }, { status: 409, code: 'billing_details_required' }, billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/portal', operationId: 'getBillingPortal', tags: ['billing'],
    document: BillingPortalDocument, response: { status: 200, description: 'The link.' },
    errors: [{ status: 409, code: 'payment_method_required' }, billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/subscription/cancel', operationId: 'cancelSubscription', tags: ['billing'],
    document: CancelSubscriptionDocument, response: planNow, errors: [noSubscription, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/subscription/uncancel', operationId: 'uncancelSubscription', tags: ['billing'],
    document: UncancelSubscriptionDocument, response: planNow, errors: [noSubscription, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/subscription/interval', operationId: 'scheduleSubscriptionInterval', tags: ['billing'],
    document: ScheduleSubscriptionIntervalDocument, variables: ({ body }) => ({ interval: intervalField(body) }),
    request: { schema: { type: 'object', additionalProperties: false, required: ['interval'], properties: {
      interval: { type: 'string', enum: ['month', 'year'] },
    } } },
    response: { status: 200, description: 'The plan and subscription now (`pendingInterval`).' },
    errors: [{ status: 422, code: 'invalid_body' }, { status: 409, code: 'invalid_state' }, providerDown],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/billing/subscription/interval', operationId: 'cancelSubscriptionInterval', tags: ['billing'],
    document: CancelSubscriptionIntervalDocument, response: planNow, errors: [noSubscription, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/auto-top-up/retry', operationId: 'retryAutoTopUp', tags: ['billing'],
    document: RetryAutoTopUpDocument, response: { status: 200, description: 'AutoTopUpView; `last.outcome` says how the charge went.' },
    errors: [
      { status: 409, code: 'auto_top_up_off' }, { status: 409, code: 'invalid_state' }, { status: 409, code: 'payment_method_required' },
      { status: 429, code: 'rate_limited' }, providerDown,
    ],
  }),
  {
    method: 'post', path: '/v1/billing/webhooks/stripe', operationId: 'stripeWebhook', tags: ['billing'], ownBody: true,
    auth: { mode: 'public', scopes: [] },
    request: { schema: { type: 'object', additionalProperties: true, description: 'A Stripe event, as Stripe signs it.' } },
    response: { status: 200, description: 'Received.', schema: { type: 'object', required: ['received', 'applied', 'type'], properties: {
      received: { type: 'boolean' }, applied: { type: 'boolean' }, type: { type: 'string' },
    } } },
    errors: [{ status: 400, code: 'invalid_signature' }, { status: 422, code: 'invalid_body' }, billingOff],
    handler: async (req, res, ctx) => {
      const outcome = await ctx.services.payments.handleWebhook(await readRawBody(req, res), single(req.headers['stripe-signature']));
      res.status(200).json({ received: true, ...outcome });
    },
  },
];

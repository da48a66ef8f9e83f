/**
 * Payments (src/billing/payments): checkouts, promo codes, saved cards and the provider's portal, payments and their
 * documents, subscription changes, auto top-up retries, and the provider's webhook.
 */
import express from 'express';
import {
  CancelSubscriptionDocument, CancelSubscriptionIntervalDocument, CheckPromoCodeDocument, CheckoutDocument, CheckoutFieldsFragmentDoc,
  CreateCheckoutDocument, DeletePaymentMethodDocument, ManagePaymentMethodsDocument, PaymentDocumentDocument,
  PaymentMethodFieldsFragmentDoc, PaymentMethodsDocument, PaymentsDocument, BillingPortalDocument, RetryAutoTopUpDocument,
  ScheduleSubscriptionIntervalDocument, SubscriptionStateFieldsFragmentDoc, UncancelSubscriptionDocument, type CreateCheckoutInput,
} from '../../src/generated/graphql.js';
import { errors } from '../../src/core/errors.js';
import { checkoutFields, intervalField, promoFields } from '../../src/billing/index.js';
import { single, withoutLastCursor } from '../query.js';
import { cursorPageSchema, fragmentSchema, listSchema, resultSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

const nullableStr = { type: 'string', nullable: true };
const nullableNum = { type: 'number', nullable: true };

const checkoutSchema = fragmentSchema(CheckoutFieldsFragmentDoc);
const paymentMethodsSchema = listSchema('paymentMethods', fragmentSchema(PaymentMethodFieldsFragmentDoc));
const subscriptionStateSchema = fragmentSchema(SubscriptionStateFieldsFragmentDoc);
const noSubscription = { status: 409, code: 'invalid_state', description: 'The account has no subscription (or nothing of this kind is '
  + 'scheduled).' };
const providerDown = { status: 503, code: 'unavailable', description: 'The payment provider did not answer; retry after `Retry-After`.' };
const billingOff = { status: 409, code: 'invalid_state', description: 'The server does not bill.' };

export const billingPaymentRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'post', path: '/v1/billing/checkouts', operationId: 'createCheckout', tags: ['billing'],
    auth: { mode: 'user', scopes: [] },
    document: CreateCheckoutDocument,
    idempotent: true,
    variables: ({ body }) => {
      checkoutFields(body);
      return { input: body as CreateCheckoutInput };
    },
    request: {
      schema: {
        type: 'object', additionalProperties: false, required: ['kind'],
        properties: {
          kind: { type: 'string', enum: ['topup', 'subscribe'] },
          amount: { ...nullableNum, description: 'Top-up: whole cents inside `topUpRange` of GET /v1/billing/plans.' },
          planId: { ...nullableStr, description: 'Subscription: a visible plan with prices.' },
          interval: { type: 'string', nullable: true, enum: ['month', 'year', null] },
          promoCode: { type: 'string', nullable: true, description: 'A promo code (1 to 100 characters; refused with 422 naming the field '
            + 'otherwise).' },
          acceptTerms: { type: 'boolean', default: false, description: 'Must be true.' },
          waiveWithdrawal: { type: 'boolean', default: false, deprecated: true, description: 'Deprecated and ignored.' },
        },
      },
    },
    response: { status: 201, description: 'The checkout.', schema: checkoutSchema },
    errors: [
      { status: 422, code: 'invalid_body' }, { status: 404, code: 'promo_code_invalid' }, { status: 409, code: 'invalid_state' },
      { status: 429, code: 'rate_limited' }, providerDown,
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/checkouts/{id}', operationId: 'getCheckout', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: CheckoutDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The checkout.', schema: checkoutSchema },
    errors: [{ status: 404, code: 'not_found' }, billingOff],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/promo-codes/check', operationId: 'checkPromoCode', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: CheckPromoCodeDocument,
    variables: ({ body }) => ({ input: promoFields(body) }),
    request: {
      schema: {
        type: 'object', additionalProperties: false, required: ['code', 'for'],
        properties: { code: { type: 'string', description: '1 to 100 characters (422 naming `code` otherwise); matched without regard to '
          + 'case.' }, for: { type: 'string', enum: ['topup', 'subscribe'] } },
      },
    },
    response: { status: 200, description: 'The code\'s terms for this purchase.', schema: resultSchema(CheckPromoCodeDocument) },
    errors: [
      { status: 404, code: 'promo_code_invalid' }, { status: 422, code: 'invalid_body' }, { status: 429, code: 'rate_limited' }, billingOff,
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/payment-methods', operationId: 'listPaymentMethods', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: PaymentMethodsDocument,
    result: (data) => ({ status: 200, body: { paymentMethods: data.paymentMethods } }),
    response: { status: 200, description: 'The cards, default first.', schema: paymentMethodsSchema },
    errors: [providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/payment-methods/manage', operationId: 'managePaymentMethods', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: ManagePaymentMethodsDocument,
    response: { status: 200, description: 'The link.', schema: resultSchema(ManagePaymentMethodsDocument) },
    errors: [billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/billing/payment-methods/{id}', operationId: 'deletePaymentMethod', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: DeletePaymentMethodDocument,
    variables: ({ params }) => ({ id: params.id! }),
    result: (data) => ({ status: 200, body: { paymentMethods: data.deletePaymentMethod } }),
    response: { status: 200, description: 'The cards left.', schema: paymentMethodsSchema },
    errors: [{ status: 404, code: 'not_found' }, { status: 409, code: 'payment_method_in_use' }, billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/payments', operationId: 'listPayments', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: [
      { name: 'cursor', in: 'query', schema: { type: 'string', maxLength: 200 }, description: '`nextCursor` of the previous page.' },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
    ],
    document: PaymentsDocument,
    variables: ({ query }) => ({
      cursor: single(query.cursor) ?? null, limit: query.limit === undefined ? null : Number(single(query.limit)),
    }),
    result: (data) => ({ status: 200, body: withoutLastCursor(data.payments) }),
    response: { status: 200, description: 'A page of payments.', schema: cursorPageSchema(PaymentsDocument) },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/payments/{id}/document', operationId: 'getPaymentDocument', tags: ['billing'],
    auth: { mode: 'user', scopes: [] },
    document: PaymentDocumentDocument,
    variables: ({ params }) => ({ id: params.id! }),
    result: (data) => (data.paymentDocument.pending
      ? { status: 202, body: { pending: true }, headers: { 'Retry-After': '5' } }
      : { status: 200, body: data.paymentDocument }),
    response: {
      status: 200, description: 'The link (202 `{pending: true}` while it is being made).', schema: resultSchema(PaymentDocumentDocument),
    },
    errors: [{ status: 404, code: 'not_found' }, { status: 409, code: 'billing_details_required' }, billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/billing/portal', operationId: 'getBillingPortal', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: BillingPortalDocument,
    response: { status: 200, description: 'The link.', schema: resultSchema(BillingPortalDocument) },
    errors: [{ status: 409, code: 'payment_method_required' }, billingOff, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/subscription/cancel', operationId: 'cancelSubscription', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: CancelSubscriptionDocument,
    response: { status: 200, description: 'The plan and subscription now.', schema: subscriptionStateSchema },
    errors: [noSubscription, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/subscription/uncancel', operationId: 'uncancelSubscription', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: UncancelSubscriptionDocument,
    response: { status: 200, description: 'The plan and subscription now.', schema: subscriptionStateSchema },
    errors: [noSubscription, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/subscription/interval', operationId: 'scheduleSubscriptionInterval', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: ScheduleSubscriptionIntervalDocument,
    variables: ({ body }) => ({ interval: intervalField(body) }),
    request: { schema: {
      type: 'object', additionalProperties: false, required: ['interval'],
      properties: { interval: { type: 'string', enum: ['month', 'year'] } },
    } },
    response: { status: 200, description: 'The plan and subscription now (`pendingInterval`).', schema: subscriptionStateSchema },
    errors: [{ status: 422, code: 'invalid_body' }, { status: 409, code: 'invalid_state' }, providerDown],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/billing/subscription/interval', operationId: 'cancelSubscriptionInterval', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: CancelSubscriptionIntervalDocument,
    response: { status: 200, description: 'The plan and subscription now.', schema: subscriptionStateSchema },
    errors: [noSubscription, providerDown],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/billing/auto-top-up/retry', operationId: 'retryAutoTopUp', tags: ['billing'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: RetryAutoTopUpDocument,
    response: {
      status: 200, description: 'AutoTopUpView; `last.outcome` says how the charge went.', schema: resultSchema(RetryAutoTopUpDocument),
    },
    errors: [
      { status: 409, code: 'auto_top_up_off' }, { status: 409, code: 'invalid_state' }, { status: 409, code: 'payment_method_required' },
      { status: 429, code: 'rate_limited' }, providerDown,
    ],
  }),
  {
    method: 'post', path: '/v1/billing/webhooks/stripe', operationId: 'stripeWebhook', tags: ['billing'],
    auth: { mode: 'public', scopes: [] },
    ownBody: true,
    request: {
      contentType: 'application/json',
      schema: { type: 'object', additionalProperties: true, description: 'A Stripe event, as Stripe signs it.' },
    },
    response: { status: 200, description: 'Received.', schema: {
        type: 'object', required: ['received', 'applied', 'type'],
        properties: { received: { type: 'boolean' }, applied: { type: 'boolean' }, type: { type: 'string' } },
      },
    },
    errors: [{ status: 400, code: 'invalid_signature' }, { status: 422, code: 'invalid_body' }, billingOff],
    handler: async (req, res, ctx) => {
      const raw = await new Promise<Buffer>(
        (resolve, reject) => express.raw({ type: () => true, limit: '1mb' })(
          req, res,
          (error?: unknown) => (error ? reject(
            errors.invalidBody('The body could not be read (at most 1 MB).', { field: 'body' }),
          ) : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0))),
        ),
      );
      const outcome = await ctx.services.payments.handleWebhook(raw, single(req.headers['stripe-signature']));
      res.status(200).json({ received: true, ...outcome });
    },
  },
];

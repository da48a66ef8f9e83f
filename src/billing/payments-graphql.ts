import { builder } from '../core/builder.js';
import { baseUrlOf, type Context } from '../core/context.js';
import { BillingViewType, AutoTopUpViewType } from './graphql.js';
import { billingView } from './views.js';
import {
  intervalField, type Buyer, type CheckoutView, type PaymentMethodView, type PaymentView, type PromoView,
} from './payments/service.js';

/** Checkouts, subscriptions, cards, payments, promo codes and auto top-up retries (src/billing/payments). */

const CheckoutViewType = builder.objectRef<CheckoutView>('CheckoutView').implement({
  fields: (t) => ({
    checkoutId: t.exposeID('checkoutId'),
    kind: t.exposeString('kind', { description: '`topup` or `subscribe`.' }),
    status: t.exposeString('status', { description: '`open`, `succeeded`, `expired` or `failed`.' }),
    createdAt: t.exposeString('createdAt'),
    amount: t.exposeFloat('amount', { nullable: true, description: 'A top-up\'s amount, or a subscription\'s first payment before tax '
      + 'less a promo discount.' }),
    completedAt: t.exposeString('completedAt', { nullable: true }),
    expiresAt: t.exposeString('expiresAt', { nullable: true }),
    interval: t.exposeString('interval', { nullable: true }),
    planId: t.exposeString('planId', { nullable: true }),
    url: t.exposeString('url', { nullable: true, description: 'Where to send the customer while open; the provider returns them with '
      + '`?checkout=<checkoutId>`.' }),
    providerId: t.exposeString('providerId', { nullable: true, description: 'The payment provider\'s id for it (also accepted by '
      + '`checkout`).' }),
  }),
});

const PaymentType = builder.objectRef<PaymentView>('Payment').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind', { description: '`topup`, `subscription` or `auto_top_up`.' }),
    status: t.exposeString('status', { description: '`paid`, `pending`, `failed`, `refunded` or `credit`.' }),
    amount: t.exposeFloat('amount'),
    currency: t.exposeString('currency'),
    createdAt: t.exposeString('createdAt'),
    document: t.exposeString('document', { description: '`invoice` (subscription) or `receipt` (top-up): what GET …/document fetches.' }),
    businessPurchase: t.exposeBoolean('businessPurchase', { description: 'Made with a tax ID saved in the billing details.' }),
    taxId: t.exposeString('taxId', { nullable: true }),
  }),
});

const PaymentPageType = builder.objectRef<{ items: PaymentView[]; nextCursor: string | null }>('PaymentPage').implement({
  fields: (t) => ({
    payments: t.field({ type: [PaymentType], resolve: (page) => page.items }),
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
  }),
});

const PaymentMethodType = builder.objectRef<PaymentMethodView>('PaymentMethod').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    brand: t.exposeString('brand'),
    last4: t.exposeString('last4'),
    expMonth: t.exposeInt('expMonth', { nullable: true }),
    expYear: t.exposeInt('expYear', { nullable: true }),
    wallet: t.exposeString('wallet', { nullable: true, description: '`apple_pay`, `google_pay`, … when the card came from a wallet.' }),
    isDefault: t.exposeBoolean('isDefault'),
    declined: t.exposeBoolean('declined', { description: 'The last automatic charge or renewal on it was declined.' }),
  }),
});

const PromoType = builder.objectRef<PromoView>('PromoCode').implement({
  description: 'What a promo code gives this purchase.',
  fields: (t) => ({
    code: t.exposeString('code'),
    for: t.exposeString('for'),
    percentOff: t.exposeInt('percentOff', { nullable: true }),
    amountOff: t.exposeFloat('amountOff', { nullable: true }),
    bonusCredit: t.exposeFloat('bonusCredit', { nullable: true }),
  }),
});

const LinkType = builder.objectRef<{ url: string }>('BillingLink').implement({
  description: 'A short-lived link to the payment provider\'s pages.',
  fields: (t) => ({ url: t.exposeString('url') }),
});

const DocumentType = builder.objectRef<{ pending: boolean; url?: string; document?: string }>('PaymentDocument').implement({
  description: '`pending: true` until the provider has made the document; then a short-lived `url`.',
  fields: (t) => ({
    pending: t.exposeBoolean('pending'),
    url: t.string({ nullable: true, resolve: (doc) => doc.url ?? null }),
    document: t.string({ nullable: true, resolve: (doc) => doc.document ?? null }),
  }),
});

const CreateCheckoutInput = builder.inputType('CreateCheckoutInput', {
  fields: (t) => ({
    kind: t.string({ required: true, description: '`topup` or `subscribe`.' }),
    amount: t.float({ description: 'Top-up: whole-cent amount inside the plan list\'s `topUpRange`.' }),
    planId: t.string({ description: 'Subscription: the plan.' }),
    interval: t.string({ description: 'Subscription: `month` or `year`.' }),
    promoCode: t.string(),
    acceptTerms: t.boolean({ description: 'Default false; must be true.' }),
    waiveWithdrawal: t.boolean({ description: 'Deprecated and ignored.' }),
  }),
});

const CheckPromoCodeInput = builder.inputType('CheckPromoCodeInput', {
  fields: (t) => ({
    code: t.string({ required: true }),
    for: t.string({ required: true, description: '`topup` or `subscribe`.' }),
  }),
});

/** The signed-in person buying (scope `user` refuses API keys before this runs). */
function buyerOf(ctx: Context): Buyer {
  const { principal, account } = ctx.identity!;
  return { accountId: account.id, principalId: principal.id, email: principal.email ?? null };
}

const accountOf = (ctx: Context) => ctx.identity!.account.id;
const viewOf = (ctx: Context) => billingView(ctx.prisma, ctx.services.billing, accountOf(ctx), baseUrlOf(ctx));
/** A GraphQL input's omitted fields arrive as undefined or null; the service reads the same shape as a REST body. */
const plain = (input: object) => Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));

builder.queryFields((t) => ({
  checkout: t.field({
    type: CheckoutViewType,
    description: 'A checkout by its `checkoutId` or the provider\'s id (an open one is checked with the provider).',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => ctx.services.payments.getCheckout(accountOf(ctx), String(id)),
  }),
  paymentMethods: t.field({
    type: [PaymentMethodType],
    description: 'Saved cards; empty before the first payment.',
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => ctx.services.payments.paymentMethods(accountOf(ctx)),
  }),
  payments: t.field({
    type: PaymentPageType,
    description: 'Payment history, newest first.',
    authScopes: { read: true },
    args: { cursor: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.payments.payments(accountOf(ctx), args),
  }),
  paymentDocument: t.field({
    type: DocumentType,
    description: 'A short-lived link to the payment\'s invoice or receipt; `pending` until made. Signed-in person only.',
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => ctx.services.payments.document(accountOf(ctx), String(id)),
  }),
  billingPortal: t.field({
    type: LinkType,
    description: 'A short-lived customer portal link; 409 payment_method_required before the first checkout.',
    authScopes: { read: true },
    resolve: async (_root, _args, ctx) => ({ url: await ctx.services.payments.portalUrl(accountOf(ctx), baseUrlOf(ctx)) }),
  }),
}));

builder.mutationFields((t) => ({
  createCheckout: t.field({
    type: CheckoutViewType,
    description: 'Open a checkout (signed-in person only). Send the customer to `url`.',
    authScopes: { user: true },
    args: { input: t.arg({ type: CreateCheckoutInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.services.payments.createCheckout(buyerOf(ctx), plain(input), baseUrlOf(ctx), null),
  }),
  checkPromoCode: t.field({
    type: PromoType,
    description: 'What a promo code gives a purchase; 404 promo_code_invalid. Rate-limited per account with checkouts carrying a code.',
    authScopes: { read: true },
    args: { input: t.arg({ type: CheckPromoCodeInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.services.payments.checkPromo(accountOf(ctx), plain(input)),
  }),
  managePaymentMethods: t.field({
    type: LinkType,
    description: 'A link to the provider\'s portal to add, replace or default a card; works before the first payment.',
    authScopes: { write: true },
    resolve: async (_root, _args, ctx) => ({ url: await ctx.services.payments.manageUrl({ ...buyerOf(ctx) }, baseUrlOf(ctx)) }),
  }),
  deletePaymentMethod: t.field({
    type: [PaymentMethodType],
    description: 'Remove a card; 409 payment_method_in_use while it pays the subscription. Answers the cards left.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await ctx.services.payments.deletePaymentMethod(accountOf(ctx), String(id));
      return ctx.services.payments.paymentMethods(accountOf(ctx));
    },
  }),
  cancelSubscription: t.field({
    type: BillingViewType,
    description: 'Cancel at period end (then the default plan; unspent monthly credit removed). Answers the billing view.',
    authScopes: { write: true },
    resolve: async (_root, _args, ctx) => { await ctx.services.payments.cancel(accountOf(ctx)); return viewOf(ctx); },
  }),
  uncancelSubscription: t.field({
    type: BillingViewType,
    authScopes: { write: true },
    resolve: async (_root, _args, ctx) => { await ctx.services.payments.uncancel(accountOf(ctx)); return viewOf(ctx); },
  }),
  scheduleSubscriptionInterval: t.field({
    type: BillingViewType,
    description: 'Switch to `month` or `year` from the next period; nothing is charged now.',
    authScopes: { write: true },
    args: { interval: t.arg.string({ required: true }) },
    resolve: async (_root, { interval }, ctx) => { await ctx.services.payments.switchInterval(
      accountOf(ctx), intervalField({ interval }),
    ); return viewOf(ctx); },
  }),
  cancelSubscriptionInterval: t.field({
    type: BillingViewType,
    description: 'Take back a scheduled interval switch.',
    authScopes: { write: true },
    resolve: async (_root, _args, ctx) => { await ctx.services.payments.switchInterval(accountOf(ctx), null); return viewOf(ctx); },
  }),
  retryAutoTopUp: t.field({
    type: AutoTopUpViewType,
    description: 'Charge the configured auto top-up amount now; counts against the day\'s cap.',
    authScopes: { write: true },
    resolve: async (_root, _args, ctx) => {
      await ctx.services.payments.autoTopUp(accountOf(ctx), 'retry');
      return (await viewOf(ctx)).autoTopUp;
    },
  }),
}));

/**
 * The account's billing settings in GraphQL: billing details (invoice addressee, EU VAT ID rule), the low-balance
 * alert and the auto top-up settings. Inputs are checked by the same parsers as the REST bodies.
 */
import { builder } from '../core/builder.js';
import { setLowBalanceAlert } from './alerts.js';
import { setAutoTopUp } from './auto-top-up-settings.js';
import { billingDetails, saveBillingDetails, type BillingDetailsView } from './details.js';
import { AutoTopUpViewType, LowBalanceAlertViewType } from './graphql.js';

const BillingDetailsType = builder.objectRef<BillingDetailsView>('BillingDetails').implement({
  description: 'Who invoices and receipts are made out to.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Invoice addressee.' }),
    email: t.exposeString('email', { description: 'The sign-in email until one is saved.' }),
    line1: t.exposeString('line1'),
    city: t.exposeString('city'),
    postalCode: t.exposeString('postalCode'),
    country: t.exposeString('country', { nullable: true, description: 'ISO 3166-1 alpha-2, uppercase; set whenever taxId is.' }),
    taxId: t.exposeString('taxId', { nullable: true, description: 'Normalised: uppercase, no spaces, dots or dashes. With an EU country: '
      + 'its VAT ID, the country prefix (Greece: EL, not GR) and 8 to 12 letters or digits; with any other: 4 to 20 letters or digits.' }),
  }),
});

const BillingDetailsInput = builder.inputType('BillingDetailsInput', {
  description: 'BillingDetails: replaces the saved record (a field left out takes its default: empty, or null for country and taxId).',
  fields: (t) => ({
    name: t.string(),
    email: t.string({ description: 'Empty: use the sign-in email.' }),
    line1: t.string(),
    city: t.string(),
    postalCode: t.string(),
    country: t.string({ description: 'ISO 3166-1 alpha-2 (any case); required with a taxId.' }),
    taxId: t.string({ description: 'In an EU country: its VAT ID, the country prefix (Greece: EL) and 8 to 12 letters or digits; '
      + 'elsewhere 4 to 20 letters or digits. Spaces, dots and dashes are dropped.' }),
  }),
});

const LowBalanceAlertInput = builder.inputType('LowBalanceAlertInput', {
  fields: (t) => ({
    enabled: t.boolean({ required: true }),
    threshold: t.float({ description: 'Dollars, whole cents inside the plan list\'s lowBalanceAlert.range; required to turn it on.' }),
  }),
});

const AutoTopUpSettingsInput = builder.inputType('AutoTopUpSettingsInput', {
  description: 'AutoTopUpSettings; turning it off keeps the saved threshold and amount.',
  fields: (t) => ({
    enabled: t.boolean({ required: true }),
    threshold: t.float({ description: 'Dollars inside autoTopUp.thresholdRange; required to turn it on.' }),
    amount: t.float({ description: 'Dollars inside autoTopUp.amountRange; required to turn it on.' }),
  }),
});

builder.queryFields((t) => ({
  billingDetails: t.field({
    type: BillingDetailsType,
    description: 'The account\'s billing details (also with billing off).',
    authScopes: { read: true },
    resolve: (_root, _args, ctx) => billingDetails(ctx.prisma, ctx.identity!),
  }),
}));

builder.mutationFields((t) => ({
  updateBillingDetails: t.field({
    type: BillingDetailsType,
    description: 'Save the billing details (422 invalid_body naming `field`; 409 invalid_state when the server does not bill).',
    authScopes: { write: true },
    args: { input: t.arg({ type: BillingDetailsInput, required: true }) },
    resolve: (_root, args, ctx) => saveBillingDetails(ctx.prisma, ctx.services.billing, ctx.identity!, args.input),
  }),
  setLowBalanceAlert: t.field({
    type: LowBalanceAlertViewType,
    description: 'Turn the low-balance email on or off: one email each time the balance falls to `threshold`.',
    authScopes: { write: true },
    args: { input: t.arg({ type: LowBalanceAlertInput, required: true }) },
    resolve: (_root, args, ctx) => setLowBalanceAlert(ctx.prisma, ctx.services.billing, ctx.identity!.account.id, args.input),
  }),
  setAutoTopUp: t.field({
    type: AutoTopUpViewType,
    description: 'Auto top-up: charge `amount` to the saved payment method when the balance falls to `threshold`. Turning it on records '
      + 'consent.',
    authScopes: { write: true },
    args: { input: t.arg({ type: AutoTopUpSettingsInput, required: true }) },
    resolve: (_root, args, ctx) => setAutoTopUp(
      ctx.prisma, ctx.services.billing, ctx.config, ctx.identity!.account.id, ctx.clientAddress, args.input,
    ),
  }),
}));

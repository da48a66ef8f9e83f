/**
 * The statements as GraphQL (src/billing/statements.ts): `billingLedger`, `billingCharges`, `billingUsage`,
 * `billingUsageCharges`. Money in dollars; with billing off each answers empty (the usage report: its days, zeros).
 */
import { builder } from '../core/builder.js';
import {
  chargePage, ledgerPage, usageCharges, usageReport,
  type LedgerEntryView, type RecordingChargeView, type UsageAmount, type UsageByKind, type UsageBySource, type UsageChargePage,
  type UsageChargeView, type UsageDay, type UsageReport,
} from './statements.js';

const NEXT_CURSOR = 'Pass as `cursor` for the next page; null on the last page.';

const LedgerEntryType = builder.objectRef<LedgerEntryView>('LedgerEntry').implement({
  description: 'One credit movement; the balance moves only with one of these.',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind', { description: '`signup_credit`, `top_up`, `monthly_credit`, `monthly_credit_removed`, `charge`, '
      + '`correction`, `refund` or `adjustment`.' }),
    amount: t.exposeFloat('amount', { description: 'Dollars, signed: credit added is positive, spent negative.' }),
    balanceAfter: t.exposeFloat('balanceAfter', { description: 'The balance this movement left, in dollars.' }),
    description: t.exposeString('description'),
    chargeId: t.exposeString('chargeId', { nullable: true, description: 'The charge it pays or gives back (charges, corrections, '
      + 'refunds).' }),
    paymentId: t.exposeString('paymentId', { nullable: true, description: 'The payment that bought it (top-ups).' }),
    createdAt: t.exposeString('createdAt'),
  }),
});

const LedgerPageType = builder.objectRef<{ entries: LedgerEntryView[]; nextCursor: string | null }>('LedgerPage').implement({
  fields: (t) => ({
    entries: t.field({ type: [LedgerEntryType], resolve: (page) => page.entries }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: NEXT_CURSOR }),
  }),
});

const RecordingChargeType = builder.objectRef<RecordingChargeView>('RecordingCharge').implement({
  description: 'What a file job, a live recording or a realtime session costs. `open` while audio runs (live: metered every minute), '
    + '`settled` once it ends, `void` when waived (its cost refunded).',
  fields: (t) => ({
    id: t.exposeID('id'),
    recordingId: t.exposeString('recordingId', { nullable: true, description: 'The recording billed; kept after it is deleted.' }),
    sessionId: t.exposeString('sessionId', { nullable: true, description: 'The realtime session billed, for a session without a '
      + 'recording.' }),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: '`file` or `live`.' }),
    source: t.exposeString('source', { description: '`dashboard` (a signed-in person) or the API key\'s id.' }),
    state: t.exposeString('state', { description: '`open`, `settled` or `void`.' }),
    secondsBilled: t.exposeFloat('secondsBilled', { description: 'Audio seconds charged so far (live while open: whole minutes; at settle '
      + 'the exact length, at least `minimumSeconds`).' }),
    minimumSeconds: t.exposeInt('minimumSeconds'),
    rate: t.exposeFloat('rate', { description: 'Dollars per hour of audio (the plan\'s rate when it opened).' }),
    cost: t.exposeFloat('cost', { description: 'Dollars charged so far (a void charge keeps what it cost before its refund, a `refund` '
      + 'ledger movement).' }),
    openedAt: t.exposeString('openedAt'),
    settledAt: t.exposeString('settledAt', { nullable: true }),
  }),
});

const ChargePageType = builder.objectRef<{ charges: RecordingChargeView[]; nextCursor: string | null }>('ChargePage').implement({
  fields: (t) => ({
    charges: t.field({ type: [RecordingChargeType], resolve: (page) => page.charges }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: NEXT_CURSOR }),
  }),
});

const SECONDS = 'Audio seconds billed.';
const AMOUNT = 'Dollars spent.';

const UsageAmountType = builder.objectRef<UsageAmount>('UsageAmount').implement({
  fields: (t) => ({
    seconds: t.exposeFloat('seconds', { description: SECONDS }),
    amount: t.exposeFloat('amount', { description: AMOUNT }),
  }),
});

const UsageBySourceType = builder.objectRef<UsageBySource>('UsageBySource').implement({
  fields: (t) => ({
    source: t.exposeString('source', { description: '`dashboard` or the API key\'s id.' }),
    seconds: t.exposeFloat('seconds', { description: SECONDS }),
    amount: t.exposeFloat('amount', { description: AMOUNT }),
  }),
});

const UsageByKindType = builder.objectRef<UsageByKind>('UsageByKind').implement({
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '`file` or `live`.' }),
    seconds: t.exposeFloat('seconds', { description: SECONDS }),
    amount: t.exposeFloat('amount', { description: AMOUNT }),
  }),
});

const BY_SOURCE = 'Sources with spend, largest first.';
const BY_KIND = '`file` and `live`, always both.';

const UsageDayType = builder.objectRef<UsageDay>('UsageDay').implement({
  fields: (t) => ({
    date: t.exposeString('date', { description: 'YYYY-MM-DD in the report\'s time zone.' }),
    seconds: t.exposeFloat('seconds', { description: SECONDS }),
    amount: t.exposeFloat('amount', { description: AMOUNT }),
    bySource: t.field({ type: [UsageBySourceType], description: BY_SOURCE, resolve: (day) => day.bySource }),
    byKind: t.field({ type: [UsageByKindType], description: BY_KIND, resolve: (day) => day.byKind }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The days and zone a report or its charge page used (the asked range clamped to the account's life), and the currency. */
function rangeUsedFields<Shape extends Pick<UsageReport, 'startDate' | 'endDate' | 'tz' | 'currency'>>(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>,
) {
  return {
    startDate: t.string({
      description: 'The first day used (a start before the account\'s first day is moved to it).', resolve: (range) => range.startDate,
    }),
    endDate: t.string({
      description: 'The last day used (an end after today is moved to today). Before startDate only when the asked range lies wholly '
        + 'outside the account\'s life (then nothing is reported).',
      resolve: (range) => range.endDate,
    }),
    tz: t.string({ description: 'The zone used (canonical IANA name).', resolve: (range) => range.tz }),
    currency: t.string({ nullable: true, resolve: (range) => range.currency }),
  };
}

const UsageReportType = builder.objectRef<UsageReport>('UsageReport').implement({
  description: 'Spend per day in `tz`, per source and per kind. A charge counts on the day of each of its ledger movements (live audio: '
    + 'every metered minute); running transcriptions count at what they have been charged so far; refunds and corrections reduce the '
    + 'day they happen.',
  fields: (t) => ({
    ...rangeUsedFields(t),
    totals: t.field({ type: UsageAmountType, resolve: (report) => report.totals }),
    bySource: t.field({ type: [UsageBySourceType], description: BY_SOURCE, resolve: (report) => report.bySource }),
    byKind: t.field({ type: [UsageByKindType], description: BY_KIND, resolve: (report) => report.byKind }),
    days: t.field({
      type: [UsageDayType], description: 'Every day from startDate to endDate, zeros included.', resolve: (report) => report.days,
    }),
  }),
});

const UsageChargeType = builder.objectRef<UsageChargeView>('UsageCharge').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The charge\'s id (`type: charge`) or the ledger movement\'s (`type: correction`).' }),
    type: t.exposeString('type', { description: '`charge`, or `correction` for a refund or correction of a charge (negative cost).' }),
    chargeId: t.exposeString('chargeId'),
    recordingId: t.exposeString('recordingId', { nullable: true }),
    sessionId: t.exposeString('sessionId', { nullable: true }),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: '`file` or `live`.' }),
    source: t.exposeString('source'),
    state: t.exposeString('state', { description: 'The charge\'s state: `open` while running, `settled`, `void`.' }),
    secondsBilled: t.exposeFloat('secondsBilled', {
      description: 'Audio seconds billed inside the range (a correction: negative or zero).',
    }),
    rate: t.exposeFloat('rate', { description: 'Dollars per hour of audio.' }),
    cost: t.exposeFloat('cost', { description: 'Dollars inside the range (a correction: negative).' }),
    description: t.exposeString('description', { nullable: true, description: 'A correction\'s ledger description; null for a charge.' }),
    at: t.exposeString('at', { description: 'When the charge opened, or when the correction was written (the paging order).' }),
  }),
});

const UsageChargePageType = builder.objectRef<UsageChargePage>('UsageChargePage').implement({
  fields: (t) => ({
    ...rangeUsedFields(t),
    count: t.exposeInt('count', { description: 'Items matching, all pages.' }),
    total: t.exposeFloat(
      'total', { description: 'Dollars of every matching item, all pages (the report\'s total with the same filters).' },
    ),
    seconds: t.exposeFloat('seconds', { description: 'Audio seconds of every matching item, all pages.' }),
    charges: t.field({ type: [UsageChargeType], resolve: (page) => page.charges }),
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  billingLedger: t.field({
    type: LedgerPageType,
    description: 'Credit movements newest first (signup credit, top-ups, monthly credit, charges, corrections, refunds), paged with '
      + '`cursor`.',
    authScopes: { read: true },
    args: { cursor: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ledgerPage(ctx.prisma, ctx.services.billing, ctx.identity!.account.id, args),
  }),
  billingCharges: t.field({
    type: ChargePageType,
    description: 'The account\'s charges newest first, paged with `cursor`.',
    authScopes: { read: true },
    args: { cursor: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => chargePage(ctx.prisma, ctx.services.billing, ctx.identity!.account.id, args),
  }),
  billingUsage: t.field({
    type: UsageReportType,
    description: 'Spend per day in `tz` (default UTC), per source and per kind, from startDate to endDate inclusive (at most 92 days '
      + 'asked), clamped to the account\'s first day and today.',
    authScopes: { read: true },
    args: { startDate: t.arg.string({ required: true }), endDate: t.arg.string({ required: true }), tz: t.arg.string() },
    resolve: (_root, args, ctx) => usageReport(ctx.prisma, ctx.services.billing, ctx.identity!.account.id, args),
  }),
  billingUsageCharges: t.field({
    type: UsageChargePageType,
    description: 'The charges and corrections behind the usage report, newest first, paged with `cursor`; `kind` and `source` narrow; '
      + '`count`, `total` and `seconds` cover all matches.',
    authScopes: { read: true },
    args: {
      startDate: t.arg.string({ required: true }), endDate: t.arg.string({ required: true }), tz: t.arg.string(),
      kind: t.arg.string(), source: t.arg.string(), cursor: t.arg.string(), limit: t.arg.int(),
    },
    resolve: (_root, args, ctx) => usageCharges(ctx.prisma, ctx.services.billing, ctx.identity!.account.id, args),
  }),
}));

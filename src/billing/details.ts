/**
 * Billing details (`GET`/`PUT /v1/billing/details`): who invoices and receipts are made out to, kept in
 * BillingAccount.details as last saved.
 *
 * Rules (decided here, documented in the route's description):
 * - PUT replaces the whole record: a field left out takes its default (empty string; null for `country` and `taxId`).
 * - `email` answers the sign-in email until one is saved (an empty `email` saves none): the signed-in person's own,
 *   or for an API key the account's first person's (empty when the account has none).
 * - `country` is an ISO 3166-1 alpha-2 code from the real list (any case; stored uppercase).
 * - `taxId` is normalised (spaces, dots and dashes dropped, uppercase) and checked against `country`, so a tax ID
 *   needs a country: in an EU member state it must be that state's VAT ID — its prefix (Greece: `EL`, never `GR`)
 *   and 8 to 12 letters or digits after it; elsewhere any 4 to 20 letters or digits (tax ID formats outside the EU
 *   are too many to check one by one).
 * - Every bad field is named: `details.field` is the first, `details.fields` all of them (unknown fields, wrong
 *   types and overlong strings included).
 * - Billing off: details still read (defaults, the sign-in email), but a PUT is 409 `invalid_state`: nothing is
 *   invoiced, and the account's billing record is made only once billing is on (with its signup credit).
 */
import { errors } from '../core/errors.js';
import type { Identity } from '../core/identity/identity.js';
import { isObject } from '../core/validate.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { BillingService } from './service.js';

export interface BillingDetailsView {
  name: string;
  email: string;
  line1: string;
  city: string;
  postalCode: string;
  country: string | null;
  taxId: string | null;
}

/** The free-text fields and their longest accepted value. */
const TEXT_FIELDS = { name: 200, email: 254, line1: 200, city: 100, postalCode: 20 } as const;
type TextField = keyof typeof TEXT_FIELDS;
/** Longest tax ID accepted as typed, separators included. */
const TAX_ID_INPUT_MAX = 40;
const FIELDS = [...Object.keys(TEXT_FIELDS), 'country', 'taxId'];

/** ISO 3166-1 alpha-2: every officially assigned code. */
const COUNTRIES = new Set(('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ '
  + 'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG '
  + 'GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ '
  + 'LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR '
  + 'NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ '
  + 'TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW').split(' '));

/** The EU member states and the prefix of their VAT IDs: the country code, except Greece's `EL`. */
const EU_VAT_PREFIX: Record<string, string> = Object.fromEntries(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' ').map(
    (code) => [code, code === 'GR' ? 'EL' : code],
  ),
);

/** Spaces, dots and dashes dropped, uppercase: the form a tax ID is stored and compared in. */
export function normaliseTaxId(raw: string): string {
  return raw.replace(/[\s.\-\u2010-\u2015]/g, '').toUpperCase();
}

/** Why `taxId` (normalised) is not a tax ID of `country`, or null when it is. */
export function taxIdProblem(country: string, taxId: string): string | null {
  const prefix = EU_VAT_PREFIX[country];
  if (prefix) {
    if (!taxId.startsWith(prefix)) {
      return `an EU VAT ID of ${country} starts with its country prefix ${prefix}${country === 'GR' ? ' (not GR)' : ''}; got "${taxId}"`;
    }
    if (!/^[A-Z0-9]{8,12}$/.test(taxId.slice(prefix.length))) {
      return `an EU VAT ID has 8 to 12 letters or digits after its prefix ${prefix} (spaces, dots and dashes are dropped); got "${taxId}"`;
    }
    return null;
  }
  return /^[A-Z0-9]{4,20}$/.test(taxId) ? null : `a tax ID has 4 to 20 letters or digits (spaces, dots and dashes are dropped); got `
    + `"${taxId}"`;
}

/** What is saved: the view's fields with `email` empty when none was saved. */
export type SavedDetails = BillingDetailsView;

/** Checks a BillingDetails body; every mistake is collected before the one 422 names them. */
export function parseBillingDetails(body: unknown): SavedDetails {
  if (!isObject(body)) throw errors.invalidBody('The body must be a BillingDetails object.', { field: 'body' });
  const problems: Array<{ field: string; message: string }> = [];
  const add = (field: string, message: string) => problems.push({ field, message });
  for (const key of Object.keys(body)) if (!FIELDS.includes(key)) add(key, `${key} is not a billing details field (${FIELDS.join(', ')})`);
  const text = (field: TextField): string => {
    const value = body[field];
    if (value === undefined) return '';
    if (typeof value !== 'string') {
      add(field, `${field} must be a string`);
      return '';
    }
    if (value.length > TEXT_FIELDS[field]) add(field, `${field} must be at most ${TEXT_FIELDS[field]} characters`);
    return value.trim();
  };
  const saved: SavedDetails = {
    name: text('name'), email: text('email'), line1: text('line1'), city: text('city'), postalCode: text('postalCode'), country: null,
    taxId: null,
  };
  if (saved.email && !/^[^\s@]+@[^\s@]+$/.test(saved.email)) add('email', 'email must be an email address');

  const country = body.country;
  if (country !== undefined && country !== null && country !== '') {
    if (typeof country !== 'string') add('country', 'country must be an ISO 3166-1 alpha-2 code or null');
    else if (!COUNTRIES.has(country.trim().toUpperCase())) add('country', `country must be an ISO 3166-1 alpha-2 code such as "DE"; got `
      + `"${country.slice(0, 10)}"`);
    else saved.country = country.trim().toUpperCase();
  }
  const taxId = body.taxId;
  if (taxId !== undefined && taxId !== null && taxId !== '') {
    if (typeof taxId !== 'string') add('taxId', 'taxId must be a string or null');
    else if (taxId.length > TAX_ID_INPUT_MAX) add('taxId', `taxId must be at most ${TAX_ID_INPUT_MAX} characters`);
    else {
      const normalised = normaliseTaxId(taxId);
      if (saved.country) {
        const problem = taxIdProblem(saved.country, normalised);
        if (problem) add('taxId', `taxId: ${problem}`);
      } else if (!problems.some((p) => p.field === 'country')) add('country', 'country is required with a taxId: a tax ID is checked '
        + 'against its country');
      saved.taxId = normalised || null;
    }
  }
  if (problems.length) {
    throw errors.invalidBody(`Invalid billing details: ${problems.map((p) => p.message).join('; ')}.`, {
      field: problems[0]!.field, fields: [...new Set(problems.map((p) => p.field))],
    });
  }
  return saved;
}

/** The row's details as saved (none saved, or a stored record missing a field: the defaults). */
function savedDetails(stored: unknown): SavedDetails {
  const record = isObject(stored) ? stored : {};
  const str = (key: string) => (typeof record[key] === 'string' ? record[key] as string : '');
  return {
    name: str('name'), email: str('email'), line1: str('line1'), city: str('city'), postalCode: str('postalCode'),
    country: typeof record.country === 'string' ? record.country : null,
    taxId: typeof record.taxId === 'string' ? record.taxId : null,
  };
}

/** The email of the account's first person (the one who signed it up), or '' when only keys act for it. */
export async function accountPersonEmail(prisma: PrismaClient, accountId: string): Promise<string> {
  const person = await prisma.principal.findFirst({
    where: { accountId, kind: 'user', email: { not: null } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { email: true },
  });
  return person?.email ?? '';
}

/** Where the account's billing email goes: the saved billing email, else the account's first person's. */
export async function billingEmail(prisma: PrismaClient, accountId: string, stored: unknown): Promise<string> {
  return savedDetails(stored).email || accountPersonEmail(prisma, accountId);
}

async function signInEmail(prisma: PrismaClient, identity: Identity): Promise<string> {
  if (identity.principal.kind === 'user' && identity.principal.email) return identity.principal.email;
  return accountPersonEmail(prisma, identity.account.id);
}

async function view(prisma: PrismaClient, identity: Identity, stored: unknown): Promise<BillingDetailsView> {
  const saved = savedDetails(stored);
  return { ...saved, email: saved.email || await signInEmail(prisma, identity) };
}

export async function billingDetails(prisma: PrismaClient, identity: Identity): Promise<BillingDetailsView> {
  const row = await prisma.billingAccount.findUnique({ where: { accountId: identity.account.id }, select: { details: true } });
  return view(prisma, identity, row?.details ?? null);
}

export async function saveBillingDetails(
  prisma: PrismaClient, billing: BillingService, identity: Identity, body: unknown,
): Promise<BillingDetailsView> {
  const details = parseBillingDetails(body);
  if (!billing.enabled) throw errors.invalidState('This server does not bill: there are no invoices to make out, so billing details are '
    + 'not kept.');
  await billing.account(identity.account.id);
  const row = await prisma.billingAccount.update({
    where: { accountId: identity.account.id }, data: { details: { ...details } }, select: { details: true },
  });
  return view(prisma, identity, row.details);
}

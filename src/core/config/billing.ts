/**
 * Billing settings (src/billing), read by `loadConfig` into `config.billing`. Off unless BILLING_CONFIG names a JSON
 * file the operator edits: plans, rates, prices, limits, top-up and alert choices, promo codes. The file is checked
 * whole at start and every mistake is reported on its own line naming its place (`plans[1].rates.file: …`), so
 * one start shows them all. Money in the file is in dollars (whole cents; rates up to six decimals); inside the
 * service it is whole cents, rates millionths of a dollar per hour of audio.
 */
import fs from 'node:fs';
import { envString as str, type Env } from './env.js';

export interface MoneyRange {
  minCents: number;
  maxCents: number;
}

export interface PlanSettings {
  id: string;
  name: string;
  /** Listed by GET /v1/billing/plans (a hidden plan still applies to accounts already on it). */
  visible: boolean;
  /** Dollars per hour of audio in millionths, per kind, and the least a transcription is billed. */
  rates: { fileMicros: number; liveMicros: number; minimumSeconds: number };
  /** Subscription prices in cents and the provider's price ids; null for a plan with no subscription (pay as you go). */
  prices: { monthCents: number; yearCents: number; providerMonth: string | null; providerYear: string | null } | null;
  includedMonthlyCreditCents: number;
  /** How far below zero running work may take the balance (never shown; 0: no grace). */
  graceCapCents: number;
  limits: {
    concurrentTranscriptions: number;
    createsPerHour: number;
    /** Creation rate until the account's first payment. */
    createsPerHourUnpaid: number;
    /** Days recordings are kept; null: kept until deleted. */
    retentionDays: number | null;
  };
  features: string[];
  /** Invoiced by the operator outside the provider: no checkout for it. */
  billedByHand: boolean;
}

export interface PromoCodeSettings {
  code: string;
  for: Array<'topup' | 'subscribe'>;
  percentOff: number | null;
  amountOffCents: number | null;
  /** A top-up code may add bonus credit instead of a discount. */
  bonusCreditCents: number | null;
  expiresAt: Date | null;
  maxRedemptions: number | null;
}

export type ProviderSettings =
  | { kind: 'manual' }
  | { kind: 'stripe'; secretKey: string; webhookSecret: string; apiBase: string | null };

export interface BillingSettings {
  enabled: true;
  currency: string;
  provider: ProviderSettings;
  defaultPlanId: string;
  signupCreditCents: number;
  termsVersion: string;
  /** Where to add credit (`topUpUrl`); null: the server's own `/v1/billing/plans`. */
  topUpUrl: string | null;
  topUp: { presetsCents: number[]; range: MoneyRange };
  autoTopUp: { thresholdsCents: number[]; amountsCents: number[]; thresholdRange: MoneyRange; amountRange: MoneyRange; perDay: number };
  lowBalanceAlert: { thresholdsCents: number[]; range: MoneyRange };
  downgradeGraceDays: number;
  /** Promo checks (and checkouts carrying a code) per account an hour. */
  promoChecksPerHour: number;
  promoCodes: PromoCodeSettings[];
  plans: PlanSettings[];
  /** How often running live audio is metered (seconds; whole minutes are charged). */
  meterIntervalS: number;
  /** Low-balance alert emails: an SMTP URL (smtp://user:pass@host:port) and the sender; null: no emails. */
  mail: { smtpUrl: string; from: string } | null;
}

/** Billing off (the self-hosted default): every check passes. */
export type BillingConfig = BillingSettings | { enabled: false };

/** Collects every mistake of the file with its place before one error reports them all. */
class Problems {
  readonly lines: string[] = [];
  add(place: string, message: string): void {
    this.lines.push(`${place}: ${message}`);
  }
}

type Raw = Record<string, unknown>;

function isRecord(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Dollars with at most `decimals` decimals → integer units of 10^-decimals (cents: 2, micros: 6). */
function money(
  problems: Problems, place: string, value: unknown, { decimals = 2, fallback }: { decimals?: number; fallback?: number } = {},
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const scale = 10 ** decimals;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    problems.add(place, `must be an amount in dollars ≥ 0, got ${JSON.stringify(value)}`);
    return 0;
  }
  const units = Math.round(value * scale);
  if (Math.abs(units - value * scale) > 1e-6) problems.add(place, `must have at most ${decimals} decimals, got ${value}`);
  return units;
}

function whole(problems: Problems, place: string, value: unknown, fallback?: number, { min = 0 } = {}): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    problems.add(place, `must be a whole number ≥ ${min}, got ${JSON.stringify(value)}`);
    return min;
  }
  return value;
}

function text(problems: Problems, place: string, value: unknown, fallback?: string): string {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !value.trim()) {
    problems.add(place, `must be a non-empty string, got ${JSON.stringify(value)}`);
    return '';
  }
  return value;
}

function range(problems: Problems, place: string, value: unknown): MoneyRange {
  if (!isRecord(value)) {
    problems.add(place, 'must be {"min": dollars, "max": dollars}');
    return { minCents: 0, maxCents: 0 };
  }
  const minCents = money(problems, `${place}.min`, value.min);
  const maxCents = money(problems, `${place}.max`, value.max);
  if (minCents > maxCents) problems.add(place, `min (${value.min}) is above max (${value.max})`);
  return { minCents, maxCents };
}

function presets(problems: Problems, place: string, value: unknown, within: MoneyRange): number[] {
  if (!Array.isArray(value)) {
    problems.add(place, 'must be a list of amounts in dollars');
    return [];
  }
  return value.map((amount, index) => {
    const cents = money(problems, `${place}[${index}]`, amount);
    if (cents < within.minCents || cents > within.maxCents) problems.add(`${place}[${index}]`, `${amount} is outside its range`);
    return cents;
  });
}

function unknownKeys(problems: Problems, place: string, value: Raw, known: string[]): void {
  for (const key of Object.keys(value)) if (!known.includes(key)) problems.add(place ? `${place}.${key}` : key, 'is not a known setting');
}

function plan(problems: Problems, place: string, raw: unknown): PlanSettings | null {
  if (!isRecord(raw)) {
    problems.add(place, 'must be an object');
    return null;
  }
  unknownKeys(problems, place, raw, [
    'id', 'name', 'visible', 'rates', 'prices', 'includedMonthlyCredit', 'graceOnZero', 'limits', 'features', 'billedByHand',
  ]);
  const rates = isRecord(raw.rates) ? raw.rates : (problems.add(`${place}.rates`, 'must be {"file": $/h, "live": $/h, "minimumSeconds": '
    + 's}'), {});
  const limits = isRecord(raw.limits) ? raw.limits : (problems.add(`${place}.limits`, 'must be an object'), {});
  let prices: PlanSettings['prices'] = null;
  if (raw.prices !== undefined && raw.prices !== null) {
    if (!isRecord(raw.prices)) problems.add(`${place}.prices`, 'must be {"month": dollars, "year": dollars, "providerMonth", '
      + '"providerYear"} or null');
    else {
      prices = {
        monthCents: money(problems, `${place}.prices.month`, raw.prices.month),
        yearCents: money(problems, `${place}.prices.year`, raw.prices.year),
        providerMonth: typeof raw.prices.providerMonth === 'string' ? raw.prices.providerMonth : null,
        providerYear: typeof raw.prices.providerYear === 'string' ? raw.prices.providerYear : null,
      };
    }
  }
  const retention = limits.retentionDays;
  return {
    id: text(problems, `${place}.id`, raw.id),
    name: text(problems, `${place}.name`, raw.name, typeof raw.id === 'string' ? raw.id : ''),
    visible: raw.visible === undefined ? true : raw.visible === true,
    rates: {
      fileMicros: money(problems, `${place}.rates.file`, rates.file, { decimals: 6 }),
      liveMicros: money(problems, `${place}.rates.live`, rates.live, { decimals: 6 }),
      minimumSeconds: whole(problems, `${place}.rates.minimumSeconds`, rates.minimumSeconds, 0),
    },
    prices,
    includedMonthlyCreditCents: money(problems, `${place}.includedMonthlyCredit`, raw.includedMonthlyCredit, { fallback: 0 }),
    graceCapCents: money(problems, `${place}.graceOnZero`, raw.graceOnZero, { fallback: 0 }),
    limits: {
      concurrentTranscriptions: whole(problems, `${place}.limits.concurrentTranscriptions`, limits.concurrentTranscriptions, 2, { min: 1 }),
      createsPerHour: whole(problems, `${place}.limits.createsPerHour`, limits.createsPerHour, 60, { min: 1 }),
      createsPerHourUnpaid: whole(
        problems, `${place}.limits.createsPerHourUnpaid`, limits.createsPerHourUnpaid ?? limits.createsPerHour, 60, { min: 1 },
      ),
      retentionDays: retention === undefined || retention === null ? null : whole(
        problems, `${place}.limits.retentionDays`, retention, undefined, { min: 1 },
      ),
    },
    features:
      Array.isArray(raw.features) && raw.features.every((f) => typeof f === 'string')
        ? (raw.features as string[])
        : raw.features === undefined
          ? []
          : (problems.add(`${place}.features`, 'must be a list of strings'), []),
    billedByHand: raw.billedByHand === true,
  };
}

function promoCode(problems: Problems, place: string, raw: unknown): PromoCodeSettings | null {
  if (!isRecord(raw)) {
    problems.add(place, 'must be an object');
    return null;
  }
  unknownKeys(problems, place, raw, ['code', 'for', 'percentOff', 'amountOff', 'bonusCredit', 'expiresAt', 'maxRedemptions']);
  const forKinds = Array.isArray(raw.for) ? raw.for : [raw.for];
  if (!forKinds.every((kind) => kind === 'topup' || kind === 'subscribe')) {
    problems.add(`${place}.for`, 'must be "topup", "subscribe" or a list of them');
  }
  const percentOff = raw.percentOff === undefined ? null : whole(problems, `${place}.percentOff`, raw.percentOff);
  if (percentOff !== null && (percentOff < 1 || percentOff > 100)) problems.add(`${place}.percentOff`, 'must be 1 to 100');
  const expires = raw.expiresAt === undefined || raw.expiresAt === null ? null : new Date(String(raw.expiresAt));
  if (expires && Number.isNaN(expires.getTime())) problems.add(`${place}.expiresAt`, 'must be an RFC 3339 timestamp');
  const promo: PromoCodeSettings = {
    code: text(problems, `${place}.code`, raw.code),
    for: forKinds as PromoCodeSettings['for'],
    percentOff,
    amountOffCents: raw.amountOff === undefined ? null : money(problems, `${place}.amountOff`, raw.amountOff),
    bonusCreditCents: raw.bonusCredit === undefined ? null : money(problems, `${place}.bonusCredit`, raw.bonusCredit),
    expiresAt: expires,
    maxRedemptions: raw.maxRedemptions === undefined || raw.maxRedemptions === null ? null : whole(
      problems, `${place}.maxRedemptions`, raw.maxRedemptions, undefined, { min: 1 },
    ),
  };
  if (promo.percentOff === null && promo.amountOffCents === null && promo.bonusCreditCents === null) {
    problems.add(place, 'gives nothing: set percentOff, amountOff or bonusCredit');
  }
  return promo;
}

/** Checks a parsed billing file; `env` supplies the secrets that never sit in it. Throws one Error listing every mistake. */
export function parseBillingSettings(raw: unknown, env: Env, source = 'BILLING_CONFIG'): BillingSettings {
  const problems = new Problems();
  if (!isRecord(raw)) throw new Error(`${source}: must hold a JSON object`);
  unknownKeys(problems, '', raw, [
    'currency', 'provider', 'defaultPlan', 'signupCredit', 'termsVersion', 'topUpUrl', 'topUp', 'autoTopUp', 'lowBalanceAlert',
    'downgradeGraceDays', 'promoChecksPerHour', 'promoCodes', 'plans', 'meterIntervalS',
  ]);
  const plans = Array.isArray(raw.plans) ? raw.plans.map((entry, index) => plan(problems, `plans[${index}]`, entry)).filter(
    (p): p is PlanSettings => p !== null,
  ) : [];
  if (!Array.isArray(raw.plans) || plans.length === 0) problems.add('plans', 'must list at least one plan');
  const ids = plans.map((p) => p.id);
  ids.forEach((id, index) => { if (ids.indexOf(id) !== index) problems.add(`plans[${index}].id`, `"${id}" is used twice`); });
  const defaultPlanId = text(problems, 'defaultPlan', raw.defaultPlan, plans[0]?.id ?? '');
  const defaultPlan = plans.find((p) => p.id === defaultPlanId);
  if (plans.length && !defaultPlan) problems.add('defaultPlan', `"${defaultPlanId}" is not one of the plans (${ids.join(', ')})`);
  if (defaultPlan?.prices) {
    problems.add('defaultPlan', `"${defaultPlanId}" has prices; the default plan is the one an account falls back to and is never `
      + `subscribed to`);
  }

  const providerRaw = isRecord(raw.provider) ? raw.provider : { kind: raw.provider ?? 'manual' };
  let provider: ProviderSettings = { kind: 'manual' };
  if (providerRaw.kind === 'stripe') {
    const secretKey = str(env, 'STRIPE_SECRET_KEY');
    const webhookSecret = str(env, 'STRIPE_WEBHOOK_SECRET');
    if (!secretKey) problems.add('provider', 'stripe needs the STRIPE_SECRET_KEY environment variable');
    if (!webhookSecret) problems.add('provider', 'stripe needs the STRIPE_WEBHOOK_SECRET environment variable (the endpoint\'s signing '
      + 'secret)');
    const apiBase = str(env, 'STRIPE_API_BASE') ?? (typeof providerRaw.apiBase === 'string' ? providerRaw.apiBase : null);
    if (apiBase !== null && !/^https?:\/\/[^/]+/.test(apiBase)) {
      problems.add('provider.apiBase', `must be an http(s) URL, got "${apiBase}"`);
    }
    provider = {
      kind: 'stripe', secretKey: secretKey ?? '', webhookSecret: webhookSecret ?? '', apiBase: apiBase?.replace(/\/+$/, '') ?? null,
    };
    for (const p of plans) {
      if (p.prices && !p.billedByHand && (!p.prices.providerMonth || !p.prices.providerYear)) {
        problems.add(`plans[${ids.indexOf(p.id)}].prices`, 'a plan sold through stripe needs providerMonth and providerYear (Stripe price '
          + 'ids)');
      }
    }
  } else if (providerRaw.kind !== 'manual') problems.add('provider', `must be "manual" or {"kind": "stripe"}, got `
    + `${JSON.stringify(raw.provider)}`);

  const topUp = isRecord(raw.topUp) ? raw.topUp : {};
  const topUpRange = range(problems, 'topUp.range', topUp.range ?? { min: 5, max: 1000 });
  const auto = isRecord(raw.autoTopUp) ? raw.autoTopUp : {};
  const thresholdRange = range(problems, 'autoTopUp.thresholdRange', auto.thresholdRange ?? { min: 1, max: 500 });
  const amountRange = range(problems, 'autoTopUp.amountRange', auto.amountRange ?? { min: 5, max: 1000 });
  const alert = isRecord(raw.lowBalanceAlert) ? raw.lowBalanceAlert : {};
  const alertRange = range(problems, 'lowBalanceAlert.range', alert.range ?? { min: 1, max: 500 });
  const promoCodes = Array.isArray(raw.promoCodes) ? raw.promoCodes.map((entry, index) => promoCode(
    problems, `promoCodes[${index}]`, entry,
  )).filter((p): p is PromoCodeSettings => p !== null) : [];
  if (raw.promoCodes !== undefined && !Array.isArray(raw.promoCodes)) problems.add('promoCodes', 'must be a list');
  const currency = text(problems, 'currency', raw.currency, 'usd').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) problems.add('currency', `must be an ISO 4217 code such as "usd", got "${currency}"`);
  const smtpUrl = str(env, 'SMTP_URL');
  const settings: BillingSettings = {
    enabled: true,
    currency,
    provider,
    defaultPlanId,
    signupCreditCents: money(problems, 'signupCredit', raw.signupCredit, { fallback: 0 }),
    termsVersion: text(problems, 'termsVersion', raw.termsVersion, '1'),
    topUpUrl: raw.topUpUrl === undefined || raw.topUpUrl === null ? null : text(problems, 'topUpUrl', raw.topUpUrl),
    topUp: { presetsCents: presets(problems, 'topUp.presets', topUp.presets ?? [10, 25, 50], topUpRange), range: topUpRange },
    autoTopUp: {
      thresholdsCents: presets(problems, 'autoTopUp.thresholds', auto.thresholds ?? [5, 10, 20], thresholdRange),
      amountsCents: presets(problems, 'autoTopUp.amounts', auto.amounts ?? [10, 25, 50], amountRange),
      thresholdRange,
      amountRange,
      perDay: whole(problems, 'autoTopUp.perDay', auto.perDay, 3, { min: 1 }),
    },
    lowBalanceAlert: {
      thresholdsCents: presets(problems, 'lowBalanceAlert.thresholds', alert.thresholds ?? [2, 5, 10], alertRange), range: alertRange,
    },
    downgradeGraceDays: whole(problems, 'downgradeGraceDays', raw.downgradeGraceDays, 30),
    promoChecksPerHour: whole(problems, 'promoChecksPerHour', raw.promoChecksPerHour, 10, { min: 1 }),
    promoCodes,
    plans,
    meterIntervalS: whole(problems, 'meterIntervalS', raw.meterIntervalS, 60, { min: 1 }),
    mail: smtpUrl ? { smtpUrl, from: str(env, 'MAIL_FROM') ?? 'speechgate <billing@localhost>' } : null,
  };
  if (problems.lines.length) {
    throw new Error(`${source} has ${problems.lines.length} mistake${problems.lines.length > 1 ? 's' : ''}:\n  `
      + `${problems.lines.join('\n  ')}`);
  }
  return settings;
}

/** BILLING_CONFIG: the path of the operator's JSON file; unset: billing off. */
export function loadBillingSettings(env: Env): BillingConfig {
  const file = str(env, 'BILLING_CONFIG');
  if (!file) return { enabled: false };
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`BILLING_CONFIG (${file}): ${(error as Error).message}`);
  }
  return parseBillingSettings(raw, env, `BILLING_CONFIG (${file})`);
}

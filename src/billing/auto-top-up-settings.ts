/**
 * Auto top-up settings (`PUT /v1/billing/auto-top-up`): whether to charge the saved payment method `amount` when
 * the balance falls to `threshold`. The charging itself lives with the payment provider (src/billing/payments); it
 * reads what is set here with `autoTopUpSettingsOf`.
 *
 * Rules (decided here, documented in the route's description):
 * - Turning it on needs `threshold` and `amount` (whole cents inside the plan list's `autoTopUp.thresholdRange` and
 *   `amountRange`), a provider that takes automatic charges (else 409 `invalid_state`) and a saved payment method
 *   (else 409 `payment_method_required`). Each time it is turned on the consent is recorded: when, a hash of the
 *   caller's address (HMAC-SHA-256 under a key derived from the server's signing secret, so the address itself is
 *   never kept and a hash means nothing elsewhere) and the terms version in force.
 * - Turning it off is always allowed while billing is on (nothing is charged); it keeps the threshold and amount
 *   (those given are checked and saved), so turning it on again shows the last choice.
 * - Billing off: 409 `invalid_state`.
 */
import crypto from 'node:crypto';
import type { BillingSettings, MoneyRange } from '../core/config/billing.js';
import type { Config } from '../core/config/index.js';
import { ApiError, errors } from '../core/errors.js';
import { purposeKey } from '../core/signing-secret.js';
import { isObject } from '../core/validate.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { lockBillingAccount, type BillingAccountRow } from './ledger.js';
import type { Tx } from '../core/db/transactions.js';
import { centsIn } from './money.js';
import { dollars, type BillingService } from './service.js';
import type { AutoTopUpView } from './views.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

export interface AutoTopUpInput {
  enabled: boolean;
  /** Null: keep the saved value (only when turning it off). */
  thresholdCents: number | null;
  amountCents: number | null;
}

/** What was agreed to when auto top-up was last turned on (BillingAccount.autoTopUpConsent). */
export interface AutoTopUpConsent {
  at: string;
  /** HMAC-SHA-256 (hex) of the caller's address; null when the request had none (an in-process call). */
  addressHash: string | null;
  termsVersion: string;
}

/** The settings the charging reads: `enabled` only ever true with both amounts set. */
export interface AutoTopUpSettings {
  enabled: boolean;
  thresholdCents: number | null;
  amountCents: number | null;
  consent: AutoTopUpConsent | null;
}

const FIELDS = ['enabled', 'threshold', 'amount'];

export function autoTopUpSettingsOf(account: BillingAccountRow): AutoTopUpSettings {
  const consent = isObject(account.autoTopUpConsent) ? account.autoTopUpConsent as unknown as AutoTopUpConsent : null;
  const { autoTopUpThresholdCents: thresholdCents, autoTopUpAmountCents: amountCents } = account;
  return { enabled: account.autoTopUpEnabled && thresholdCents !== null && amountCents !== null, thresholdCents, amountCents, consent };
}

/** Checks an AutoTopUpSettings body against the plan list's ranges. */
export function parseAutoTopUpSettings(body: unknown, settings: BillingSettings): AutoTopUpInput {
  if (!isObject(body)) throw errors.invalidBody('The body must be AutoTopUpSettings {enabled, threshold, amount}.', { field: 'body' });
  const unknown = Object.keys(body).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined) {
    throw errors.invalidBody(`${unknown} is not an auto top-up field (enabled, threshold, amount).`, { field: unknown });
  }
  if (typeof body.enabled !== 'boolean') throw errors.invalidBody('enabled must be true or false.', { field: 'enabled' });
  const given = (field: 'threshold' | 'amount', range: MoneyRange) => {
    const value = body[field];
    if (value === undefined || value === null) {
      if (body.enabled) {
        throw errors.invalidBody(
          `${field} is required to turn auto top-up on (dollars inside the plan list's autoTopUp.${field}Range).`, { field },
        );
      }
      return null;
    }
    return centsIn(value, field, range);
  };
  return {
    enabled: body.enabled, thresholdCents: given('threshold', settings.autoTopUp.thresholdRange),
    amountCents: given('amount', settings.autoTopUp.amountRange),
  };
}

/** AutoTopUpView of a row: `available` when a payment method is saved, `last` the newest attempt. */
export async function autoTopUpViewOf(tx: Tx | PrismaClient, account: BillingAccountRow): Promise<AutoTopUpView> {
  const { accountId } = account;
  const [methods, last] = await Promise.all([
    tx.paymentMethod.count({ where: { accountId } }),
    tx.autoTopUpAttempt.findFirst({ where: { accountId }, orderBy: [{ at: 'desc' }, { id: 'desc' }] }),
  ]);
  const inDollars = (cents: number | null) => (cents === null ? null : dollars(cents));
  return {
    enabled: account.autoTopUpEnabled,
    available: methods > 0,
    threshold: inDollars(account.autoTopUpThresholdCents),
    amount: inDollars(account.autoTopUpAmountCents),
    last: last && { at: last.at.toISOString(), amount: dollars(last.amountCents), outcome: last.outcome },
  };
}

async function addressHash(config: Config, clientAddress: string | undefined): Promise<string | null> {
  if (!clientAddress) return null;
  return crypto.createHmac('sha256', await purposeKey(config, 'auto-top-up-consent')).update(clientAddress).digest('hex');
}

/** Saves the settings (turning on: the checks above, and the consent) and answers AutoTopUpView. */
export async function setAutoTopUp(
  prisma: PrismaClient, billing: BillingService, config: Config, accountId: string, clientAddress: string | undefined, body: unknown,
): Promise<AutoTopUpView> {
  const settings = billing.requireOn('auto top-up to set');
  const input = parseAutoTopUpSettings(body, settings);
  if (input.enabled && !billing.offersAutomaticCharges) {
    throw errors.invalidState('This server\'s payment provider takes no automatic charges, so auto top-up cannot be turned on (the plan '
      + 'list says autoTopUp.offered: false).');
  }
  const consent: AutoTopUpConsent | null = input.enabled ? {
    at: new Date().toISOString(), addressHash: await addressHash(config, clientAddress), termsVersion: settings.termsVersion,
  } : null;
  return prisma.$transaction(async (tx) => {
    const account = await lockBillingAccount(tx, settings, accountId);
    // Checked under the lock: removing the last card (which turns auto top-up off) cannot slip in between.
    if (input.enabled && await tx.paymentMethod.count({ where: { accountId } }) === 0) {
      throw new ApiError('payment_method_required', 409, 'Save a payment method first (POST /v1/billing/payment-methods/manage): auto '
        + 'top-up charges it.', { retryable: false });
    }
    const updated = await tx.billingAccount.update({
      where: { accountId },
      data: {
        autoTopUpEnabled: input.enabled,
        autoTopUpThresholdCents: input.thresholdCents ?? account.autoTopUpThresholdCents,
        autoTopUpAmountCents: input.amountCents ?? account.autoTopUpAmountCents,
        ...(consent ? { autoTopUpConsent: { ...consent } } : {}),
      },
    });
    return autoTopUpViewOf(tx, updated);
  }, TX_OPTIONS);
}

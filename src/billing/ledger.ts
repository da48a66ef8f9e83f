/**
 * The ledger: the only code that moves an account's balance. Every movement is a LedgerEntry row written in the
 * caller's transaction together with the balance it leaves, under the account's row lock (`lockBillingAccount`),
 * so the balance always equals the sum of the rows (by construction, and checked by the property test). A
 * movement names what it pays for in `key`; a second movement with the same key is a no-op, which is what makes
 * metering and webhook deliveries idempotent: a minute is charged once however many workers meter it.
 *
 * Lock order: a recording's row (src/transcript/events.ts `inTransaction`) before the billing account's row.
 */
import type { Tx } from '../core/db/transactions.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { BillingSettings, PlanSettings } from '../core/config/billing.js';
import { newId } from '../core/ids.js';

export type BillingAccountRow = Prisma.BillingAccountGetPayload<{}>;
export type ChargeRow = Prisma.ChargeGetPayload<{}>;

export type MovementKind =
  'signup_credit' | 'top_up' | 'monthly_credit' | 'monthly_credit_removed' | 'charge' | 'correction' | 'refund' | 'adjustment';

export interface Movement {
  kind: MovementKind;
  /** Signed whole cents: credit added positive, spent negative. */
  amountCents: number;
  key: string;
  description: string;
  chargeId?: string | null;
  paymentId?: string | null;
}

/** What one movement did: the balance before and after (equal when the key was already posted). */
export interface Posted {
  posted: boolean;
  before: number;
  after: number;
}

/**
 * Locks the account's billing row for the rest of the transaction, creating it on first use with the signup credit
 * (itself a ledger row). Every balance change and every admission decision happens under this lock.
 */
export async function lockBillingAccount(tx: Tx, settings: BillingSettings, accountId: string): Promise<BillingAccountRow> {
  const created = await tx.$executeRaw`
    INSERT INTO "BillingAccount" ("accountId", "planId", "balanceCents", "updatedAt")
    VALUES (${accountId}, ${settings.defaultPlanId}, 0, now())
    ON CONFLICT ("accountId") DO NOTHING`;
  await tx.$executeRaw`SELECT 1 FROM "BillingAccount" WHERE "accountId" = ${accountId} FOR UPDATE`;
  let account = await tx.billingAccount.findUniqueOrThrow({ where: { accountId } });
  if (created > 0) {
    await syncConcurrency(tx, settings, account);
    if (settings.signupCreditCents > 0) {
      account = (await post(tx, account, {
        kind: 'signup_credit', amountCents: settings.signupCreditCents, key: 'signup', description: 'Signup credit',
      })).account;
    }
  }
  return account;
}

/** The account's file-job concurrency (src/jobs admission) follows its plan's `concurrentTranscriptions`. */
export async function syncConcurrency(
  tx: Tx, settings: BillingSettings, account: Pick<BillingAccountRow, 'accountId' | 'planId'>,
): Promise<void> {
  const plan = planOf(settings, account.planId);
  await tx.account.update({ where: { id: account.accountId }, data: { concurrencyLimit: plan.limits.concurrentTranscriptions } });
}

export function planOf(settings: BillingSettings, planId: string): PlanSettings {
  // A plan removed from the file after accounts joined it: they bill on the default plan's terms.
  return settings.plans.find((plan) => plan.id === planId) ?? settings.plans.find((plan) => plan.id === settings.defaultPlanId)!;
}

/**
 * Writes one movement on a locked account. Spending draws on the month's included credit first (what a downgrade
 * removes is only what is left of it).
 */
export async function post(tx: Tx, account: BillingAccountRow, movement: Movement): Promise<Posted & { account: BillingAccountRow }> {
  const done = await tx.ledgerEntry.findUnique({
    where: { accountId_key: { accountId: account.accountId, key: movement.key } }, select: { id: true },
  });
  if (done) return { posted: false, before: account.balanceCents, after: account.balanceCents, account };
  if (!Number.isInteger(movement.amountCents)) throw new Error(`ledger: ${movement.key} moves ${movement.amountCents}, not whole cents`);
  const after = account.balanceCents + movement.amountCents;
  await tx.ledgerEntry.create({
    data: {
      id: newId('led'),
      accountId: account.accountId,
      kind: movement.kind,
      amountCents: movement.amountCents,
      balanceAfterCents: after,
      key: movement.key,
      chargeId: movement.chargeId ?? null,
      paymentId: movement.paymentId ?? null,
      description: movement.description,
    },
  });
  let monthlyLeft = account.monthlyCreditLeftCents;
  if (movement.kind === 'monthly_credit') monthlyLeft += movement.amountCents;
  else if (movement.kind === 'monthly_credit_removed') monthlyLeft = 0;
  else if (movement.amountCents < 0) monthlyLeft = Math.max(0, monthlyLeft + movement.amountCents);
  const updated = await tx.billingAccount.update({
    where: { accountId: account.accountId },
    data: { balanceCents: after, monthlyCreditLeftCents: Math.min(monthlyLeft, Math.max(0, after)) },
  });
  return { posted: true, before: account.balanceCents, after, account: updated };
}

/** Cost in whole cents of `seconds` of audio at `rateMicros` (millionths of a dollar per hour), rounded half up. */
export function costCents(seconds: number, rateMicros: number): number {
  // micro-dollars = seconds × rate / 3600; cents = micro-dollars / 10^4. Computed on whole milliseconds in BigInt so
  // a long recording's cost is exact, then rounded once: metering step by step adds up to the same total.
  const millis = BigInt(Math.round(seconds * 1000));
  const numerator = millis * BigInt(rateMicros);
  const denominator = 3_600_000n * 10_000n;
  return Number((numerator * 2n + denominator) / (denominator * 2n));
}

/**
 * Brings a charge to `seconds` billed: writes the difference in cost since what it has billed as one movement keyed
 * by the new total, so metering the same point twice (two workers, a retry after a crash) charges nothing more.
 * Never bills less than already billed (the difference would be a correction, written by `settleCharge`).
 */
export async function meterCharge(tx: Tx, account: BillingAccountRow, given: Pick<ChargeRow, 'id'>, exactSeconds: number): Promise<{
  charge: ChargeRow; account: BillingAccountRow; posted: Posted;
}> {
  // Read under the account's lock the caller holds: a copy read before it may be behind another meter or settle.
  const charge = await tx.charge.findUniqueOrThrow({ where: { id: given.id } });
  // One rounding (to the millisecond) for the comparison, the key, the seconds billed and the cost, so they agree.
  const seconds = Math.round(exactSeconds * 1000) / 1000;
  if (charge.state !== 'open' || seconds <= charge.billedSeconds) {
    return { charge, account, posted: { posted: false, before: account.balanceCents, after: account.balanceCents } };
  }
  const cost = costCents(seconds, charge.rateMicros);
  const result = await post(tx, account, {
    kind: 'charge',
    amountCents: -(cost - charge.costCents),
    key: `charge:${charge.id}:${seconds.toFixed(3)}`,
    description: `${charge.kind === 'live' ? 'Live audio' : 'File'}: ${charge.name}`,
    chargeId: charge.id,
  });
  const updated = await tx.charge.update({ where: { id: charge.id }, data: { billedSeconds: seconds, costCents: cost } });
  return { charge: updated, account: result.account, posted: result };
}

/**
 * Ends a charge at the audio's exact length, at least the minimum billed. A live charge metered by whole minutes
 * has billed less than or equal to this; anything billed beyond it is given back as a correction.
 */
export async function settleCharge(tx: Tx, account: BillingAccountRow, given: Pick<ChargeRow, 'id'>, exactSeconds: number): Promise<{
  charge: ChargeRow; account: BillingAccountRow;
}> {
  const charge = await tx.charge.findUniqueOrThrow({ where: { id: given.id } });
  if (charge.state !== 'open') return { charge, account };
  const billed = Math.round(Math.max(exactSeconds, charge.minimumSeconds) * 1000) / 1000;
  let current = { charge, account };
  if (billed > charge.billedSeconds) current = await meterCharge(tx, account, charge, billed);
  else if (billed < charge.billedSeconds) {
    const cost = costCents(billed, charge.rateMicros);
    const back = charge.costCents - cost;
    const result = await post(tx, account, {
      kind: 'correction', amountCents: back, key: `charge:${charge.id}:settle`, description: `Correction: ${charge.name}`,
      chargeId: charge.id,
    });
    current = {
      account: result.account,
      charge: await tx.charge.update({ where: { id: charge.id }, data: { billedSeconds: billed, costCents: cost } }),
    };
  }
  await tx.creditHold.deleteMany({ where: { workId: charge.recordingId ?? charge.sessionId ?? '' } });
  const settled = await tx.charge.update({ where: { id: charge.id }, data: { state: 'settled', settledAt: new Date() } });
  return { charge: settled, account: current.account };
}

/** Waives a charge: what it cost comes back as a refund and it reads `void`. */
export async function voidCharge(tx: Tx, account: BillingAccountRow, given: Pick<ChargeRow, 'id'>, reason: string): Promise<{
  charge: ChargeRow; account: BillingAccountRow;
}> {
  const charge = await tx.charge.findUniqueOrThrow({ where: { id: given.id } });
  if (charge.state === 'void') return { charge, account };
  const result = charge.costCents > 0
    ? await post(tx, account, {
      kind: 'refund', amountCents: charge.costCents, key: `charge:${charge.id}:void`, description: `Refund (${reason}): ${charge.name}`,
      chargeId: charge.id,
    })
    : { account };
  await tx.creditHold.deleteMany({ where: { workId: charge.recordingId ?? charge.sessionId ?? '' } });
  const voided = await tx.charge.update({ where: { id: charge.id }, data: { state: 'void', settledAt: charge.settledAt ?? new Date() } });
  return { charge: voided, account: result.account };
}

/** Credit held by admitted work still waiting to be charged; holds of work that ended without a charge do not count. */
export async function heldCents(tx: Tx, accountId: string): Promise<number> {
  const rows = await tx.$queryRaw<Array<{ held: bigint | null }>>`
    SELECT COALESCE(SUM(h."amountCents"), 0)::bigint AS held
    FROM "CreditHold" h
    LEFT JOIN "Recording" r ON r.id = h."workId"
    WHERE h."accountId" = ${accountId}
      AND (r.id IS NULL AND h."createdAt" > now() - interval '1 day'
           OR r.state IN ('processing', 'live', 'paused'))`;
  return Number(rows[0]?.held ?? 0);
}

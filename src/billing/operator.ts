/**
 * What an operator who bills by hand does from the admin command (`npm run admin -- billing-credit | billing-plan`):
 * credit an account (or take credit back) and move it to a plan. Each is one ledger transaction like any other
 * movement, so the balance, the ledger and the usage report stay one truth.
 */
import type { PrismaClient } from '../generated/prisma/client.js';
import type { BillingSettings } from '../core/config/billing.js';
import { newId } from '../core/ids.js';
import { lockBillingAccount, post, syncConcurrency } from './ledger.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

/** Credit added (positive) or taken back (negative), in whole cents; answers the balance after, in cents. */
export async function grantCredit(
  prisma: PrismaClient, settings: BillingSettings, accountId: string, cents: number, description: string,
): Promise<number> {
  if (!Number.isInteger(cents) || cents === 0) throw new Error('the amount must be a non-zero number of whole cents');
  return prisma.$transaction(async (tx) => {
    const account = await lockBillingAccount(tx, settings, accountId);
    const result = await post(tx, account, {
      kind: cents > 0 ? 'top_up' : 'adjustment', amountCents: cents, key: `operator:${newId('op')}`, description,
    });
    if (cents > 0) await tx.billingAccount.update({ where: { accountId }, data: { hasPaid: true } });
    return result.after;
  }, TX_OPTIONS);
}

/** Moves the account to `planId` (its limits with it); a plan billed by hand is assigned this way. */
export async function assignPlan(prisma: PrismaClient, settings: BillingSettings, accountId: string, planId: string): Promise<void> {
  if (!settings.plans.some((plan) => plan.id === planId)) {
    throw new Error(`no plan ${planId} in the plans file (${settings.plans.map((plan) => plan.id).join(', ')})`);
  }
  await prisma.$transaction(async (tx) => {
    await lockBillingAccount(tx, settings, accountId);
    const moved = await tx.billingAccount.update({ where: { accountId }, data: { planId, retentionDeadline: null } });
    await syncConcurrency(tx, settings, moved);
  }, TX_OPTIONS);
}

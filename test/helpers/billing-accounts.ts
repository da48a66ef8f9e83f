/** Accounts with a given plan and credit for the billing suites (set up through the ledger, as an operator's adjustment would). */
import { randomUUID } from 'node:crypto';
import { lockBillingAccount, post, syncConcurrency } from '../../src/billing/ledger.js';
import type { TestServer } from './server.js';

/** An account of its own on `planId` with `cents` of credit, a key of it (`auth`) and the key's principal id. */
export async function fundedAccount(server: TestServer, cents: number, planId = 'payg'): Promise<{
  accountId: string; auth: string; keyId: string;
}> {
  const accountId = await server.createAccount(`billing ${randomUUID()}`);
  const { key, id } = await server.createKey(['*'], { accountId });
  const settings = server.app.services.billing.on();
  await server.prisma.$transaction(async (tx) => {
    let account = await lockBillingAccount(tx, settings, accountId);
    account = await tx.billingAccount.update({ where: { accountId }, data: { planId } });
    await syncConcurrency(tx, settings, account);
    await post(tx, account, {
      kind: 'adjustment', amountCents: cents - account.balanceCents, key: `test:${randomUUID()}`, description: 'Test credit',
    });
  });
  return { accountId, auth: key, keyId: id };
}

/** Adds credit as a top-up would. */
export async function addCredit(server: TestServer, accountId: string, cents: number): Promise<void> {
  await server.prisma.$transaction(async (tx) => {
    const account = await lockBillingAccount(tx, server.app.services.billing.on(), accountId);
    await post(tx, account, { kind: 'adjustment', amountCents: cents, key: `test:${randomUUID()}`, description: 'Test top-up' });
  });
}

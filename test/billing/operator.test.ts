/** An operator who bills by hand: credit and plans from the admin command, seen through the API. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';
import { REPO_ROOT } from '../../src/core/db/migrate.js';

const server = useTestServer({ env: billingEnv() });

async function admin(...args: string[]) {
  return promisify(execFile)(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), ['src/entry/admin.ts', ...args], {
    cwd: REPO_ROOT, env: { ...process.env, ...server.env },
  });
}

describe('billing by hand (manual provider)', () => {
  it('billing-credit adds credit as a ledger row; billing-plan moves the account and its limits', async () => {
    const accountId = await server.createAccount('by hand');
    const { key } = await server.createKey(['*'], { accountId });
    const credited = await admin('billing-credit', accountId, '12.34', 'Invoice 2026-117 paid');
    expect(JSON.parse(credited.stdout)).toEqual({ balance: 13.34 });
    await admin('billing-plan', accountId, 'pro');
    const view = await (await server.request('/v1/billing', { auth: key })).json();
    expect(view).toMatchObject({ balance: 13.34, hasPaid: true, plan: { id: 'pro' }, limits: { concurrentTranscriptions: 5 } });
    const row = await server.prisma.ledgerEntry.findFirstOrThrow({ where: { accountId, kind: 'top_up' } });
    expect(row).toMatchObject({ amountCents: 1234, balanceAfterCents: 1334, description: 'Invoice 2026-117 paid' });
    await expect(admin('billing-credit', accountId, '1.005')).rejects.toThrow(/two decimals/);
    await expect(admin('billing-plan', accountId, 'gold')).rejects.toThrow(/no plan gold/);
  });

  it('checkouts are refused with the reason: this server bills by hand', async () => {
    const user = await server.createUser();
    const res = await server.postJson('/v1/billing/checkouts', { kind: 'topup', amount: 10, acceptTerms: true }, { auth: user.token });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.code).toBe('invalid_state');
    expect(body.message).toMatch(/bills by hand/);
  });
});

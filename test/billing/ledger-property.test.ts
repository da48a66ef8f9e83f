/**
 * The ledger's property test: random interleavings of top-ups, metered points (the same point repeated included),
 * settles, voids, corrections and refunds, run as batches of concurrent transactions against the real PostgreSQL
 * database, never
 *   - make the balance differ from the sum of the account's rows, or a row's `balanceAfterCents` differ from the
 *     running sum in commit order (the order the transactions took the account's lock),
 *   - charge a metered point twice: each charge's `costCents` is `costCents(billedSeconds, rate)`, equals what its
 *     charge and correction movements took, and the whole run matches a sequential model replayed in commit order,
 *   - count a repeated key twice (a top-up, refund or correction posted again is a no-op; the first one wins);
 * and the usage report read from those rows (src/billing/statements.ts) adds up to what the charges took and billed.
 * fast-check prints the seed and path of a failing run; `LEDGER_SEED=<seed>` replays it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { usageCharges, usageReport } from '../../src/billing/statements.js';
import { costCents, lockBillingAccount, meterCharge, post, settleCharge, voidCharge, type ChargeRow } from '../../src/billing/ledger.js';
import type { Tx } from '../../src/core/db/transactions.js';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { useTestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';

type LedgerRow = Prisma.LedgerEntryGetPayload<{}>;

interface ChargeSpec { kind: 'file' | 'live'; rateMicros: number; minimumSeconds: number }

/** A keyed movement of its own (not a charge's): posted once per key, a repeat is a no-op. */
interface KeyedOp { type: 'top_up' | 'refund' | 'correction'; key: number; cents: number }
/** A step of one of the run's charges (index taken modulo their count). */
type ChargeOp = { type: 'meter' | 'settle'; charge: number; seconds: number } | { type: 'void'; charge: number };
type Op = KeyedOp | ChargeOp;
const isKeyed = (each: Op): each is KeyedOp => each.type === 'top_up' || each.type === 'refund' || each.type === 'correction';

const chargeSpec: fc.Arbitrary<ChargeSpec> = fc.record({
  kind: fc.constantFrom('file' as const, 'live' as const),
  // An odd rate makes every point round; 0.6 and 1.2 dollars an hour are the test plans'.
  rateMicros: fc.constantFrom(600_000, 1_200_000, 333_333),
  minimumSeconds: fc.constantFrom(0, 30, 60),
});

// Few keys and few points, so repeats of the same key and the same point are common.
const seconds = fc.oneof(
  fc.integer({ min: 1, max: 5 }).map((minutes) => minutes * 60), fc.integer({ min: 1, max: 300_000 }).map((millis) => millis / 1000),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ type: fc.constant('top_up' as const), key: fc.nat(2), cents: fc.integer({ min: 1, max: 5000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constantFrom('refund' as const, 'correction' as const), key: fc.nat(2), cents: fc.integer({ min: -300, max: 300 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('meter' as const), charge: fc.nat(2), seconds }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('settle' as const), charge: fc.nat(2), seconds }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('void' as const), charge: fc.nat(2) }) },
);
/** A batch runs concurrently; each op may be sent twice at once (a retry racing the first attempt). */
const batch = fc.array(fc.tuple(op, fc.boolean()), { minLength: 1, maxLength: 5 }).map((ops) => ops.flatMap(
  ([each, twice]) => (twice ? [each, each] : [each]),
));
const scenario = fc.record({
  charges: fc.array(chargeSpec, { minLength: 1, maxLength: 3 }), batches: fc.array(batch, { minLength: 1, maxLength: 4 }),
});

interface ModelCharge { state: 'open' | 'settled' | 'void'; billedSeconds: number; costCents: number; spec: ChargeSpec }

/** The ledger's rules, sequentially: what the database must hold after the ops ran in `ops` order. */
function replay(specs: ChargeSpec[], startBalance: number, ops: Op[]): { balance: number; charges: ModelCharge[] } {
  let balance = startBalance;
  const keys = new Set<string>();
  const charges: ModelCharge[] = specs.map((spec) => ({ state: 'open', billedSeconds: 0, costCents: 0, spec }));
  const meter = (charge: ModelCharge, to: number) => {
    const cost = costCents(to, charge.spec.rateMicros);
    balance -= cost - charge.costCents;
    charge.billedSeconds = to;
    charge.costCents = cost;
  };
  for (const each of ops) {
    if (isKeyed(each)) {
      const key = `${each.type}:${each.key}`;
      if (!keys.has(key)) balance += each.cents;
      keys.add(key);
      continue;
    }
    const charge = charges[each.charge % charges.length]!;
    if (each.type === 'meter') {
      if (charge.state === 'open' && each.seconds > charge.billedSeconds) meter(charge, each.seconds);
    } else if (each.type === 'settle') {
      if (charge.state !== 'open') continue;
      const billed = Math.max(each.seconds, charge.spec.minimumSeconds);
      if (billed > charge.billedSeconds) meter(charge, billed);
      else if (billed < charge.billedSeconds) {
        const cost = costCents(billed, charge.spec.rateMicros);
        balance += charge.costCents - cost;
        charge.billedSeconds = billed;
        charge.costCents = cost;
      }
      charge.state = 'settled';
    } else if (charge.state !== 'void') {
      balance += charge.costCents;
      charge.state = 'void';
    }
  }
  return { balance, charges };
}

describe('the ledger under concurrent random interleavings', () => {
  const server = useTestServer({ env: billingEnv() });

  it('keeps the balance equal to its rows, charges each point once and ignores repeated keys', async () => {
    const settings = server.app.services.billing.on();
    const prisma = server.prisma;

    await fc.assert(fc.asyncProperty(scenario, async ({ charges: specs, batches }) => {
      const accountId = await server.createAccount('ledger property');
      const opening = await prisma.$transaction((tx) => lockBillingAccount(tx, settings, accountId));
      const initialRows = await prisma.ledgerEntry.findMany({ where: { accountId } });
      const charges = await Promise.all(specs.map((spec, index) => prisma.charge.create({
        data: {
          id: newId('chg'), accountId, kind: spec.kind, source: 'dashboard', name: `charge ${index}`, state: 'open',
          rateMicros: spec.rateMicros, minimumSeconds: spec.minimumSeconds, recordingId: newId('rec'),
        },
      })));

      /** One op in its own transaction; `lockOrder` is when it took the account's lock (= its commit order). */
      let lockCount = 0;
      const run = (each: Op) => prisma.$transaction(async (tx: Tx) => {
        const account = await lockBillingAccount(tx, settings, accountId);
        const lockOrder = lockCount++;
        const before = new Set((await tx.ledgerEntry.findMany({ where: { accountId }, select: { id: true } })).map((row) => row.id));
        if (isKeyed(each)) {
          await post(tx, account, { kind: each.type, amountCents: each.cents, key: `${each.type}:${each.key}`, description: each.type });
        } else {
          // The charge as it stands under the lock (what every caller must pass: a row read before the lock is stale).
          const charge: ChargeRow = await tx.charge.findUniqueOrThrow({ where: { id: charges[each.charge % charges.length]!.id } });
          if (each.type === 'meter') await meterCharge(tx, account, charge, each.seconds);
          else if (each.type === 'settle') await settleCharge(tx, account, charge, each.seconds);
          else await voidCharge(tx, account, charge, 'waived');
        }
        const written = (await tx.ledgerEntry.findMany({ where: { accountId } })).filter((row) => !before.has(row.id));
        return { each, lockOrder, written };
      }, { maxWait: 20_000, timeout: 30_000 });

      const done: Array<{ each: Op; lockOrder: number; written: LedgerRow[] }> = [];
      for (const ops of batches) done.push(...await Promise.all(ops.map(run)));
      done.sort((a, b) => a.lockOrder - b.lockOrder);

      // Every row, in commit order, leaves the running sum; no row is unaccounted for.
      const rows = await prisma.ledgerEntry.findMany({ where: { accountId } });
      const account = await prisma.billingAccount.findUniqueOrThrow({ where: { accountId } });
      let sum = 0;
      const inCommitOrder = [...initialRows, ...done.flatMap((entry) => entry.written)];
      for (const row of inCommitOrder) {
        sum += row.amountCents;
        expect(row.balanceAfterCents, `row ${row.key}`).toBe(sum);
      }
      expect(inCommitOrder.map((row) => row.id).sort()).toEqual(rows.map((row) => row.id).sort());
      expect(account.balanceCents).toBe(sum);
      expect(account.balanceCents).toBe(rows.reduce((total, row) => total + row.amountCents, 0));

      // The run matches the ledger's rules replayed in commit order: nothing charged twice, repeats no-ops.
      const model = replay(specs, opening.balanceCents, done.map((entry) => entry.each));
      expect(account.balanceCents).toBe(model.balance);
      for (const [index, stored] of (await Promise.all(charges.map(
        (charge) => prisma.charge.findUniqueOrThrow({ where: { id: charge.id } }),
      ))).entries()) {
        const expected = model.charges[index]!;
        expect({ state: stored.state, billedSeconds: stored.billedSeconds, costCents: stored.costCents }).toEqual({
          state: expected.state, billedSeconds: expected.billedSeconds, costCents: expected.costCents,
        });
        expect(stored.costCents).toBe(costCents(stored.billedSeconds, stored.rateMicros));
        const own = rows.filter((row) => row.chargeId === stored.id);
        const spent = own.filter((row) => row.kind === 'charge' || row.kind === 'correction').reduce(
          (total, row) => total - row.amountCents, 0,
        );
        const refunded = own.filter((row) => row.kind === 'refund').reduce((total, row) => total + row.amountCents, 0);
        expect(spent).toBe(stored.costCents);
        expect(refunded).toBe(stored.state === 'void' ? stored.costCents : 0);
      }

      // The usage report's totals are what the charges took (refunds given back) and the seconds they stand billed at.
      const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      const range = { startDate: utcDay(-1), endDate: utcDay(1), tz: 'UTC' };
      const report = await usageReport(prisma, server.app.services.billing, accountId, range);
      const stored = await prisma.charge.findMany({ where: { accountId } });
      expect(Math.round(report.totals.amount * 100)).toBe(
        rows.filter((row) => row.chargeId).reduce((total, row) => total - row.amountCents, 0),
      );
      expect(report.totals.seconds).toBeCloseTo(
        stored.reduce((total, charge) => total + (charge.state === 'void' ? 0 : charge.billedSeconds), 0), 3,
      );
      const listed = await usageCharges(prisma, server.app.services.billing, accountId, { ...range, limit: 1 });
      expect(listed.total).toBe(report.totals.amount);
    }), { numRuns: 25, ...(process.env.LEDGER_SEED ? { seed: Number(process.env.LEDGER_SEED) } : {}) });
  });
});

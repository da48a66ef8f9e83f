/**
 * Billing benchmark: what admission costs a creation point, and how fast the ledger meters.
 *
 * 1. Admission: N link transcriptions (default 200) created through REST, C at a time (default 50), against a
 *    gateway process with billing off (the baseline) and one with billing on (each create then locks the account's
 *    billing row, counts holds and the hour's creations, and writes its hold and admission in the same transaction);
 *    latency p50/p95 and creates per second, with the ratio on/off.
 * 2. Metering: M metered points (default 2,000) of one open charge, each its own transaction under the account lock
 *    (what the live sweeper does per recording per minute), on the same PostgreSQL: points per second.
 *
 * Needs PostgreSQL and Redis like the tests. Knobs: BENCH_CREATES (200), BENCH_PARALLEL (50), BENCH_METER_POINTS (2000).
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { withBenchServices } from './helpers/services.js';
import { createTestDatabase } from '../test/helpers/db.js';
import { openDatabase } from '../src/core/db/index.js';
import { loadConfig } from '../src/core/config/index.js';
import { parseBillingSettings } from '../src/core/config/billing.js';
import { lockBillingAccount, meterCharge } from '../src/billing/ledger.js';
import { TEST_PLANS } from '../test/helpers/billing.js';

interface AdmissionRun { p50Ms: number; p95Ms: number; perSecond: number; refused: number }

const PLANS = {
  ...TEST_PLANS, signupCredit: 1_000_000,
  plans: [{
    id: 'payg', name: 'Bench', rates: { file: 0.01, live: 0.01, minimumSeconds: 1 },
    limits: { concurrentTranscriptions: 2, createsPerHour: 1_000_000, createsPerHourUnpaid: 1_000_000 },
  }],
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function admissionRun(env: Record<string, string>, creates: number, parallel: number): Promise<AdmissionRun> {
  return withBenchServices({ env: { ...env, LINK_FETCH_ALLOW_HOSTS: '127.0.0.1' } }, async ({ base, headers }) => {
    const latencies: number[] = [];
    let refused = 0;
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: parallel }, async () => {
      while (next < creates) {
        const i = next++;
        const at = performance.now();
        // A loopback link nobody answers: the job fails at fetching, so the bench measures the create itself.
        const res = await fetch(`${base}/v1/transcriptions`, {
          method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `http://127.0.0.1:9/bench-${i}.mp3`, name: `bench ${i}` }),
        });
        latencies.push(performance.now() - at);
        if (res.status !== 201) refused++;
        await res.arrayBuffer();
      }
    }));
    const wallS = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { p50Ms: percentile(latencies, 0.5), p95Ms: percentile(latencies, 0.95), perSecond: creates / wallS, refused };
  });
}

async function meteringRun(points: number): Promise<number> {
  const database = await createTestDatabase();
  const settings = parseBillingSettings(PLANS, {});
  const db = await openDatabase(loadConfig({ DATABASE_URL: database.url, DATA_DIR: os.tmpdir() }));
  try {
    const accountId = 'acct_bench_metering';
    await db.prisma.account.create({ data: { id: accountId, name: 'bench' } });
    const charge = await db.prisma.charge.create({ data: {
      id: 'chg_bench', accountId, kind: 'live', source: 'dashboard', name: 'bench', state: 'open', rateMicros: 600_000, minimumSeconds: 1,
    } });
    const started = performance.now();
    for (let point = 1; point <= points; point++) {
      await db.prisma.$transaction(async (tx) => meterCharge(tx, await lockBillingAccount(tx, settings, accountId), charge, point * 60));
    }
    return points / ((performance.now() - started) / 1000);
  } finally {
    await db.close();
    await database.drop();
  }
}

export async function benchBilling(): Promise<{ table: string }> {
  const creates = Number(process.env.BENCH_CREATES ?? 200);
  const parallel = Number(process.env.BENCH_PARALLEL ?? 50);
  const points = Number(process.env.BENCH_METER_POINTS ?? 2000);
  const plansFile = path.join(os.tmpdir(), `sg-bench-plans-${process.pid}.json`);
  await writeFile(plansFile, JSON.stringify(PLANS));
  const off = await admissionRun({}, creates, parallel);
  const on = await admissionRun({ BILLING_CONFIG: plansFile }, creates, parallel);
  const perSecond = await meteringRun(points);
  const row = (name: string, run: AdmissionRun) => `| ${name} | ${creates} × ${parallel} at once | ${run.p50Ms.toFixed(0)} ms | `
    + `${run.p95Ms.toFixed(0)} ms | ${run.perSecond.toFixed(1)} /s | ${run.refused} |`;
  return {
    table: [
      '| creates (link transcriptions) | load | p50 | p95 | throughput | refused |',
      '|---|---:|---:|---:|---:|---:|',
      row('billing off (baseline)', off),
      row('billing on (admission)', on),
      `| **ratio on/off** | | ${(on.p50Ms / off.p50Ms).toFixed(2)}× | ${(on.p95Ms / off.p95Ms).toFixed(2)}× | `
        + `${(on.perSecond / off.perSecond).toFixed(2)}× | |`,
      '',
      '| ledger metering | points | throughput |',
      '|---|---:|---:|',
      `| one charge, a transaction per point under the account lock | ${points} | ${perSecond.toFixed(0)} points/s |`,
    ].join('\n'),
  };
}

/**
 * The statements — GET /v1/billing/ledger, /charges, /usage, /usage/charges and their GraphQL twins — read from a
 * ledger written with the ledger's own functions (src/billing/ledger.ts), movements then dated where a test needs a
 * given day. Days are relative to today so the clamping to "today" is real.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import {
  lockBillingAccount, meterCharge, post, settleCharge, voidCharge, type BillingAccountRow, type ChargeRow,
} from '../../src/billing/ledger.js';
import type { Tx } from '../../src/core/db/transactions.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';

const DAY_MS = 86_400_000;
/** `YYYY-MM-DD` of the UTC day `offset` days from today. */
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
/** An instant on the UTC day `offset` days from today, at `time` (HH:MM) UTC. */
const at = (offset: number, time: string) => new Date(`${day(offset)}T${time}:00.000Z`);

interface Fixture {
  accountId: string;
  key: string;
  keyId: string;
}

/** A fresh account (created ten days ago, 12:00 UTC) with a read-only key; its billing row made with the signup credit. */
async function freshAccount(server: TestServer): Promise<Fixture> {
  const accountId = await server.createAccount('statements');
  await server.prisma.account.update({ where: { id: accountId }, data: { createdAt: at(-10, '12:00') } });
  const { key, id } = await server.createKey(['read'], { accountId });
  await onLedger(server, accountId, async () => undefined);
  return { accountId, key, keyId: id };
}

/** Runs `fn` on the account's locked billing row, as every balance change runs. */
function onLedger<T>(server: TestServer, accountId: string, fn: (tx: Tx, account: BillingAccountRow) => Promise<T>): Promise<T> {
  return server.prisma.$transaction(async (tx) => fn(tx, await lockBillingAccount(tx, server.app.services.billing.on(), accountId)));
}

/** Runs `fn` and dates the ledger rows it wrote at `when` (the ledger writes "now"; a day-attribution test needs a given day). */
async function dated<T>(server: TestServer, accountId: string, when: Date | null, fn: () => Promise<T>): Promise<T> {
  const before = new Set((await server.prisma.ledgerEntry.findMany({ where: { accountId }, select: { id: true } })).map((row) => row.id));
  const result = await fn();
  if (when) {
    const written = (await server.prisma.ledgerEntry.findMany({ where: { accountId }, select: { id: true } })).map((row) => row.id).filter(
      (id) => !before.has(id),
    );
    await server.prisma.ledgerEntry.updateMany({ where: { id: { in: written } }, data: { createdAt: when } });
  }
  return result;
}

async function openCharge(
  server: TestServer, accountId: string,
  fields: { kind: 'file' | 'live'; source: string; name: string; openedAt: Date; rateMicros?: number; recordingId?: string },
): Promise<ChargeRow> {
  return server.prisma.charge.create({
    data: {
      id: newId('chg'), accountId, kind: fields.kind, source: fields.source, name: fields.name, state: 'open',
      rateMicros: fields.rateMicros ?? (fields.kind === 'live' ? 1_200_000 : 600_000), minimumSeconds: 60, openedAt: fields.openedAt,
      recordingId: fields.recordingId ?? newId('rec'),
    },
  });
}

const reread = (tx: Tx, charge: ChargeRow) => tx.charge.findUniqueOrThrow({ where: { id: charge.id } });

function meter(server: TestServer, accountId: string, charge: ChargeRow, seconds: number, when: Date | null) {
  return dated(
    server, accountId, when,
    () => onLedger(server, accountId, async (tx, account) => (await meterCharge(tx, account, await reread(tx, charge), seconds)).charge),
  );
}

function settle(server: TestServer, accountId: string, charge: ChargeRow, seconds: number, when: Date | null) {
  return dated(
    server, accountId, when,
    () => onLedger(server, accountId, async (tx, account) => (await settleCharge(tx, account, await reread(tx, charge), seconds)).charge),
  );
}

function waive(server: TestServer, accountId: string, charge: ChargeRow, when: Date | null) {
  return dated(
    server, accountId, when,
    () => onLedger(
      server, accountId, async (tx, account) => (await voidCharge(tx, account, await reread(tx, charge), 'engine failed')).charge,
    ),
  );
}

function topUp(server: TestServer, accountId: string, cents: number, when: Date | null) {
  return dated(server, accountId, when, () => onLedger(server, accountId, (tx, account) =>
    post(tx, account, { kind: 'top_up', amountCents: cents, key: `topup:${newId('pay')}`, description: 'Top-up' })));
}

async function getJson(server: TestServer, path: string, key: string) {
  const res = await server.request(path, { auth: key });
  return { status: res.status, body: await res.json() };
}

async function gql(server: TestServer, key: string, query: string, variables: Record<string, unknown> = {}) {
  return (await server.graphql(query, variables, { auth: key })).json();
}

/** Pages through a REST listing with `limit`, answering every item in the order given. */
async function allPages<T>(server: TestServer, key: string, path: string, list: string, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const { status, body } = await getJson(
      server, `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key,
    );
    expect(status).toBe(200);
    expect(body[list].length).toBeLessThanOrEqual(limit);
    items.push(...body[list]);
    cursor = body.nextCursor;
  } while (cursor);
  return items;
}

describe('billing statements (billing on)', () => {
  const server = useTestServer({ env: billingEnv() });

  it('the ledger lists every movement newest first, pages without duplicates or skips among equal timestamps', async () => {
    const { accountId, key } = await freshAccount(server);
    for (const cents of [500, 1000, 2500, 700]) await topUp(server, accountId, cents, null);
    const charge = await openCharge(server, accountId, { kind: 'live', source: 'dashboard', name: 'Standup', openedAt: new Date() });
    await meter(server, accountId, charge, 60, null);
    await meter(server, accountId, charge, 60, null); // the same point again: nothing more
    await waive(server, accountId, charge, null);
    // Every row in the same millisecond: only the cursor's id keeps the pages apart.
    await server.prisma.ledgerEntry.updateMany({ where: { accountId }, data: { createdAt: at(-1, '09:00') } });

    const rows = await server.prisma.ledgerEntry.findMany({ where: { accountId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    expect(rows).toHaveLength(7); // signup, 4 top-ups, one metered minute, its refund
    const paged = await allPages<{ id: string; kind: string; amount: number; balanceAfter: number; chargeId: string | null }>(
      server, key, '/v1/billing/ledger', 'entries', 2,
    );
    expect(paged.map((entry) => entry.id)).toEqual(rows.map((row) => row.id));
    const byKind = Object.fromEntries(paged.map((entry) => [entry.kind, entry]));
    expect(byKind.signup_credit).toMatchObject({ amount: 1, balanceAfter: 1, chargeId: null });
    expect(byKind.charge).toMatchObject({ amount: -0.02, chargeId: charge.id });
    expect(byKind.refund).toMatchObject({ amount: 0.02, chargeId: charge.id });
    expect(paged.reduce((sum, entry) => sum + Math.round(entry.amount * 100), 0)).toBe(100 + 500 + 1000 + 2500 + 700);

    const first = await gql(server, key, 'query($limit: Int) { billingLedger(limit: $limit) { entries { id kind amount balanceAfter '
      + 'description createdAt } nextCursor } }', { limit: 3 });
    expect(first.errors).toBeUndefined();
    expect(first.data.billingLedger.entries.map((entry: { id: string }) => entry.id)).toEqual(rows.slice(0, 3).map((row) => row.id));
    const second = await gql(server, key, 'query($cursor: String) { billingLedger(cursor: $cursor, limit: 10) { entries { id } nextCursor '
      + '} }', { cursor: first.data.billingLedger.nextCursor });
    expect(second.data.billingLedger).toEqual({ entries: rows.slice(3).map((row) => ({ id: row.id })), nextCursor: null });

    const refused = await getJson(server, '/v1/billing/ledger?cursor=not-ours', key);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_options', data: { details: { field: 'cursor' } } });
    expect((await getJson(server, '/v1/billing/ledger?limit=0', key)).body).toMatchObject({
      code: 'invalid_options', data: { details: { field: 'limit' } },
    });
    // A forged cursor whose instant the database cannot hold is refused the same way, not a database error.
    const forged = Buffer.from('+275760-09-13T00:00:00.000Z|led_x').toString('base64url');
    for (const path of ['/v1/billing/ledger', '/v1/billing/charges', `/v1/billing/usage/charges?startDate=${day(-1)}&endDate=${day(0)}&`]) {
      const answer = await getJson(server, `${path}${path.endsWith('&') ? '' : '?'}cursor=${forged}`, key);
      expect(answer.body, path).toMatchObject({ code: 'invalid_options', data: { details: { field: 'cursor' } } });
    }
  });

  it('charges page newest first with their state, seconds, rate and cost; equal opening times page cleanly', async () => {
    const { accountId, key, keyId } = await freshAccount(server);
    await topUp(server, accountId, 5000, null);
    const sameTime = at(-2, '08:00');
    const file = await openCharge(server, accountId, { kind: 'file', source: keyId, name: 'interview.mp3', openedAt: sameTime });
    const live = await openCharge(server, accountId, { kind: 'live', source: 'dashboard', name: 'Radio', openedAt: sameTime });
    const waived = await openCharge(server, accountId, { kind: 'file', source: keyId, name: 'broken.wav', openedAt: sameTime });
    await settle(server, accountId, file, 95.5, null);
    await meter(server, accountId, live, 120, null);
    await meter(server, accountId, waived, 60, null);
    await waive(server, accountId, waived, null);

    const charges = await allPages<Record<string, unknown>>(server, key, '/v1/billing/charges', 'charges', 1);
    expect(charges.map((charge) => charge.id)).toEqual([file.id, live.id, waived.id].sort().reverse());
    const byId = Object.fromEntries(charges.map((charge) => [charge.id as string, charge]));
    expect(byId[file.id]).toMatchObject({
      kind: 'file', source: keyId, state: 'settled', secondsBilled: 95.5, rate: 0.6, cost: 0.02, name: 'interview.mp3',
      recordingId: file.recordingId, sessionId: null, minimumSeconds: 60,
    });
    expect(byId[file.id]!.settledAt).toEqual(expect.any(String));
    expect(byId[live.id]).toMatchObject({
      kind: 'live', source: 'dashboard', state: 'open', secondsBilled: 120, rate: 1.2, cost: 0.04, settledAt: null,
      openedAt: sameTime.toISOString(),
    });
    expect(byId[waived.id]).toMatchObject({ state: 'void', cost: 0.01 });

    const body = await gql(server, key, '{ billingCharges(limit: 2) { charges { id state cost secondsBilled rate } nextCursor } }');
    expect(body.errors).toBeUndefined();
    expect(body.data.billingCharges.charges).toHaveLength(2);
    expect(body.data.billingCharges.nextCursor).toEqual(expect.any(String));
  });

  describe('the usage report', () => {
    /**
     * Day −3 23:30 UTC: a file charge of the key (10 minutes, $0.10) — day −2 in Europe/Berlin.
     * Day −2 10:00 and day −1 10:00 UTC: a live charge of the dashboard metered 60 s then 120 s ($0.02 each).
     * Day −1 12:00 UTC: the file charge refunded (void). Today: a running live charge metered 60 s ($0.02).
     */
    async function scenario() {
      const fixture = await freshAccount(server);
      const { accountId, keyId } = fixture;
      await topUp(server, accountId, 5000, at(-9, '10:00'));
      const file = await openCharge(server, accountId, { kind: 'file', source: keyId, name: 'lecture.mp3', openedAt: at(-3, '23:25') });
      await settle(server, accountId, file, 600, at(-3, '23:30'));
      const live = await openCharge(
        server, accountId, { kind: 'live', source: 'dashboard', name: 'Night show', openedAt: at(-2, '09:59') },
      );
      await meter(server, accountId, live, 60, at(-2, '10:00'));
      await meter(server, accountId, live, 120, at(-1, '10:00'));
      await settle(server, accountId, live, 120, at(-1, '10:01'));
      await waive(server, accountId, file, at(-1, '12:00'));
      const running = await openCharge(server, accountId, {
        kind: 'live', source: keyId, name: 'Running', openedAt: new Date(Date.now() - 120_000),
      });
      await meter(server, accountId, running, 60, null);
      return { ...fixture, file, live, running };
    }

    it('cuts days in the asked time zone: 23:30 UTC counts on the next day in Europe/Berlin', async () => {
      const { key, keyId } = await scenario();
      const berlin = await getJson(server, `/v1/billing/usage?startDate=${day(-4)}&endDate=${day(-1)}&tz=Europe/Berlin`, key);
      expect(berlin.status).toBe(200);
      expect(berlin.body).toMatchObject({ startDate: day(-4), endDate: day(-1), tz: 'Europe/Berlin', currency: 'usd' });
      const days = Object.fromEntries(berlin.body.days.map((entry: { date: string }) => [entry.date, entry]));
      expect(berlin.body.days.map((entry: { date: string }) => entry.date)).toEqual([day(-4), day(-3), day(-2), day(-1)]);
      expect(days[day(-3)]).toMatchObject({ seconds: 0, amount: 0, bySource: [] });
      expect(days[day(-2)]).toMatchObject({ seconds: 660, amount: 0.12 });
      expect(days[day(-2)].bySource).toEqual([
        { source: keyId, seconds: 600, amount: 0.1 }, { source: 'dashboard', seconds: 60, amount: 0.02 },
      ]);
      expect(days[day(-2)].byKind).toEqual([{ kind: 'file', seconds: 600, amount: 0.1 }, { kind: 'live', seconds: 60, amount: 0.02 }]);
      // The refund reduces the day it happened; the live charge's second minute counts on its own day.
      expect(days[day(-1)]).toMatchObject({ seconds: -540, amount: -0.08 });
      expect(days[day(-1)].byKind).toEqual([{ kind: 'file', seconds: -600, amount: -0.1 }, { kind: 'live', seconds: 60, amount: 0.02 }]);
      expect(berlin.body.totals).toEqual({ seconds: 120, amount: 0.04 });
      expect(berlin.body.byKind).toEqual([{ kind: 'file', seconds: 0, amount: 0 }, { kind: 'live', seconds: 120, amount: 0.04 }]);

      const utc = await getJson(server, `/v1/billing/usage?startDate=${day(-4)}&endDate=${day(-1)}&tz=UTC`, key);
      const utcDays = Object.fromEntries(utc.body.days.map((entry: { date: string }) => [entry.date, entry]));
      expect(utcDays[day(-3)]).toMatchObject({ seconds: 600, amount: 0.1 });
      expect(utcDays[day(-2)]).toMatchObject({ seconds: 60, amount: 0.02 });

      const graph = await gql(server, key, 'query($s: String!, $e: String!, $tz: String) { billingUsage(startDate: $s, endDate: $e, tz: '
        + '$tz) { startDate endDate tz totals { seconds amount } days { date amount bySource { source amount } byKind { kind amount } } '
        + '} }', { s: day(-4), e: day(-1), tz: 'Europe/Berlin' });
      expect(graph.errors).toBeUndefined();
      expect(graph.data.billingUsage.totals).toEqual({ seconds: 120, amount: 0.04 });
      expect(graph.data.billingUsage.days[2]).toMatchObject({ date: day(-2), amount: 0.12 });
    });

    it('clamps to the account\'s first day and today, counting running transcriptions at their current amount', async () => {
      const { key, keyId } = await scenario();
      const { status, body } = await getJson(server, `/v1/billing/usage?startDate=${day(-60)}&endDate=${day(20)}`, key);
      expect(status).toBe(200);
      expect(body).toMatchObject({ startDate: day(-10), endDate: day(0), tz: 'UTC' });
      expect(body.days).toHaveLength(11);
      expect(body.days.at(-1)).toMatchObject({
        date: day(0), seconds: 60, amount: 0.02, bySource: [{ source: keyId, seconds: 60, amount: 0.02 }],
      });
      expect(body.totals).toEqual({ seconds: 180, amount: 0.06 });

      // Wholly before the account existed: nothing used, nothing reported.
      const before = await getJson(server, `/v1/billing/usage?startDate=${day(-40)}&endDate=${day(-30)}`, key);
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({ startDate: day(-10), endDate: day(-30), days: [], totals: { seconds: 0, amount: 0 } });
    });

    it('refuses more than 92 days, bad dates, an unknown tz and a start after the end', async () => {
      const { key } = await freshAccount(server);
      expect((await getJson(server, `/v1/billing/usage?startDate=${day(-91)}&endDate=${day(0)}`, key)).status).toBe(200);
      const tooLong = await getJson(server, `/v1/billing/usage?startDate=${day(-92)}&endDate=${day(0)}`, key);
      expect(tooLong.status).toBe(400);
      expect(tooLong.body).toMatchObject({ code: 'range_too_long', data: { details: { maxDays: 92, days: 93 } } });
      const cases: Array<[string, string]> = [
        [`startDate=2026-02-30&endDate=${day(0)}`, 'startDate'],
        [`startDate=${day(-3)}&endDate=yesterday`, 'endDate'],
        [`startDate=${day(-3)}&endDate=${day(0)}&tz=Mars/Olympus`, 'tz'],
        [`startDate=${day(-1)}&endDate=${day(-3)}`, 'startDate'],
        [`endDate=${day(0)}`, 'startDate'],
      ];
      for (const [query, field] of cases) {
        for (const path of ['/v1/billing/usage', '/v1/billing/usage/charges']) {
          const refused = await getJson(server, `${path}?${query}`, key);
          expect(refused.status, `${path}?${query}`).toBe(400);
          expect(refused.body).toMatchObject({ code: 'invalid_options', data: { details: { field } } });
        }
      }
      const range = `startDate=${day(-1)}&endDate=${day(0)}`;
      expect((await getJson(server, `/v1/billing/usage/charges?${range}&source=${'n'.repeat(200)}`, key)).body).toMatchObject({
        count: 0, charges: [],
      });
      expect((await getJson(server, `/v1/billing/usage/charges?${range}&source=${'n'.repeat(201)}`, key)).body).toMatchObject({
        code: 'invalid_options', data: { details: { field: 'source' } },
      });
      const graph = await gql(
        server, key, 'query($s: String!, $e: String!) { billingUsage(startDate: $s, endDate: $e) { startDate } }',
        { s: day(-100), e: day(0) },
      );
      expect(graph.errors[0].extensions).toMatchObject({ code: 'range_too_long' });
      const badZone = await gql(server, key, 'query($s: String!, $e: String!) { billingUsageCharges(startDate: $s, endDate: $e, tz: '
        + '"Nowhere/Special") { count } }', { s: day(-1), e: day(0) });
      expect(badZone.errors[0].extensions).toMatchObject({ code: 'invalid_options', details: { field: 'tz' } });
    });

    it('lists the charges behind the report: corrections negative, filters narrowing, count and total over all pages', async () => {
      const { key, keyId, file, live, running } = await scenario();
      // To tomorrow (UTC): the running charge, opened two minutes ago, is on Berlin's next day from 23:00 UTC on (the
      // server clamps the end to Berlin's today).
      const range = `startDate=${day(-4)}&endDate=${day(1)}&tz=Europe/Berlin`;
      const report = (await getJson(server, `/v1/billing/usage?${range}`, key)).body;
      const { body: first } = await getJson(server, `/v1/billing/usage/charges?${range}&limit=2`, key);
      expect(first).toMatchObject({
        count: 4, total: report.totals.amount, seconds: report.totals.seconds, startDate: day(-4), tz: 'Europe/Berlin', currency: 'usd',
      });
      expect(first.charges).toHaveLength(2);
      const items = await allPages<Record<string, unknown>>(server, key, `/v1/billing/usage/charges?${range}`, 'charges', 1);
      expect(items).toHaveLength(4);
      expect(new Set(items.map((item) => item.id)).size).toBe(4);
      const times = items.map((item) => Date.parse(item.at as string));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(items.find((item) => item.id === running.id)).toMatchObject({
        type: 'charge', state: 'open', kind: 'live', source: keyId, secondsBilled: 60, cost: 0.02, rate: 1.2,
      });
      expect(items.find((item) => item.id === live.id)).toMatchObject({
        type: 'charge', state: 'settled', secondsBilled: 120, cost: 0.04, name: 'Night show',
      });
      expect(items.find((item) => item.id === file.id)).toMatchObject({
        type: 'charge', state: 'void', secondsBilled: 600, cost: 0.1, source: keyId, name: 'lecture.mp3',
      });
      const refund = items.find((item) => item.type === 'correction');
      expect(refund).toMatchObject({ chargeId: file.id, kind: 'file', cost: -0.1, secondsBilled: -600, name: 'lecture.mp3' });
      expect(refund!.description).toContain('Refund');
      expect(items.reduce((sum, item) => sum + Math.round((item.cost as number) * 100), 0)).toBe(Math.round(report.totals.amount * 100));

      const liveOnly = (await getJson(server, `/v1/billing/usage/charges?${range}&kind=live`, key)).body;
      expect(liveOnly).toMatchObject({ count: 2, total: 0.06, seconds: 180 });
      const keyOnly = (await getJson(server, `/v1/billing/usage/charges?${range}&source=${keyId}&limit=1`, key)).body;
      expect(keyOnly).toMatchObject({ count: 3, total: 0.02 });
      expect(keyOnly.charges).toHaveLength(1);
      expect(keyOnly.nextCursor).toEqual(expect.any(String));
      const dashboardLive = (await getJson(server, `/v1/billing/usage/charges?${range}&source=dashboard&kind=live`, key)).body;
      expect(dashboardLive.charges.map((item: { id: string }) => item.id)).toEqual([live.id]);
      expect((await getJson(server, `/v1/billing/usage/charges?${range}&kind=audio`, key)).body).toMatchObject({
        code: 'invalid_options', data: { details: { field: 'kind' } },
      });

      const graph = await gql(server, key, 'query($s: String!, $e: String!, $tz: String, $kind: String) { billingUsageCharges(startDate: '
        + '$s, endDate: $e, tz: $tz, kind: $kind) { count total charges { id type state cost } } }', {
          s: day(-4), e: day(1), tz: 'Europe/Berlin', kind: 'file',
        });
      expect(graph.errors).toBeUndefined();
      expect(graph.data.billingUsageCharges).toMatchObject({ count: 2, total: 0 });
      expect(graph.data.billingUsageCharges.charges.map((item: { type: string; cost: number }) => [item.type, item.cost]).sort()).toEqual(
        [['charge', 0.1], ['correction', -0.1]],
      );
    });

    it('reports a deleted recording\'s charges by the name and source the charge kept', async () => {
      const { accountId, key, keyId } = await freshAccount(server);
      await topUp(server, accountId, 1000, null);
      // The recording is gone (no row): a charge keeps its recordingId, name and source without a relation.
      const charge = await openCharge(server, accountId, {
        kind: 'file', source: keyId, name: 'deleted talk.mp3', openedAt: new Date(Date.now() - 60_000),
        recordingId: 'rec_deleted0000000000',
      });
      await settle(server, accountId, charge, 300, null);
      expect(await server.prisma.recording.findUnique({ where: { id: 'rec_deleted0000000000' } })).toBeNull();
      const report = (await getJson(server, `/v1/billing/usage?startDate=${day(0)}&endDate=${day(0)}`, key)).body;
      expect(report.bySource).toEqual([{ source: keyId, seconds: 300, amount: 0.05 }]);
      const items = (await getJson(server, `/v1/billing/usage/charges?startDate=${day(0)}&endDate=${day(0)}`, key)).body;
      expect(items.charges).toMatchObject([{
        id: charge.id, recordingId: 'rec_deleted0000000000', name: 'deleted talk.mp3', cost: 0.05, state: 'settled',
      }]);
    });

    it('needs the read scope', async () => {
      const { accountId } = await freshAccount(server);
      const { key } = await server.createKey(['write'], { accountId });
      const refused = await getJson(server, `/v1/billing/usage?startDate=${day(-1)}&endDate=${day(0)}`, key);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('forbidden');
    });
  });
});

describe('billing statements (billing off)', () => {
  const server = useTestServer();

  it('answers empty statements and a usage report of zeros, never an error', async () => {
    // REST lists leave nextCursor out on the last page; ChargePage's row in the spec gives it as null.
    expect((await getJson(server, '/v1/billing/ledger', server.apiKey)).body).toEqual({ entries: [] });
    expect((await getJson(server, '/v1/billing/charges', server.apiKey)).body).toEqual({ charges: [], nextCursor: null });
    const usage = await getJson(server, `/v1/billing/usage?startDate=${day(-3)}&endDate=${day(0)}`, server.apiKey);
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({
      currency: null, totals: { seconds: 0, amount: 0 }, bySource: [],
      byKind: [{ kind: 'file', seconds: 0, amount: 0 }, { kind: 'live', seconds: 0, amount: 0 }],
    });
    expect(usage.body.days.every((entry: { amount: number }) => entry.amount === 0)).toBe(true);
    const charges = await getJson(server, `/v1/billing/usage/charges?startDate=${day(-3)}&endDate=${day(0)}`, server.apiKey);
    expect(charges.body).toMatchObject({ count: 0, total: 0, seconds: 0, charges: [] });
    expect(charges.body).not.toHaveProperty('nextCursor');
    const graph = await gql(server, server.apiKey, '{ billingLedger { entries { id } nextCursor } billingCharges { charges { id } } }');
    expect(graph.data).toEqual({ billingLedger: { entries: [], nextCursor: null }, billingCharges: { charges: [] } });
  });
});

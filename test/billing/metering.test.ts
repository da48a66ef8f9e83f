/**
 * Metering with billing on: a file job's charge opens as it starts transcribing and settles at done at the exact
 * length; a file costing more than the credit fails `insufficient_credit`; a failed job's charge is voided and its
 * retry charged once; live audio is billed by the whole minute while it runs and settled at stop; running out of
 * credit ends a live recording (at zero, or past the plan's grace); two processes metering the same charges at once,
 * and a step interrupted halfway, leave exactly the ledger one clean run leaves. Rates: files 1 cent a second, live
 * 2 cents a second, at least 2 seconds billed.
 */
import { execFile } from 'node:child_process';
import { appendFile, mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';
import { eventually } from '../helpers/fixtures.js';
import { expectStatus, goForward, json, upload, waitForJob } from '../helpers/http.js';
import { costCents, lockBillingAccount, meterCharge, post } from '../../src/billing/ledger.js';
import { fundedAccount } from '../helpers/billing-accounts.js';
import { CAPTURE_FILE, recordingMediaDir } from '../../src/transcript/media.js';
import { beginTranscribing, dispatchQueued, failJob, finishTranscribing } from '../../src/jobs/service.js';
import { streamFile } from '../helpers/realtime-client.js';
import { GO_FORWARD, LECTURE } from '../helpers/realtime.js';
import { ffmpegPath } from '../../workers/engine/audio.js';
import { gatewayProcesses, stopChild, type Gateway } from '../helpers/gateways.js';
import { openDatabase, type Database } from '../../src/core/db/index.js';
import { loadConfig } from '../../src/core/config/index.js';

const RATES = { file: 36, live: 72, minimumSeconds: 2 };
const FILE_MICROS = 36_000_000;
const LIVE_MICROS = 72_000_000;
const PLANS = [
  {
    id: 'payg', name: 'Pay as you go', rates: RATES,
    limits: { concurrentTranscriptions: 3, createsPerHour: 500, createsPerHourUnpaid: 500 },
  },
  {
    id: 'grace', name: 'With grace', visible: false, rates: RATES, graceOnZero: 5,
    limits: { concurrentTranscriptions: 3, createsPerHour: 500, createsPerHourUnpaid: 500 },
  },
];
const PLANS_FILE = { signupCredit: 0, plans: PLANS, meterIntervalS: 1 };

const balanceOf = async (server: TestServer, accountId: string) => (await server.prisma.billingAccount.findUniqueOrThrow({
  where: { accountId },
})).balanceCents;
const chargeOf = (server: TestServer, recordingId: string) => server.prisma.charge.findUnique({ where: { recordingId } });
const movementsOf = (server: TestServer, chargeId: string) => server.prisma.ledgerEntry.findMany({
  where: { chargeId }, orderBy: { createdAt: 'asc' },
});

/** A live recording started through REST, with no publisher: the test writes its captured audio itself. */
async function startLive(server: TestServer, auth: string): Promise<string> {
  const live = await expectStatus(await server.postJson('/v1/transcriptions/live', { name: 'Metered live' }, { auth }), 201);
  const grant = await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}, { auth }), 201);
  return grant.recording.id as string;
}

/** `seconds` more of captured audio (16 kHz mono float32, as the publisher keeps it). */
async function capture(dataDir: string, recordingId: string, seconds: number): Promise<void> {
  const dir = recordingMediaDir(dataDir, recordingId);
  await mkdir(dir, { recursive: true });
  await appendFile(path.join(dir, CAPTURE_FILE), Buffer.alloc(Math.round(seconds * 16_000) * 4));
}

/** A cropped upload of goforward.wav, once its peaks are drawn: admitted, waiting for `job/start`. */
async function uploadCropped(server: TestServer, auth: string): Promise<string> {
  const created = await expectStatus(await upload(server, { crop: true }, goForward, { authorization: `Bearer ${auth}` }), 201);
  const recordingId = created.job.recordingId as string;
  await eventually(
    async () => expect((await json(await server.request(`/v1/recordings/${recordingId}/job`, { auth }))).preview.peaks).not.toBeNull(),
  );
  return recordingId;
}

/** A realtime session's charge, once it settled. */
async function settledChargeOf(server: TestServer, sessionId: string) {
  await eventually(async () => expect(await server.prisma.charge.findUnique({ where: { sessionId } })).toMatchObject({ state: 'settled' }));
  return server.prisma.charge.findUniqueOrThrow({ where: { sessionId } });
}

/** `POST /v1/realtime/sessions` for this caller: the session's id and `streamUrl`. */
async function createSession(server: TestServer, auth: string): Promise<{ sessionId: string; streamUrl: string }> {
  return expectStatus(await server.postJson('/v1/realtime/sessions', {}, { auth }), 201);
}

async function stopLive(server: TestServer, auth: string, recordingId: string): Promise<void> {
  await expectStatus(await server.request(`/v1/recordings/${recordingId}/pause`, { method: 'POST', auth }), 200);
  await expectStatus(await server.request(`/v1/recordings/${recordingId}/stop`, { method: 'POST', auth }), 200);
}

describe('metering with the workers running', () => {
  const server = useTestServer({ env: billingEnv(PLANS_FILE) });

  it('a file job: no charge while it waits, opened as it transcribes, settled at done at the exact length', async () => {
    const { accountId, auth } = await fundedAccount(server, 1000);
    const recordingId = await uploadCropped(server, auth);
    // Admitted: its minimum is held, nothing charged yet.
    expect(await chargeOf(server, recordingId)).toBeNull();
    expect(await server.prisma.creditHold.findUnique({ where: { workId: recordingId } })).toMatchObject({ amountCents: 2 });
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/job/start`, { startS: 0 }, { auth }), 200);
    const job = await waitForJob(server, recordingId, ['done', 'failed'], 120_000, auth);
    expect(job.state).toBe('done');
    const recording = await server.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } });
    const exact = costCents(recording.durationS!, FILE_MICROS);
    const charge = await chargeOf(server, recordingId);
    expect(charge).toMatchObject({
      kind: 'file', state: 'settled', billedSeconds: recording.durationS, costCents: exact, rateMicros: FILE_MICROS, minimumSeconds: 2,
    });
    const movements = await movementsOf(server, charge!.id);
    expect(movements.reduce((sum, row) => sum + row.amountCents, 0)).toBe(-exact);
    expect(await balanceOf(server, accountId)).toBe(1000 - exact);
    expect(await server.prisma.creditHold.count({ where: { accountId } })).toBe(0);
    expect(await json(await server.request('/v1/billing', { auth }))).toMatchObject({ balance: (1000 - exact) / 100 });
  });

  it('a file costing more than the credit fails insufficient_credit, nothing charged', async () => {
    // 2 cents admit the cropped upload (its minimum); the file itself costs 3.
    const { accountId, auth } = await fundedAccount(server, 2);
    const recordingId = await uploadCropped(server, auth);
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/job/start`, { startS: 0 }, { auth }), 200);
    const job = await waitForJob(server, recordingId, ['done', 'failed'], 120_000, auth);
    expect(job).toMatchObject({ state: 'failed', errorCode: 'insufficient_credit' });
    expect(job.error).toMatch(/costs 0\.03 USD .* can spend 0\.02/);
    expect(await chargeOf(server, recordingId)).toBeNull();
    expect(await balanceOf(server, accountId)).toBe(2);
    expect(await server.prisma.creditHold.count({ where: { accountId } })).toBe(0);
  });

  it('live audio is billed by the whole minute while it runs and settled at the exact seconds at stop', async () => {
    const { accountId, auth } = await fundedAccount(server, 10_000);
    const recordingId = await startLive(server, auth);
    expect(await chargeOf(server, recordingId)).toMatchObject({ kind: 'live', state: 'open', costCents: 0 });
    await capture(server.env.DATA_DIR!, recordingId, 65);
    await eventually(
      async () => expect(await chargeOf(server, recordingId)).toMatchObject({ state: 'open', billedSeconds: 60, costCents: 120 }),
    );
    await capture(server.env.DATA_DIR!, recordingId, 65);
    await eventually(
      async () => expect(await chargeOf(server, recordingId)).toMatchObject({ state: 'open', billedSeconds: 120, costCents: 240 }),
    );
    expect(await balanceOf(server, accountId)).toBe(10_000 - 240);
    await stopLive(server, auth, recordingId);
    const charge = await chargeOf(server, recordingId);
    expect(charge).toMatchObject({ state: 'settled', billedSeconds: 130, costCents: costCents(130, LIVE_MICROS) });
    expect((await movementsOf(server, charge!.id)).map((row) => row.amountCents)).toEqual([-120, -120, -20]);
    expect(await balanceOf(server, accountId)).toBe(10_000 - 260);
  });

  it('without grace, a live recording ends when metering takes the balance to zero; the minute in progress is still billed', async () => {
    const { accountId, auth } = await fundedAccount(server, 150);
    const recordingId = await startLive(server, auth);
    await capture(server.env.DATA_DIR!, recordingId, 130);
    await eventually(
      async () => expect((await server.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } })).state).toMatch(
        /^(ended|finalized)$/,
      ),
    );
    const charge = await chargeOf(server, recordingId);
    expect(charge).toMatchObject({ state: 'settled', billedSeconds: 130, costCents: 260 });
    expect(await balanceOf(server, accountId)).toBe(150 - 260);
    const ended = await server.prisma.recordingEvent.findFirst({ where: {
      recordingId, type: 'recording.state', payload: { path: ['state'], equals: 'ended' },
    } });
    expect(ended?.payload).toMatchObject({ state: 'ended', reason: 'insufficient_credit' });
    expect(await json(await server.request('/v1/billing', { auth }))).toMatchObject({
      balance: -1.1, canStart: false, startBlock: 'no_credit',
    });
  });

  it('with grace, running audio goes on below zero until the balance is past the grace cap', async () => {
    // Grace 5 dollars: 150 cents then 2 minutes (240) leave -90, inside it; the recording goes on.
    const { accountId, auth } = await fundedAccount(server, 150, 'grace');
    const recordingId = await startLive(server, auth);
    await capture(server.env.DATA_DIR!, recordingId, 130);
    await eventually(async () => expect(await chargeOf(server, recordingId)).toMatchObject({ billedSeconds: 120 }));
    expect((await server.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } })).state).toBe('live');
    expect(await json(await server.request('/v1/billing', { auth }))).toMatchObject({ balance: -0.9, inGrace: true, canStart: false });
    // Four more minutes: 150 - 720 = -570, past -500: it ends.
    await capture(server.env.DATA_DIR!, recordingId, 240);
    await eventually(
      async () => expect((await server.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } })).state).toMatch(
        /^(ended|finalized)$/,
      ),
    );
    expect(await chargeOf(server, recordingId)).toMatchObject({ state: 'settled', billedSeconds: 370, costCents: 740 });
    expect(await balanceOf(server, accountId)).toBe(150 - 740);
  });
});

describe('realtime sessions', () => {
  const server = useTestServer({ env: billingEnv(PLANS_FILE) });

  it('a session is admitted like a live recording, billed from its start and settled at the audio it received', async () => {
    const broke = await fundedAccount(server, 3);
    const refused = await expectStatus(
      await server.postJson('/v1/realtime/sessions', {}, { auth: broke.auth }), 402, 'insufficient_credit',
    );
    expect(refused.data.details).toMatchObject({ balance: 0.03, plan: 'payg', currency: 'usd' });
    expect(await server.prisma.charge.count({ where: { accountId: broke.accountId } })).toBe(0);

    const { accountId, auth } = await fundedAccount(server, 1000);
    const fell: string[] = [];
    server.app.services.billing.onBalanceFell((id) => void fell.push(id));
    const session = await createSession(server, auth);
    expect(await server.prisma.charge.findUnique({ where: { sessionId: session.sessionId } })).toMatchObject({
      kind: 'live', state: 'open', costCents: 0,
    });
    const result = await streamFile(session.streamUrl, GO_FORWARD, { realtime: false });
    expect(result.done?.stats.audioS).toBeGreaterThan(2);
    const audioS = result.done!.stats.audioS;
    const charge = await settledChargeOf(server, session.sessionId);
    expect(charge.billedSeconds).toBeCloseTo(audioS, 2);
    expect(charge.costCents).toBe(costCents(charge.billedSeconds, LIVE_MICROS));
    expect(await balanceOf(server, accountId)).toBe(1000 - charge.costCents);
    expect(await server.prisma.creditHold.count({ where: { accountId } })).toBe(0);
    // The listeners heard each fall (the minimum at the start, the rest at the end).
    expect(fell.filter((id) => id === accountId).length).toBeGreaterThanOrEqual(1);
  });
});

describe('realtime sessions past a minute', () => {
  const server = useTestServer({ env: billingEnv(PLANS_FILE) });
  let twoMinutes: string;

  beforeAll(async () => {
    // Two minutes of real speech: the lecture twice.
    twoMinutes = path.join(await mkdtemp(path.join(os.tmpdir(), 'sg-metering-')), 'lecture-twice.wav');
    await promisify(execFile)(ffmpegPath(), [
      '-v', 'error', '-i', LECTURE, '-i', LECTURE, '-filter_complex', 'concat=n=2:v=0:a=1', '-ar', '16000', '-ac', '1', twoMinutes,
    ]);
  });

  it('bills each whole minute received and ends the session with insufficient_credit once the credit is spent', async () => {
    // 100 cents: the 2 s minimum (4 cents) and not the first minute (120 cents) at 2 cents a second.
    const { accountId, auth } = await fundedAccount(server, 100);
    const session = await createSession(server, auth);
    const result = await streamFile(session.streamUrl, twoMinutes, { realtime: false });
    expect(result.errors).toContainEqual(expect.objectContaining({ code: 'insufficient_credit', retryable: false }));
    const charge = await settledChargeOf(server, session.sessionId);
    // The whole minute it crossed was billed, and the session settled at the audio it had received (sent faster than
    // real time, all of it may have arrived before the end); it was ended, not finished at the end of the file.
    expect(charge.billedSeconds).toBeGreaterThanOrEqual(60);
    expect(charge.billedSeconds).toBeLessThanOrEqual(120.1);
    expect(result.done?.reason).not.toBe('eof');
    const movements = await movementsOf(server, charge.id);
    expect(movements.reduce((sum, row) => sum + row.amountCents, 0)).toBe(-charge.costCents);
    expect(await balanceOf(server, accountId)).toBe(100 - charge.costCents);
    expect(await balanceOf(server, accountId)).toBeLessThanOrEqual(0);
    expect(
      (await expectStatus(await server.postJson('/v1/realtime/sessions', {}, { auth }), 402, 'insufficient_credit')).data.details.balance,
    ).toBeLessThanOrEqual(0);
  });
});

describe('file charges through the job moves', () => {
  const server = useTestServer({ workers: [], env: billingEnv(PLANS_FILE) });

  it('a job failing after its charge opened is refunded; its retry opens a new charge and is billed once', async () => {
    const { accountId, auth } = await fundedAccount(server, 1000);
    const created = await expectStatus(await upload(server, undefined, goForward, { authorization: `Bearer ${auth}` }), 201);
    const recordingId = created.job.recordingId as string;
    const ctx = server.app.services.jobs.context;
    const jobOf = () => server.prisma.job.findUniqueOrThrow({ where: { recordingId } });
    const estimate = costCents((await server.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } })).durationS!, FILE_MICROS);

    await dispatchQueued(ctx, accountId);
    expect(await beginTranscribing(ctx, (await jobOf()).id, (await jobOf()).attempts)).toBe(true);
    const first = await chargeOf(server, recordingId);
    expect(first).toMatchObject({ state: 'open', costCents: estimate });
    expect(await balanceOf(server, accountId)).toBe(1000 - estimate);

    await failJob(ctx, (await jobOf()).id, { message: 'The engine stopped.', code: 'internal' });
    expect(await server.prisma.charge.findUniqueOrThrow({ where: { id: first!.id } })).toMatchObject({ state: 'void' });
    expect(await balanceOf(server, accountId)).toBe(1000);
    expect((await movementsOf(server, first!.id)).map((row) => row.kind)).toEqual(['charge', 'refund']);

    await expectStatus(await server.request(`/v1/recordings/${recordingId}/job/retry`, { method: 'POST', auth }), 200);
    const retried = await jobOf();
    expect(await beginTranscribing(ctx, retried.id, retried.attempts)).toBe(true);
    const second = await chargeOf(server, recordingId);
    expect(second?.id).not.toBe(first!.id);
    // The voided charge stays in the ledger, detached from the recording.
    expect(await server.prisma.charge.findUniqueOrThrow({ where: { id: first!.id } })).toMatchObject({ state: 'void', recordingId: null });
    await finishTranscribing(ctx, { id: retried.id, recordingId, attempt: retried.attempts, accountId }, {
      totalS: 2.5, segmentsDone: 0, spokenLanguage: 'en', language: 'en', model: 'test', beamSize: 1, uncoveredSpeechS: 0,
    });
    expect(await chargeOf(server, recordingId)).toMatchObject({
      state: 'settled', billedSeconds: 2.5, costCents: costCents(2.5, FILE_MICROS),
    });
    expect(await balanceOf(server, accountId)).toBe(1000 - costCents(2.5, FILE_MICROS));
  });
});

describe('two processes metering the same charges', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    // Two gateways on one database and one media folder, neither running its sweeper: the test runs their passes.
    first = await startTestServer({ workers: [], env: billingEnv(PLANS_FILE) });
    second = await startTestServer({
      workers: [], env: { DATABASE_URL: first.env.DATABASE_URL!, DATA_DIR: first.env.DATA_DIR!, BILLING_CONFIG: first.env.BILLING_CONFIG! },
    });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('racing passes and a step interrupted halfway bill each minute once: the ledger a single clean run gives', async () => {
    const { accountId, auth } = await fundedAccount(first, 100_000);
    const recordings = [await startLive(first, auth), await startLive(first, auth)];
    const passes = () => Promise.all([first, second, first, second].map((server) => server.app.services.metering.sweep()));
    for (const recordingId of recordings) await capture(first.env.DATA_DIR!, recordingId, 61);
    // A process dies in the middle of a step: its transaction billed the minute, then never committed.
    const charge = await chargeOf(first, recordings[0]!);
    await expect(first.prisma.$transaction(async (tx) => {
      const account = await lockBillingAccount(tx, first.app.services.billing.on(), accountId);
      await meterCharge(tx, account, charge!, 60);
      throw new Error('killed mid-step');
    })).rejects.toThrow('killed mid-step');
    await passes();
    for (const recordingId of recordings) await capture(first.env.DATA_DIR!, recordingId, 125);
    await Promise.all([passes(), passes()]);
    await passes();
    for (const recordingId of recordings) {
      const metered = await chargeOf(first, recordingId);
      expect(metered).toMatchObject({ state: 'open', billedSeconds: 180, costCents: 360 });
      const movements = await movementsOf(first, metered!.id);
      expect(movements.map((row) => row.amountCents)).toEqual([-120, -240]);
      expect(new Set(movements.map((row) => row.key)).size).toBe(movements.length);
    }
    // Stopped from the other process: settled once at the exact 186 s.
    await Promise.all(recordings.map((recordingId) => stopLive(second, auth, recordingId)));
    await passes();
    for (const recordingId of recordings) expect(await chargeOf(first, recordingId)).toMatchObject({
      state: 'settled', billedSeconds: 186, costCents: 372,
    });
    expect(await balanceOf(first, accountId)).toBe(100_000 - 2 * 372);
    const rows = await first.prisma.ledgerEntry.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
    expect(rows.reduce((sum, row) => sum + row.amountCents, 0)).toBe(100_000 - 2 * 372);
  });
});

describe('a gateway killed while it meters', () => {
  const { createDatabase, tempDir, startGateways, call, expectStatus: expectOn, until, tail, stopAll } = gatewayProcesses({
    realtimeSecret: 'metering-suite-secret-0123456789abcdef',
  });
  let database: Database;
  let a: Gateway;
  let b: Gateway;
  let dataDir: string;

  beforeAll(async () => {
    const created = await createDatabase();
    dataDir = await tempDir('sg-metering-');
    // Both run their workers (the metering sweeper every second) on one database and one media folder.
    const env = { DATA_DIR: dataDir, RUN_WORKERS: 'true', ...billingEnv(PLANS_FILE) };
    [a, b] = await startGateways({ env, name: 'a' }, { env, name: 'b' });
    database = await openDatabase({ databaseUrl: created.url, dataDir });
  }, 300_000);
  afterAll(async () => {
    await database?.close();
    await stopAll();
  }, 120_000);

  it('the other gateway meters on: no minute lost or billed twice', async () => {
    const { prisma } = database;
    const settings = loadConfig({ ...billingEnv(PLANS_FILE), DATABASE_URL: 'postgres://unused' }).billing;
    if (!settings.enabled) throw new Error('billing is on in this suite');
    const { accountId } = await prisma.principal.findFirstOrThrow({ where: { kind: 'api_key' } });
    await prisma.$transaction(async (tx) => {
      const account = await lockBillingAccount(tx, settings, accountId);
      await post(tx, account, { kind: 'adjustment', amountCents: 100_000, key: 'test:credit', description: 'Test credit' });
    });
    const live = await expectOn(await call(a, '/v1/transcriptions/live', 'POST', { name: 'Killed gateway' }), 201);
    const grant = await expectOn(await call(a, `/v1/transcriptions/${live.id}/recordings`, 'POST'), 201);
    const recordingId = grant.recording.id as string;
    const charge = () => prisma.charge.findUnique({ where: { recordingId } });
    await capture(dataDir, recordingId, 61);
    await until('the first minute billed', async () => (await charge())?.billedSeconds === 60, 60_000, tail(a, b));
    await stopChild(a.child);
    await capture(dataDir, recordingId, 60);
    await until('the second minute billed by the gateway left', async () => (await charge())?.billedSeconds === 120, 60_000, tail(b));
    await expectOn(await call(b, `/v1/recordings/${recordingId}/pause`, 'POST'), 200);
    await expectOn(await call(b, `/v1/recordings/${recordingId}/stop`, 'POST'), 200);
    const settled = await charge();
    expect(settled).toMatchObject({ state: 'settled', billedSeconds: 121, costCents: 242 });
    const movements = await prisma.ledgerEntry.findMany({ where: { chargeId: settled!.id }, orderBy: { createdAt: 'asc' } });
    expect(movements.map((row) => row.amountCents)).toEqual([-120, -120, -2]);
    expect((await prisma.billingAccount.findUniqueOrThrow({ where: { accountId } })).balanceCents).toBe(100_000 - 242);
  }, 240_000);
});

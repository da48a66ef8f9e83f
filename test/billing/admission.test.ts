/**
 * Admission at every creation point with billing on, through REST and GraphQL: 402 insufficient_credit (with
 * `required` when an upload's cost is known), 429 rate_limited past the hour's creations, 402 quota_exceeded for live
 * work past the plan's concurrent transcriptions while file jobs still queue, GET /v1/billing telling the same in
 * advance, 50 parallel creates against a balance covering exactly N minimums, and billing off changing nothing.
 * Rates are chosen so amounts are easy: files 1 cent a second, live 2 cents a second, at least 2 seconds billed.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';
import { expectStatus, goForward, json, upload } from '../helpers/http.js';
import { addCredit, fundedAccount } from '../helpers/billing-accounts.js';

const RATES = { file: 36, live: 72, minimumSeconds: 2 };
const PLANS = [
  {
    id: 'payg', name: 'Pay as you go', rates: RATES,
    limits: { concurrentTranscriptions: 2, createsPerHour: 500, createsPerHourUnpaid: 500 },
  },
  {
    id: 'hourly', name: 'Three an hour', visible: false, rates: RATES,
    limits: { concurrentTranscriptions: 5, createsPerHour: 500, createsPerHourUnpaid: 3 },
  },
  {
    id: 'single', name: 'One at a time', visible: false, rates: RATES,
    limits: { concurrentTranscriptions: 1, createsPerHour: 500, createsPerHourUnpaid: 500 },
  },
];
/** The least a file costs (2 s at 1 cent a second) and a live recording (2 s at 2 cents). */
const FILE_MINIMUM_CENTS = 2;

const linkBody = () => ({ url: `https://example.com/talks/${randomUUID()}.mp3` });

async function billingView(server: TestServer, key: string) {
  return json(await server.request('/v1/billing', { auth: key }));
}

async function startLive(server: TestServer, key: string): Promise<Response> {
  const live = await expectStatus(await server.postJson('/v1/transcriptions/live', { name: 'Live' }, { auth: key }), 201);
  return server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}, { auth: key });
}

describe('admission with billing on', () => {
  const server = useTestServer({ workers: [], env: billingEnv({ signupCredit: 0, plans: PLANS }) });

  it('refuses a link with no credit: 402 insufficient_credit with balance, plan, topUpUrl, currency and no required; nothing is created '
    + 'or charged', async () => {
    const { accountId, auth: key } = await fundedAccount(server, 0);
    const view = await billingView(server, key);
    expect(view).toMatchObject({ canStart: false, startBlock: 'no_credit', canStartLive: false, startBlockLive: 'no_credit' });
    const refused = await expectStatus(await server.postJson('/v1/transcriptions', linkBody(), { auth: key }), 402, 'insufficient_credit');
    expect(refused.data.details).toEqual({ balance: 0, plan: 'payg', topUpUrl: `${server.url}/v1/billing/plans`, currency: 'usd' });
    expect(refused.data.retryable).toBe(false);
    expect(await server.prisma.transcription.count({ where: { accountId } })).toBe(0);
    expect(await server.prisma.recording.count({ where: { accountId } })).toBe(0);
    expect(await server.prisma.ledgerEntry.count({ where: { accountId, kind: 'charge' } })).toBe(0);
  });

  it('an upload whose cost is more than the credit: 402 with required (its whole cost, known from its length)', async () => {
    // goforward.wav is 2.79 s: 3 cents; 2 cents cover only the minimum.
    const { accountId, auth: key } = await fundedAccount(server, 2);
    const refused = await expectStatus(
      await upload(server, undefined, goForward, { authorization: `Bearer ${key}` }), 402, 'insufficient_credit',
    );
    expect(refused.data.details).toEqual({
      balance: 0.02, plan: 'payg', topUpUrl: `${server.url}/v1/billing/plans`, currency: 'usd', required: 0.03,
    });
    expect(await server.prisma.recording.count({ where: { accountId } })).toBe(0);
    // A link's length is not known up front: the minimum is what it needs, and 2 cents cover it.
    await expectStatus(await server.postJson('/v1/transcriptions', linkBody(), { auth: key }), 201);
    // The upload admitted once the credit covers it; it holds its cost, not the minimum.
    await addCredit(server, accountId, 3);
    await expectStatus(await upload(server, undefined, goForward, { authorization: `Bearer ${key}` }), 201);
    const holds = await server.prisma.creditHold.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
    expect(holds.map((hold) => hold.amountCents)).toEqual([2, 3]);
  });

  it('an upload into a live transcription is admitted the same way', async () => {
    const { accountId, auth: key } = await fundedAccount(server, 0);
    const live = await expectStatus(await server.postJson('/v1/transcriptions/live', { name: 'Live' }, { auth: key }), 201);
    const refused = await expectStatus(
      await server.postJson(`/v1/transcriptions/${live.id}/recordings/upload`, linkBody(), { auth: key }), 402, 'insufficient_credit',
    );
    expect(refused.data.details).toMatchObject({ balance: 0, plan: 'payg' });
    expect(await server.prisma.recording.count({ where: { accountId } })).toBe(0);
    await addCredit(server, accountId, FILE_MINIMUM_CENTS);
    await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/recordings/upload`, linkBody(), { auth: key }), 201);
    expect(await server.prisma.recording.count({ where: { accountId } })).toBe(1);
  });

  it('a recording started from a broadcast is admitted as a live one: refused, it leaves no transcription behind', async () => {
    const { accountId, auth: key } = await fundedAccount(server, 3);
    const broadcast = await expectStatus(await server.postJson('/v1/broadcasts', { name: 'Radio' }, { auth: key }), 201);
    await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {}, { auth: key }), 402, 'insufficient_credit');
    expect(await server.prisma.transcription.count({ where: { accountId } })).toBe(0);
    await addCredit(server, accountId, 10);
    const grant = await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {}, { auth: key }), 201);
    expect(await server.prisma.charge.findUnique({ where: { recordingId: grant.recording.id } })).toMatchObject({
      kind: 'live', state: 'open',
    });
  });

  it('GraphQL refuses the same way, with the details in the extensions', async () => {
    const { auth: key } = await fundedAccount(server, 1);
    const body = await json(await server.graphql(
      'mutation($o: CreateTranscriptionInput) { createTranscription(options: $o) { id } }', { o: linkBody() }, { auth: key },
    ));
    expect(body.errors[0].extensions).toMatchObject({
      code: 'insufficient_credit', status: 402, details: { balance: 0.01, plan: 'payg', currency: 'usd' },
    });
  });

  it('a refused create with an Idempotency-Key is not replayed: the same request after adding credit creates', async () => {
    const { accountId, auth: key } = await fundedAccount(server, 0);
    const headers = { 'idempotency-key': randomUUID() };
    const body = linkBody();
    await expectStatus(await server.postJson('/v1/transcriptions', body, { auth: key, headers }), 402, 'insufficient_credit');
    await addCredit(server, accountId, 10);
    const created = await server.postJson('/v1/transcriptions', body, { auth: key, headers });
    await expectStatus(created, 201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });

  it('past the hour\'s creations: 429 rate_limited with metric, limit, resetsAt and Retry-After; GET /v1/billing says '
    + 'hourly_limit', async () => {
    const { auth: key } = await fundedAccount(server, 100, 'hourly');
    for (let i = 0; i < 3; i++) await expectStatus(await server.postJson('/v1/transcriptions', linkBody(), { auth: key }), 201);
    const response = await server.postJson('/v1/transcriptions', linkBody(), { auth: key });
    const refused = await expectStatus(response, 429, 'rate_limited');
    expect(refused.data.details).toMatchObject({ metric: 'creates_per_hour', limit: 3 });
    const resetsAt = Date.parse(refused.data.details.resetsAt);
    expect(resetsAt).toBeGreaterThan(Date.now());
    expect(resetsAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Live creation points count the same hour.
    const live = await expectStatus(await server.postJson('/v1/transcriptions/live', { name: 'Live' }, { auth: key }), 201);
    await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}, { auth: key }), 429, 'rate_limited');
    expect(await billingView(server, key)).toMatchObject({
      canStart: false, startBlock: 'hourly_limit', canStartLive: false, startBlockLive: 'hourly_limit',
    });
  });

  it('a live recording past the plan\'s concurrent transcriptions: 402 quota_exceeded, while a file job still queues', async () => {
    const { auth: key } = await fundedAccount(server, 1000, 'single');
    expect(await billingView(server, key)).toMatchObject({ canStart: true, startBlock: null, canStartLive: true, startBlockLive: null });
    const first = await expectStatus(await startLive(server, key), 201);
    expect(first.recording.state).toBe('live');
    expect(await billingView(server, key)).toMatchObject({ canStartLive: false, startBlockLive: 'concurrency', startBlock: 'concurrency' });
    const refused = await expectStatus(await startLive(server, key), 402, 'quota_exceeded');
    expect(refused.data.details).toEqual({
      metric: 'concurrent_transcriptions', limit: 1, used: 1, resetsAt: null, plan: 'single', topUpUrl: `${server.url}/v1/billing/plans`,
    });
    // A file is never refused for concurrency: it waits in the queue, not admitted while the live one holds the slot.
    const file = await expectStatus(await upload(server, undefined, goForward, { authorization: `Bearer ${key}` }), 201);
    expect(file.job.state).toBe('queued');
    expect((await server.prisma.job.findFirstOrThrow({ where: { recordingId: file.recordingId } })).startedAt).toBeNull();
    expect((await billingView(server, key)).limitsUsage).toMatchObject({ concurrentTranscriptions: 1 });
    // The first recording ends: a live one can start again.
    await expectStatus(await server.request(`/v1/recordings/${first.recording.id}/pause`, { method: 'POST', auth: key }), 200);
    await expectStatus(await server.request(`/v1/recordings/${first.recording.id}/stop`, { method: 'POST', auth: key }), 200);
    expect(await billingView(server, key)).toMatchObject({ canStartLive: true, startBlockLive: null });
    await expectStatus(await startLive(server, key), 201);
  });

  it('a live recording needs its own (larger) minimum: canStartLive says so before it is refused', async () => {
    // 3 cents cover a file's minimum (2) but not a live one's (4).
    const { auth: key } = await fundedAccount(server, 3);
    expect(await billingView(server, key)).toMatchObject({
      canStart: true, startBlock: null, canStartLive: false, startBlockLive: 'no_credit',
    });
    const refused = await expectStatus(await startLive(server, key), 402, 'insufficient_credit');
    expect(refused.data.details).toMatchObject({ balance: 0.03, plan: 'payg', currency: 'usd' });
  });

  it('50 parallel creates against credit for exactly 10 minimums: 10 created, 40 refused, nothing charged, the credit all '
    + 'held', async () => {
    const { accountId, auth: key } = await fundedAccount(server, 10 * FILE_MINIMUM_CENTS);
    const answers = await Promise.all(Array.from({ length: 50 }, () => server.postJson('/v1/transcriptions', linkBody(), { auth: key })));
    const statuses = answers.map((answer) => answer.status);
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 402)).toHaveLength(40);
    for (const body of bodies.filter((_body, index) => statuses[index] === 402)) expect(body.code).toBe('insufficient_credit');
    expect(await server.prisma.recording.count({ where: { accountId } })).toBe(10);
    const account = await server.prisma.billingAccount.findUniqueOrThrow({ where: { accountId } });
    expect(account.balanceCents).toBe(20);
    const held = await server.prisma.creditHold.aggregate({ where: { accountId }, _sum: { amountCents: true } });
    expect(held._sum.amountCents).toBe(20);
    expect(await billingView(server, key)).toMatchObject({ balance: 0.2, canStart: false, startBlock: 'no_credit' });
  });

  it('a usage source per creator: the API key\'s id, or dashboard for a signed-in person', async () => {
    const { accountId, auth: key, keyId } = await fundedAccount(server, 1000);
    const person = await server.createUser({ accountId });
    const byKey = await expectStatus(await startLive(server, key), 201);
    const byPerson = await expectStatus(await startLive(server, person.token), 201);
    const charges = await server.prisma.charge.findMany({ where: { recordingId: { in: [byKey.recording.id, byPerson.recording.id] } } });
    const sourceOf = (recordingId: string) => charges.find((charge) => charge.recordingId === recordingId)?.source;
    expect(sourceOf(byKey.recording.id)).toBe(keyId);
    expect(sourceOf(byPerson.recording.id)).toBe('dashboard');
    expect(charges.every((charge) => charge.state === 'open' && charge.kind === 'live' && charge.costCents === 0)).toBe(true);
  });
});

describe('billing off (the default)', () => {
  const server = useTestServer({ workers: [] });

  it('admits every create, charges nothing and keeps no billing rows', async () => {
    await expectStatus(await server.postJson('/v1/transcriptions', linkBody()), 201);
    await expectStatus(await upload(server), 201);
    await expectStatus(await startLive(server, server.apiKey), 201);
    expect(await server.prisma.billingAccount.count()).toBe(0);
    expect(await server.prisma.creditHold.count()).toBe(0);
    expect(await server.prisma.charge.count()).toBe(0);
    expect(await server.prisma.billingAdmission.count()).toBe(0);
  });
});

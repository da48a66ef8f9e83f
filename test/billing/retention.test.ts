/**
 * A plan's retention: transcriptions older than `retentionDays` are deleted by the billing sweep, never while work
 * of theirs runs, and after a downgrade only once `retentionDeadline` (the grace) has passed.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { billingEnv, TEST_PLANS } from '../helpers/billing.js';
import { applyRetention } from '../../src/billing/sweeper.js';

const DAY_MS = 86_400_000;
const server = useTestServer({
  workers: [],
  env: billingEnv({
    signupCredit: 100,
    plans: [{ ...TEST_PLANS.plans[0], limits: { ...TEST_PLANS.plans[0]!.limits, retentionDays: 30 } }, TEST_PLANS.plans[1]],
  }),
});

/** A link transcription made through the API, its job ended, dated `daysAgo` days back. */
async function transcription(key: string, daysAgo: number, state = 'ended') {
  const res = await server.postJson(
    '/v1/transcriptions', { url: 'https://example.org/old-talk.mp3', name: `${daysAgo} days old` }, { auth: key },
  );
  expect(res.status).toBe(201);
  const { id } = await res.json() as { id: string };
  const at = new Date(Date.now() - daysAgo * DAY_MS);
  await server.prisma.transcription.update({ where: { id }, data: { createdAt: at } });
  await server.prisma.recording.updateMany({ where: { transcriptionId: id }, data: { createdAt: at, state } });
  return id;
}

describe('plan retention', () => {
  it('deletes what is older than the plan keeps, not recent or running work, and waits for a downgrade\'s grace', async () => {
    const accountId = await server.createAccount('retained');
    const { key } = await server.createKey(['*'], { accountId });
    const old = await transcription(key, 40);
    const recent = await transcription(key, 5);
    const running = await transcription(key, 40, 'processing');

    const graced = await server.createAccount('in grace');
    const graceKey = (await server.createKey(['*'], { accountId: graced })).key;
    const gracedOld = await transcription(graceKey, 40);
    await server.prisma.billingAccount.update({
      where: { accountId: graced }, data: { retentionDeadline: new Date(Date.now() + 3 * DAY_MS) },
    });
    const view = await (await server.request('/v1/billing', { auth: graceKey })).json();
    expect(view.retentionDeadline).not.toBeNull();

    await applyRetention(server.app.services);
    const left = async (id: string) => (await server.request(`/v1/transcriptions/${id}`, { auth: key })).status;
    expect(await left(old)).toBe(404);
    expect(await left(recent)).toBe(200);
    expect(await left(running)).toBe(200);
    expect((await server.request(`/v1/transcriptions/${gracedOld}`, { auth: graceKey })).status).toBe(200);

    await applyRetention(server.app.services, new Date(Date.now() + 4 * DAY_MS));
    expect((await server.request(`/v1/transcriptions/${gracedOld}`, { auth: graceKey })).status).toBe(404);
  });

  it('each plan keeps its own time: pro keeps a year', async () => {
    const accountId = await server.createAccount('pro');
    const { key } = await server.createKey(['*'], { accountId });
    await server.app.services.billing.account(accountId);
    await server.prisma.billingAccount.update({ where: { accountId }, data: { planId: 'pro' } });
    const old = await transcription(key, 400);
    await applyRetention(server.app.services);
    expect((await server.request(`/v1/transcriptions/${old}`, { auth: key })).status).toBe(404); // pro keeps 365 days
    const kept = await transcription(key, 100);
    await applyRetention(server.app.services);
    expect((await server.request(`/v1/transcriptions/${kept}`, { auth: key })).status).toBe(200);
  });
});

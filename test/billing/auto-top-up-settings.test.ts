/**
 * PUT /v1/billing/auto-top-up (REST and GraphQL): the settings, their refusals and the consent recorded. The
 * charging itself is tested with the payment provider. A provider that takes automatic charges is configured as
 * Stripe with dummy secrets: nothing here contacts it; a saved card is a PaymentMethod row as the provider's
 * webhook writes it.
 */
import { describe, expect, it } from 'vitest';
import { autoTopUpSettingsOf } from '../../src/billing/auto-top-up-settings.js';
import { billingEnv, expectInvalidBodies } from '../helpers/billing.js';
import { useTestServer, type TestServer } from '../helpers/server.js';

const STRIPE_ENV = { STRIPE_SECRET_KEY: 'sk_test_dummy', STRIPE_WEBHOOK_SECRET: 'whsec_dummy' };
const VIEW_FIELDS = 'enabled available amount threshold last { at amount outcome }';

async function setAutoTopUp(server: TestServer, key: string, body: unknown) {
  const res = await server.postJson('/v1/billing/auto-top-up', body, { method: 'PUT', auth: key });
  return { status: res.status, body: await res.json() };
}

async function accountWithKey(server: TestServer, name: string) {
  const accountId = await server.createAccount(name);
  const { key } = await server.createKey(['*'], { accountId });
  return { accountId, key };
}

async function saveCard(server: TestServer, accountId: string) {
  await server.prisma.paymentMethod.create({
    data: {
      id: `pm_row_${accountId}`, accountId, providerId: `pm_${accountId}`, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030,
      isDefault: true,
    },
  });
}

describe('auto top-up settings (a provider that takes automatic charges)', () => {
  const server = useTestServer({ env: billingEnv({ provider: { kind: 'stripe' } }, STRIPE_ENV) });

  it('is 409 payment_method_required until a payment method is saved; then turns on and records consent', async () => {
    const { accountId, key } = await accountWithKey(server, 'Auto on');
    const plans = await (await server.request('/v1/billing/plans', { auth: null })).json();
    expect(plans.autoTopUp.offered).toBe(true);
    const refused = await setAutoTopUp(server, key, { enabled: true, threshold: 5, amount: 25 });
    expect([refused.status, refused.body.code]).toEqual([409, 'payment_method_required']);
    expect((await (await server.request('/v1/billing', { auth: key })).json()).autoTopUp).toMatchObject({
      enabled: false, available: false,
    });

    await saveCard(server, accountId);
    const before = Date.now();
    const on = await setAutoTopUp(server, key, { enabled: true, threshold: 5, amount: 25 });
    expect(on).toEqual({ status: 200, body: { enabled: true, available: true, threshold: 5, amount: 25, last: null } });
    const row = await server.prisma.billingAccount.findUniqueOrThrow({ where: { accountId } });
    const consent = row.autoTopUpConsent as { at: string; addressHash: string; termsVersion: string };
    expect(consent.termsVersion).toBe('2026-11');
    expect(Date.parse(consent.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(consent.addressHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(consent)).not.toContain('127.0.0.1');
    // The same address hashes the same (a keyed hash, not a random one); each turning on records consent again.
    await setAutoTopUp(server, key, { enabled: true, threshold: 6, amount: 30 });
    const again = (await server.prisma.billingAccount.findUniqueOrThrow({ where: { accountId } })).autoTopUpConsent as typeof consent;
    expect(again.addressHash).toBe(consent.addressHash);
    expect(Date.parse(again.at)).toBeGreaterThanOrEqual(Date.parse(consent.at));

    // What the charging reads.
    expect(autoTopUpSettingsOf(await server.prisma.billingAccount.findUniqueOrThrow({ where: { accountId } }))).toMatchObject({
      enabled: true, thresholdCents: 600, amountCents: 3000, consent: { termsVersion: '2026-11' },
    });
    // GET /v1/billing shows the same.
    expect((await (await server.request('/v1/billing', { auth: key })).json()).autoTopUp).toEqual({
      enabled: true, available: true, threshold: 6, amount: 30, last: null,
    });
  });

  it('turning off keeps threshold and amount and needs no card; `last` is the newest attempt', async () => {
    const { accountId, key } = await accountWithKey(server, 'Auto off');
    await saveCard(server, accountId);
    await setAutoTopUp(server, key, { enabled: true, threshold: 2, amount: 10 });
    await server.prisma.autoTopUpAttempt.createMany({
      data: [
        {
          id: `atu_old_${accountId}`, accountId, amountCents: 1000, outcome: 'paid', trigger: 'threshold',
          at: new Date('2026-01-01T00:00:00Z'),
        },
        {
          id: `atu_new_${accountId}`, accountId, amountCents: 1000, outcome: 'declined', trigger: 'retry',
          at: new Date('2026-01-02T00:00:00Z'),
        },
      ],
    });
    const off = await setAutoTopUp(server, key, { enabled: false, threshold: null, amount: null });
    expect(off).toEqual({
      status: 200,
      body: {
        enabled: false, available: true, threshold: 2, amount: 10,
        last: { at: '2026-01-02T00:00:00.000Z', amount: 10, outcome: 'declined' },
      },
    });
    expect(autoTopUpSettingsOf(await server.prisma.billingAccount.findUniqueOrThrow({ where: { accountId } })).enabled).toBe(false);
    // Values given while turning it off are checked and kept.
    expect((await setAutoTopUp(server, key, { enabled: false, amount: 50 })).body).toMatchObject({
      enabled: false, threshold: 2, amount: 50,
    });
    await server.prisma.paymentMethod.deleteMany({ where: { accountId } });
    expect((await setAutoTopUp(server, key, { enabled: false })).body).toMatchObject({
      enabled: false, available: false, threshold: 2, amount: 50,
    });
  });

  it('refuses a bad body naming the field: both amounts required to enable, whole cents inside their ranges', async () => {
    const { accountId, key } = await accountWithKey(server, 'Auto refusals');
    await saveCard(server, accountId);
    const cases: Array<[unknown, string]> = [
      [{ enabled: true, amount: 25 }, 'threshold'],
      [{ enabled: true, threshold: 5 }, 'amount'],
      [{ enabled: true, threshold: 5, amount: null }, 'amount'],
      [{ enabled: true, threshold: 0.5, amount: 25 }, 'threshold'], // thresholdRange 1 to 100
      [{ enabled: true, threshold: 101, amount: 25 }, 'threshold'],
      [{ enabled: true, threshold: 5, amount: 4.99 }, 'amount'], // amountRange 5 to 500
      [{ enabled: true, threshold: 5, amount: 500.01 }, 'amount'],
      [{ enabled: true, threshold: 5.001, amount: 25 }, 'threshold'],
      [{ enabled: true, threshold: 5, amount: '25' }, 'amount'],
      [{ enabled: false, threshold: 1e9 }, 'threshold'],
      [{ threshold: 5, amount: 25 }, 'enabled'],
      [{ enabled: 1, threshold: 5, amount: 25 }, 'enabled'],
      [{ enabled: true, threshold: 5, amount: 25, perDay: 10 }, 'perDay'],
    ];
    await expectInvalidBodies(cases, (body) => setAutoTopUp(server, key, body));
    expect((await setAutoTopUp(server, key, { enabled: true, threshold: 1, amount: 500 })).body).toMatchObject({
      enabled: true, threshold: 1, amount: 500,
    });
    const { key: reader } = await server.createKey(['read'], { accountId });
    expect((await setAutoTopUp(server, reader, { enabled: false })).status).toBe(403);
  });

  it('GraphQL sets the same settings and refuses the same way', async () => {
    const { accountId, key } = await accountWithKey(server, 'Auto GraphQL');
    const mutation = `mutation ($input: AutoTopUpSettingsInput!) { setAutoTopUp(input: $input) { ${VIEW_FIELDS} } }`;
    const noCard = await (await server.graphql(mutation, { input: { enabled: true, threshold: 5, amount: 25 } }, { auth: key })).json();
    expect(noCard.errors[0].extensions).toMatchObject({ code: 'payment_method_required', status: 409 });
    await saveCard(server, accountId);
    const outside = await (await server.graphql(mutation, { input: { enabled: true, threshold: 5, amount: 1000 } }, { auth: key })).json();
    expect(outside.errors[0].extensions).toMatchObject({ code: 'invalid_body', status: 422, details: { field: 'amount' } });
    const on = await (await server.graphql(mutation, { input: { enabled: true, threshold: 5, amount: 25 } }, { auth: key })).json();
    expect(on).toEqual({ data: { setAutoTopUp: { enabled: true, available: true, threshold: 5, amount: 25, last: null } } });
    expect((await server.prisma.billingAccount.findUniqueOrThrow({ where: { accountId } })).autoTopUpConsent).toMatchObject({
      termsVersion: '2026-11',
    });
  });
});

describe('auto top-up settings (the manual provider: no automatic charges)', () => {
  const server = useTestServer({ env: billingEnv() });

  it('turning on is 409 invalid_state even with a saved card; turning off is allowed', async () => {
    const { accountId, key } = await accountWithKey(server, 'Manual');
    await saveCard(server, accountId);
    const refused = await setAutoTopUp(server, key, { enabled: true, threshold: 5, amount: 25 });
    expect([refused.status, refused.body.code]).toEqual([409, 'invalid_state']);
    expect(refused.body.message).toContain('automatic charges');
    // The body is still checked first.
    expect((await setAutoTopUp(server, key, { enabled: true, threshold: 5 })).body.data.details.field).toBe('amount');
    expect(await setAutoTopUp(server, key, { enabled: false, threshold: 5, amount: 25 })).toEqual({
      status: 200, body: { enabled: false, available: true, threshold: 5, amount: 25, last: null },
    });
    const graphql = await (await server.graphql(
      'mutation { setAutoTopUp(input: {enabled: true, threshold: 5, amount: 25}) { enabled } }', undefined, { auth: key },
    )).json();
    expect(graphql.errors[0].extensions.code).toBe('invalid_state');
  });
});

describe('auto top-up settings (billing off)', () => {
  const server = useTestServer();

  it('answers 409 invalid_state: this server does not bill', async () => {
    const answer = await setAutoTopUp(server, server.apiKey, { enabled: false });
    expect([answer.status, answer.body.code]).toEqual([409, 'invalid_state']);
    expect(answer.body.message).toContain('does not bill');
  });
});

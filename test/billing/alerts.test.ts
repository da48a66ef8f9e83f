/**
 * PUT /v1/billing/low-balance-alert (REST and GraphQL) and its emails, sent over real SMTP to a server on loopback:
 * one email each time the balance falls to the threshold, none while off, again after credit took the balance above
 * it, one for two falls at once.
 *
 * A fall is made as the metering makes one: a ledger movement under the account's lock, then `balanceFell` once it
 * committed (src/billing/service.ts). A top-up is a ledger movement that adds credit, as a paid checkout writes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { lockBillingAccount, post, type MovementKind } from '../../src/billing/ledger.js';
import { billingEnv, expectInvalidBodies } from '../helpers/billing.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpServer } from '../helpers/smtp.js';

const TOP_UP_URL = 'https://billing.example.test/top-up';
const smtp = await startSmtpServer();
afterAll(() => smtp.close());

let movementCount = 0;

/** Moves the balance by `cents` through the ledger; a spend then tells billing the balance fell, as metering does. */
async function move(server: TestServer, accountId: string, cents: number): Promise<void> {
  const billing = server.app.services.billing;
  const kind: MovementKind = cents < 0 ? 'charge' : 'top_up';
  await server.prisma.$transaction(async (tx) => {
    const account = await lockBillingAccount(tx, billing.on(), accountId);
    await post(tx, account, { kind, amountCents: cents, key: `test:${kind}:${++movementCount}`, description: `Test ${kind}` });
  });
  if (cents < 0) await billing.balanceFell(accountId);
}

/** An account with one person (its email gets the alerts unless billing details name another) and a key. */
async function account(server: TestServer, email: string) {
  const accountId = await server.createAccount(`Alerts ${email}`);
  await server.createUser({ accountId, email });
  const { key } = await server.createKey(['*'], { accountId });
  return { accountId, key };
}

async function setAlert(server: TestServer, key: string, body: unknown) {
  const res = await server.postJson('/v1/billing/low-balance-alert', body, { method: 'PUT', auth: key });
  return { status: res.status, body: await res.json() };
}

const mailsTo = (address: string) => smtp.messages.filter((message) => message.to.includes(address));

describe('low-balance alert (billing on, mail on)', () => {
  const server = useTestServer({ env: billingEnv({ topUpUrl: TOP_UP_URL }, { SMTP_URL: smtp.url, MAIL_FROM: 'speechgate billing '
    + '<billing@example.test>' }) });

  it('sends one email each time the balance falls to the threshold, again only after a top-up took it above', async () => {
    const email = 'falls@example.test';
    const { accountId, key } = await account(server, email);
    await move(server, accountId, 1000); // $1 signup credit + $10
    expect(await setAlert(server, key, { enabled: true, threshold: 5 })).toEqual({ status: 200, body: { enabled: true, threshold: 5 } });
    expect((await (await server.request('/v1/billing', { auth: key })).json()).lowBalanceAlert).toEqual({ enabled: true, threshold: 5 });

    await move(server, accountId, -300); // $8.00: above
    expect(mailsTo(email)).toHaveLength(0);
    await move(server, accountId, -350); // $4.50: fell to it
    expect(mailsTo(email)).toHaveLength(1);
    const [first] = mailsTo(email);
    expect(first!.from).toBe('billing@example.test');
    expect(first!.subject).toContain('$4.50');
    expect(first!.text).toContain('$4.50');
    expect(first!.text).toContain('$5.00');
    expect(first!.text).toContain(TOP_UP_URL);
    expect(first!.text).toContain(`Alerts ${email}`);

    await move(server, accountId, -100); // $3.50: still below, the same fall
    await move(server, accountId, -49); // $3.01
    expect(mailsTo(email)).toHaveLength(1);
    await move(server, accountId, 1000); // $13.01: a top-up, no email
    expect(mailsTo(email)).toHaveLength(1);
    await move(server, accountId, -801); // $5.00: at the threshold is a fall to it
    expect(mailsTo(email)).toHaveLength(2);
    expect(mailsTo(email)[1]!.subject).toContain('$5.00');
    await move(server, accountId, -100);
    expect(mailsTo(email)).toHaveLength(2);
  });

  it('sends nothing while the alert is off, and keeps the threshold when turned off', async () => {
    const email = 'quiet@example.test';
    const { accountId, key } = await account(server, email);
    await move(server, accountId, 900); // $10
    await move(server, accountId, -800); // $2: never turned on
    expect(await setAlert(server, key, { enabled: true, threshold: 5 })).toMatchObject({ status: 200 });
    expect(await setAlert(server, key, { enabled: false })).toEqual({ status: 200, body: { enabled: false, threshold: 5 } });
    await move(server, accountId, -50);
    await move(server, accountId, 1000);
    await move(server, accountId, -1000);
    expect(mailsTo(email)).toHaveLength(0);
    // Turned on again while below: the next fall tells.
    expect(await setAlert(server, key, { enabled: true, threshold: 3 })).toEqual({ status: 200, body: { enabled: true, threshold: 3 } });
    await move(server, accountId, -10);
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('two falls at once send one email', async () => {
    const email = 'race@example.test';
    const { accountId, key } = await account(server, email);
    await move(server, accountId, 500); // $6
    await setAlert(server, key, { enabled: true, threshold: 5 });
    await Promise.all(Array.from({ length: 8 }, () => move(server, accountId, -50)));
    await Promise.all(Array.from({ length: 5 }, () => server.app.services.billing.balanceFell(accountId)));
    expect(mailsTo(email)).toHaveLength(1);
    expect(mailsTo(email)[0]!.subject).toMatch(/\$\d\.\d\d/);
  });

  it('writes to the saved billing email rather than the person\'s', async () => {
    const { accountId, key } = await account(server, 'person@example.test');
    const saved = await server.postJson('/v1/billing/details', { name: 'Acme', email: 'accounts@acme.test' }, { method: 'PUT', auth: key });
    expect(saved.status).toBe(200);
    await setAlert(server, key, { enabled: true, threshold: 1 });
    await move(server, accountId, -50);
    expect(mailsTo('accounts@acme.test')).toHaveLength(1);
    expect(mailsTo('person@example.test')).toHaveLength(0);
  });

  it('a refused email is logged and re-arms the alert: the next fall tries again', async () => {
    const email = 'bounce@example.test';
    const { accountId, key } = await account(server, email);
    await setAlert(server, key, { enabled: true, threshold: 2 });
    smtp.refusedRecipients.add(email);
    await move(server, accountId, -10); // $0.90: the SMTP server refuses the recipient; the spend is unaffected
    expect(mailsTo(email)).toHaveLength(0);
    expect((await (await server.request('/v1/billing', { auth: key })).json()).balance).toBe(0.9);
    smtp.refusedRecipients.delete(email);
    await move(server, accountId, -10); // $0.80: sent this time
    expect(mailsTo(email)).toHaveLength(1);
    expect(mailsTo(email)[0]!.subject).toContain('$0.80');
  });

  it('refuses a bad body naming the field: threshold required to enable, whole cents inside lowBalanceAlert.range', async () => {
    const { key } = await account(server, 'refusals@example.test');
    const cases: Array<[unknown, string]> = [
      [{ enabled: true }, 'threshold'],
      [{ enabled: true, threshold: null }, 'threshold'],
      [{ enabled: true, threshold: 0.99 }, 'threshold'], // below the range (1 to 100)
      [{ enabled: true, threshold: 100.01 }, 'threshold'],
      [{ enabled: true, threshold: 2.555 }, 'threshold'], // not whole cents
      [{ enabled: true, threshold: '5' }, 'threshold'],
      [{ enabled: false, threshold: -1 }, 'threshold'],
      [{ threshold: 5 }, 'enabled'],
      [{ enabled: 'yes', threshold: 5 }, 'enabled'],
      [{ enabled: true, threshold: 5, email: 'x@y.z' }, 'email'],
    ];
    await expectInvalidBodies(cases, (body) => setAlert(server, key, body));
    // The range's ends are inside it.
    expect((await setAlert(server, key, { enabled: true, threshold: 1 })).body).toEqual({ enabled: true, threshold: 1 });
    expect((await setAlert(server, key, { enabled: true, threshold: 100 })).body).toEqual({ enabled: true, threshold: 100 });
    const { key: reader } = await server.createKey(['read']);
    expect((await setAlert(server, reader, { enabled: false })).status).toBe(403);
  });

  it('GraphQL sets the same alert and refuses the same way', async () => {
    const email = 'graphql-alert@example.test';
    const { accountId, key } = await account(server, email);
    const mutation = 'mutation ($input: LowBalanceAlertInput!) { setLowBalanceAlert(input: $input) { enabled threshold } }';
    const set = await (await server.graphql(mutation, { input: { enabled: true, threshold: 0.75 + 0.25 } }, { auth: key })).json();
    expect(set).toEqual({ data: { setLowBalanceAlert: { enabled: true, threshold: 1 } } });
    const refused = await (await server.graphql(mutation, { input: { enabled: true, threshold: 250 } }, { auth: key })).json();
    expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_body', status: 422, details: { field: 'threshold' } });
    const view = await (await server.graphql('{ billing { lowBalanceAlert { enabled threshold } } }', undefined, { auth: key })).json();
    expect(view.data.billing.lowBalanceAlert).toEqual({ enabled: true, threshold: 1 });
    await move(server, accountId, -1); // $0.99
    expect(mailsTo(email)).toHaveLength(1);
  });
});

describe('low-balance alert (billing off)', () => {
  const server = useTestServer();

  it('answers 409 invalid_state: this server does not bill', async () => {
    const answer = await setAlert(server, server.apiKey, { enabled: true, threshold: 5 });
    expect([answer.status, answer.body.code]).toEqual([409, 'invalid_state']);
    expect(answer.body.message).toContain('does not bill');
    const graphql = await (await server.graphql('mutation { setLowBalanceAlert(input: {enabled: false}) { enabled } }')).json();
    expect(graphql.errors[0].extensions.code).toBe('invalid_state');
  });
});

/** GET/PUT /v1/billing/details and their GraphQL twins: defaults, the sign-in email, the EU VAT ID rule, refusals. */
import { describe, expect, it } from 'vitest';
import { billingEnv } from '../helpers/billing.js';
import { useTestServer, type TestServer } from '../helpers/server.js';

const DETAILS_FIELDS = 'name email line1 city postalCode country taxId';

async function putDetails(server: TestServer, body: unknown, auth?: string) {
  const res = await server.postJson('/v1/billing/details', body, { method: 'PUT', auth });
  return { status: res.status, body: await res.json() };
}

/** An account with a person (the sign-in email) and a key of scope `*`. */
async function accountWithPerson(server: TestServer, email: string) {
  const accountId = await server.createAccount('Details');
  const person = await server.createUser({ accountId, email });
  const { key } = await server.createKey(['*'], { accountId });
  return { accountId, person, key };
}

describe('billing details (billing on)', () => {
  const server = useTestServer({ env: billingEnv() });

  it('answers empty details with the sign-in email until one is saved: the person\'s own, or for a key the account\'s first '
    + 'person\'s', async () => {
    const { person, key, accountId } = await accountWithPerson(server, 'owner@example.test');
    const second = await server.createUser({ accountId, email: 'second@example.test' });
    const empty = { name: '', line1: '', city: '', postalCode: '', country: null, taxId: null };
    expect(await (await server.request('/v1/billing/details', { auth: key })).json()).toEqual({ ...empty, email: 'owner@example.test' });
    expect(await (await server.request('/v1/billing/details', { auth: person.token })).json()).toEqual({
      ...empty, email: 'owner@example.test',
    });
    expect(await (await server.request('/v1/billing/details', { auth: second.token })).json()).toEqual({
      ...empty, email: 'second@example.test',
    });
    // An account that only keys act for has no sign-in email.
    const keysOnly = await server.createAccount('Keys only');
    const { key: lonelyKey } = await server.createKey(['read'], { accountId: keysOnly });
    expect((await (await server.request('/v1/billing/details', { auth: lonelyKey })).json()).email).toBe('');
  });

  it('saves the whole record: country uppercased, an EU VAT ID normalised; a saved email wins over the sign-in email', async () => {
    const { key, person } = await accountWithPerson(server, 'me@example.test');
    const saved = await putDetails(
      server,
      {
        name: 'Acme GmbH', email: 'invoices@acme.test', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'de',
        taxId: 'DE 123.456-789',
      },
      key,
    );
    expect(saved).toEqual({
      status: 200,
      body: {
        name: 'Acme GmbH', email: 'invoices@acme.test', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE',
        taxId: 'DE123456789',
      },
    });
    expect(await (await server.request('/v1/billing/details', { auth: person.token })).json()).toEqual(saved.body);
    // PUT replaces: what is left out takes its default, an empty email falls back to the sign-in email.
    expect(await putDetails(server, { name: 'Acme' }, key)).toEqual({
      status: 200, body: { name: 'Acme', email: 'me@example.test', line1: '', city: '', postalCode: '', country: null, taxId: null },
    });
  });

  it('applies the EU VAT ID rule: the country\'s prefix (Greece EL, not GR) and 8 to 12 letters or digits after it', async () => {
    const { key } = await accountWithPerson(server, 'vat@example.test');
    const accepted: Array<[string, string, string]> = [
      ['DE', 'DE 123.456-789', 'DE123456789'],
      ['GR', 'EL123456789', 'EL123456789'],
      ['gr', 'el-123 456 789', 'EL123456789'],
      ['NL', 'nl123456789B01', 'NL123456789B01'],
      ['AT', 'ATU12345678', 'ATU12345678'],
      ['FR', 'FR12345678', 'FR12345678'],
      ['IT', 'IT123456789012', 'IT123456789012'],
      // Outside the EU: 4 to 20 letters or digits, normalised the same way.
      ['US', '12-3456789', '123456789'],
      ['CH', 'CHE-123.456.789 MWST', 'CHE123456789MWST'],
      ['GB', 'GB 123 4567 89', 'GB123456789'],
    ];
    for (const [country, taxId, stored] of accepted) {
      const { status, body } = await putDetails(server, { country, taxId }, key);
      expect({ country, taxId, status, stored: body.taxId }).toEqual({ country, taxId, status: 200, stored });
    }
    const refused: Array<[string, string]> = [
      ['GR', 'GR123456789'], // Greece's VAT prefix is EL
      ['DE', 'DE1234567'], // 7 after the prefix
      ['DE', 'DE1234567890123'], // 13 after the prefix
      ['DE', 'FR12345678901'], // another country's prefix
      ['DE', '123456789'], // no prefix
      ['FR', 'FR1234/5678'], // a character that is not a letter, digit or separator
      ['US', '12'], // too short anywhere
    ];
    for (const [country, taxId] of refused) {
      const { status, body } = await putDetails(server, { country, taxId }, key);
      expect({ country, taxId, status, code: body.code, field: body.data?.details?.field }).toEqual({
        country, taxId, status: 422, code: 'invalid_body', field: 'taxId',
      });
    }
    const greek = await putDetails(server, { country: 'GR', taxId: 'GR123456789' }, key);
    expect(greek.body.message).toContain('EL');
    // A tax ID is checked against its country: without one, the country is what is missing.
    const orphan = await putDetails(server, { taxId: 'DE123456789' }, key);
    expect([orphan.status, orphan.body.data.details.field]).toEqual([422, 'country']);
    // Nothing was saved by the refusals.
    expect((await (await server.request('/v1/billing/details', { auth: key })).json()).taxId).toBe('GB123456789');
  });

  it('names every bad field: unknown fields, wrong types, overlong strings, unknown countries, bad emails', async () => {
    const { key } = await accountWithPerson(server, 'fields@example.test');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ nickname: 'x' }, 'nickname'],
      [{ name: 5 }, 'name'],
      [{ name: null }, 'name'],
      [{ line1: ['a'] }, 'line1'],
      [{ city: 'x'.repeat(101) }, 'city'],
      [{ postalCode: '1'.repeat(21) }, 'postalCode'],
      [{ name: 'n'.repeat(201) }, 'name'],
      [{ email: 'not an email' }, 'email'],
      [{ email: `${'e'.repeat(250)}@x.test` }, 'email'],
      [{ country: 'XX' }, 'country'],
      [{ country: 'DEU' }, 'country'],
      [{ country: 49 }, 'country'],
      [{ country: 'DE', taxId: 7 }, 'taxId'],
      [{ country: 'DE', taxId: `DE${'1'.repeat(60)}` }, 'taxId'],
    ];
    for (const [body, field] of cases) {
      const answer = await putDetails(server, body, key);
      expect({ body, status: answer.status, code: answer.body.code, field: answer.body.data?.details?.field }).toEqual({
        body, status: 422, code: 'invalid_body', field,
      });
      expect(answer.body.message).toContain(field);
    }
    const several = await putDetails(server, { name: 1, country: 'ZZ', extra: true, city: 'c'.repeat(500) }, key);
    expect(several.status).toBe(422);
    expect(several.body.data.details.fields.sort()).toEqual(['city', 'country', 'extra', 'name']);
    const notObject = await server.postJson('/v1/billing/details', [1], { method: 'PUT', auth: key });
    expect(notObject.status).toBe(400);
  });

  it('needs scope write to save and read to read', async () => {
    const { accountId } = await accountWithPerson(server, 'scopes@example.test');
    const { key: reader } = await server.createKey(['read'], { accountId });
    expect((await server.request('/v1/billing/details', { auth: reader })).status).toBe(200);
    const refused = await putDetails(server, { name: 'x' }, reader);
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
    expect((await server.request('/v1/billing/details', { auth: null })).status).toBe(401);
  });

  it('GraphQL reads and saves the same record and refuses the same way', async () => {
    const { key } = await accountWithPerson(server, 'graphql@example.test');
    const save = await server.graphql(`mutation ($input: BillingDetailsInput!) { updateBillingDetails(input: $input) { ${DETAILS_FIELDS} `
      + `} }`,
      { input: { name: 'Ελληνική ΑΕ', country: 'GR', taxId: 'el 094.259-216' } }, { auth: key });
    const saved = await save.json();
    expect(saved.errors).toBeUndefined();
    expect(saved.data.updateBillingDetails).toEqual({
      name: 'Ελληνική ΑΕ', email: 'graphql@example.test', line1: '', city: '', postalCode: '', country: 'GR', taxId: 'EL094259216',
    });
    const read = await (await server.graphql(`{ billingDetails { ${DETAILS_FIELDS} } }`, undefined, { auth: key })).json();
    expect(read.data.billingDetails).toEqual(saved.data.updateBillingDetails);
    const refused = await (await server.graphql('mutation ($input: BillingDetailsInput!) { updateBillingDetails(input: $input) { taxId } }',
      { input: { country: 'GR', taxId: 'GR094259216' } }, { auth: key })).json();
    expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_body', status: 422, details: { field: 'taxId' } });
    // REST still answers what GraphQL saved.
    expect((await (await server.request('/v1/billing/details', { auth: key })).json()).taxId).toBe('EL094259216');
  });
});

describe('billing details (billing off)', () => {
  const server = useTestServer();

  it('reads the defaults (with the sign-in email) but keeps nothing: a PUT is 409 invalid_state', async () => {
    const { key } = await accountWithPerson(server, 'selfhosted@example.test');
    expect(await (await server.request('/v1/billing/details', { auth: key })).json()).toEqual({
      name: '', email: 'selfhosted@example.test', line1: '', city: '', postalCode: '', country: null, taxId: null,
    });
    const refused = await putDetails(server, { name: 'Me' }, key);
    expect([refused.status, refused.body.code]).toEqual([409, 'invalid_state']);
    expect(refused.body.message).toContain('does not bill');
    // A bad body is still named first.
    expect((await putDetails(server, { country: 'XX' }, key)).body.data.details.field).toBe('country');
  });
});

/**
 * The auth matrix against a protected route (GET /v1/me needs any credential; GET /v1/api-keys needs `read`;
 * POST /v1/api-keys needs `write`), through REST and GraphQL: each refusal is the spec's exact code.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

async function envelopeOf(response: Response) {
  const body = await response.json() as { code: string; status: number; message: string; requestId: string };
  expect(body.status).toBe(response.status);
  expect(body.requestId).toBe(response.headers.get('x-request-id'));
  return body;
}

describe('auth matrix', () => {
  it('answers a valid key', async () => {
    const response = await server.request('/v1/me');
    expect(response.status).toBe(200);
    const me = await response.json() as { account: { id: string }; apiKeyId: string; userId: string | null; scopes: string[] };
    expect(me.account.id).toBe(server.accountId);
    expect(me.userId).toBeNull();
    expect(me.scopes).toEqual(['*']);
  });

  it('no credential → 401 invalid_token', async () => {
    const response = await server.request('/v1/me', { auth: null });
    expect(response.status).toBe(401);
    expect((await envelopeOf(response)).code).toBe('invalid_token');
  });

  it('unknown key and malformed header → 401 invalid_token', async () => {
    const badHeaders: Record<string, string>[] = [
      { authorization: 'Bearer sg_live_000000000000_nope' }, { authorization: 'Basic abc' }, { authorization: 'Bearer a.b.c' },
    ];
    for (const headers of badHeaders) {
      const response = await server.request('/v1/me', { headers, auth: null });
      expect(response.status).toBe(401);
      expect((await envelopeOf(response)).code).toBe('invalid_token');
    }
  });

  it('expired key → 401 key_expired', async () => {
    const { key } = await server.createKey(['*'], { expiresAt: new Date(Date.now() - 1000) });
    const response = await server.request('/v1/me', { auth: key });
    expect(response.status).toBe(401);
    expect((await envelopeOf(response)).code).toBe('key_expired');
  });

  it('revoked key → 401 key_revoked, also when revoked through the API', async () => {
    const { key } = await server.createKey(['*'], { revoked: true });
    const response = await server.request('/v1/me', { auth: key });
    expect(response.status).toBe(401);
    expect((await envelopeOf(response)).code).toBe('key_revoked');

    const { key: second, id } = await server.createKey(['read']);
    expect((await server.request('/v1/me', { auth: second })).status).toBe(200);
    const revoke = await server.request(`/v1/api-keys/${id}`, { method: 'DELETE' });
    expect(revoke.status).toBe(200);
    expect((await envelopeOf(await server.request('/v1/me', { auth: second }))).code).toBe('key_revoked');
  });

  it('a key revokes only keys whose scopes it holds: a write key cannot revoke a * key, a * key can revoke it', async () => {
    const { key: writer, id: writerId } = await server.createKey(['write']);
    const { key: full, id: fullId } = await server.createKey(['*']);
    const { key: reader, id: readerId } = await server.createKey(['read']);
    const refused = await server.request(`/v1/api-keys/${fullId}`, { auth: writer, method: 'DELETE' });
    expect(refused.status).toBe(403);
    const envelope = await envelopeOf(refused);
    expect(envelope).toMatchObject({ code: 'forbidden', data: { details: { scopes: ['*'] } } });
    expect((await server.request('/v1/me', { auth: full })).status).toBe(200);
    // Through GraphQL the same rule.
    const graphql = await server.request('/graphql', {
      auth: writer, method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation ($id: ID!) { revokeApiKey(id: $id) { id } }', variables: { id: fullId } }),
    });
    expect(((await graphql.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('forbidden');
    // Nor a read key: write does not grant read.
    expect((await server.request(`/v1/api-keys/${readerId}`, { auth: writer, method: 'DELETE' })).status).toBe(403);
    // Its own scopes: itself; the * key anything.
    expect((await server.request(`/v1/api-keys/${writerId}`, { auth: writer, method: 'DELETE' })).status).toBe(200);
    expect((await server.request(`/v1/api-keys/${readerId}`, { auth: full, method: 'DELETE' })).status).toBe(200);
    expect((await envelopeOf(await server.request('/v1/me', { auth: reader }))).code).toBe('key_revoked');
  });

  it('missing scope → 403 forbidden naming the scope', async () => {
    const { key } = await server.createKey(['write']);
    const response = await server.request('/v1/api-keys', { auth: key });
    expect(response.status).toBe(403);
    const body = await envelopeOf(response);
    expect(body.code).toBe('forbidden');
    expect(body.message).toContain('"read"');

    const { key: readOnly } = await server.createKey(['read']);
    const create = await server.request('/v1/api-keys', {
      auth: readOnly, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
    });
    expect(create.status).toBe(403);
    expect((await envelopeOf(create)).message).toContain('"write"');
  });

  it('a key sent from a web page of another site or placed in a URL → 403 key_from_browser', async () => {
    const host = new URL(server.url).host;
    const browserHints: Record<string, string>[] = [
      { origin: 'https://app.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', 'sec-fetch-dest': 'empty' },
      { 'sec-fetch-site': 'none' },
      { 'sec-fetch-dest': 'empty' },
      { origin: 'null' },
      // An Origin naming this host does not outweigh the browser's own word that the page is another site's.
      { origin: `http://${host}`, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of browserHints) {
      const response = await server.request('/v1/me', { headers });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect((await envelopeOf(response)).code).toBe('key_from_browser');
    }
    const inUrl = await server.request(`/v1/me?access_token=${server.apiKey}`, { auth: null });
    expect(inUrl.status).toBe(403);
    expect((await envelopeOf(inUrl)).code).toBe('key_from_browser');
  });

  it('a key from a page of the server itself (GraphiQL, /docs) is not from another site', async () => {
    const host = new URL(server.url).host;
    const ownPage: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' },
      { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'empty', origin: `http://${host}` },
      // A browser without fetch metadata: its Origin names the host the request went to.
      { origin: `http://${host}` },
    ];
    for (const headers of ownPage) {
      const response = await server.request('/v1/me', { headers });
      expect(response.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('a signed-in person from a browser is fine; a person holds every scope', async () => {
    const { token, id } = await server.createUser();
    const response = await server.request('/v1/me', { auth: token, headers: { origin: 'https://app.example' } });
    expect(response.status).toBe(200);
    const me = await response.json() as { userId: string; apiKeyId: string | null; principals: { id: string }[] };
    expect(me.userId).toBe(id);
    expect(me.apiKeyId).toBeNull();
    expect(me.principals.map((p) => p.id)).toContain(id);
    expect((await server.request('/v1/api-keys', { auth: token })).status).toBe(200);
  });

  it('suspended account → 403 suspended, for keys and persons', async () => {
    const accountId = await server.createAccount('To suspend');
    const { key } = await server.createKey(['*'], { accountId });
    const { token } = await server.createUser({ accountId });
    await server.app.services.accounts.setSuspended(accountId, true);
    for (const auth of [key, token]) {
      const response = await server.request('/v1/me', { auth });
      expect(response.status).toBe(403);
      expect((await envelopeOf(response)).code).toBe('suspended');
    }
  });

  it('GraphQL errors carry the same code in extensions', async () => {
    const { key } = await server.createKey(['write']);
    const response = await server.request('/graphql', {
      auth: key, method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ apiKeys { id } }' }),
    });
    const body = await response.json() as { errors: { extensions: { code: string; status: number } }[] };
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'forbidden', status: 403, requestId: response.headers.get('x-request-id') });
  });

  it('public routes ignore a refused credential', async () => {
    const response = await server.request('/v1/health', { auth: 'sg_live_000000000000_nope' });
    expect(response.status).toBe(200);
  });
});

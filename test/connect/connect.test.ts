/**
 * Connect: OAuth 2.0 authorization code with PKCE, whose access token is an API key. The whole flow is driven by a
 * real OAuth client (oauth4webapi): discovery from the metadata, PKCE, the consent form, the redirect, the token
 * exchange; then the key is used, listed and revoked. Then every refusal.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const REDIRECT = 'http://127.0.0.1:8765/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

let server: TestServer;
let person: { id: string; token: string };
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  server = await startTestServer({ workers: [] });
  person = await server.createUser();
  const issuer = new URL(server.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
afterAll(async () => { await server?.close(); });

interface AuthorizeOptions {
  clientId?: string; redirectUri?: string; scope?: string; method?: string; challenge?: string; extra?: Record<string, string>;
}

/** The authorization endpoint's address for a request (defaults: a valid one), with its verifier and state. */
async function authorizeUrl(options: AuthorizeOptions = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params = {
    response_type: 'code', client_id: options.clientId ?? 'Test CLI', redirect_uri: options.redirectUri ?? REDIRECT, state,
    scope: options.scope ?? 'read write', code_challenge: options.challenge ?? await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: options.method ?? 'S256', ...options.extra,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { url, verifier, state, redirectUri: params.redirect_uri, clientId: params.client_id };
}

/** The consent page's answer: approve (or deny) with the person's token; the 303 it answers. */
async function consent(page: Response, fields: Record<string, string>, headers: Record<string, string> = {}) {
  expect(page.status).toBe(200);
  const html = await page.text();
  const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
  return fetch(`${server.url}/connect/authorize`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ request, ...fields }),
  });
}

/** A code approved by the person, ready to redeem. */
async function approvedCode(options: AuthorizeOptions = {}) {
  const authorize = await authorizeUrl(options);
  const answer = await consent(await fetch(authorize.url), { access_token: person.token, decision: 'approve' });
  expect(answer.status).toBe(303);
  const params = oauth.validateAuthResponse(
    as, { client_id: authorize.clientId }, new URL(answer.headers.get('location')!), authorize.state,
  );
  return { ...authorize, code: params.get('code')!, params };
}

function redeem(body: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(as.token_endpoint!, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body),
  });
}

async function expectInvalidGrant(response: Response) {
  expect(response.status).toBe(400);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const body = await response.json() as { error: string; error_description: string };
  expect(body.error).toBe('invalid_grant');
  expect(typeof body.error_description).toBe('string');
}

describe('metadata', () => {
  it('publishes RFC 8414 metadata, and the RFC 9728 metadata names this authorization server', async () => {
    expect(as).toMatchObject({
      issuer: server.url, authorization_endpoint: `${server.url}/connect/authorize`, token_endpoint: `${server.url}/v1/connect/token`,
      code_challenge_methods_supported: ['S256'], token_endpoint_auth_methods_supported: ['none'], grant_types_supported: [
        'authorization_code',
      ],
    });
    expect(as.scopes_supported).toEqual(['read', 'write', 'recordings:publish', '*']);
    const resource = await (await server.request('/.well-known/oauth-protected-resource', { auth: null })).json() as {
      authorization_servers: string[];
    };
    expect(resource.authorization_servers).toContain(as.issuer);
  });
});

describe('the whole flow with an OAuth client', () => {
  it('discovers, asks with PKCE, gets the person\'s consent, swaps the code for a key that works, is listed and revocable', async () => {
    const client: oauth.Client = { client_id: 'Test CLI' };
    const { code, params, verifier } = await approvedCode({ scope: 'read write' });
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const token = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(token.token_type).toBe('bearer');
    expect(token.scope).toBe('read write');
    const key = token.access_token;
    expect(key).toMatch(/^sg_live_/);

    const me = await server.request('/v1/me', { auth: key });
    expect(me.status).toBe(200);
    const caller = await me.json() as { apiKeyId: string; scopes: string[]; account: { id: string } };
    expect(caller.account.id).toBe(server.accountId);
    expect(caller.scopes).toEqual(['read', 'write']);

    const listed = await (await server.request('/v1/api-keys')).json() as {
      apiKeys: { id: string; displayName: string; scopes: string[] }[];
    };
    expect(listed.apiKeys.find((entry) => entry.id === caller.apiKeyId)).toMatchObject({
      displayName: 'Connect: Test CLI', scopes: ['read', 'write'], createdBy: { id: person.id },
    });

    expect((await server.request(`/v1/api-keys/${caller.apiKeyId}`, { method: 'DELETE', auth: person.token })).status).toBe(200);
    const revoked = await server.request('/v1/me', { auth: key });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { code: string }).code).toBe('key_revoked');
  });

  it('takes a JSON body too, and a key with only the approved scope', async () => {
    const { code, verifier } = await approvedCode({ scope: 'read' });
    const response = await fetch(as.token_endpoint!, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: 'Test CLI',
      }),
    });
    expect(response.status).toBe(200);
    const { access_token: key, scope } = await response.json() as { access_token: string; scope: string };
    expect(scope).toBe('read');
    const write = await server.postJson('/v1/api-keys', {}, { auth: key });
    expect(write.status).toBe(403);
  });

  it('sends a denial back to the app as access_denied with the state', async () => {
    const authorize = await authorizeUrl();
    const answer = await consent(await fetch(authorize.url), { decision: 'deny' });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe(authorize.state);
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('serves the consent page with nothing from another host and no framing', async () => {
    const authorize = await authorizeUrl();
    const page = await fetch(authorize.url);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1:8765)/);
    expect(html).toContain('Test CLI');
  });
});

describe('refusals at the token endpoint', () => {
  it('a code works once', async () => {
    const { code, verifier } = await approvedCode();
    const body = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT };
    expect((await redeem(body)).status).toBe(200);
    await expectInvalidGrant(await redeem(body));
  });

  it('a wrong verifier is invalid_grant and spends the code', async () => {
    const { code, verifier } = await approvedCode();
    await expectInvalidGrant(await redeem({
      grant_type: 'authorization_code', code, code_verifier: oauth.generateRandomCodeVerifier(), redirect_uri: REDIRECT,
    }));
    await expectInvalidGrant(await redeem({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT }));
  });

  it('another redirect_uri is invalid_grant and spends the code', async () => {
    const { code, verifier } = await approvedCode();
    await expectInvalidGrant(await redeem({
      grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:8765/other',
    }));
    await expectInvalidGrant(await redeem({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT }));
  });

  it('another client_id is invalid_grant; an unknown code is invalid_grant', async () => {
    const { code, verifier } = await approvedCode();
    await expectInvalidGrant(await redeem({
      grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: 'Someone else',
    }));
    await expectInvalidGrant(await redeem({
      grant_type: 'authorization_code', code: 'made-up', code_verifier: verifier, redirect_uri: REDIRECT,
    }));
  });

  it('refuses a request from a web page without spending the code', async () => {
    const { code, verifier } = await approvedCode();
    const body = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT };
    const fromPage = await redeem(body, { origin: 'https://evil.example' });
    expect(fromPage.status).toBe(403);
    expect(fromPage.headers.get('cache-control')).toBe('no-store');
    expect(await fromPage.json()).toMatchObject({ error: 'key_from_browser' });
    expect((await redeem(body, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await redeem(body)).status).toBe(200);
  });

  it('of concurrent redemptions exactly one wins', async () => {
    const { code, verifier } = await approvedCode();
    const body = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT };
    const answers = await Promise.all(Array.from({ length: 8 }, () => redeem(body)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    for (const answer of answers.filter((one) => one.status === 400)) expect(await answer.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await server.prisma.principal.count({ where: {
      displayName: 'Connect: Test CLI', createdAt: { gte: new Date(Date.now() - 60_000) },
    } })).toBeGreaterThan(0);
  });

  it('answers OAuth errors for a bad grant_type, a missing code or another body type', async () => {
    const unsupported = await redeem({ grant_type: 'client_credentials' });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ error: 'unsupported_grant_type' });
    expect(await (await redeem({ grant_type: 'authorization_code' })).json()).toMatchObject({ error: 'invalid_request' });
    const text = await fetch(as.token_endpoint!, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'code=x' });
    expect(text.status).toBe(400);
    expect(await text.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('an expired code', () => {
  let short: TestServer;
  beforeAll(async () => { short = await startTestServer({ workers: [], env: { CONNECT_CODE_TTL_S: '1' } }); });
  afterAll(async () => { await short?.close(); });

  it('is invalid_grant after its time', async () => {
    const other = await short.createUser();
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(`${short.url}/connect/authorize`);
    const params = {
      response_type: 'code', client_id: 'Slow app', redirect_uri: REDIRECT, scope: 'read',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const html = await (await fetch(url)).text();
    const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
    const answer = await fetch(`${short.url}/connect/authorize`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, access_token: other.token, decision: 'approve' }),
    });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await expectInvalidGrant(await fetch(`${short.url}/v1/connect/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT }),
    }));
  });
});

describe('refusals at the authorization endpoint', () => {
  it('refuses a plain challenge (or none), back at the redirect_uri', async () => {
    for (const method of ['plain', '']) {
      const authorize = await authorizeUrl({ method, challenge: 'a'.repeat(43) });
      const answer = await fetch(authorize.url, { redirect: 'manual' });
      expect(answer.status).toBe(303);
      const location = new URL(answer.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/S256/);
      expect(location.searchParams.get('state')).toBe(authorize.state);
    }
  });

  it('refuses an unknown scope, back at the redirect_uri', async () => {
    const authorize = await authorizeUrl({ scope: 'read admin' });
    const answer = await fetch(authorize.url, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(new URL(answer.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('never redirects to a bad redirect_uri: it shows the error', async () => {
    for (const redirectUri of [
      'http://example.com/cb', 'javascript:alert(1)', '/relative', 'https://app.example/cb#frag', 'https://user:pw@app.example/cb',
      'ftp://app.example/cb',
    ]) {
      const authorize = await authorizeUrl({ redirectUri });
      const answer = await fetch(authorize.url, { redirect: 'manual' });
      expect(answer.status, redirectUri).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(await answer.text()).toContain('redirect_uri');
    }
    const missingClient = await fetch((await authorizeUrl({ clientId: '' })).url, { redirect: 'manual' });
    expect(missingClient.status).toBe(400);
  });

  it('accepts https, loopback http and a native app\'s private-use scheme', async () => {
    for (const redirectUri of [
      'https://app.example/callback?x=1', 'http://[::1]:9000/cb', 'http://localhost/cb', 'com.example.app:/oauth',
    ]) {
      const { code, redirectUri: sent } = await approvedCode({ redirectUri });
      expect(code, redirectUri).toBeTruthy();
      expect(sent).toBe(redirectUri);
    }
  });

  it('needs a signed-in person to approve', async () => {
    const authorize = await authorizeUrl();
    const missing = await consent(await fetch(authorize.url), { decision: 'approve' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('location')).toBeNull();
    const bad = await consent(await fetch(authorize.url), { decision: 'approve', access_token: 'not.a.token' });
    expect(bad.status).toBe(401);
    const key = await consent(await fetch(authorize.url), { decision: 'approve', access_token: server.apiKey });
    expect(key.status).toBe(403);
    expect(await key.text()).toContain('Only a signed-in person');
  });

  it('refuses a consent form from another site or one that was altered', async () => {
    const authorize = await authorizeUrl();
    const crossSite = await consent(
      await fetch(authorize.url), { decision: 'approve', access_token: person.token }, { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('location')).toBeNull();
    const altered = await fetch(`${server.url}/connect/authorize`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: 'eyJ9.forged', access_token: person.token, decision: 'approve' }),
    });
    expect(altered.status).toBe(400);
    expect(altered.headers.get('location')).toBeNull();
  });
});

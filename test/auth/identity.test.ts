/**
 * Signed-in persons: JWTs of any OIDC issuer in configuration (JWKS found by discovery) and of the built-in local
 * issuer; BOOTSTRAP_API_KEY; the admin command that creates an account and a key.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/entry/app.js';
import { loadConfig } from '../../src/core/config/index.js';
import { REPO_ROOT } from '../../src/core/db/migrate.js';
import { createTestDatabase } from '../helpers/db.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const AUDIENCE = 'speechgate-test';

/** A minimal OIDC provider: discovery document and JWKS, and a signer for its tokens. */
async function startIssuer(options: { failingDiscoveries?: number } = {}) {
  let failuresLeft = options.failingDiscoveries ?? 0;
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const httpServer = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration' && failuresLeft > 0) {
      failuresLeft -= 1;
      res.statusCode = 503;
      res.end('{}');
    } else if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/keys` }));
    else if (req.url === '/keys') res.end(JSON.stringify({ keys: [jwk] }));
    else { res.statusCode = 404; res.end('{}'); }
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const sign = (
    claims: { sub: string; aud?: string; exp?: string | number; iss?: string; email?: string },
    key: jose.CryptoKey | Uint8Array = privateKey,
  ) =>
    new jose.SignJWT({ email: claims.email })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(claims.iss ?? issuer)
      .setAudience(claims.aud ?? AUDIENCE)
      .setSubject(claims.sub)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? '10m')
      .sign(key);
  return { issuer, sign, close: () => new Promise<void>((resolve) => httpServer.close(() => resolve())) };
}

let issuer: Awaited<ReturnType<typeof startIssuer>>;
/** An issuer that is down (503) for its first discovery request. */
let flaky: Awaited<ReturnType<typeof startIssuer>>;
let server: TestServer;
beforeAll(async () => {
  issuer = await startIssuer();
  flaky = await startIssuer({ failingDiscoveries: 1 });
  // PostgreSQL even under TEST_DATABASE=embedded: these tests open the database from a second process.
  server = await startTestServer({
    database: 'postgres',
    workers: [],
    env: {
      OIDC_ISSUERS: `${issuer.issuer}||${AUDIENCE},${flaky.issuer}||${AUDIENCE}`,
      BOOTSTRAP_API_KEY: 'sg_live_0123456789ab_smoke-test-key-0123456789',
    },
  });
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
  await flaky?.close();
});

const me = (token: string) => server.request('/v1/me', { auth: token });

describe('OIDC issuers', () => {
  it('accepts a person of a configured issuer and gives a first-time person an account', async () => {
    const token = await issuer.sign({ sub: 'alice', email: 'alice@example.test' });
    const first = await me(token);
    expect(first.status).toBe(200);
    const body = await first.json() as {
      userId: string; apiKeyId: string | null; account: { id: string }; principal: { email: string; kind: string };
    };
    expect(body.apiKeyId).toBeNull();
    expect(body.principal).toMatchObject({ kind: 'user', email: 'alice@example.test' });
    expect(body.account.id).not.toBe(server.accountId);

    const again = await (await me(await issuer.sign({ sub: 'alice' }))).json() as { userId: string; account: { id: string } };
    expect(again).toMatchObject({ userId: body.userId, account: { id: body.account.id } });
  });

  it('refuses wrong audience, expired, foreign signature and unknown issuer with 401 invalid_token', async () => {
    const stranger = await jose.generateKeyPair('RS256');
    const tokens = [
      await issuer.sign({ sub: 'bob', aud: 'someone-else' }),
      await issuer.sign({ sub: 'bob', exp: Math.floor(Date.now() / 1000) - 60 }),
      await issuer.sign({ sub: 'bob' }, stranger.privateKey),
      await issuer.sign({ sub: 'bob', iss: 'https://unknown.example' }),
    ];
    for (const token of tokens) {
      const response = await me(token);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'invalid_token' });
    }
  });
});

describe('OIDC discovery', () => {
  it('an issuer that was down is asked again on a later request', async () => {
    const token = await flaky.sign({ sub: 'carol' });
    expect((await me(token)).status).toBe(401);
    expect((await me(token)).status).toBe(200);
  });
});

describe('built-in local issuer', () => {
  it('a token of a person who no longer exists is refused, not signed up again', async () => {
    const { token, id } = await server.createUser();
    await server.prisma.principal.delete({ where: { id } });
    const response = await me(token);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'invalid_token' });
    expect(await server.prisma.principal.count({ where: { id } })).toBe(0);
  });

  it('publishes a JWKS that verifies the tokens it issues', async () => {
    const { token, id } = await server.createUser();
    const jwks = await (await server.request('/auth/jwks.json', { auth: null })).json() as jose.JSONWebKeySet;
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty('d'); // public part only
    const { payload } = await jose.jwtVerify(token, jose.createLocalJWKSet(jwks));
    expect(payload.sub).toBe(id);
    expect((await me(token)).status).toBe(200);
  });
});

describe('BOOTSTRAP_API_KEY', () => {
  const bootstrapKey = 'sg_live_0123456789ab_smoke-test-key-0123456789';

  it('that exact key exists with scope * for the bootstrap account', async () => {
    const response = await me(bootstrapKey);
    expect(response.status).toBe(200);
    const body = await response.json() as { scopes: string[]; account: { id: string } };
    expect(body.scopes).toEqual(['*']);
    const account = await server.prisma.account.findUniqueOrThrow({ where: { id: body.account.id } });
    expect(account.bootstrap).toBe(true);
  });

  it('comes back on the next start even if it was revoked', async () => {
    const principal = await server.prisma.principal.findFirstOrThrow({ where: { displayName: 'BOOTSTRAP_API_KEY' } });
    await server.app.services.accounts.revokeKey(principal.id);
    expect((await me(bootstrapKey)).status).toBe(401);

    const restarted = await createApp(loadConfig({ ...server.env, PORT: '0' }), { workers: [] });
    try {
      expect(restarted.bootstrap.printKey).toBeNull(); // the configured key is the bootstrap key: nothing to print
      expect((await me(bootstrapKey)).status).toBe(200);
    } finally {
      await restarted.close();
    }
  });

  it('must have the key format: anything else stops the start with a line naming the variable', () => {
    for (const key of [
      'smoke-test-key-0123456789', 'sg_live_short', 'sg_live_0123456789ab_', 'sg_live_0123456789AB_abcdefghijklmnopqrstuvwxyz',
    ]) {
      expect(() => loadConfig({ ...server.env, BOOTSTRAP_API_KEY: key }), key).toThrow(/BOOTSTRAP_API_KEY/);
    }
  });

  it('placed in a URL it is refused as a key from a browser, like any key', async () => {
    const res = await fetch(`${server.url}/v1/me?access_token=${bootstrapKey}`);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'key_from_browser' });
  });

  it('without it, the first start makes a key with scope * and prints it; later starts print nothing', async () => {
    const database = await createTestDatabase();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-bootstrap-'));
    const config = loadConfig({ ...server.env, BOOTSTRAP_API_KEY: '', DATABASE_URL: database.url, DATA_DIR: dataDir, PORT: '0' });
    try {
      const first = await createApp(config, { workers: [] });
      const printed = first.bootstrap.printKey;
      await first.close();
      expect(printed).toMatch(/^sg_live_[0-9a-f]{12}_/);
      expect(await server.request('/v1/me', { auth: printed })).toHaveProperty('status', 401); // another database

      const second = await createApp(config, { workers: [] });
      const { url } = await second.listen();
      try {
        expect(second.bootstrap.printKey).toBeNull();
        const response = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${printed}` } });
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ scopes: ['*'], account: { id: first.bootstrap.accountId } });
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('bootstrap on several processes at once', () => {
  it('two gateways starting together on a new database make one bootstrap account', async () => {
    const database = await createTestDatabase();
    const dirs = await Promise.all([0, 1].map(() => fs.mkdtemp(path.join(os.tmpdir(), 'sg-twin-'))));
    try {
      const apps = await Promise.all(dirs.map((dataDir) => createApp(
        loadConfig({
          ...server.env, DATABASE_URL: database.url, DATA_DIR: dataDir, BOOTSTRAP_API_KEY: 'sg_live_ba9876543210_twin-start-key-0123456789',
        }),
        { workers: [] },
      )));
      expect(new Set(apps.map((app) => app.bootstrap.accountId)).size).toBe(1);
      expect(await apps[0]!.prisma.account.count({ where: { bootstrap: true } })).toBe(1);
      expect(await apps[0]!.prisma.principal.count({ where: { displayName: 'BOOTSTRAP_API_KEY' } })).toBe(1);
      await Promise.all(apps.map((app) => app.close()));
    } finally {
      await database.drop();
      await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
    }
  });
});

describe('admin command', () => {
  it('creates an account and an API key that the API accepts', async () => {
    const { stdout } = await promisify(execFile)(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), [
      'src/entry/admin.ts', 'create-account', 'Acme', '--scopes', 'read',
    ], {
      cwd: REPO_ROOT, env: { ...process.env, ...server.env },
    });
    const created = JSON.parse(stdout) as { accountId: string; apiKey: string };
    const response = await me(created.apiKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ account: { id: created.accountId, name: 'Acme' }, scopes: ['read'] });
  });

  it('prints its usage for --help (0) and for a missing or unknown command or option (2), a record it cannot find in one line '
    + '(1)', async () => {
    const admin = (...args: string[]) =>
      promisify(execFile)(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), ['src/entry/admin.ts', ...args], {
        cwd: REPO_ROOT, env: { ...process.env, ...server.env },
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
      );
    const help = await admin('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run admin -- <command>/);
    expect(help.stdout).toContain('create-account <name>');
    for (const [args, first] of [
      [[], 'no command given'], [['launch'], "unknown command 'launch'"], [['create-key', '--bogus'], "Unknown option '--bogus'"],
    ] as const) {
      const refused = await admin(...args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(first);
      expect(refused.stderr).toContain('usage: npm run admin');
    }
    for (const args of [['revoke-key', 'key_nope'], ['create-key', 'acct_nope']]) {
      const missing = await admin(...args);
      expect(missing.code, args.join(' ')).toBe(1);
      expect(missing.stderr.trim()).toBe(`admin ${args[0]}: no such record (${args[1]})`);
    }
  });
});

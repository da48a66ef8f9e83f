/**
 * The real app on a random port for a test file: its own PostgreSQL database (or the embedded one), its own
 * DATA_DIR and its own REDIS_PREFIX, so files running side by side never collide. `close()` removes all three.
 *
 *   const server = await startTestServer();
 *   const res = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${server.apiKey}` } });
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import WebSocket from 'ws';
import { createApp, type App, type AppOptions } from '../../src/entry/app.js';
import { loadConfig } from '../../src/core/config/index.js';
import { LOCAL_ISSUER } from '../../src/core/identity/jwt.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { REPO_ROOT } from '../../src/core/db/migrate.js';

export interface TestServerOptions extends AppOptions {
  /** Extra environment (wins over the defaults below). DATABASE_URL given here is used as is and not dropped. */
  env?: Record<string, string | undefined>;
  /** `embedded`: PGlite in the temporary DATA_DIR instead of a PostgreSQL database (default: TEST_DATABASE, else postgres). */
  database?: 'postgres' | 'embedded';
}

export interface CreateKeyOptions {
  expiresAt?: Date | null;
  revoked?: boolean;
  accountId?: string;
  name?: string;
}

export interface TestServer {
  url: string;
  wsUrl: string;
  /** A key with scope `*` of `accountId`. */
  apiKey: string;
  accountId: string;
  prisma: App['prisma'];
  app: App;
  env: Record<string, string>;
  createKey(scopes: string[], options?: CreateKeyOptions): Promise<{ key: string; id: string }>;
  /** A signed-in person of the built-in issuer and an access token for them. */
  createUser(options?: { accountId?: string; email?: string }): Promise<{ id: string; token: string }>;
  createAccount(name?: string): Promise<string>;
  /** fetch with this server's key (or `auth: null` for none, or another token). */
  request(pathname: string, init?: RequestInit & { auth?: string | null }): Promise<Response>;
  /** A JSON body (POST unless `method` says otherwise), with this server's key unless `auth` says otherwise. */
  postJson(pathname: string, body: unknown, init?: JsonRequestInit): Promise<Response>;
  /** `POST /graphql` with `{query, variables}`; the answer as fetch gives it (status and body unread). */
  graphql(query: string, variables?: Record<string, unknown>, init?: Omit<JsonRequestInit, 'method'>): Promise<Response>;
  /** A WebSocket to `pathname` on this server, with this server's key in `Authorization` unless `auth` says otherwise. */
  socket(pathname: string, init?: { auth?: string | null; headers?: Record<string, string> }): WebSocket;
  close(): Promise<void>;
}

export interface JsonRequestInit {
  method?: string;
  auth?: string | null;
  headers?: Record<string, string>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-test-'));
  const redisPrefix = `sgtest:${crypto.randomBytes(5).toString('hex')}:`;
  const givenDatabase = options.env?.DATABASE_URL;
  let database: TestDatabase | null = null;
  // TEST_DATABASE=embedded runs every suite on the embedded database (`TEST_DATABASE=embedded npx vitest run test/core`).
  const kind = options.database ?? (process.env.TEST_DATABASE === 'embedded' ? 'embedded' : 'postgres');
  if (givenDatabase === undefined && kind !== 'embedded') database = await createTestDatabase();
  const env: Record<string, string> = Object.fromEntries(Object.entries({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: database?.url ?? givenDatabase ?? '',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    // No RTMP server unless a test asks for one (RTMP_PORT: '0' picks a free port): test servers share one host.
    RTMP_PORT: 'off',
    // Where programs are found (Apertium, the default translation provider when it is installed, as on a server).
    PATH: process.env.PATH,
    REDIS_PREFIX: redisPrefix,
    MODELS_DIR: process.env.MODELS_DIR,
    // A test server fetches no model: the voices' tests name theirs (KOKORO_DIR), the download's test its own fake.
    KOKORO_DOWNLOAD: 'false',
    // File jobs decode on whisper-tiny (still beam 5) in tests whose point is not accuracy: whisper-base costs ~3×
    // and the suite must stay short. A test of the real default passes `MODEL_ACCURATE: undefined`
    // (test/transcriptions/accuracy.test.ts); one naming MODEL gets that model for both roles.
    MODEL_ACCURATE: options.env?.MODEL ? undefined : (process.env.MODEL_ACCURATE ?? 'whisper-tiny'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...options.env,
  }).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const config = loadConfig(env);
  const app = await createApp(config, options);
  const { url, port } = await app.listen();
  env.PORT = String(port);

  const accounts = app.services.accounts;
  const accountId = (await accounts.createAccount('Test account')).id;
  const apiKey = (await accounts.createApiKey(accountId, { scopes: ['*'], displayName: 'test key' })).key;

  const server: TestServer = {
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    apiKey,
    accountId,
    prisma: app.prisma,
    app,
    env,
    async createKey(scopes, keyOptions = {}) {
      const created = await accounts.createApiKey(keyOptions.accountId ?? accountId, {
        scopes, expiresAt: keyOptions.expiresAt ?? null, displayName: keyOptions.name,
      });
      if (keyOptions.revoked) await accounts.revokeKey(created.principalId);
      return { key: created.key, id: created.principalId };
    },
    async createUser(userOptions = {}) {
      const email = userOptions.email ?? `person-${crypto.randomBytes(4).toString('hex')}@example.test`;
      const user = await accounts.createLocalUser(userOptions.accountId ?? accountId, { email }, LOCAL_ISSUER);
      return { id: user.id, token: await app.services.auth.issueLocalToken(user.id) };
    },
    async createAccount(name = 'Another account') {
      return (await accounts.createAccount(name)).id;
    },
    async request(pathname, init = {}) {
      const { auth, ...rest } = init;
      const headers = new Headers(rest.headers);
      const token = auth === undefined ? apiKey : auth;
      if (token !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
      const response = await fetch(`${url}${pathname}`, { ...rest, headers });
      await refuseLocalPaths(response, [dataDir, env.MODELS_DIR, REPO_ROOT]);
      return response;
    },
    postJson(pathname, body, init = {}) {
      return server.request(pathname, {
        method: init.method ?? 'POST', auth: init.auth, headers: {
          'content-type': 'application/json', ...init.headers,
        }, body: JSON.stringify(body),
      });
    },
    graphql(query, variables, init = {}) {
      return server.postJson('/graphql', variables ? { query, variables } : { query }, init);
    },
    socket(pathname, init = {}) {
      const token = init.auth === undefined ? apiKey : init.auth;
      return new WebSocket(`${url.replace(/^http/, 'ws')}${pathname}`, { headers: {
        ...(token !== null ? { authorization: `Bearer ${token}` } : {}), ...init.headers,
      } });
    },
    async close() {
      await app.close();
      await database?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
      await deleteRedisKeys(env.REDIS_URL!, redisPrefix);
    },
  };
  return server;
}

/**
 * Every error answer of every test (an envelope, GraphQL `errors`) is checked for the paths of the server's folders:
 * no message may tell a client where the data, the models or the code live (src/core/errors.ts cuts them).
 */
async function refuseLocalPaths(response: Response, folders: Array<string | undefined>): Promise<void> {
  if (!(response.headers.get('content-type') ?? '').includes('json')) return;
  const text = await response.clone().text();
  if (response.ok && !text.includes('"errors"')) return;
  const named = folders.filter((folder): folder is string => Boolean(folder) && text.includes(folder!));
  if (named.length > 0) {
    throw new Error(
      `An error answer (${response.status} ${response.url}) names a local folder (${named.join(', ')}): ${text.slice(0, 500)}`,
    );
  }
}

export async function deleteRedisKeys(redisUrl: string, prefix: string) {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * One server for the whole test file: started in `beforeAll`, closed in `afterAll`. The returned object stands
 * for it once started (`const server = useTestServer({ workers: [] })`, then `server.request(...)` in tests).
 */
export function useTestServer(options: TestServerOptions = {}): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as TestServer, {
    get(_target, key) {
      if (!started) throw new Error('The test server starts in beforeAll; use it inside a test or hook.');
      const value = Reflect.get(started, key) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(started) : value;
    },
  });
}

/**
 * GraphQL subscriptions over graphql-ws on the gateway's port, delivered across two gateway processes through the
 * Redis pub/sub: a subscriber on this process hears an API key created through another `npm start` process.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startEntryProcess } from '../helpers/processes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let other: { process: ChildProcess; url: string; dataDir: string };

/** A second gateway as its own OS process (`node --import tsx src/entry/main.ts`, as `npm start`), same database and Redis prefix. */
async function startSecondProcess(env: Record<string, string>) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-second-'));
  const started = await startEntryProcess(
    'src/entry/main.ts',
    { ...env, PORT: '0', DATA_DIR: dataDir, RUN_WORKERS: 'false', LOG_LEVEL: 'warn' },
    /REST API:\s+(http:\/\/\S+)\/v1/,
    90_000,
  );
  return { process: started.child, url: started.match!, dataDir };
}

function subscribe(client: Client, query: string) {
  const frames: unknown[] = [];
  const errors: unknown[] = [];
  const dispose = client.subscribe({ query }, {
    next: (value) => { frames.push(value); },
    error: (error) => { errors.push(error); },
    complete: () => undefined,
  });
  return { frames, errors, dispose };
}

beforeAll(async () => {
  // PostgreSQL even under TEST_DATABASE=embedded: the second gateway process shares the database.
  server = await startTestServer({ workers: [], database: 'postgres' });
  other = await startSecondProcess({
    DATABASE_URL: server.env.DATABASE_URL!, REDIS_PREFIX: server.env.REDIS_PREFIX!, REDIS_URL: server.env.REDIS_URL!,
  });
});
afterAll(async () => {
  if (other?.process.exitCode === null) {
    const exited = new Promise((resolve) => other.process.once('exit', resolve));
    other.process.kill('SIGTERM');
    await exited;
  }
  if (other) await fs.rm(other.dataDir, { recursive: true, force: true });
  await server?.close();
});

describe('subscriptions across processes', () => {
  it('a subscriber here hears a key created through the other process', async () => {
    const client = createClient({
      url: `${server.wsUrl}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${server.apiKey}` },
      lazy: false,
    });
    const subscription = subscribe(client, 'subscription { accountEvents { type apiKeyId keyPrefix } }');
    const createdThere: string[] = [];
    try {
      // Redis SUBSCRIBE completes asynchronously: create keys over there until one is heard here.
      for (let attempt = 0; attempt < 20 && subscription.frames.length === 0; attempt++) {
        const response = await fetch(`${other.url}/v1/api-keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `from-other-${attempt}`, scopes: ['read'] }),
        });
        expect(response.status).toBe(201);
        createdThere.push(((await response.json()) as { apiKey: { id: string } }).apiKey.id);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(subscription.errors).toEqual([]);
      const frame = subscription.frames[0] as { data: { accountEvents: { type: string; apiKeyId: string; keyPrefix: string } } };
      expect(frame.data.accountEvents.type).toBe('api_key.created');
      expect(createdThere).toContain(frame.data.accountEvents.apiKeyId);
      expect(frame.data.accountEvents.keyPrefix).toMatch(/^sg_live_/);
    } finally {
      subscription.dispose();
      await client.dispose();
    }
  });

  it('another account\'s subscriber hears nothing of it', async () => {
    const otherAccount = await server.createAccount();
    const { key } = await server.createKey(['read'], { accountId: otherAccount });
    const client = createClient({
      url: `${server.wsUrl}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` },
    });
    const mine = createClient({
      url: `${server.wsUrl}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${server.apiKey}` },
    });
    const theirs = subscribe(client, 'subscription { accountEvents { type apiKeyId } }');
    const ours = subscribe(mine, 'subscription { accountEvents { type apiKeyId } }');
    try {
      for (let attempt = 0; attempt < 20 && ours.frames.length === 0; attempt++) {
        await fetch(`${other.url}/v1/api-keys`, {
          method: 'POST', headers: {
            authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json',
          }, body: '{"scopes":["read"]}',
        });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(ours.frames.length).toBeGreaterThan(0);
      expect(theirs.frames).toEqual([]);
    } finally {
      theirs.dispose();
      ours.dispose();
      await client.dispose();
      await mine.dispose();
    }
  });

  it('a subscription without a credential fails with invalid_token in extensions', async () => {
    const client = createClient({ url: `${server.wsUrl}/graphql`, webSocketImpl: WebSocket });
    try {
      const result = await new Promise<unknown>((resolve) => {
        client.subscribe({ query: 'subscription { accountEvents { type } }' }, {
          next: (value) => resolve(value),
          error: (error) => resolve(error),
          complete: () => undefined,
        });
      });
      const errors = (result as { errors?: { extensions: { code: string } }[] }).errors ?? (result as { extensions: { code: string } }[]);
      expect(errors[0]!.extensions.code).toBe('invalid_token');
    } finally {
      await client.dispose();
    }
  });
});

/**
 * Real gateway processes for a test file (`src/entry/main.ts` as `npm start` runs it, each its own OS process) on a
 * PostgreSQL database of the file's own and one Redis, and what tests of several processes need around them: temp
 * folders, a redis-server of the test's own to kill and start again, calls on a given gateway, polling without fixed
 * sleeps, the gateways' output for failure messages, publishers speaking at real time. `stopAll()` (the file's
 * afterAll) stops everything started here and removes what it left; a test process that exits without it still
 * kills its gateways and redis-servers.
 *
 *   const { createDatabase, startGateways, stopAll } = gatewayProcesses({ realtimeSecret: 'my-suite-secret-0123456789abcdef' });
 * beforeAll(async () => { await createDatabase(); [a, b] = await startGateways({ env: { DATA_DIR } }, { env: { DATA_DIR
 * } }); }, 300_000);
 *   afterAll(() => stopAll(), 120_000);
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { redisAnswers } from '../../src/core/redis-server.js';
import { RealtimeConnection } from './realtime-client.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { json } from './http.js';
import { freePort, startEntryProcess } from './processes.js';
import { sleep } from './realtime.js';
import { deleteRedisKeys } from './server.js';

/** One gateway process: its REST base URL (`http://127.0.0.1:<port>`) and what it printed so far. */
export interface Gateway {
  /** How failure messages name it (`tail`); none where a file's messages tell its gateways apart otherwise. */
  name?: string;
  child: ChildProcess;
  url: string;
  output(): string;
}

/** A gateway to start: its own environment (its Redis, media folder, whether it runs the workers) and its name. */
export interface GatewaySpec {
  env: Record<string, string>;
  name?: string;
}

/** A recording's publish grant, as `POST …/recordings` and `POST /v1/recordings/{id}/publish-token` answer it. */
export interface Grant { streamUrl: string; recording: { id: string } }

/** A redis-server of the test's own: `start()` starts it (again after a kill, on the same port, empty). */
export interface OwnRedis {
  port: number;
  url: string;
  start(): Promise<ChildProcess>;
}

export interface GatewayProcessesOptions {
  /** REALTIME_SECRET of every gateway of the file: a grant made by one is accepted by the others. */
  realtimeSecret: string;
  /** Environment every gateway of the file gets on top of the defaults (a gateway's own `env` wins over it). */
  env?: Record<string, string>;
  /** How often `until` polls, in ms (default 100). */
  pollMs?: number;
  /** How much of a gateway's output `tail` shows, in characters (default 4000). */
  tailChars?: number;
}

/** Stops `child` with `signal` (default SIGKILL) and resolves once it has exited; at once if it has already. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** Kills the gateways a describe block started (those that did start). */
export async function stopGateways(...gateways: Array<Gateway | undefined>): Promise<void> {
  await Promise.all(gateways.filter((gateway): gateway is Gateway => Boolean(gateway)).map((gateway) => stopChild(gateway.child)));
}

/**
 * A publisher speaking audio at real time on its socket (200 ms chunks) until stopped or the audio ends: a recording
 * that goes on while the test kills things around it.
 */
export function speak(publisher: RealtimeConnection, chunks: Float32Array[]): { stop(): void; finished: Promise<void> } {
  let stopped = false;
  const finished = (async () => {
    for (const chunk of chunks) {
      if (stopped || publisher.ws.readyState !== WebSocket.OPEN) return;
      publisher.sendPcm(chunk);
      await sleep(200);
    }
  })();
  return { stop: () => { stopped = true; }, finished };
}

/** The gateway processes of one test file, with one API key, one Redis key prefix and one database for all of them. */
export function gatewayProcesses(options: GatewayProcessesOptions) {
  const { realtimeSecret, env: fileEnv = {}, pollMs = 100, tailChars = 4000 } = options;
  const sharedRedis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const apiKey = `sg_live_${crypto.randomBytes(6).toString('hex')}_${crypto.randomBytes(18).toString('base64url')}`;
  const redisPrefix = `sgtest:${crypto.randomBytes(5).toString('hex')}:`;

  /** Everything started here, stopped by stopAll() whatever happened. */
  const children: ChildProcess[] = [];
  const tempDirs: string[] = [];
  const publishers: RealtimeConnection[] = [];
  let database: TestDatabase | undefined;
  // A fork that dies without its afterAll still takes its gateways and redis-servers with it.
  process.once(
    'exit', () => { for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); },
  );

  /** The file's own PostgreSQL database, which every gateway started here uses (call it first, in beforeAll). */
  async function createDatabase(): Promise<TestDatabase> {
    database = await createTestDatabase();
    return database;
  }

  /** A new folder under the OS temp folder, removed by stopAll(). */
  async function tempDir(prefix: string): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
    tempDirs.push(dir);
    return dir;
  }

  /**
   * `npm start` as its own process on the file's database: by default on the shared Redis under the file's prefix,
   * no workers, no child redis-server, the same API key (BOOTSTRAP_API_KEY) and grant secret everywhere.
   */
  async function startGateway(env: Record<string, string>, name?: string): Promise<Gateway> {
    const started = await startEntryProcess(
      'src/entry/main.ts', { PORT: '0', HOST: '127.0.0.1', ...processEnv(env) }, /REST API:\s+(http:\/\/\S+)\/v1/, 240_000,
    );
    children.push(started.child);
    return { name, child: started.child, url: started.match!, output: started.output };
  }

  /** What every process of the file shares (database, Redis and prefix, key, grant secret), under `env`. */
  function processEnv(env: Record<string, string>): Record<string, string> {
    return {
      DATABASE_URL: database!.url, REDIS_URL: sharedRedis, REDIS_PREFIX: redisPrefix,
      RUN_WORKERS: 'false', START_REDIS: 'false', BOOTSTRAP_API_KEY: apiKey, REALTIME_SECRET: realtimeSecret,
      REALTIME_ENGINE_THREADS: '1', LOG_LEVEL: 'warn', ...fileEnv, ...env,
    };
  }

  /** `npm run worker` as its own process on the file's database and Redis (every background worker, no HTTP). */
  async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
    const started = await startEntryProcess(
      'src/entry/worker-main.ts', processEnv({ LOG_LEVEL: 'info', ...env }),
      /worker started[\s\S]*"worker":"transcriptions"|"worker":"transcriptions"[\s\S]*worker started/, 240_000,
    );
    children.push(started.child);
    return started.child;
  }

  /** Two gateways started at once (a busy machine takes a while to start each); fails if either does. */
  async function startGateways(first: GatewaySpec, second: GatewaySpec): Promise<[Gateway, Gateway]> {
    const started = await Promise.allSettled([startGateway(first.env, first.name), startGateway(second.env, second.name)]);
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    return started.map((result) => (result as PromiseFulfilledResult<Gateway>).value) as [Gateway, Gateway];
  }

  /** A redis-server of the test's own on a free port, nothing kept on disk; its `start()` resolves once it answers. */
  async function redisServer(): Promise<OwnRedis> {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const dir = await tempDir('sg-redis-');
    const start = async (): Promise<ChildProcess> => {
      const child = spawn(
        'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      children.push(child);
      await until(`redis-server on port ${port}`, async () => child.exitCode === null && (await redisAnswers(url, 500)), 60_000);
      return child;
    };
    return { port, url, start };
  }

  /** A request on `gateway` with the file's API key; a JSON `body` for anything but GET. */
  function call(gateway: Gateway, pathname: string, method = 'GET', body: unknown = {}): Promise<Response> {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } };
    return fetch(`${gateway.url}${pathname}`, method === 'GET' ? init : { ...init, body: JSON.stringify(body) });
  }

  /** The response's JSON body, once its status is `status` (else fails showing the body and `context()`). */
  async function expectStatus(response: Response, status: number, context = () => '') {
    const body = await json(response);
    expect(response.status, `${JSON.stringify(body)}${context() ? `\n${context()}` : ''}`).toBe(status);
    return body;
  }

  /** Polls `probe` until it answers something other than undefined/false; past the deadline fails naming `what`. */
  async function until<T>(
    what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 90_000, context = () => '',
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined && found !== false) return found;
      if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000} s for ${what}${context() ? `\n${context()}` : ''}`);
      await sleep(pollMs);
    }
  }

  /** The tail of the gateways' output, for a failure message. */
  const tail = (...gateways: Gateway[]) => () =>
    gateways.map(
      (gateway) => `gateway ${gateway.name === undefined ? '' : `${gateway.name} `}output:\n${gateway.output().slice(-tailChars)}`,
    ).join('\n');

  /** A publisher on `grant`, ready (the engine may be loading on a busy machine: a generous deadline of silence). */
  async function publisherOn(grant: Pick<Grant, 'streamUrl'>): Promise<RealtimeConnection> {
    const publisher = new RealtimeConnection(grant.streamUrl, { readyTimeoutS: 180 });
    publishers.push(publisher);
    await publisher.ready();
    return publisher;
  }

  /** Cuts the socket of every publisher made by publisherOn() so far. */
  function closePublishers(): void {
    for (const publisher of publishers.splice(0)) publisher.ws.terminate();
  }

  /** Kills every process started here, drops the database, removes the temp folders and the file's Redis keys. */
  async function stopAll(): Promise<void> {
    await Promise.all(children.map((child) => stopChild(child)));
    await database?.drop();
    for (const dir of tempDirs) await fs.rm(dir, { recursive: true, force: true });
    await deleteRedisKeys(sharedRedis, redisPrefix);
  }

  return {
    sharedRedis, apiKey, redisPrefix,
    createDatabase, tempDir, startGateway, startGateways, startWorker, redisServer,
    call, expectStatus, until, tail, publisherOn, closePublishers, stopAll,
  };
}

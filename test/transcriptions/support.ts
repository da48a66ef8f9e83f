/**
 * Service-level harness for the transcription suites: a database of its own (created on the shared
 * PostgreSQL, migrated, dropped after), a Redis prefix of its own, the services and, when asked, an in-process
 * transcription worker. The REST/GraphQL suites use the gateway's test helpers instead.
 */
import crypto from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { createRedisPubSub, type Frame, type PubSub, type Topic } from '../../src/pubsub.js';
import { RecordingsService } from '../../src/services/recordings.js';
import { ShareLinksService } from '../../src/services/share-links.js';
import { TranscriptionsService } from '../../src/services/transcriptions.js';
import { startTranscriptionWorker, type TranscriptionWorker } from '../../workers/transcription-worker.js';
import { linkFetchPolicyOf } from '../../src/services/links/index.js';

const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface Stack {
  config: Config;
  db: Database;
  pubsub: PubSub;
  transcriptions: TranscriptionsService;
  recordings: RecordingsService;
  shareLinks: ShareLinksService;
  accountId: string;
  principalId: string;
  env: Record<string, string>;
  startWorker(options?: { concurrency?: number }): TranscriptionWorker;
  close(): Promise<void>;
}

export async function startStack(options: { env?: Record<string, string>; concurrencyLimit?: number } = {}): Promise<Stack> {
  const suffix = crypto.randomBytes(5).toString('hex');
  const dbName = `sg_trn_${suffix}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sg-trn-'));
  const env: Record<string, string> = {
    DATABASE_URL: ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`),
    DATA_DIR: dataDir,
    REDIS_PREFIX: `sgtest:${suffix}:`,
    START_REDIS: 'false',
    LINK_FETCH_ALLOW_HOSTS: '127.0.0.1',
    ...options.env,
  };
  const config = loadConfig(env);
  const db = await openDatabase(config);
  const pubsub = createRedisPubSub({ redisUrl: config.redisUrl, prefix: config.redisPrefix });
  const deps = { config, prisma: db.prisma, pubsub };
  const shareLinks = new ShareLinksService(deps);
  const transcriptions = new TranscriptionsService(deps);
  const recordings = new RecordingsService(deps, shareLinks);
  const accountId = `acct_${suffix}`;
  const principalId = `key_${suffix}`;
  await db.prisma.account.create({ data: { id: accountId, name: 'Test', concurrencyLimit: options.concurrencyLimit ?? 2 } });
  await db.prisma.principal.create({ data: { id: principalId, accountId, kind: 'api_key', displayName: 'test key', scopes: ['*'] } });
  const workers: TranscriptionWorker[] = [];
  return {
    config,
    db,
    pubsub,
    transcriptions,
    recordings,
    shareLinks,
    accountId,
    principalId,
    env,
    startWorker(workerOptions = {}) {
      const worker = startTranscriptionWorker({
        prisma: db.prisma,
        pubsub,
        queueSettings: { redisUrl: config.redisUrl, redisPrefix: config.redisPrefix, lockDurationMs: 4000, stalledIntervalMs: 2000 },
        dataDir: config.dataDir,
        linkPolicy: linkFetchPolicyOf(config.transcriptions),
        maxUploadBytes: config.limits.maxUploadBytes,
        engine: { model: config.model, intraOpThreads: 1 },
        concurrency: workerOptions.concurrency ?? 1,
        sweepIntervalMs: 1000,
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await transcriptions.close();
      await pubsub.close();
      await db.close();
      const cleanup = new pg.Client({ connectionString: ADMIN_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await cleanup.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Collects frames published on a topic from now on. */
export function collect(pubsub: PubSub, topic: Topic): { frames: Frame[]; stop(): void } {
  const frames: Frame[] = [];
  const iterator = pubsub.subscribe(topic);
  void (async () => {
    for await (const frame of iterator) frames.push(frame);
  })();
  return { frames, stop: () => void iterator.return?.() };
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export const fixture = (name: string) => path.resolve('test/fixtures', name);

/**
 * The services a benchmark measures, started as a deployment runs them, each its own OS process
 * (`startEntryProcess`): a gateway (`src/entry/main.ts`) that runs no workers and one `npm run worker` process,
 * on a fresh database of the tests' PostgreSQL (TEST_POSTGRES_URL) and the Redis at REDIS_URL, with their own
 * DATA_DIR, REDIS_PREFIX and bootstrap API key. `database: 'embedded'` runs the embedded defaults instead: one
 * gateway on PGlite in its DATA_DIR with its workers in the same process (the embedded database belongs to one
 * process, so there is no separate worker).
 *
 *   const { table } = await withBenchServices({ workerEnv: { WORKER_CONCURRENCY: '2' } }, async (services) => …);
 */
import crypto from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/db.js';
import { startEntryProcess, type EntryProcess } from '../../test/helpers/processes.js';

export interface BenchServicesOptions {
  /** `postgres` (default): gateway + worker processes on PostgreSQL; `embedded`: one process on PGlite. */
  database?: 'postgres' | 'embedded';
  /** Environment of both processes, over the defaults. */
  env?: Record<string, string>;
  /** Environment of the gateway only. */
  gatewayEnv?: Record<string, string>;
  /** Environment of the worker only. */
  workerEnv?: Record<string, string>;
  /** Where the services' own error lines go when the benchmark fails (default: stderr). */
  log?: (line: string) => void;
}

export interface BenchServices {
  /** The gateway's origin, e.g. `http://127.0.0.1:41234` (the REST API is under `/v1`). */
  base: string;
  /** A key with scope `*` of the bootstrap account. */
  apiKey: string;
  /** `authorization` header of `apiKey`. */
  headers: { authorization: string };
  /** The PostgreSQL database (null when embedded). */
  databaseUrl: string | null;
  gateway: EntryProcess;
  /** The worker process (null when embedded: the gateway runs its workers). */
  worker: EntryProcess | null;
}

/** Starts the services, runs `fn` with them, then stops them and removes their database and DATA_DIR. */
export async function withBenchServices<T>(options: BenchServicesOptions, fn: (services: BenchServices) => Promise<T>): Promise<T> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const embedded = options.database === 'embedded';
  const suffix = crypto.randomBytes(5).toString('hex');
  // A bare database on the tests' PostgreSQL; the gateway applies the migrations as it starts.
  const database: TestDatabase | null = embedded ? null : await createTestDatabase({ migrate: false });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sg-bench-'));
  // The format of a generated key (sg_live_<12 hex>_<secret>), which BOOTSTRAP_API_KEY must have.
  const apiKey = `sg_live_${crypto.randomBytes(6).toString('hex')}_bench${crypto.randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    ...(database ? { DATABASE_URL: database.url } : {}),
    DATA_DIR: dataDir,
    REDIS_PREFIX: `sgbench:${suffix}:`,
    BOOTSTRAP_API_KEY: apiKey,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const started: EntryProcess[] = [];
  try {
    const gateway = await startEntryProcess(
      'src/entry/main.ts', { ...env, RUN_WORKERS: String(embedded), ...options.gatewayEnv }, /REST API:\s+(http:\/\/\S+)\/v1/,
    );
    started.push(gateway);
    const worker = embedded ? null : await startEntryProcess(
      'src/entry/worker-main.ts', { ...env, ...options.workerEnv }, /"worker":"transcriptions"/,
    );
    if (worker) started.push(worker);
    return await fn({
      base: gateway.match!, apiKey, headers: { authorization: `Bearer ${apiKey}` }, databaseUrl: database?.url ?? null, gateway, worker,
    });
  } catch (error) {
    // The services' own account of what went wrong is the useful part of a failed run.
    const logged = started.flatMap((s) => s.output().split('\n').filter((line) => line.includes('"level":"error"'))).slice(0, 5);
    if (logged.length) log(logged.join('\n'));
    throw error;
  } finally {
    for (const { child } of started.reverse()) {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    }
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

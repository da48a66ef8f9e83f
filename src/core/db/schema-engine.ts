/**
 * Prisma's schema engine compiled to WebAssembly, driven through our own `pg` connections: the CLI's native
 * engine cannot be downloaded here (see ../shared/NOTES-prisma.md). Used to apply migrations on start, to make
 * the next migration by diff, and by the drift test.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory, type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';
import { createPool, withDatabase } from './pg-pool.js';
import { startEmbeddedDatabase } from './embedded.js';

const require = createRequire(import.meta.url);

let wasmLoaded: Promise<typeof import('@prisma/schema-engine-wasm/schema_engine_bg')> | null = null;

/** Node 20 cannot import the package's `.wasm` entry; instantiate it by hand, once per process. */
function loadWasm() {
  wasmLoaded ??= (async () => {
    const bg = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const jsPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await fs.readFile(path.join(path.dirname(jsPath), 'schema_engine_bg.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return bg;
  })();
  return wasmLoaded;
}

/**
 * Where the engine gets a scratch database to replay migrations on (`diff` from migrations): a temporary
 * database on the same PostgreSQL server, or an in-memory PGlite when the main database is embedded.
 */
export type ShadowKind = 'server' | 'embedded';

/** Releases what the engine's connections hold; run when the engine is done even if it never disposed them. */
type Releases = (() => Promise<void>)[];

async function adapterOn(connectionString: string, releases: Releases, cleanup: () => Promise<void>): Promise<SqlDriverAdapter> {
  // One connection: the engine's advisory lock is per session, and must be released by closing that session.
  const pool = createPool(connectionString, { max: 1, forSchemaEngine: true });
  const adapter = await new PrismaPg(pool).connect();
  let released = false;
  // @prisma/adapter-pg's own connectToShadowDb loses the database name and drops it before closing; this
  // one closes its pool first, then removes what it made.
  const release = async () => {
    if (released) return;
    released = true;
    await pool.end();
    await cleanup();
  };
  releases.push(release);
  const dispose = adapter.dispose.bind(adapter);
  adapter.dispose = async () => {
    await dispose();
    await release();
  };
  return adapter;
}

function adapterFactory(url: string, shadow: ShadowKind, releases: Releases): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    connect: () => adapterOn(url, releases, async () => {}),
    async connectToShadowDb() {
      if (shadow === 'embedded') {
        const embedded = await startEmbeddedDatabase(null);
        return adapterOn(embedded.url, releases, () => embedded.close());
      }
      const name = `sg_shadow_${crypto.randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return adapterOn(withDatabase(url, name), releases, async () => {
        const dropper = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      });
    },
  };
}

export interface EngineOptions {
  /** Database the engine works on (apply, describe). */
  url: string;
  shadow: ShadowKind;
  schemaPath: string;
}

/** Runs `fn` with a fresh engine; JS-side failures (`External error id#N`) are rethrown with their real cause. */
export async function withSchemaEngine<T>(options: EngineOptions, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  const bg = await loadWasm();
  const releases: Releases = [];
  const factory = bindMigrationAwareSqlAdapterFactory(adapterFactory(options.url, options.shadow, releases));
  const schemaText = await fs.readFile(options.schemaPath, 'utf8');
  const logs: string[] = [];
  const engine = (await bg.SchemaEngine.new(
    { datamodels: [[options.schemaPath, schemaText]] }, (line: string) => logs.push(line), factory,
  )) as SchemaEngine;
  try {
    return await fn(engine);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const external = /External error id#(\d+)/.exec(message);
    if (external) {
      const record = factory.errorRegistry.consumeError(Number(external[1]));
      if (record) throw new Error(`schema engine: ${message}`, { cause: record.error });
    }
    throw error;
  } finally {
    engine.free();
    // engine.free() does not dispose its adapters: an idle connection would keep the migration advisory lock
    // and make the next engine on this database wait out its 10 s lock timeout.
    for (const release of releases) await release().catch(() => undefined);
  }
}

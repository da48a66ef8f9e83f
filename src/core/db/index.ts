/**
 * Opens the service's database: PostgreSQL at DATABASE_URL, or the embedded PGlite database in DATA_DIR/db;
 * applies pending migrations; returns a Prisma client on the `pg` driver adapter (no Rust query engine).
 */
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client.js';
import type { Config } from '../config/index.js';
import { startEmbeddedDatabase } from './embedded.js';
import { applyMigrations } from './migrate.js';
import pg from 'pg';
import { createPool, withDatabase } from './pg-pool.js';

export { PrismaClient };

export interface Database {
  prisma: PrismaClient;
  /** postgres:// URL the client uses (the embedded database's loopback socket when embedded). */
  url: string;
  embedded: boolean;
  appliedMigrations: string[];
  /** Calls `listener` with the SQL of every query this client sends; returns the unsubscribe function. */
  onQuery(listener: (sql: string) => void): () => void;
  close(): Promise<void>;
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  options: { onIdleError?: (error: Error) => void } = {},
): Promise<Database> {
  const embedded = config.databaseUrl ? null : await startEmbeddedDatabase(path.join(config.dataDir, 'db'));
  const url = config.databaseUrl ?? embedded!.url;
  try {
    if (config.databaseUrl) await ensureDatabaseExists(config.databaseUrl);
    const appliedMigrations = await applyMigrations({ url, shadow: embedded ? 'embedded' : 'server' });
    // PGlite is a single session: one connection keeps a transaction's statements from interleaving with others.
    const pool = createPool(url, { max: embedded ? 1 : 10, onIdleError: options.onIdleError });
    // Query events feed `onQuery` (tests count queries to prove DataLoader batching; operators can log them).
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool), log: [{ emit: 'event', level: 'query' }] });
    const queryListeners = new Set<(sql: string) => void>();
    prisma.$on('query', (event) => { for (const listener of queryListeners) listener(event.query); });
    return {
      prisma,
      url,
      embedded: embedded !== null,
      appliedMigrations,
      onQuery(listener) {
        queryListeners.add(listener);
        return () => queryListeners.delete(listener);
      },
      async close() {
        await prisma.$disconnect();
        await pool.end();
        await embedded?.close();
      },
    };
  } catch (error) {
    await embedded?.close();
    throw error;
  }
}

/** PostgreSQL server reachable but the database not made yet (a fresh server): make it, as `prisma migrate` would. */
async function ensureDatabaseExists(url: string) {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error; // invalid_catalog_name: the database is missing
  } finally {
    await probe.end().catch(() => undefined);
  }
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42P04') throw error; // duplicate_database: another process made it
  } finally {
    await admin.end();
  }
}

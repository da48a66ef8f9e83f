/**
 * Opens the service's database: PostgreSQL at DATABASE_URL, or the embedded PGlite database in DATA_DIR/db;
 * applies pending migrations; returns a Prisma client on the `pg` driver adapter (no Rust query engine).
 */
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Config } from '../config.js';
import { startEmbeddedDatabase } from './embedded.js';
import { applyMigrations } from './migrate.js';
import { createPool } from './pg-pool.js';

export { PrismaClient };

export interface Database {
  prisma: PrismaClient;
  /** postgres:// URL the client uses (the embedded database's loopback socket when embedded). */
  url: string;
  embedded: boolean;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Database> {
  const embedded = config.databaseUrl ? null : await startEmbeddedDatabase(path.join(config.dataDir, 'db'));
  const url = config.databaseUrl ?? embedded!.url;
  try {
    const appliedMigrations = await applyMigrations({ url, shadow: embedded ? 'embedded' : 'server' });
    // PGlite is a single session: one connection keeps a transaction's statements from interleaving with others.
    const pool = createPool(url, { max: embedded ? 1 : 10 });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    return {
      prisma,
      url,
      embedded: embedded !== null,
      appliedMigrations,
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

/**
 * A fresh PostgreSQL database per test file: `sg_test_<random>` on the shared server (127.0.0.1:5432, user
 * postgres, trust), migrated with the checked-in migrations, dropped by `drop()`.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { applyMigrations } from '../../src/core/db/migrate.js';
import { withDatabase } from '../../src/core/db/pg-pool.js';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try { return await fn(client); } finally { await client.end(); }
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `sg_test_${crypto.randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(TEST_POSTGRES_URL, name);
  if (options.migrate ?? true) await applyMigrations({ url });
  return {
    name,
    url,
    drop: () => dropTestDatabase(name),
  };
}

/** Drops a database on the test server (connections and all); nothing when it does not exist. */
export async function dropTestDatabase(name: string): Promise<void> {
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

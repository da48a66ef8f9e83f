/**
 * Migrations: from an empty database to the current schema on PostgreSQL and on the embedded database, applied
 * once (idempotent), and no drift: schema.prisma has no change the checked-in migrations lack.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { EmbeddedDatabaseInUseError } from '../../src/core/db/embedded.js';
import { openDatabase } from '../../src/core/db/index.js';
import { applyMigrations, createMigration, MIGRATIONS_DIR, pendingSchemaChanges, readMigrations } from '../../src/core/db/migrate.js';
import { withDatabase } from '../../src/core/db/pg-pool.js';
import { TEST_POSTGRES_URL, createTestDatabase, dropTestDatabase } from '../helpers/db.js';

const MODELS = ['Account', 'Principal', 'Transcription', 'Recording', 'Job', 'Segment', 'RecordingEvent', 'ShareLink', 'IdempotencyRecord'];

async function tablesAt(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = `
      + `'public'`);
    return rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('schema.prisma has no change that the migrations lack (run `npm run migrate -- new <name>`)', async () => {
    const pending = await pendingSchemaChanges({ url: TEST_POSTGRES_URL, shadow: 'server' });
    expect(pending.trim()).toBe('');
  });

  it('apply from empty on PostgreSQL, once', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      expect(await tablesAt(database.url)).toEqual([]);
      const all = (await readMigrations(MIGRATIONS_DIR)).migrationDirectories.map((dir) => dir.path);
      expect(await applyMigrations({ url: database.url })).toEqual(all);
      expect(await tablesAt(database.url)).toEqual(expect.arrayContaining([...MODELS, '_prisma_migrations']));
      expect(await applyMigrations({ url: database.url })).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('a PostgreSQL database that does not exist yet is made on start', async () => {
    const name = `sg_test_fresh_${Date.now().toString(36)}`;
    const url = withDatabase(TEST_POSTGRES_URL, name);
    const db = await openDatabase({ databaseUrl: url, dataDir: os.tmpdir() });
    try {
      expect(db.appliedMigrations.length).toBeGreaterThan(0);
      expect(await tablesAt(url)).toEqual(expect.arrayContaining(MODELS));
    } finally {
      await db.close();
      await dropTestDatabase(name);
    }
  });

  it('apply from empty on the embedded database, kept across restarts', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-embedded-'));
    try {
      const all = (await readMigrations(MIGRATIONS_DIR)).migrationDirectories.map((dir) => dir.path);
      const first = await openDatabase({ databaseUrl: null, dataDir });
      expect(first.embedded).toBe(true);
      expect(first.appliedMigrations).toEqual(all);
      expect(await tablesAt(first.url)).toEqual(expect.arrayContaining(MODELS));
      await first.prisma.account.create({ data: { id: 'acct_embedded', name: 'Kept' } });
      // One process at a time: a second opening of the same folder would corrupt it.
      await expect(openDatabase({ databaseUrl: null, dataDir })).rejects.toBeInstanceOf(EmbeddedDatabaseInUseError);
      await first.close();

      const second = await openDatabase({ databaseUrl: null, dataDir });
      expect(second.appliedMigrations).toEqual([]);
      expect((await second.prisma.account.findUnique({ where: { id: 'acct_embedded' } }))?.name).toBe('Kept');
      await second.close();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('drift is detected: a model no migration creates shows up as SQL', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-drift-'));
    try {
      const schemaPath = path.join(dir, 'schema.prisma');
      const original = await fs.readFile(path.join(MIGRATIONS_DIR, '../schema.prisma'), 'utf8');
      await fs.writeFile(schemaPath, `${original}\nmodel DriftProbe {\n  id String @id\n}\n`);
      const pending = await pendingSchemaChanges({ url: TEST_POSTGRES_URL, shadow: 'server', schemaPath });
      expect(pending).toContain('CREATE TABLE "DriftProbe"');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('`migrate new` writes the next migration by diff, after which nothing is pending', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-newmig-'));
    try {
      const migrationsDir = path.join(dir, 'migrations');
      await fs.cp(MIGRATIONS_DIR, migrationsDir, { recursive: true });
      const schemaPath = path.join(dir, 'schema.prisma');
      const original = await fs.readFile(path.join(MIGRATIONS_DIR, '../schema.prisma'), 'utf8');
      await fs.writeFile(schemaPath, `${original}\nmodel NewThing {\n  id   String @id\n  name String\n}\n`);

      const written = await createMigration('add_new_thing', { url: TEST_POSTGRES_URL, shadow: 'server', migrationsDir, schemaPath });
      expect(written).toMatch(/\/\d{14}_add_new_thing$/);
      expect(await fs.readFile(path.join(written!, 'migration.sql'), 'utf8')).toContain('CREATE TABLE "NewThing"');
      expect(await pendingSchemaChanges({ url: TEST_POSTGRES_URL, shadow: 'server', migrationsDir, schemaPath })).toBe('');
      expect(await createMigration('again', { url: TEST_POSTGRES_URL, shadow: 'server', migrationsDir, schemaPath })).toBeNull();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

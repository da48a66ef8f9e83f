/**
 * `npm run migrate -- new <name>`: writes the next migration (what schema.prisma adds over the checked-in ones).
 * `npm run migrate -- status`: prints that SQL without writing it. `npm run migrate -- apply`: applies them.
 * With DATABASE_URL the shadow database is made on that server, otherwise in an in-memory PGlite.
 */
import { loadConfig } from '../core/config/index.js';
import { startEmbeddedDatabase } from '../core/db/embedded.js';
import { createMigration, pendingSchemaChanges } from '../core/db/migrate.js';
import { openDatabase } from '../core/db/index.js';

const [command, name] = process.argv.slice(2);
const config = loadConfig();

async function withScratchUrl<T>(fn: (url: string, shadow: 'server' | 'embedded') => Promise<T>): Promise<T> {
  if (config.databaseUrl) return fn(config.databaseUrl, 'server');
  const scratch = await startEmbeddedDatabase(null);
  try { return await fn(scratch.url, 'embedded'); } finally { await scratch.close(); }
}

if (command === 'new' && name) {
  const dir = await withScratchUrl((url, shadow) => createMigration(name, { url, shadow }));
  console.log(dir ? `wrote ${dir}/migration.sql` : 'schema.prisma has no changes that the migrations lack; nothing written');
} else if (command === 'status') {
  const sql = await withScratchUrl((url, shadow) => pendingSchemaChanges({ url, shadow }));
  console.log(sql.trim() ? sql : 'migrations are up to date with schema.prisma');
  process.exitCode = sql.trim() ? 2 : 0;
} else if (command === 'apply') {
  const db = await openDatabase(config);
  console.log(db.appliedMigrations.length ? `applied ${db.appliedMigrations.join(', ')}` : 'database is up to date');
  await db.close();
} else {
  console.error('usage: npm run migrate -- new <name> | status | apply');
  process.exitCode = 1;
}

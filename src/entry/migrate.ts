/**
 * `npm run migrate -- new <name>`: writes the next migration (what schema.prisma adds over the checked-in ones).
 * `npm run migrate -- status`: prints that SQL without writing it. `npm run migrate -- apply`: applies them.
 * With DATABASE_URL the shadow database is made on that server, otherwise in an in-memory PGlite.
 */
import { loadConfigOrExit } from '../core/config/index.js';
import { startEmbeddedDatabase } from '../core/db/embedded.js';
import { createMigration, pendingSchemaChanges } from '../core/db/migrate.js';
import { openDatabase } from '../core/db/index.js';

const [command, name] = process.argv.slice(2);
const config = loadConfigOrExit();

async function withScratchUrl<T>(fn: (url: string, shadow: 'server' | 'embedded') => Promise<T>): Promise<T> {
  if (config.databaseUrl) return fn(config.databaseUrl, 'server');
  const scratch = await startEmbeddedDatabase(null);
  try {
    return await fn(scratch.url, 'embedded');
  } catch (error) {
    // PGlite is PostgreSQL 18, which lists NOT NULL constraints in pg_constraint (type 'n'); the schema engine's
    // describer cannot read them yet and panics. Applying migrations is unaffected; diffing needs a server.
    if (/constraint_type/.test(String((error as Error)?.message))) {
      throw new Error('Diffing the schema needs a PostgreSQL server up to version 17: set DATABASE_URL (e.g. '
        + 'postgresql://postgres@127.0.0.1:5432/scratch). The embedded PGlite (PostgreSQL 18) lists NOT NULL constraints in a form the '
        + 'schema engine cannot read yet.', { cause: error });
    }
    throw error;
  } finally {
    await scratch.close();
  }
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

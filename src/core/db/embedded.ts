/**
 * The embedded default database: PGlite (PostgreSQL compiled to WebAssembly, data in a folder) served on a
 * loopback port over the Postgres protocol, so that the very same `pg`/PrismaPg code and the same migrations run
 * against it as against a PostgreSQL server. See ../shared/NOTES-prisma.md.
 */
import fs from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDatabase {
  /** postgres:// URL of the loopback socket. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts PGlite on `dataDir` (null: in memory, used for throw-away shadow databases) behind a socket server.
 * PGlite is one session: the socket server queues statements from its connections and keeps a transaction's
 * statements together, but clients should still use a pool of one connection (see openDatabase).
 */
export async function startEmbeddedDatabase(dataDir: string | null): Promise<EmbeddedDatabase> {
  if (dataDir) await fs.mkdir(dataDir, { recursive: true });
  const releaseLock = dataDir ? await lockDataDir(dataDir) : async () => {};
  let db: PGlite;
  try {
    // pg_trgm: search's trigram indexes (literal and misspelt words); the migrations create the extension.
    db = new PGlite({ ...(dataDir ? { dataDir } : {}), extensions: { pg_trgm } });
    await db.waitReady;
  } catch (error) {
    await releaseLock();
    throw error;
  }
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
      await releaseLock();
    },
  };
}

export class EmbeddedDatabaseInUseError extends Error {}

/**
 * PGlite is one process's database: a second process opening the same folder (a second `npm start`, or the admin
 * command beside a running server) would corrupt it. A lock file beside the folder, holding the owner's pid, stops
 * that; a lock left by a process that no longer exists is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(lockPath, String(process.pid), { flag: 'wx' });
      return () => fs.rm(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(await fs.readFile(lockPath, 'utf8').catch(() => ''));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new EmbeddedDatabaseInUseError(`The embedded database in ${dataDir} is in use by process ${owner}; stop it first, or set `
          + `DATABASE_URL to a PostgreSQL server for several processes.`);
      }
      if (owner === process.pid) {
        throw new EmbeddedDatabaseInUseError(`The embedded database in ${dataDir} is already open in this process.`);
      }
      await fs.rm(lockPath, { force: true });
    }
  }
  throw new EmbeddedDatabaseInUseError(`Could not lock the embedded database in ${dataDir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded default database: PGlite (PostgreSQL compiled to WebAssembly, data in a folder) served on a
 * loopback port over the Postgres protocol, so that the very same `pg`/PrismaPg code and the same migrations run
 * against it as against a PostgreSQL server. See ../shared/NOTES-prisma.md.
 */
import fs from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
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
  const db = dataDir ? new PGlite(dataDir) : new PGlite();
  await db.waitReady;
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

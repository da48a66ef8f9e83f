/**
 * `npm start`: prepares Redis (child process if needed) and the database (migrations), makes the bootstrap account
 * on first start and prints its key once, then serves REST, GraphQL and the sockets on PORT.
 */
import { loadConfigOrExit } from '../core/config/index.js';
import { ensureRedis, RedisUnavailableError } from '../core/redis-server.js';
import { createApp } from './app.js';
import { EmbeddedDatabaseInUseError } from '../core/db/embedded.js';

const config = loadConfigOrExit();
const say = (line: string) => console.log(line);

let redisChild;
try {
  redisChild = await ensureRedis({ redisUrl: config.redisUrl, dataDir: config.dataDir, allowStart: config.startRedis, log: say });
} catch (error) {
  if (error instanceof RedisUnavailableError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

let app;
try {
  app = await createApp(config);
} catch (error) {
  if (error instanceof EmbeddedDatabaseInUseError) {
    console.error(error.message);
    redisChild?.kill();
    process.exit(1);
  }
  if (config.databaseUrl && /ECONNREFUSED|ENOTFOUND|Can't reach database server|does not exist|password authentication/.test(
    String((error as Error)?.message ?? error) + String((error as Error)?.cause ?? ''),
  )) {
    const where = new URL(config.databaseUrl);
    console.error(`Cannot use the PostgreSQL database at ${where.host}${where.pathname} (DATABASE_URL): `
      + `${String((error as Error).message).split('\n')[0]!.replace(/\.?$/, '.')} Unset DATABASE_URL to use the embedded database.`);
    redisChild?.kill();
    process.exit(1);
  }
  throw error;
}
const { url } = await app.listen();
const base = config.publicUrl ?? url;
say(`speechgate is up (${app.db.embedded ? `embedded database in ${config.dataDir}/db` : 'PostgreSQL at DATABASE_URL'})`);
if (app.db.appliedMigrations.length) say(`Applied migrations: ${app.db.appliedMigrations.join(', ')}`);
if (app.bootstrap.printKey) {
  say('');
  say(`Bootstrap API key (shown once, scope *): ${app.bootstrap.printKey}`);
  say('');
}
say(`REST API:  ${base}/v1   (description: ${base}/v1/openapi.json)`);
say(`GraphiQL:  ${base}/graphql`);
say(`Docs:      ${base}/docs`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  say(`${signal}: stopping`);
  await app.close().catch((error) => console.error(error));
  redisChild?.kill();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

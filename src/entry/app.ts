/**
 * `createApp(config)`: the whole gateway in one process — express with the REST /v1 route table, graphql-yoga at
 * /graphql (GraphiQL included), graphql-ws and the REST WebSockets on the same port, Redis pub/sub, the database,
 * and the background workers. `main.ts` runs it; tests run it on a random port (test/helpers/server.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { ConfigByField } from '@envelop/rate-limiter';
import { RedisRateLimitStore } from '../core/rate-limit-store.js';
import { requestRedis } from '../core/redis-client.js';
import type { Config } from '../core/config/index.js';
import { errors } from '../core/errors.js';
import { openDatabase, type Database } from '../core/db/index.js';
import { createLogger, type Logger } from '../core/logger.js';
import { createRedisPubSub, type PubSub } from '../core/pubsub.js';
import { closeServices, type Services } from '../core/services.js';
import { createServices } from './services.js';
import { schema } from '../graphql-schema.js';
import type { Context } from '../core/context.js';
import { createGraphQLServer } from './graphql-server.js';
import { startRtmpServer } from '../live/index.js';
import { backgroundWorkers } from './background-workers.js';
import type { BackgroundWorker, RunningWorker } from '../core/background.js';
import { routeTable } from '../../rest/route-table.js';
import type { RouteEntry } from '../../rest/types.js';
import { createRestRouter } from '../../rest/router.js';
import { createSocketRouter } from '../../rest/sockets.js';
import { limitConnectionsPerAddress, useBodyIdleTimeout } from '../../rest/connections.js';
import { answerClientError, errorHandler, refuseBadHandshake } from '../../rest/envelope.js';
import { newRequestId, useRequestId } from '../../rest/middleware/request-id.js';
import { useHttpMetrics } from '../../rest/middleware/http-metrics.js';
import { useAccessLog } from '../../rest/middleware/access-log.js';
import { credentialSourceOf, judgeCredential, useIdentity } from '../../rest/middleware/identity.js';
import { useRateLimit } from '../../rest/middleware/rate-limit.js';
import { useIdempotency } from '../../rest/middleware/idempotency.js';
import { useGraphqlContentType } from '../../rest/middleware/graphql-content-type.js';
import { MCP_PATH } from '../../rest/routes/mcp.js';
import { useBearerChallenge } from '../../rest/middleware/bearer-challenge.js';
import { socketAddress, type RequestState } from '../../rest/request-state.js';
import '../../rest/request-state.js';

export interface AppOptions {
  /** Routes to serve (default: the whole route table). */
  routes?: RouteEntry[];
  /** Background workers to run in this process (default: all registered; [] for none). */
  workers?: BackgroundWorker[];
  logger?: Logger;
  /** Per-field GraphQL limits (default: `fieldRateLimits` of src/core/plugins/use-field-rate-limits.ts). */
  fieldRateLimits?: ConfigByField[];
}

/** How long requests in flight may take to finish once the server is shutting down. */
const SHUTDOWN_GRACE_MS = 5_000;

export interface App {
  config: Config;
  db: Database;
  prisma: Database['prisma'];
  pubsub: PubSub;
  services: Services;
  logger: Logger;
  server: http.Server;
  /** The bootstrap account, and its key when one was made on this start (print it once). */
  bootstrap: { accountId: string; printKey: string | null };
  /** Runs a GraphQL operation with a context, through the same plugins as /graphql (REST routes use this). */
  runOperation(document: DocumentNode | unknown, variables: Record<string, unknown>, ctx: Context): Promise<ExecutionResult>;
  listen(): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const routes = options.routes ?? routeTable;
  const db = await openDatabase(config, { onIdleError: (error) => logger.warn({ err: error }, 'database connection lost; it is replaced '
    + 'on next use') });
  const prisma = db.prisma;
  const onOutage = (error: Error, name: string) => logger.warn(
    { err: error, client: name }, 'Redis unreachable; retrying in the background',
  );
  const onRecovered = (name: string, outageS: number) => logger.info(
    { client: name, outageS: Math.round(outageS * 10) / 10 }, 'Redis reachable again',
  );
  const pubsub = createRedisPubSub({ redisUrl: config.redisUrl, prefix: config.redisPrefix, onOutage, onRecovered });
  const services = createServices({ config, prisma, pubsub });
  // Every request counts against its budget here: while Redis is away a count fails fast and the request goes through.
  const rateLimitRedis = requestRedis(config.redisUrl, {
    name: 'rate limits', keyPrefix: `${config.redisPrefix}ratelimit:`, timeoutMs: 500, onOutage, onRecovered,
  });
  const rateLimitStore = new RedisRateLimitStore(rateLimitRedis);
  const bootstrap = await services.accounts.ensureBootstrap(config.bootstrapApiKey);

  const contextFrom = (state: RequestState): Context => ({
    requestId: state.requestId,
    config, prisma, pubsub, services,
    identity: state.identity,
    credentialError: state.credentialError,
    ...(state.clientAddress ? { clientAddress: state.clientAddress } : {}),
    loaders: new Map(),
  });

  /** A socket's credential: the upgrade request's headers, or `authorization` in graphql-ws connection params. */
  const stateForSocket = async (req: http.IncomingMessage, connectionParams?: Record<string, unknown>): Promise<RequestState> => {
    const requestId = newRequestId();
    const source = credentialSourceOf(req);
    const fromParams = connectionParams?.authorization ?? connectionParams?.Authorization;
    if (typeof fromParams === 'string') source.authorization = fromParams;
    // Unlike HTTP (useIdentity), a failure on our side is kept as the credential error, not thrown.
    return {
      requestId, clientAddress: socketAddress(req), ...(await judgeCredential(services.auth.resolver, source, { serverErrors: 'keep' })),
    };
  };

  const graphql = createGraphQLServer({
    schema, logger, rateLimitStore, fieldRateLimits: options.fieldRateLimits, contextFrom, stateForSocket, settings: config.graphql,
  });

  const app = express();
  app.disable('x-powered-by');
  app.locals.routes = routes;
  app.set('trust proxy', 'loopback');
  app.set('json spaces', 0);
  app.use(useHttpMetrics());
  app.use(useRequestId());
  app.use(useBodyIdleTimeout(config.limits.bodyIdleTimeoutS));
  if (config.accessLog) app.use(useAccessLog(logger));
  app.use(useIdentity(services.auth.resolver));
  app.use(useRateLimit({ store: rateLimitStore, max: config.rateLimit.max, windowS: config.rateLimit.windowS, logger }));
  app.use('/graphql', useGraphqlContentType(), graphql.handle);
  app.use(MCP_PATH, useBearerChallenge(config.publicUrl));
  app.use(createRestRouter({
    routes,
    contextFor: (req) => contextFrom(req.sg),
    runOperation: graphql.runOperation,
    idempotency: useIdempotency(services.idempotency),
  }));
  app.use((req, _res, next) => next(errors.notFound(`${req.method} ${req.path}`)));
  app.use(errorHandler(logger));

  const server = http.createServer(app);
  server.on('clientError', answerClientError(logger));
  server.on('connection', limitConnectionsPerAddress(config.limits.connectionsPerAddress, logger, newRequestId));
  // Uploads of long recordings over slow links outlast Node's 5-minute default for a whole request; idle sockets are
  // still cut by the headers and keep-alive timeouts.
  server.requestTimeout = 0;
  // An idle keep-alive connection is closed by the client (undici: 4 s) or the load balancer in front (often 60 s)
  // before the server closes it: a server that closes first races the client's next request on that connection, which
  // then fails with ECONNRESET (seen when a busy event loop delays both sides' timers).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const restSockets = createSocketRouter({ routes, logger, contextFor: async (req) => contextFrom(await stateForSocket(req)) });
  server.on('upgrade', (req, socket, head) => {
    if (refuseBadHandshake(req, socket, logger)) return;
    if (new URL(req.url ?? '/', 'http://localhost').pathname === '/graphql') graphql.handleUpgrade(req, socket, head);
    else void restSockets.handleUpgrade(req, socket, head);
  });

  const running: { name: string; worker: RunningWorker }[] = [];
  for (const worker of options.workers ?? (config.runWorkers ? backgroundWorkers : [])) {
    running.push({ name: worker.name, worker: await worker.start({ config, prisma, pubsub, services, logger }) });
  }

  // RTMP ingest (RTMP_PORT; `off` runs none): encoders publish to it with an account's stream key (src/live/transports/rtmp.ts).
  // A port another process holds (a second gateway on this machine) is logged, not fatal: that one takes the encoders.
  const rtmp = config.rtmp.port === null ? null : await startRtmpServer({ services, config, logger }).catch((error: unknown) => {
    logger.error({ err: error, port: config.rtmp.port }, 'RTMP ingest not started: its port could not be opened (another gateway on this '
      + 'machine may hold it; set RTMP_PORT, or off)');
    return null;
  });

  let closed = false;
  return {
    config, db, prisma, pubsub, services, logger, server, bootstrap, runOperation: graphql.runOperation,
    listen: () => new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        const { port } = server.address() as AddressInfo;
        const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
        resolve({ port, url: `http://${host}:${port}` });
      });
    }),
    async close() {
      if (closed) return;
      closed = true;
      for (const { worker } of running.reverse()) await worker.stop().catch((error) => logger.warn(
        { err: error }, 'worker did not stop cleanly',
      ));
      await rtmp?.close().catch((error: unknown) => logger.warn({ err: error }, 'RTMP server did not stop cleanly'));
      // Graceful: no new connections; sockets told (1001) and given a moment to close; requests in flight may finish
      // within the grace, idle keep-alive connections are closed at once; what is left after it is cut.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections?.();
      await Promise.all([graphql.close(), restSockets.close()]);
      const cut = setTimeout(() => server.closeAllConnections?.(), SHUTDOWN_GRACE_MS);
      await drained;
      clearTimeout(cut);
      // Services holding resources of their own (engine threads, queues) expose close().
      await closeServices(services, (error, name) => logger.warn({ err: error, service: name }, 'service did not close cleanly'));
      await pubsub.close();
      rateLimitRedis.disconnect();
      await db.close();
    },
  };
}


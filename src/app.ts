/**
 * `createApp(config)`: the whole gateway in one process — express with the REST /v1 route table, graphql-yoga at
 * /graphql (GraphiQL included), graphql-ws and the REST WebSockets on the same port, Redis pub/sub, the database,
 * and the background workers. `main.ts` runs it; tests run it on a random port (test/helpers/server.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import express from 'express';
import { createYoga } from 'graphql-yoga';
import type { DocumentNode, ExecutionResult } from 'graphql';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { Redis } from 'ioredis';
import { RedisStore, type ConfigByField } from '@envelop/rate-limiter';
import type { Config } from './config.js';
import { ApiError, errors, toApiError } from './errors.js';
import { openDatabase, type Database } from './db/index.js';
import { createLogger, type Logger } from './logger.js';
import { createRedisPubSub, type PubSub } from './pubsub.js';
import { createServices, type Services } from './services/index.js';
import { schema } from './schema/index.js';
import type { Context } from './schema/context.js';
import { useApiErrorCodes, useApiErrorMasking } from './plugins/use-api-errors.js';
import { useFieldRateLimits } from './plugins/use-field-rate-limits.js';
import { backgroundWorkers } from './background-workers.js';
import type { BackgroundWorker, RunningWorker } from './background.js';
import { routeTable } from '../rest/route-table.js';
import type { RouteEntry, SocketRoute } from '../rest/types.js';
import { createRestRouter, expressPath } from '../rest/router.js';
import { errorHandler } from '../rest/envelope.js';
import { newRequestId, useRequestId } from '../rest/middleware/request-id.js';
import { credentialSourceOf, useIdentity } from '../rest/middleware/identity.js';
import { useRateLimit } from '../rest/middleware/rate-limit.js';
import { useIdempotency } from '../rest/middleware/idempotency.js';
import type { RequestState } from '../rest/request-state.js';
import '../rest/request-state.js';

export interface AppOptions {
  /** Routes to serve (default: the whole route table). */
  routes?: RouteEntry[];
  /** Background workers to run in this process (default: all registered; [] for none). */
  workers?: BackgroundWorker[];
  logger?: Logger;
  /** Per-field GraphQL limits (default: `fieldRateLimits` of src/plugins/use-field-rate-limits.ts). */
  fieldRateLimits?: ConfigByField[];
}

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
  const db = await openDatabase(config, { onIdleError: (error) => logger.warn({ err: error }, 'database connection lost; it is replaced on next use') });
  const prisma = db.prisma;
  const pubsub = createRedisPubSub({ redisUrl: config.redisUrl, prefix: config.redisPrefix });
  const services = createServices({ config, prisma, pubsub });
  const rateLimitRedis = new Redis(config.redisUrl, { keyPrefix: `${config.redisPrefix}ratelimit:`, maxRetriesPerRequest: 2 });
  const rateLimitStore = new RedisStore(rateLimitRedis);
  const bootstrap = await services.accounts.ensureBootstrap(config.bootstrapApiKey);

  const contextFrom = (state: RequestState): Context => ({
    requestId: state.requestId,
    config, prisma, pubsub, services,
    identity: state.identity,
    credentialError: state.credentialError,
    loaders: new Map(),
  });

  /** A socket's credential: the upgrade request's headers, or `authorization` in graphql-ws connection params. */
  const stateForSocket = async (req: http.IncomingMessage, connectionParams?: Record<string, unknown>): Promise<RequestState> => {
    const state: RequestState = { requestId: newRequestId(), identity: null, credentialError: null };
    const source = credentialSourceOf(req);
    const fromParams = connectionParams?.authorization ?? connectionParams?.Authorization;
    if (typeof fromParams === 'string') source.authorization = fromParams;
    try {
      state.identity = await services.auth.resolver.resolve(source);
    } catch (error) {
      state.credentialError = toApiError(error);
    }
    return state;
  };

  const yoga = createYoga<{ req?: express.Request | http.IncomingMessage; connectionParams?: Record<string, unknown> }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { subscriptionsProtocol: 'WS', title: 'speechgate GraphiQL' },
    landingPage: false,
    logging: false,
    maskedErrors: useApiErrorMasking(logger),
    plugins: [useApiErrorCodes(), useFieldRateLimits({ store: rateLimitStore, limits: options.fieldRateLimits })],
    context: async (initial): Promise<Context> => {
      // REST: the route runner built the whole context already and yoga merges what we return into it.
      if ('identity' in initial) return initial as unknown as Context;
      const req = initial.req as (express.Request & { sg?: RequestState }) | undefined;
      if (req?.sg) return contextFrom(req.sg);
      if (req) return contextFrom(await stateForSocket(req, initial.connectionParams));
      throw errors.internal(new Error('GraphQL context without a request'));
    },
  });

  const runOperation: App['runOperation'] = async (document, variables, ctx) => {
    const { execute, contextFactory, schema: envelopedSchema } = yoga.getEnveloped(ctx as never);
    const contextValue = await contextFactory();
    return (await execute({ schema: envelopedSchema, document: document as DocumentNode, variableValues: variables, contextValue })) as ExecutionResult;
  };

  const app = express();
  app.disable('x-powered-by');
  app.locals.routes = routes;
  app.set('trust proxy', 'loopback');
  app.set('json spaces', 0);
  app.use(useRequestId());
  app.use(useIdentity(services.auth.resolver));
  app.use(useRateLimit({ store: rateLimitStore, max: config.rateLimit.max, windowS: config.rateLimit.windowS, logger }));
  app.use('/graphql', (req, res) => yoga(req, res, { req }));
  app.use(createRestRouter({
    routes,
    contextFor: (req) => contextFrom(req.sg),
    runOperation,
    idempotency: useIdempotency({ prisma, logger }),
  }));
  app.use((req, _res, next) => next(errors.notFound(`${req.method} ${req.path}`)));
  app.use(errorHandler(logger));

  const server = http.createServer(app);
  const graphqlSockets = new WebSocketServer({ noServer: true });
  const graphqlWsDisposable = useServer<Record<string, unknown>>({
    execute: (args) => (args.rootValue as { execute: (a: unknown) => unknown }).execute(args) as never,
    subscribe: (args) => (args.rootValue as { subscribe: (a: unknown) => unknown }).subscribe(args) as never,
    onSubscribe: async (ctx, _id, payload) => {
      const { schema: envelopedSchema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        req: ctx.extra.request,
        connectionParams: ctx.connectionParams,
      });
      const document = parse(payload.query);
      const validationErrors = validate(envelopedSchema, document);
      if (validationErrors.length) return validationErrors;
      return {
        schema: envelopedSchema,
        operationName: payload.operationName,
        document,
        variableValues: payload.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
    },
  }, graphqlSockets);

  const socketRoutes = routes.filter((route): route is SocketRoute => route.method === 'ws')
    .map((route) => ({ route, pattern: new RegExp(`^${expressPath(route.path).replace(/:([A-Za-z0-9_]+)/g, '(?<$1>[^/]+)')}$`) }));
  const restSockets = new WebSocketServer({ noServer: true });

  const refuseUpgrade = (socket: Duplex, error: ApiError, requestId: string) => {
    const body = JSON.stringify(error.toEnvelope(requestId));
    const headers = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'X-Request-Id': requestId, Connection: 'close', ...error.headers };
    socket.end(`HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status] ?? 'Error'}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
  };

  server.on('upgrade', async (req, socket, head) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname === '/graphql') {
      graphqlSockets.handleUpgrade(req, socket, head, (ws) => graphqlSockets.emit('connection', ws, req));
      return;
    }
    const state = await stateForSocket(req);
    try {
      const match = socketRoutes.map(({ route, pattern }) => ({ route, groups: pattern.exec(pathname)?.groups })).find((m) => m.groups);
      if (!match) throw errors.notFound(`WebSocket ${pathname}`);
      const params = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
      const ctx = contextFrom(state);
      await match.route.authorize?.(req, params, ctx);
      restSockets.handleUpgrade(req, socket, head, (ws) => {
        Promise.resolve(match.route.onConnection(ws, req, params, ctx)).catch((error) => {
          logger.error({ err: error, path: pathname }, 'socket handler failed');
          ws.close(1011, 'internal');
        });
      });
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500) logger.error({ err: error, path: pathname }, 'upgrade failed');
      refuseUpgrade(socket, apiError, state.requestId);
    }
  });

  const running: { name: string; worker: RunningWorker }[] = [];
  for (const worker of options.workers ?? (config.runWorkers ? backgroundWorkers : [])) {
    running.push({ name: worker.name, worker: await worker.start({ config, prisma, pubsub, services, logger }) });
  }

  let closed = false;
  return {
    config, db, prisma, pubsub, services, logger, server, bootstrap, runOperation,
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
      for (const { worker } of running.reverse()) await worker.stop().catch(() => undefined);
      await graphqlWsDisposable.dispose();
      for (const client of [...graphqlSockets.clients, ...restSockets.clients]) client.terminate();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pubsub.close();
      rateLimitRedis.disconnect();
      await db.close();
    },
  };
}


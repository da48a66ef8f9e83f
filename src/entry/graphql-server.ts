/**
 * GraphQL over HTTP (graphql-yoga at /graphql, GraphiQL included) and over WebSocket (graphql-ws on the same port),
 * and `runOperation` for the REST adapter: one yoga instance, so REST, HTTP and socket operations go through the
 * same plugins (error codes, per-field limits).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type express from 'express';
import { createYoga } from 'graphql-yoga';
import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import type { ConfigByField, Store } from '@envelop/rate-limiter';
import { errors } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Context } from '../core/context.js';
import { asRequestError, useApiErrorCodes, useApiErrorMasking } from '../core/plugins/use-api-errors.js';
import { useFieldRateLimits } from '../core/plugins/use-field-rate-limits.js';
import { useTextInput } from '../core/plugins/use-text-input.js';
import { useQueryLimits } from '../core/plugins/use-query-limits.js';
import { useMetrics } from '../core/plugins/use-metrics.js';
import { renderGraphiQLPage } from '../core/graphiql.js';
import { requestBaseUrl } from '../core/base-url.js';
import type { GraphQLSettings } from '../core/config/graphql.js';
import type { RequestState } from '../../rest/request-state.js';

export interface GraphQLServerOptions {
  schema: GraphQLSchema;
  logger: Logger;
  rateLimitStore: Store;
  fieldRateLimits?: ConfigByField[];
  /** Introspection policy and query limits (config.graphql). */
  settings: GraphQLSettings;
  /** The context of a request whose credential was already judged (express middlewares). */
  contextFrom: (state: RequestState) => Context;
  /** Judges a socket's credential: its upgrade headers, or `authorization` in graphql-ws connection params. */
  stateForSocket: (req: http.IncomingMessage, connectionParams?: Record<string, unknown>) => Promise<RequestState>;
}

export interface GraphQLServer {
  /** Express handler for /graphql. */
  handle: express.RequestHandler;
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  runOperation(document: DocumentNode | unknown, variables: Record<string, unknown>, ctx: Context): Promise<ExecutionResult>;
  close(): Promise<void>;
}

export function createGraphQLServer(options: GraphQLServerOptions): GraphQLServer {
  const yoga = createYoga<{ req?: express.Request | http.IncomingMessage; connectionParams?: Record<string, unknown> }, Context>({
    schema: options.schema,
    graphqlEndpoint: '/graphql',
    graphiql: { subscriptionsProtocol: 'WS', title: 'speechgate GraphiQL' },
    // Assets from this server, never a CDN (src/core/graphiql.ts).
    renderGraphiQL: renderGraphiQLPage,
    landingPage: false,
    logging: false,
    maskedErrors: useApiErrorMasking(options.logger),
    plugins: [
      useApiErrorCodes(),
      useTextInput(),
      useMetrics(),
      useFieldRateLimits({ store: options.rateLimitStore, limits: options.fieldRateLimits }),
      ...useQueryLimits(options.settings),
    ],
    context: async (initial): Promise<Context> => {
      // REST: the route runner built the whole context already and yoga merges what we return into it.
      if ('identity' in initial) return initial as unknown as Context;
      const req = initial.req as (express.Request & { sg?: RequestState }) | undefined;
      if (req) {
        const ctx = options.contextFrom(req.sg ?? await options.stateForSocket(req, initial.connectionParams));
        return { ...ctx, baseUrl: requestBaseUrl(req, ctx.config.publicUrl) };
      }
      throw errors.internal(new Error('GraphQL context without a request'));
    },
  });

  // Bounded like the other sockets: a message over the payload limit closes the socket (1009) before it is buffered
  // whole; graphql-ws closes a socket that sends anything but `connection_init` first (4401) or nothing in time (4408).
  const { wsMaxPayload, wsMaxOperations, wsInitTimeoutS } = options.settings;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: wsMaxPayload, perMessageDeflate: false });
  const graphqlWs = useServer<Record<string, unknown>>({
    connectionInitWaitTimeout: wsInitTimeoutS * 1000,
    execute: (args) => (args.rootValue as { execute: (a: unknown) => unknown }).execute(args) as never,
    subscribe: (args) => (args.rootValue as { subscribe: (a: unknown) => unknown }).subscribe(args) as never,
    onSubscribe: async (ctx, _id, payload) => {
      // This operation is counted already (graphql-ws reserves its id before asking).
      if (Object.keys(ctx.subscriptions).length > wsMaxOperations) {
        return [asRequestError(errors.invalidState(`This connection has ${wsMaxOperations} operations running `
          + `(GRAPHQL_WS_MAX_OPERATIONS): complete one before starting another.`, { limit: wsMaxOperations }))];
      }
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        req: ctx.extra.request,
        connectionParams: ctx.connectionParams,
      });
      let document: DocumentNode;
      try {
        document = parse(payload.query);
      } catch (error) {
        // Syntax errors and the token limit: answered as an error message, not a closed socket.
        if (error instanceof GraphQLError) return [error];
        throw error;
      }
      const validationErrors = validate(schema, document);
      if (validationErrors.length) return validationErrors;
      return {
        schema,
        operationName: payload.operationName,
        document,
        variableValues: payload.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
    },
  }, sockets);

  return {
    handle: (req, res) => yoga(req, res, { req }),
    handleUpgrade: (req, socket, head) =>
      sockets.handleUpgrade(req, socket, head, (ws) => {
        sockets.emit('connection', ws, req);
        // graphql-ws reports every socket error on the console as a failure of its own; a client's protocol error (a
        // message over the payload limit, a malformed frame) is the client's: logged as the other sockets log it.
        ws.removeAllListeners('error');
        ws.on('error', (error) => {
          options.logger.info({ err: error, path: '/graphql' }, 'socket closed on a protocol error');
          ws.terminate();
        });
      }),
    async runOperation(document, variables, ctx) {
      const { execute, contextFactory, schema } = yoga.getEnveloped(ctx as never);
      const contextValue = await contextFactory();
      return (await execute({ schema, document: document as DocumentNode, variableValues: variables, contextValue })) as ExecutionResult;
    },
    async close() {
      await graphqlWs.dispose();
      for (const client of sockets.clients) client.terminate();
    },
  };
}

/**
 * Serves the route table: for each entry, the middlewares it opts into (JSON body, idempotency), then either its
 * GraphQL operation (variables from the request, result mapped to the REST answer) or its handler. Paths of the
 * table answered with another method are `405` (with `Allow`); anything else under the router is `404`.
 */
import express, { type Router } from 'express';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { ApiError, errors } from '../src/errors.js';
import type { Context } from '../src/schema/context.js';
import type { RestInput, RouteEntry } from './types.js';
import { useJsonBody } from './middleware/json-body.js';

export type RunOperation = (document: unknown, variables: Record<string, unknown>, ctx: Context) => Promise<ExecutionResult>;

export interface RestRouterOptions {
  routes: RouteEntry[];
  contextFor: (req: express.Request) => Context;
  runOperation: RunOperation;
  idempotency: express.RequestHandler;
}

/** `/v1/a/{id}` → `/v1/a/:id` */
export const expressPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/** Rebuilds the ApiError a resolver threw from the GraphQL error's extensions (see src/plugins/use-api-errors.ts). */
export function apiErrorOf(error: GraphQLError): ApiError {
  if (error.originalError instanceof ApiError) return error.originalError;
  const ext = error.extensions as { code?: string; status?: number; retryable?: boolean; details?: Record<string, unknown> };
  if (ext?.code && ext.status) return new ApiError(ext.code, ext.status, error.message, { retryable: ext.retryable, details: ext.details });
  return errors.internal(error);
}

export function createRestRouter(options: RestRouterOptions): Router {
  const router = express.Router({ strict: false, caseSensitive: true });
  const methodsByPath = new Map<string, Set<string>>();
  const jsonBody = useJsonBody();

  for (const route of options.routes) {
    if (route.method === 'ws') continue; // served on upgrade, see src/app.ts
    const path = expressPath(route.path);
    methodsByPath.set(path, (methodsByPath.get(path) ?? new Set()).add(route.method.toUpperCase()));
    const middlewares: express.RequestHandler[] = [];
    if (route.method !== 'get' && route.method !== 'delete' && !('ownBody' in route && route.ownBody)) middlewares.push(jsonBody);
    if (route.idempotent) middlewares.push(options.idempotency);

    router[route.method](path, ...middlewares, async (req, res, next) => {
      try {
        const ctx = options.contextFor(req);
        if ('handler' in route) {
          await route.handler(req, res, ctx);
          return;
        }
        const input: RestInput = {
          params: req.params as Record<string, string>,
          query: req.query as RestInput['query'],
          body: req.body,
          headers: req.headers,
        };
        const variables = (route.variables?.(input) ?? {}) as Record<string, unknown>;
        const result = await options.runOperation(route.document, variables, ctx);
        if (result.errors?.length) throw apiErrorOf(result.errors[0]!);
        const answer = route.result(result.data, input);
        for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
        if (answer.body === undefined) res.status(answer.status).end();
        else res.status(answer.status).json(answer.body);
      } catch (error) {
        next(error);
      }
    });
  }

  for (const [path, methods] of methodsByPath) {
    const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].join(', ');
    router.all(path, (req, res, next) => {
      res.setHeader('Allow', allow);
      next(new ApiError('method_not_allowed', 405, `${req.method} is not allowed on ${req.path}; allowed: ${allow}.`, { details: { allow: [...methods] } }));
    });
  }
  return router;
}

/**
 * Serves the route table: for each entry, the middlewares it opts into (JSON body, idempotency), its declared query
 * parameters checked (rest/query.ts), then either its GraphQL operation (variables from the request, result mapped
 * to the REST answer) or its handler. Paths of the table answered with another method are `405` (with `Allow`);
 * anything else under the router is `404`.
 */
import express, { type Router } from 'express';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { ApiError, errors } from '../src/core/errors.js';
import type { Context } from '../src/core/context.js';
import { requireIdentity, requireScope } from '../src/core/identity/scopes.js';
import { refuseBadInput } from '../src/core/text-input.js';
import type { GraphQLRoute, HandlerRoute, RestInput, RouteEntry, RunTyped } from './types.js';
import { requestBaseUrl } from '../src/core/base-url.js';
import { useJsonBody } from './middleware/json-body.js';
import { checkQuery } from './query.js';

export type RunOperation = (document: unknown, variables: Record<string, unknown>, ctx: Context) => Promise<ExecutionResult>;

export interface RestRouterOptions {
  routes: RouteEntry[];
  contextFor: (req: express.Request) => Context;
  runOperation: RunOperation;
  idempotency: express.RequestHandler;
}

/** `/v1/a/{id}` → `/v1/a/:id` */
export const expressPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/** Rebuilds the ApiError a resolver threw from the GraphQL error's extensions (see src/core/plugins/use-api-errors.ts). */
export function apiErrorOf(error: GraphQLError): ApiError {
  if (error.originalError instanceof ApiError) return error.originalError;
  const ext = error.extensions as { code?: string; status?: number; retryable?: boolean; details?: Record<string, unknown> };
  if (ext?.code && ext.status) return new ApiError(ext.code, ext.status, error.message, { retryable: ext.retryable, details: ext.details });
  return errors.internal(error);
}

/** Enforces the credential and scopes a route declares (`user`, `key`, `userOrKey`); public and optional pass. */
function useDeclaredAuth(route: GraphQLRoute | HandlerRoute): express.RequestHandler {
  return (req, _res, next) => {
    try {
      if (route.auth.mode !== 'public' && route.auth.mode !== 'optional') {
        requireIdentity(req.sg);
        for (const scope of route.auth.scopes) requireScope(req.sg, scope);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}

/**
 * What every route's input must satisfy before its own rules run: no NUL character in any path, query or body
 * string; the declared query parameters as declared (rest/query.ts: once each, type, range, enum); a JSON body
 * that is an object when the route takes one.
 */
function checkInput(route: GraphQLRoute | HandlerRoute, input: RestInput): void {
  refuseBadInput(input.params);
  refuseBadInput(input.query);
  checkQuery(route.parameters, input.query, !('undocumented' in route && route.undocumented));
  const bodySchema = route.request?.schema;
  if (input.body !== undefined && bodySchema?.type === 'object' && (input.body === null || typeof input.body !== 'object' || Array.isArray(
    input.body,
  ))) {
    throw errors.invalidOptions('The body must be a JSON object.', { field: 'body' });
  }
}

/** How many `:param` segments a path has: fewer means more specific. */
const paramCount = (path: string) => (path.match(/:/g) ?? []).length;

export function createRestRouter(options: RestRouterOptions): Router {
  const router = express.Router({ strict: false, caseSensitive: true });
  const jsonBody = useJsonBody();

  const serve = (route: GraphQLRoute | HandlerRoute, path: string) => {
    // A protected route answers 401/403 before it looks at anything else the request sent.
    const middlewares: express.RequestHandler[] = [useDeclaredAuth(route)];
    if (route.method !== 'get' && route.method !== 'delete' && !('ownBody' in route && route.ownBody)) middlewares.push(jsonBody);
    // A route reading its own body claims the key itself once the body is read (see holdIdempotencyKey).
    if (route.idempotent && !('ownBody' in route && route.ownBody)) middlewares.push(options.idempotency);

    router[route.method](path, ...middlewares, async (req, res, next) => {
      try {
        const ctx = options.contextFor(req);
        ctx.baseUrl = requestBaseUrl(req, ctx.config.publicUrl);
        const input: RestInput = {
          params: req.params as Record<string, string>,
          query: req.query as RestInput['query'],
          body: req.body,
          headers: req.headers,
        };
        checkInput(route, input);
        if ('handler' in route) {
          const run: RunTyped = async (document, variables) => {
            const result = await options.runOperation(document, variables as Record<string, unknown>, ctx);
            if (result.errors?.length) throw apiErrorOf(result.errors[0]!);
            return result.data as never;
          };
          await route.handler(req, res, ctx, run);
          return;
        }
        const variables = (route.variables?.(input, ctx) ?? {}) as Record<string, unknown>;
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
  };

  // Paths are served most specific first, each followed by its 405: `PATCH /v1/transcriptions/probe` is a 405 of
  // the probe's path, not a PATCH of a transcription whose id is "probe".
  const httpRoutes = options.routes.filter((route): route is GraphQLRoute | HandlerRoute => route.method !== 'ws');
  const paths = [...new Set(httpRoutes.map((route) => expressPath(route.path)))].sort((a, b) => paramCount(a) - paramCount(b));
  for (const path of paths) {
    const onPath = httpRoutes.filter((route) => expressPath(route.path) === path);
    for (const route of onPath) serve(route, path);
    const methods = onPath.map((route) => route.method.toUpperCase());
    const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
    router.all(path, (req, res, next) => {
      res.setHeader('Allow', allow);
      next(new ApiError(
        'method_not_allowed', 405, `${req.method} is not allowed on ${req.path}; allowed: ${allow}.`, { details: { allow: methods } },
      ));
    });
  }
  return router;
}

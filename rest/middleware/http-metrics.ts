/**
 * Times every HTTP request into `speechgate_http_request_duration_seconds` (src/core/metrics.ts) once its response
 * is sent, labelled by the route's template — the OpenAPI path the router matched (`/v1/recordings/{id}`), `/graphql`,
 * or `unmatched` — never the raw URL, so ids and probes of unknown paths cannot grow the series without bound.
 * WebSocket upgrades do not pass through express and are not timed here.
 */
import type { RequestHandler } from 'express';
import { httpRequestDuration } from '../../src/core/metrics.js';

/** `/v1/a/:id` (what express matched) → `/v1/a/{id}` (the route table's and OpenAPI's spelling). */
const openApiPath = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function routeTemplate(req: Parameters<RequestHandler>[0]): string {
  // express keeps the last route matched on the request (the REST router is mounted at the root).
  const matched = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof matched === 'string') return openApiPath(matched);
  if (req.originalUrl === '/graphql' || req.originalUrl.startsWith('/graphql?') || req.originalUrl.startsWith('/graphql/')) {
    return '/graphql';
  }
  return 'unmatched';
}

export function useHttpMetrics(): RequestHandler {
  return (req, res, next) => {
    const stopTimer = httpRequestDuration.startTimer();
    res.once('finish', () => stopTimer({ method: req.method, route: routeTemplate(req), status: String(res.statusCode) }));
    next();
  };
}

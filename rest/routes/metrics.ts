/** `GET /metrics`: this process's Prometheus metrics for the operator, outside /v1 and the OpenAPI document (rest/metrics.ts). */
import { answerScrape, gatewayScrapeSources } from '../metrics.js';
import type { RouteSpec } from '../types.js';

export const metricsRoutes: RouteSpec[] = [
  {
    method: 'get', path: '/metrics', operationId: 'getMetrics', tags: ['meta'], undocumented: true, auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'Prometheus text exposition format.', contentType: 'text/plain' },
    handler: (req, res, ctx) => answerScrape(req, res, ctx.config.metrics, gatewayScrapeSources(ctx)),
  },
];

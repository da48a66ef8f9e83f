/**
 * `GET /metrics`: this process's Prometheus metrics (src/core/metrics.ts), for the operator's Prometheus, not for API
 * callers, so it is outside /v1 and not in the OpenAPI document. Who may read it is configuration
 * (src/core/config/metrics.ts): with METRICS_TOKEN a bearer token from anyone; without, loopback peers (`local`, the
 * default) or anyone (`open`); METRICS=off serves nothing (404).
 */
import crypto from 'node:crypto';
import type { Request } from 'express';
import { ApiError, errors } from '../../src/core/errors.js';
import { METRICS_CONTENT_TYPE, scrapeMetrics } from '../../src/core/metrics.js';
import type { MetricsSettings } from '../../src/core/config/metrics.js';
import type { RouteEntry } from '../types.js';

/** Constant-time: digests of equal length compared with timingSafeEqual, so the time says nothing of the token. */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/** The peer as express sees it (behind a proxy on this machine, the forwarded client, so a proxied caller is not local). */
const isLoopback = (address: string | undefined) => !!address && /^(127\.|::1$|::ffff:127\.)/.test(address);

function allowScrape(req: Request, settings: MetricsSettings): void {
  if (settings.access === 'off') throw errors.notFound(`${req.method} ${req.path}`);
  if (settings.token !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!match || !sameToken(match[1]!, settings.token)) {
      throw new ApiError('invalid_token', 401, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
    }
    return;
  }
  if (settings.access === 'local' && !isLoopback(req.ip)) {
    throw errors.forbidden('GET /metrics is served to this machine only; the operator sets METRICS_TOKEN (or METRICS=open) to scrape it from elsewhere.');
  }
}

export const metricsRoutes: RouteEntry[] = [
  {
    method: 'get', path: '/metrics', operationId: 'getMetrics', tags: ['meta'], undocumented: true,
    summary: 'Prometheus metrics of this process (operators; see README "Metrics and health").',
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'Prometheus text exposition format.', contentType: 'text/plain' },
    handler: async (req, res, ctx) => {
      allowScrape(req, ctx.config.metrics);
      const { realtime, listeners } = ctx.services;
      const text = await scrapeMetrics({
        prisma: ctx.prisma,
        realtime: () => {
          const load = realtime.runtime.admission.load();
          return { slotsBusy: load.active, slots: load.maxSessions, waiting: load.waiting, sessionsOpen: realtime.runtime.sockets.openSessions };
        },
        listenersConnected: () => listeners.fanout.size,
      });
      res.setHeader('Content-Type', METRICS_CONTENT_TYPE);
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).send(text);
    },
  },
];

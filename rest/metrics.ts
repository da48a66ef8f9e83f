/**
 * `GET /metrics` served: this process's Prometheus metrics (src/core/metrics.ts), for the operator's Prometheus, not for
 * API callers, so it is outside /v1 and not in the OpenAPI document. Who may read it is configuration
 * (src/core/config/metrics.ts): with METRICS_TOKEN a bearer token from anyone; without, loopback peers (`local`, the
 * default) or anyone (`open`); METRICS=off serves nothing (404).
 *
 * Gateways serve it in their route table (rest/routes/metrics.ts). `npm run worker` processes have no API:
 * `listenForScrapes` gives them a listener of their own (METRICS_PORT) with the same route under the same rules, and
 * `GET /v1/health` as liveness.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import type { Context } from '../src/core/context.js';
import { ApiError, errors } from '../src/core/errors.js';
import type { Logger } from '../src/core/logger.js';
import { METRICS_CONTENT_TYPE, scrapeMetrics, type ScrapeSources } from '../src/core/metrics.js';
import type { MetricsSettings } from '../src/core/config/metrics.js';
import { answerClientError, errorHandler } from './envelope.js';
import { useHttpMetrics } from './middleware/http-metrics.js';
import { useRequestId } from './middleware/request-id.js';

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
      throw new ApiError('invalid_token', 401, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', { headers: {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      } });
    }
    return;
  }
  if (settings.access === 'local' && !isLoopback(req.ip)) {
    throw errors.forbidden('GET /metrics is served to this machine only; the operator sets METRICS_TOKEN (or METRICS=open) to scrape it '
      + 'from elsewhere.');
  }
}

/** A scrape, refused as the settings say, else answered with the metrics read now. */
export async function answerScrape(req: Request, res: Response, settings: MetricsSettings, sources: ScrapeSources): Promise<void> {
  allowScrape(req, settings);
  const text = await scrapeMetrics(sources);
  res.setHeader('Content-Type', METRICS_CONTENT_TYPE);
  res.setHeader('Cache-Control', 'no-store');
  res.status(200).send(text);
}

/** What a gateway's scrape reads: the database, its realtime engine slots and sessions, and the listeners connected. */
export function gatewayScrapeSources(ctx: Context): ScrapeSources {
  const { realtime, listeners } = ctx.services;
  return {
    prisma: ctx.prisma,
    realtime: () => {
      const load = realtime.runtime.admission.load();
      return {
        slotsBusy: load.active, slots: load.maxSessions, waiting: load.waiting, sessionsOpen: realtime.runtime.sockets.openSessions,
      };
    },
    listenersConnected: () => listeners.fanout.size,
  };
}

export interface ScrapeListenerOptions {
  settings: MetricsSettings;
  /** Where to listen (HOST and METRICS_PORT). */
  host: string;
  port: number;
  /** What a scrape reads: a worker gives the database only (it holds no realtime sessions nor sockets). */
  sources: ScrapeSources;
  logger: Logger;
}

export interface ScrapeListener {
  /** Where it listens (`http://127.0.0.1:<port>` when HOST is every interface). */
  url: string;
  close(): Promise<void>;
}

/**
 * The HTTP listener of a process without the API (`npm run worker`): `GET /metrics` as the gateway serves it, `GET
 * /v1/health` (liveness: 200 while the process runs), every other request 404 in the envelope. Requests are timed in
 * `speechgate_http_request_duration_seconds` as the gateway's are, and a proxy on loopback is trusted as there.
 */
export function listenForScrapes(options: ScrapeListenerOptions): Promise<ScrapeListener> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(useHttpMetrics());
  app.use(useRequestId());
  app.get('/metrics', (req, res, next) => {
    answerScrape(req, res, options.settings, options.sources).catch(next);
  });
  app.get('/v1/health', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({ status: 'ok' });
  });
  app.use((req, _res, next) => next(errors.notFound(`${req.method} ${req.path}`)));
  app.use(errorHandler(options.logger));
  const server = http.createServer(app);
  server.on('clientError', answerClientError(options.logger));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
      resolve({
        url: `http://${host}:${port}`,
        close: () => new Promise<void>((closed) => {
          server.close(() => closed());
          // A Prometheus keeps its connection open between scrapes: cut it rather than wait for it.
          server.closeAllConnections();
        }),
      });
    });
  });
}

/**
 * The REST WebSockets of the route table (`method: 'ws'` entries): matches the upgrade's path, builds the caller's
 * context, runs the entry's `authorize` before accepting, and answers a refusal as an HTTP error envelope (with
 * `X-Request-Id` and the error's headers, e.g. Retry-After) instead of a bare socket close.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { ApiError, errors, isExpectedError, toApiError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import type { Context } from '../src/schema/context.js';
import { expressPath } from './router.js';
import type { RouteEntry, SocketRoute } from './types.js';

export interface SocketRouterOptions {
  routes: RouteEntry[];
  /** The caller's context from the upgrade request (credential judged from its headers). */
  contextFor: (req: http.IncomingMessage) => Promise<Context>;
  logger: Logger;
}

export interface SocketRouter {
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  close(): void;
}

function refuseUpgrade(socket: Duplex, error: ApiError, requestId: string) {
  const body = JSON.stringify(error.toEnvelope(requestId));
  const headers = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'X-Request-Id': requestId, Connection: 'close', ...error.headers };
  socket.end(`HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status] ?? 'Error'}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
}

export function createSocketRouter(options: SocketRouterOptions): SocketRouter {
  const routes = options.routes.filter((route): route is SocketRoute => route.method === 'ws')
    .map((route) => ({ route, pattern: new RegExp(`^${expressPath(route.path).replace(/:([A-Za-z0-9_]+)/g, '(?<$1>[^/]+)')}$`) }));
  const sockets = new WebSocketServer({ noServer: true });
  // The 101 answer carries the request id too, so a socket's frames and our logs can be matched.
  const requestIds = new WeakMap<http.IncomingMessage, string>();
  sockets.on('headers', (headers, req) => {
    const requestId = requestIds.get(req);
    if (requestId) headers.push(`X-Request-Id: ${requestId}`);
  });

  return {
    async handleUpgrade(req, socket, head) {
      const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      const ctx = await options.contextFor(req);
      try {
        // A path without parameters matches with no `groups` at all: match on the exec result, not its groups.
        const match = routes.map(({ route, pattern }) => ({ route, found: pattern.exec(pathname) })).find((m) => m.found);
        if (!match) throw errors.notFound(`WebSocket ${pathname}`);
        const params = Object.fromEntries(Object.entries(match.found?.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
        await match.route.authorize?.(req, params, ctx);
        requestIds.set(req, ctx.requestId);
        sockets.handleUpgrade(req, socket, head, (ws) => {
          Promise.resolve(match.route.onConnection(ws, req, params, ctx)).catch((error) => {
            options.logger.error({ err: error, path: pathname, requestId: ctx.requestId }, 'socket handler failed');
            ws.close(1011, 'internal');
          });
        });
      } catch (error) {
        const apiError = toApiError(error);
        // Refusals the protocol expects (401, 410, 404..., and 503 unavailable: busy or not ready, retry later)
        // are the caller's business, not a fault of ours; only unexpected failures are errors.
        if (isExpectedError(apiError)) options.logger.info({ code: apiError.code, status: apiError.status, path: pathname, requestId: ctx.requestId }, 'upgrade refused');
        else options.logger.error({ err: error, path: pathname, requestId: ctx.requestId }, 'upgrade failed');
        refuseUpgrade(socket, apiError, ctx.requestId);
      }
    },
    close() {
      for (const client of sockets.clients) client.terminate();
    },
  };
}

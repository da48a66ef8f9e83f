/**
 * The REST WebSockets of the route table (`method: 'ws'` entries): matches the upgrade's path, builds the caller's
 * context, runs the entry's `authorize` before accepting, and answers a refusal as an HTTP error envelope (with
 * `X-Request-Id` and the error's headers, e.g. Retry-After) instead of a bare socket close.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { ApiError, errors, isExpectedError, rawHttpAnswer, toApiError } from '../src/core/errors.js';
import { endAndRelease } from './connections.js';
import type { Logger } from '../src/core/logger.js';
import type { Context } from '../src/core/context.js';
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
  /** Tells every socket the server is going away (1001) and ends those still open after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

function refuseUpgrade(socket: Duplex, error: ApiError, requestId: string) {
  endAndRelease(socket, rawHttpAnswer(error, requestId));
}

/** How long a socket may take to close after being told the server is going away. */
const SHUTDOWN_GRACE_MS = 5_000;

/** Client frames of a socket that declares no limit of its own (they send small JSON control frames, if any). */
const DEFAULT_MAX_PAYLOAD = 64 * 1024;

/** A path segment as sent: a malformed %-escape names nothing that exists. */
function decodePathParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw errors.notFound(`The path segment ${JSON.stringify(value)}`);
  }
}

export function createSocketRouter(options: SocketRouterOptions): SocketRouter {
  const routes = options.routes.filter((route): route is SocketRoute => route.method === 'ws')
    .map((route) => ({ route, pattern: new RegExp(`^${expressPath(route.path).replace(/:([A-Za-z0-9_]+)/g, '(?<$1>[^/]+)')}$`) }));
  // One ws server per frame-size limit a route declares: ws applies `maxPayload` per server, and a client frame
  // over it closes that socket (1009) instead of being buffered.
  const servers = new Map<number, WebSocketServer>();
  // The 101 answer carries the request id too, so a socket's frames and our logs can be matched.
  const requestIds = new WeakMap<http.IncomingMessage, string>();
  const serverFor = (maxPayload: number) => {
    let server = servers.get(maxPayload);
    if (!server) {
      server = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false });
      server.on('headers', (headers, req) => {
        const requestId = requestIds.get(req);
        if (requestId) headers.push(`X-Request-Id: ${requestId}`);
      });
      servers.set(maxPayload, server);
    }
    return server;
  };

  return {
    async handleUpgrade(req, socket, head) {
      const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      // The raw socket may fail before the upgrade is answered (a client hanging up): heard, never uncaught.
      socket.on('error', () => socket.destroy());
      let requestId = 'req_unknown';
      try {
        const ctx = await options.contextFor(req);
        requestId = ctx.requestId;
        // A path without parameters matches with no `groups` at all: match on the exec result, not its groups.
        const match = routes.map(({ route, pattern }) => ({ route, found: pattern.exec(pathname) })).find((m) => m.found);
        if (!match) throw errors.notFound(`WebSocket ${pathname}`);
        const params = Object.fromEntries(Object.entries(match.found?.groups ?? {}).map(([k, v]) => [k, decodePathParam(v)]));
        await match.route.authorize?.(req, params, ctx);
        requestIds.set(req, ctx.requestId);
        serverFor(match.route.maxPayload ?? DEFAULT_MAX_PAYLOAD).handleUpgrade(req, socket, head, (ws) => {
          // A protocol error from the client (a bad frame, one over maxPayload) is an 'error' event on the socket:
          // without a listener it would end the process.
          ws.on('error', (error) => {
            options.logger.info({ err: error, path: pathname, requestId: ctx.requestId }, 'socket closed on a protocol error');
            ws.terminate();
          });
          Promise.resolve(match.route.onConnection(ws, req, params, ctx)).catch((error) => {
            options.logger.error({ err: error, path: pathname, requestId: ctx.requestId }, 'socket handler failed');
            ws.close(1011, 'internal');
          });
        });
      } catch (error) {
        const apiError = toApiError(error);
        // Refusals the protocol expects (401, 410, 404..., and 503 unavailable: busy or not ready, retry later)
        // are the caller's business, not a fault of ours; only unexpected failures are errors.
        if (isExpectedError(apiError)) options.logger.info(
          { code: apiError.code, status: apiError.status, path: pathname, requestId }, 'upgrade refused',
        );
        else options.logger.error({ err: error, path: pathname, requestId }, 'upgrade failed');
        refuseUpgrade(socket, apiError, requestId);
      }
    },
    async close(graceMs = SHUTDOWN_GRACE_MS) {
      // 1001 "going away": clients reconnect (to another gateway behind the balancer) and resume from their cursor.
      const open = [...servers.values()].flatMap((server) => [...server.clients]);
      await Promise.all(open.map((client) => new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          client.terminate();
          resolve();
        }, graceMs);
        client.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        client.close(1001, 'server shutting down');
      })));
    },
  };
}

/**
 * Bounds on connections, so that slow or half-open clients cannot hold the gateway's sockets and file handles:
 * - open connections per client address (`CONNECTIONS_PER_ADDRESS`): one more is answered `429` in the envelope and
 *   closed at once. This machine's own address (127.0.0.1, ::1) is not counted: a reverse proxy here speaks for many
 *   clients (the server trusts it to say which, `trust proxy: loopback`); limit there.
 * - request bodies that stop arriving (`BODY_IDLE_TIMEOUT_S` without a byte): `408` and closed. Node's own request
 *   timeout is off (an upload of a long recording over a slow link may take hours); this bounds only silence.
 * - every refusal written on a raw socket (`endAndRelease`) is followed by closing it after a short grace, so a
 *   client that keeps its end open does not keep ours.
 */
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import { ApiError, rawHttpAnswer } from '../src/core/errors.js';
import type { Logger } from '../src/core/logger.js';

/** Time a refused client has to read the answer before its socket is closed. */
const RELEASE_GRACE_MS = 2_000;

/** Writes `answer` and ends the socket; destroys it after a grace if the client keeps its side open. */
export function endAndRelease(socket: Duplex, answer: string): void {
  socket.on('error', () => socket.destroy());
  socket.end(answer);
  const release = setTimeout(() => socket.destroy(), RELEASE_GRACE_MS);
  release.unref();
  socket.once('close', () => clearTimeout(release));
}

/** Where a proxy on this machine connects from. */
const THIS_MACHINE = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The server's `connection` hook: one address past `perAddress` open connections is refused. */
export function limitConnectionsPerAddress(perAddress: number, logger: Logger, newRequestId: () => string) {
  const open = new Map<string, number>();
  return (socket: net.Socket) => {
    const address = socket.remoteAddress;
    if (perAddress <= 0 || !address || THIS_MACHINE.has(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > perAddress) {
      const requestId = newRequestId();
      logger.info({ requestId, client: address, open: perAddress }, 'connection refused: too many open from this address');
      const refusal = new ApiError('rate_limited', 429, `This address has ${perAddress} connections open (CONNECTIONS_PER_ADDRESS); close `
        + `one first.`, { details: { limit: perAddress, retryAfterS: 1 }, headers: { 'Retry-After': '1' } });
      endAndRelease(socket, rawHttpAnswer(refusal, requestId));
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  };
}

/** A request whose body goes `idleS` seconds without a byte is answered 408 and its connection closed. */
export function useBodyIdleTimeout(idleS: number): RequestHandler {
  return (req, res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (!hasBody || idleS <= 0) return next();
    const socket = req.socket;
    // On the request (not the socket): Node's own handler then leaves the socket to this one while the body is incomplete.
    req.setTimeout(idleS * 1000, () => {
      const error = new ApiError(
        'invalid_options', 408, `The request body stopped arriving (nothing for ${idleS} s, BODY_IDLE_TIMEOUT_S).`,
        { details: { field: 'body' } },
      );
      if (!res.headersSent) endAndRelease(socket, rawHttpAnswer(error, req.sg?.requestId ?? 'req_unknown'));
      else socket.destroy();
    });
    // Once the body is in, the connection is the response's (a long answer or a kept-alive idle is not a slow body).
    req.once('end', () => socket.setTimeout(0));
    req.once('close', () => socket.setTimeout(0));
    next();
  };
}

/** What the gateway's middlewares attach to each express request (`req.sg`). */
import type { IncomingMessage } from 'node:http';
import type { Identity } from '../src/core/identity/identity.js';
import type { ApiError } from '../src/core/errors.js';

export interface RequestState {
  requestId: string;
  identity: Identity | null;
  credentialError: ApiError | null;
  /** The caller's address (behind a proxy on this machine, the one it forwarded): listeners' translation pairs are counted per network. */
  clientAddress?: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    sg: RequestState;
  }
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * An upgrade request's client address, as express's `req.ip` reads an HTTP one under `trust proxy: loopback`: the
 * socket's address, or, when that is this machine (a proxy here), the last address the proxy put in X-Forwarded-For.
 */
export function socketAddress(req: IncomingMessage): string | undefined {
  const remote = req.socket.remoteAddress;
  const forwarded = req.headers['x-forwarded-for'];
  if (remote && LOOPBACK.test(remote) && typeof forwarded === 'string') {
    const last = forwarded.split(',').map((part) => part.trim()).filter(Boolean).pop();
    if (last) return last;
  }
  return remote;
}

/**
 * What every resolver receives. One context per HTTP request or per GraphQL-over-WebSocket operation; REST
 * routes run their GraphQL operation with the same context shape.
 */
import type { Config } from './config/index.js';
import { errors, type ApiError } from './errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Identity } from './identity/identity.js';
import type { PubSub } from './pubsub.js';
import type { Services } from './services.js';

export interface Context {
  requestId: string;
  config: Config;
  prisma: PrismaClient;
  pubsub: PubSub;
  services: Services;
  /** The caller, or null without a credential. */
  identity: Identity | null;
  /** Why the presented credential was refused; thrown by the first field that needs a credential. */
  credentialError: ApiError | null;
  /** The address this request reached (PUBLIC_URL, else its protocol and Host): stream URLs, metadata. Absent outside a request. */
  baseUrl?: string;
  /** The caller's address, when there is a request (`req.ip`: a proxy on this machine may forward it). */
  clientAddress?: string;
  /** Per-request loaders beyond the ones the dataloader plugin keeps on this object itself. */
  loaders: Map<string, unknown>;
}

/** The address the request reached, for URLs a resolver answers (grants, share URLs); absent only outside a request. */
export function baseUrlOf(ctx: Context): string {
  if (!ctx.baseUrl) throw errors.internal(new Error('a resolver that answers URLs ran without the request\'s address'));
  return ctx.baseUrl;
}

/**
 * The services registry: business rules with no HTTP and no GraphQL, shared by resolvers, REST sockets and
 * workers. `Services` starts empty here, below every module; each module adds its own field from its
 * `service.ts` (TypeScript declaration merging), and the entry point constructs them all
 * (src/entry/services.ts):
 *
 *   declare module '../core/services.js' { interface Services { shareLinks: ShareLinksService } }
 */
import type { Config } from './config/index.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { PubSub } from './pubsub.js';

export interface ServiceDeps {
  config: Config;
  prisma: PrismaClient;
  pubsub: PubSub;
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each module's declaration merge
export interface Services {}

/**
 * A service that holds resources of its own (engine threads, a Bull queue and its Redis connections) exposes
 * `close()`; whoever created the services (the app, `npm run worker`) calls `closeServices` once on shutdown.
 */
export interface Closable {
  close(): Promise<void>;
}

function isClosable(service: unknown): service is Closable {
  return typeof (service as Partial<Closable> | null)?.close === 'function';
}

/** Closes every service that holds resources; one failing does not keep the others open. */
export async function closeServices(services: Services, onError: (error: unknown, name: string) => void): Promise<void> {
  for (const [name, service] of Object.entries(services)) {
    if (!isClosable(service)) continue;
    await service.close().catch((error: unknown) => onError(error, name));
  }
}

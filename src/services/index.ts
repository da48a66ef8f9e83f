/**
 * The services registry: business rules with no HTTP and no GraphQL, shared by resolvers, REST sockets and
 * workers. A resource adds its service here (one field), constructed from the same dependencies.
 */
import type { Config } from '../config.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { PubSub } from '../pubsub.js';
import { AccountsService } from './accounts.js';
import { AuthService } from './auth.js';
import { CapabilitiesService } from './capabilities.js';
import { IdempotencyService } from './idempotency.js';
import { RecordingsService } from './recordings.js';
import { ShareLinksService } from './share-links.js';
import { TranscriptionsService } from './transcriptions.js';
import { RealtimeService } from './realtime.js';

export interface ServiceDeps {
  config: Config;
  prisma: PrismaClient;
  pubsub: PubSub;
}

export interface Services {
  accounts: AccountsService;
  auth: AuthService;
  capabilities: CapabilitiesService;
  transcriptions: TranscriptionsService;
  recordings: RecordingsService;
  shareLinks: ShareLinksService;
  idempotency: IdempotencyService;
  realtime: RealtimeService;
}

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

export function createServices(deps: ServiceDeps): Services {
  const capabilities = new CapabilitiesService(deps);
  const shareLinks = new ShareLinksService(deps);
  return {
    transcriptions: new TranscriptionsService(deps, capabilities),
    recordings: new RecordingsService(deps, shareLinks),
    shareLinks,
    idempotency: new IdempotencyService(deps),
    accounts: new AccountsService(deps),
    auth: new AuthService(deps),
    capabilities,
    realtime: new RealtimeService(deps, capabilities),
  };
}

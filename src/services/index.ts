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
  realtime: RealtimeService;
}

export function createServices(deps: ServiceDeps): Services {
  const capabilities = new CapabilitiesService(deps);
  const shareLinks = new ShareLinksService(deps);
  return {
    transcriptions: new TranscriptionsService(deps),
    recordings: new RecordingsService(deps, shareLinks),
    shareLinks,
    accounts: new AccountsService(deps),
    auth: new AuthService(deps),
    capabilities,
    realtime: new RealtimeService(deps, capabilities),
  };
}

/**
 * Background workers (Bull queue processors, sweepers) that run inside the gateway process by default and alone in
 * `npm run worker` (src/entry/worker-main.ts). A part registers its worker in `backgroundWorkers` (src/entry/background-workers.ts):
 *
 * { name: 'transcription', start: async (deps) => { const queue = new Bull(...); queue.process(...); return { stop: ()
 * => queue.close() }; } }
 *
 * `deps.redisPrefix` must prefix Bull's queue names/keys (`prefix` option) so test files never share queues.
 */
import type { Config } from './config/index.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from './logger.js';
import type { PubSub } from './pubsub.js';
import type { Services } from './services.js';

export interface WorkerDeps {
  config: Config;
  prisma: PrismaClient;
  pubsub: PubSub;
  services: Services;
  logger: Logger;
}

export interface RunningWorker {
  stop(): Promise<void>;
}

export interface BackgroundWorker {
  name: string;
  start(deps: WorkerDeps): Promise<RunningWorker>;
}

/**
 * `npm run worker`: the background workers alone (no API), for deployments that scale workers apart from gateways.
 * Gateways started with RUN_WORKERS=false then only serve requests. With METRICS_PORT set, the process listens there
 * for Prometheus (`GET /metrics`, same METRICS and METRICS_TOKEN rules as a gateway's) and liveness (`GET /v1/health`).
 */
import { loadConfigOrExit } from '../core/config/index.js';
import { openDatabase } from '../core/db/index.js';
import { createLogger } from '../core/logger.js';
import { createRedisPubSub } from '../core/pubsub.js';
import { closeServices } from '../core/services.js';
import { createServices } from './services.js';
import { backgroundWorkers } from './background-workers.js';
import type { RunningWorker } from '../core/background.js';
import { listenForScrapes, type ScrapeListener } from '../../rest/metrics.js';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
if (!config.databaseUrl) {
  console.error('npm run worker needs DATABASE_URL: the embedded database belongs to the single `npm start` process.');
  process.exit(1);
}
const db = await openDatabase(config);
const pubsub = createRedisPubSub({ redisUrl: config.redisUrl, prefix: config.redisPrefix });
const services = createServices({ config, prisma: db.prisma, pubsub });
// Listening before the workers start: liveness answers while a slow start (a model loading) goes on.
let scrapes: ScrapeListener | null = null;
if (config.metrics.workerPort !== null) {
  try {
    scrapes = await listenForScrapes({
      settings: config.metrics, host: config.host, port: config.metrics.workerPort, sources: { prisma: db.prisma }, logger,
    });
  } catch (error) {
    console.error(`npm run worker cannot listen for metrics on ${config.host}:${config.metrics.workerPort} (METRICS_PORT): `
      + `${(error as Error).message}`);
    process.exit(1);
  }
  logger.info({ url: `${scrapes.url}/metrics` }, 'metrics listening');
}
const running: { name: string; worker: RunningWorker }[] = [];
for (const worker of backgroundWorkers) {
  running.push({ name: worker.name, worker: await worker.start({ config, prisma: db.prisma, pubsub, services, logger }) });
  logger.info({ worker: worker.name }, 'worker started');
}
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  // Said as the gateway says it: an operator sees the signal arrive and the workers hand their jobs back.
  logger.info({ signal }, 'stopping: workers finish or hand back their jobs');
  const started = Date.now();
  await scrapes?.close();
  for (const { name, worker } of running.reverse()) {
    await worker.stop();
    logger.info({ worker: name }, 'worker stopped');
  }
  await closeServices(services, (error, name) => logger.warn({ err: error, service: name }, 'service did not close cleanly'));
  await pubsub.close();
  await db.close();
  logger.info({ signal, ms: Date.now() - started }, 'stopped');
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

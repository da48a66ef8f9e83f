/**
 * Every Prometheus metric of a speechgate process, defined once here (prom-client). The registry is per process:
 * each gateway and each worker process exposes its own counts at its own `GET /metrics`, and Prometheus scrapes
 * each of them (its `instance` label tells them apart). Counters and histograms are moved where the thing happens
 * (one line there); gauges of state that lives elsewhere (jobs and live recordings in the database, sessions and
 * listeners in this process, the Bull queues in Redis) are read when scraped, by `scrapeMetrics` and the queue
 * gauge's `collect`, so nothing keeps them in step in between.
 *
 * Label values are bounded: an HTTP route is its OpenAPI path template (never the raw URL), a GraphQL operation
 * name past `MAX_OPERATION_NAMES` distinct ones is counted as `other`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PrismaClient } from '../generated/prisma/client.js';

export const metricsRegistry = new Registry();
// Node's own: CPU, memory, event-loop lag, handles, GC (process_*, nodejs_*).
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new Histogram({
  name: 'speechgate_http_request_duration_seconds',
  help: 'HTTP requests by method, route template (the OpenAPI path; /graphql; unmatched) and status, until the response is sent.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

export const graphqlOperations = new Counter({
  name: 'speechgate_graphql_operations_total',
  help: 'GraphQL operations executed (over /graphql, its socket, and the REST routes that run them) by name, type and outcome (ok, '
    + 'partial, error).',
  labelNames: ['operation', 'type', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** Distinct GraphQL operation names counted under their own name; clients choose names, so the rest are `other`. */
export const MAX_OPERATION_NAMES = 200;

export const jobsByState = new Gauge({
  name: 'speechgate_jobs',
  help: 'Transcription jobs not yet finished, by state (database); state="queued" is the queue depth.',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
});

export const liveRecordingsByState = new Gauge({
  name: 'speechgate_live_recordings',
  help: 'Live recordings not yet finalized, by state (database).',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
});

export const engineSlotsBusy = new Gauge({
  name: 'speechgate_engine_slots_busy',
  help: 'Realtime engine slots held by a session in this process.',
  registers: [metricsRegistry],
});

export const engineSlots = new Gauge({
  name: 'speechgate_engine_slots',
  help: 'Realtime engine slots of this process (REALTIME_MAX_SESSIONS).',
  registers: [metricsRegistry],
});

export const engineSlotsWaiting = new Gauge({
  name: 'speechgate_engine_slots_waiting',
  help: 'Realtime sessions of this process waiting in line for a slot.',
  registers: [metricsRegistry],
});

export const realtimeSessionsOpen = new Gauge({
  name: 'speechgate_realtime_sessions_open',
  help: 'Realtime session sockets open in this process (waiting, loading or streaming; live recordings\' publishers included).',
  registers: [metricsRegistry],
});

export const listenersConnected = new Gauge({
  name: 'speechgate_listeners_connected',
  help: 'Subscribe sockets (listeners, share-link readers, owners) connected to this process.',
  registers: [metricsRegistry],
});

export const commitLatency = new Histogram({
  name: 'speechgate_commit_latency_seconds',
  help: 'From the arrival of a committed segment\'s last audio to its commit, by where the session runs (realtime, or a live recording\'s '
    + 'publisher).',
  labelNames: ['session'] as const,
  buckets: [0.25, 0.5, 1, 1.5, 2, 3, 5, 8, 13, 20],
  registers: [metricsRegistry],
});

export const realtimeFactor = new Histogram({
  name: 'speechgate_realtime_factor',
  help: 'Processing time over audio time (below 1 keeps up): of finished realtime sessions and live recordings\' publishers, and of file '
    + 'jobs as their worker finishes them (kind="file").',
  labelNames: ['kind'] as const,
  buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 5],
  registers: [metricsRegistry],
});

export const uncoveredSpeech = new Counter({
  name: 'speechgate_uncovered_speech_seconds_total',
  help: 'Seconds of speech (by voice activity) that no transcribed word covers even after the engine decoded it again: words a transcript '
    + 'may have lost. By what was transcribed (file: file and link jobs; catchup: the accurate reading of a finalized live recording). '
    + 'Should stay at 0.',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const redecodedGaps = new Counter({
  name: 'speechgate_redecoded_gaps_total',
  help: 'Stretches of speech the engine found no word for and decoded again, alone (each may have recovered words the model first '
    + 'skipped). By what was transcribed (file, catchup).',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const engineProviders = new Gauge({
  name: 'speechgate_engine_provider',
  help: 'Set to 1 once an engine thread of this process loaded its model: by what the engine does (realtime, file, translation), the '
    + 'execution provider asked for (ENGINE_PROVIDER) and the one it runs on (cpu when the one asked for could not load).',
  labelNames: ['use', 'requested', 'provider'] as const,
  registers: [metricsRegistry],
});

/** An EngineThreads `onReady`: records which provider the engine threads doing `use` run on. */
export function recordEngineProvider(use: 'realtime' | 'file' | 'translation') {
  return (info: { provider: string; requestedProvider: string }) => engineProviders.set(
    { use, requested: info.requestedProvider, provider: info.provider }, 1,
  );
}

export const ledgerErrors = new Counter({
  name: 'speechgate_ledger_errors_total',
  help: 'Billing ledger work that failed after the credit was spent (a balance-fell listener such as auto top-up, a metering sweep, a '
    + 'realtime session metered or settled).',
  labelNames: ['stage'] as const,
  registers: [metricsRegistry],
});

/** Bull's states of queued work; `completed` is left out (finished work is removed from the queues). */
const QUEUE_JOB_STATES = ['waiting', 'paused', 'active', 'delayed', 'failed'] as const;
type QueueJobState = (typeof QUEUE_JOB_STATES)[number];

/** A Bull queue as its counts are read (described by shape: src/core does not depend on the processors' Bull). */
export interface CountedQueue {
  name: string;
  /** Bull's `getJobCounts()`: the length of each of its lists (`paused` too, though Bull's types leave it out). */
  getJobCounts(): Promise<Partial<Record<QueueJobState, number>>>;
}

/** How long a scrape waits for Redis' counts: Redis away must not hang the scrape (its series are left out instead). */
export const QUEUE_COUNT_TIMEOUT_MS = 2_000;

/** The queues whose workers run in this process, counted on each scrape. */
const countedQueues = new Set<CountedQueue>();

/** The queue's counts, or null when Redis did not answer in time. */
async function countsOf(queue: CountedQueue): Promise<Partial<Record<QueueJobState, number>> | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), QUEUE_COUNT_TIMEOUT_MS); });
  const counts = queue.getJobCounts().catch(() => null);
  try {
    return await Promise.race([counts, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const queueJobs = new Gauge({
  name: 'speechgate_queue_jobs',
  help: 'Work on the Bull queues whose workers run in this process, by queue and Bull state (Redis, read on scrape): waiting is the queue '
    + 'depth, paused waits on a paused queue, failed is what Bull keeps of failed work.',
  labelNames: ['queue', 'state'] as const,
  registers: [metricsRegistry],
  async collect() {
    const read = await Promise.all([...countedQueues].map(async (queue) => ({ queue: queue.name, counts: await countsOf(queue) })));
    this.reset();
    for (const { queue, counts } of read) {
      // A queue Redis did not count in time has no series this scrape rather than stale ones.
      if (!counts) continue;
      for (const state of QUEUE_JOB_STATES) this.set({ queue, state }, counts[state] ?? 0);
    }
  },
});

/**
 * Counts `queue` in `speechgate_queue_jobs` on every scrape, until the answered function is called (before the queue
 * is closed). The counts are Redis', the same from every process running that queue's workers (take `max`).
 */
export function countQueueJobs(queue: CountedQueue): () => void {
  countedQueues.add(queue);
  return () => {
    countedQueues.delete(queue);
  };
}

/** Job states before `done`/`failed`: finished jobs grow without end and are not counted on every scrape. */
const ACTIVE_JOB_STATES = ['cropping', 'queued', 'fetching', 'transcribing'] as const;
/** Live recording states before `finalized`. */
const OPEN_LIVE_STATES = ['live', 'paused', 'ended'] as const;

/**
 * What a scrape reads besides the counters: the database, and this process's sessions and sockets. A worker
 * process serves no sockets and gives neither: its slot, session and listener gauges stay 0.
 */
export interface ScrapeSources {
  prisma: PrismaClient;
  /** This process's realtime admission and sockets. */
  realtime?(): { slotsBusy: number; slots: number; waiting: number; sessionsOpen: number };
  listenersConnected?(): number;
}

/** Sets each state's gauge from a GROUP BY, zero for the states with no row (so every series is always there). */
function setByState(gauge: Gauge<'state'>, states: readonly string[], rows: { state: string; _count: { _all: number } }[]): void {
  gauge.reset();
  for (const state of states) gauge.set({ state }, 0);
  for (const row of rows) gauge.set({ state: row.state }, row._count._all);
}

/** The Prometheus text of this process: the gauges read now, then every metric. */
export async function scrapeMetrics(sources: ScrapeSources): Promise<string> {
  const [jobs, recordings] = await Promise.all([
    sources.prisma.job.groupBy({ by: ['state'], where: { state: { in: [...ACTIVE_JOB_STATES] } }, _count: { _all: true } }),
    sources.prisma.recording.groupBy({
      by: ['state'], where: { kind: 'live', state: { in: [...OPEN_LIVE_STATES] } }, _count: { _all: true },
    }),
  ]);
  setByState(jobsByState, ACTIVE_JOB_STATES, jobs);
  setByState(liveRecordingsByState, OPEN_LIVE_STATES, recordings);
  const realtime = sources.realtime?.() ?? { slotsBusy: 0, slots: 0, waiting: 0, sessionsOpen: 0 };
  engineSlotsBusy.set(realtime.slotsBusy);
  engineSlots.set(realtime.slots);
  engineSlotsWaiting.set(realtime.waiting);
  realtimeSessionsOpen.set(realtime.sessionsOpen);
  listenersConnected.set(sources.listenersConnected?.() ?? 0);
  return metricsRegistry.metrics();
}

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

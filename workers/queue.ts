/**
 * The Bull queue of file and link jobs: the gateway adds work through the `JobQueue` port (src/jobs/queue.ts,
 * injected by the entry points), worker processes run it. Per-account concurrency is not Bull's business: the
 * database decides which job is admitted (src/jobs/service.ts `dispatchQueued`), and only admitted jobs are put
 * on Bull as `transcribe`.
 */
import Bull from 'bull';
import type { JobQueue, JobWorkData, JobWorkName } from '../src/jobs/index.js';

export type TranscriptionJobName = JobWorkName;
export type TranscriptionJobData = JobWorkData;

export type TranscriptionQueue = Bull.Queue<TranscriptionJobData>;

export interface QueueSettings {
  redisUrl: string;
  /** REDIS_PREFIX: deployments and test files sharing one Redis never see each other's jobs. */
  redisPrefix: string;
  /** How long a worker's lock on a running job lasts without renewal; a killed worker's job is taken over after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

export function createTranscriptionQueue(settings: QueueSettings): TranscriptionQueue {
  return new Bull<TranscriptionJobData>('transcriptions', settings.redisUrl, {
    prefix: `${settings.redisPrefix}bull`,
    settings: {
      lockDuration: settings.lockDurationMs ?? 30_000,
      stalledInterval: settings.stalledIntervalMs ?? 15_000,
      // A job whose worker died is given to another worker; a job that kills workers twice in a row is failed
      // by Bull and then marked failed in the database by the sweeper.
      maxStalledCount: 2,
    },
    defaultJobOptions: { removeOnComplete: true, removeOnFail: 100, attempts: 1 },
  });
}

/** Adds a Bull job whose id names the database job and attempt, so adding twice (retries, sweeps) is harmless. */
export async function enqueue(queue: TranscriptionQueue, name: TranscriptionJobName, data: TranscriptionJobData): Promise<void> {
  const jobId = bullJobId(name, data);
  // Bull ignores an add whose id it still keeps; a finished or failed run of the same id must make room.
  const previous = await queue.getJob(jobId);
  if (previous && ((await previous.isFailed()) || (await previous.isCompleted()))) await previous.remove();
  await queue.add(name, data, { jobId });
}

export function bullJobId(name: TranscriptionJobName, data: TranscriptionJobData): string {
  return `${name}:${data.jobId}:${data.attempt}`;
}

/** The gateway's `JobQueue`: Bull, opened on the first add (a gateway that never adds work holds no connection). */
export function lazyJobQueue(settings: QueueSettings): JobQueue {
  let queue: TranscriptionQueue | null = null;
  return {
    add: (name, data) => enqueue((queue ??= createTranscriptionQueue(settings)), name, data),
    close: async () => {
      await queue?.close();
    },
  };
}

/** A `JobQueue` over a Bull queue the caller owns (the worker's own, which it closes itself). */
export function bullJobQueue(queue: TranscriptionQueue): JobQueue {
  return { add: (name, data) => enqueue(queue, name, data), close: () => queue.close() };
}

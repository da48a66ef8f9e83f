/**
 * The Bull queue of file and link jobs, shared by the gateway (which adds work) and worker processes (which
 * run it). One queue, three job names:
 *   fetch       download a link (state `fetching`), then queue it or open the cropping step
 *   prepare     measure an uploaded file opened for cropping (waveform peaks)
 *   transcribe  run the engine on an admitted job (state `transcribing`)
 * Per-account concurrency is not Bull's business: the database decides which job is admitted
 * (src/services/jobs.ts `dispatchQueued`), and only admitted jobs are put on Bull as `transcribe`.
 */
import Bull from 'bull';

export type TranscriptionJobName = 'fetch' | 'prepare' | 'transcribe';
export interface TranscriptionJobData {
  jobId: string;
  /**
   * `Job.attempts` (transcription starts) when this Bull job was added: a Bull job from an older attempt finds it
   * stale and does nothing. Ids repeat safely: processors never throw, so finished Bull jobs are removed.
   */
  attempt: number;
  /** fetch only: open the cropping step after the fetch instead of queueing the job. */
  crop?: boolean;
}

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

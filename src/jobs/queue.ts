/**
 * The port through which the job rules hand work to processors. One queue, four kinds of work:
 *   fetch       download a link (state `fetching`), then queue it or open the cropping step
 *   prepare     measure an uploaded file opened for cropping (waveform peaks)
 *   transcribe  run the engine on an admitted job (state `transcribing`)
 *   finalize    finish a live recording that ended (`ended → finalized`, src/live/recordings.ts)
 * The implementation (Bull on Redis, workers/queue.ts) is injected by the entry points: modules never import
 * the processors' side.
 */
export type JobWorkName = 'fetch' | 'prepare' | 'transcribe' | 'finalize';

export interface JobWorkData {
  /** The database job's id; for `finalize`, the live recording's (a live recording has no job row). */
  jobId: string;
  /**
   * `Job.attempts` (transcription starts) when this work was added: work from an older attempt finds it stale
   * and does nothing. Ids repeat safely: processors never throw, so finished work is removed.
   */
  attempt: number;
  /** fetch only: open the cropping step after the fetch instead of queueing the job. */
  crop?: boolean;
}

export interface JobQueue {
  /** Adds work whose id names the database job and attempt, so adding twice (retries, sweeps) is harmless. */
  add(name: JobWorkName, data: JobWorkData): Promise<void>;
  close(): Promise<void>;
}

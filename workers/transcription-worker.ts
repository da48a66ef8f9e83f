/**
 * The worker side of file and link jobs: Bull processors for `fetch`, `prepare` and `transcribe`, and a sweeper
 * that repairs what a crash can leave behind. Runs inside the gateway process by default and alone in
 * `npm run worker` processes (src/entry/worker-main.ts); both talk only to PostgreSQL and Redis, so any number of
 * worker processes on any machines share the work.
 *
 * Crash safety: a worker killed mid-job stops renewing its Bull lock; after `lockDuration` another worker's
 * stalled-job check takes the job over and the transcribe processor resumes after the last committed segment
 * (each segment is committed in its own transaction, so none is lost or repeated).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type Bull from 'bull';
import { ApiError, errors, knownError } from '../src/core/errors.js';
import { Prisma, type PrismaClient } from '../src/generated/prisma/client.js';
import type { Logger } from '../src/core/logger.js';
import type { PubSub } from '../src/core/pubsub.js';
import {
  ACTIVE_WORK,
  beginTranscribing,
  dispatchQueued,
  expirePreviews,
  failJob,
  handBackJob,
  finishTranscribing,
  openCropping,
  queueJob,
  recordFetchProgress,
  recordSegment,
  recordWaveform,
  StaleJob,
  type JobProgress,
  type JobRef,
  type JobsContext,
} from '../src/jobs/service.js';
import { fetchLinkToFile, LinkError, type LinkFetchPolicy } from '../src/links/index.js';
import { makeMaster, mediaPath, recordingMediaDir, waveformPeaks } from '../src/transcript/index.js';
import { finalizeRecording, type CatchUp, type TimedWord } from '../src/live/index.js';
import type { SpeakerTurnOnMaster } from '../src/recordings/index.js';
import type { Metering } from '../src/billing/index.js';
import { countQueueJobs, realtimeFactor, recordEngineProvider, redecodedGaps, uncoveredSpeech } from '../src/core/metrics.js';
import { probeAudio, type EngineOptions, type Segment, EngineThreads } from './engine/index.js';
import { bullJobId, bullJobQueue, createTranscriptionQueue, enqueue, type QueueSettings, type TranscriptionJobData } from './queue.js';

export interface TranscriptionWorkerOptions {
  prisma: PrismaClient;
  pubsub: Pick<PubSub, 'publish'>;
  /** Where processor and sweep failures are logged (the service's logger, LOG_LEVEL). */
  logger: Logger;
  /** The worker opens its own Bull connection: closing the worker stops its processors and nothing else. */
  queueSettings: QueueSettings;
  dataDir: string;
  linkPolicy: LinkFetchPolicy;
  maxUploadBytes: number;
  /** The engine of file jobs: the accurate model (config.models.accurate). */
  engine: EngineOptions;
  /**
   * Beam width of file jobs (default FILE_BEAM_SIZE: beam search 5 with the temperature fallback, as the reference
   * implementations decode files).
   */
  beamSize?: number;
  /** Files transcribed at once by this process (one engine thread each). */
  concurrency: number;
  /** How often the sweeper looks for stranded jobs; 0 turns it off. */
  sweepIntervalMs?: number;
  /** Charges file jobs as they start, finish or fail (src/billing/metering.ts); absent where nothing is billed. */
  metering?: Metering;
  /** Told when a recording is finalized (file job `done`, live `finalized`): the summary is written (src/summaries). Never throws. */
  afterFinalize?: (recordingId: string) => void;
}

export interface TranscriptionWorker {
  /** Runs one sweep now (tests, and right after start). */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

/** File jobs decode with beam search (5) and the temperature fallback on the accurate model. */
export const FILE_BEAM_SIZE = 5;

/** How long a link's fetched copy stays available to the cropping preview. */
export const LINK_PREVIEW_TTL_MS = 10 * 60_000;
/** Fetch progress is written at most this often (each write is a durable event). */
const FETCH_PROGRESS_EVERY_MS = 500;

export function startTranscriptionWorker(options: TranscriptionWorkerOptions): TranscriptionWorker {
  const queue = createTranscriptionQueue(options.queueSettings);
  // Bull's own counts of this queue, read on each scrape of this process while the worker runs.
  const uncountQueue = countQueueJobs(queue);
  const ctx: JobsContext = { prisma: options.prisma, pubsub: options.pubsub, queue: bullJobQueue(queue), metering: options.metering };
  const engines = new EngineThreads({ threads: options.concurrency, engine: options.engine, onReady: recordEngineProvider('file') });
  /** Set by close(): a job whose engine stops under it is handed back, not failed. */
  let closing = false;
  const { prisma, logger } = options;
  const absolute = (relative: string) => mediaPath(options.dataDir, relative);
  const relative = (recordingId: string, file: string) => path.join(recordingId, file);

  /** The job if this Bull job is still the current attempt of it, else null (stale: a retry or a sweep replaced it). */
  async function current(data: TranscriptionJobData, states: string[]) {
    const job = await prisma.job.findUnique({ where: { id: data.jobId }, include: { recording: { include: { transcription: true } } } });
    if (!job || !states.includes(job.state) || job.attempts !== data.attempt) return null;
    if (job.recording.lifecycle !== 'active' || job.recording.transcription.lifecycle !== 'active') return null;
    return job;
  }

  function failureOf(error: unknown): { message: string; code: string | null } {
    if (error instanceof LinkError) return { message: error.message, code: error.problem };
    const known = knownError(error);
    if (known) return { message: known.message, code: known.code };
    return { message: `The job failed: ${(error as Error)?.message ?? String(error)}`, code: 'internal' };
  }

  async function processFetch(data: TranscriptionJobData): Promise<void> {
    const job = await current(data, ['fetching']);
    if (!job || !job.sourceUrl) return;
    const ref: JobRef = { id: job.id, recordingId: job.recordingId, attempt: data.attempt };
    const dir = recordingMediaDir(options.dataDir, job.recordingId);
    await mkdir(dir, { recursive: true });
    const destination = path.join(dir, 'source');
    let lastWrite = 0;
    let writing: Promise<unknown> = Promise.resolve();
    const writeProgress = (progress: JobProgress) => {
      writing = writing.then(() => recordFetchProgress(ctx, ref, progress));
      // Observed here so a failed write is not an unhandled rejection before the fetch awaits `writing`.
      writing.catch(() => undefined);
      return writing;
    };
    try {
      const fetched = await fetchLinkToFile(job.sourceUrl, destination, {
        policy: options.linkPolicy,
        maxBytes: options.maxUploadBytes,
        onProgress: ({ fetchedBytes, fetchTotalBytes }) => {
          const now = Date.now();
          const finished = fetchTotalBytes !== null && fetchedBytes === fetchTotalBytes;
          if (now - lastWrite < FETCH_PROGRESS_EVERY_MS && !finished && fetchedBytes !== 0) return;
          lastWrite = now;
          const phasePct = fetchTotalBytes ? Math.round((fetchedBytes / fetchTotalBytes) * 1000) / 10 : null;
          void writeProgress({ pct: 0, phase: 'fetching', phasePct, fetchedBytes, fetchTotalBytes });
        },
      });
      await writing;
      await writeProgress({ pct: 0, phase: 'extracting', phasePct: 0, fetchedBytes: fetched.bytes, fetchTotalBytes: fetched.bytes });
      const probe = await probeAudio(destination);
      if (!probe.hasAudio) throw errors.invalidAudio('The linked file has no audio stream.');
      await prisma.recording.update({
        where: { id: job.recordingId },
        data: {
          sourcePath: relative(job.recordingId, 'source'), sourceBytes: fetched.bytes, sourceMime: fetched.contentType,
          durationS: probe.durationS,
        },
      });
      if (data.crop) {
        const waveform = await waveformPeaks(destination, { durationS: probe.durationS });
        await openCropping(ctx, ref, waveform, {
          path: relative(job.recordingId, 'source'), expiresAt: new Date(Date.now() + LINK_PREVIEW_TTL_MS),
        });
      } else {
        await queueJob(ctx, job.id, {}, ['fetching']);
      }
    } catch (error) {
      await writing.catch(() => undefined);
      await failJob(ctx, job.id, failureOf(error), data.attempt);
    }
  }

  async function processPrepare(data: TranscriptionJobData): Promise<void> {
    const job = await current(data, ['cropping']);
    if (!job || !job.recording.sourcePath) return;
    try {
      const source = absolute(job.recording.sourcePath);
      const probe = await probeAudio(source);
      if (!probe.hasAudio) throw errors.invalidAudio('The file has no audio stream.');
      const waveform = await waveformPeaks(source, { durationS: probe.durationS });
      await prisma.recording.update({ where: { id: job.recordingId }, data: { durationS: probe.durationS } });
      await recordWaveform(ctx, { id: job.id, recordingId: job.recordingId, attempt: data.attempt }, waveform, job.recording.sourcePath);
    } catch (error) {
      await failJob(ctx, job.id, failureOf(error), data.attempt);
    }
  }

  async function processTranscribe(data: TranscriptionJobData): Promise<void> {
    // `queued` (admitted, startedAt set) on the first run; `transcribing` when taken over from a dead worker.
    const job = await current(data, ['queued', 'transcribing']);
    if (!job || (job.state === 'queued' && !job.startedAt)) return;
    if (job.state === 'queued' && !(await beginTranscribing(ctx, job.id, data.attempt))) return;
    const recording = job.recording;
    // The job's real-time factor: this worker's time on it (master, engine, stored segments) over the audio it read.
    const processingFrom = performance.now();
    try {
      if (!recording.sourcePath || !existsSync(absolute(recording.sourcePath))) {
        // Storage lost the file (a volume not shared with this worker, a cleanup gone wrong): say so plainly.
        throw new ApiError('source_missing', 409, 'The stored source of this recording cannot be read by the worker; upload it again.');
      }
      // The master is the job's window as 16 kHz mono: segment times on it count from the window's start.
      let masterRelative = recording.masterPath;
      if (!masterRelative || !existsSync(absolute(masterRelative))) {
        masterRelative = relative(recording.id, 'master.wav');
        await makeMaster(absolute(recording.sourcePath), absolute(masterRelative), { startS: job.windowStartS, endS: job.windowEndS });
        const probe = await probeAudio(absolute(masterRelative));
        await prisma.recording.update({ where: { id: recording.id }, data: { masterPath: masterRelative, durationS: probe.durationS } });
        recording.durationS = probe.durationS;
      }
      const totalS = recording.durationS ?? 0;
      // Resume after the last committed segment: a job taken over from a dead worker repeats nothing.
      const last = await prisma.segment.findFirst({ where: { recordingId: recording.id }, orderBy: { seq: 'desc' } });
      const resumeFromS = last ? last.end : 0;
      const settings = {
        ...(recording.transcription.settings as Record<string, unknown>), ...(recording.settings as Record<string, unknown>),
      };
      const language =
        typeof settings.spokenLanguage === 'string' && settings.spokenLanguage && settings.spokenLanguage !== 'auto'
          ? settings.spokenLanguage
          : undefined;
      // `on` and `auto` label speakers (the engine's classical diarization, workers/engine/speakers/diarize.ts); `off` or no
      // setting leaves every segment at -1 ("speaker labels were off").
      const speakerLabels = settings.speakerLabels === 'on' || settings.speakerLabels === 'auto';
      let segmentsDone = last ? last.seq + 1 : 0;

      const ref: JobRef = { id: job.id, recordingId: recording.id, attempt: data.attempt };
      const storeSegment = async (segment: Segment) => {
        const speaker = speakerLabels ? { speaker: segment.speaker ?? -1, speakerConfidence: segment.speakerConfidence ?? null } : {
          speaker: -1, speakerConfidence: null,
        };
        segmentsDone = await recordSegment(ctx, ref, { ...segment, ...speaker, decoder: 'accuracy' }, totalS);
      };

      const result = await engines.transcribeFile({
        path: absolute(masterRelative),
        language,
        startS: resumeFromS > 0 ? resumeFromS : undefined,
        beamSize: options.beamSize ?? FILE_BEAM_SIZE,
        speakerLabels,
        onSegment: storeSegment,
      });
      const processingS = (performance.now() - processingFrom) / 1000;

      await finishTranscribing(ctx, { ...ref, accountId: job.accountId }, {
        totalS,
        segmentsDone,
        spokenLanguage: result.language ?? language ?? null,
        language: result.language,
        model: result.model,
        beamSize: result.beamSize,
        uncoveredSpeechS: result.uncoveredSpeechS,
      });
      countCoverage('file', result);
      // A job taken over from a dead worker counts the audio after its resume point only.
      const audioS = totalS - resumeFromS;
      if (audioS > 0) realtimeFactor.observe({ kind: 'file' }, processingS / audioS);
      options.afterFinalize?.(recording.id);
    } catch (error) {
      if (error instanceof StaleJob) return;
      // This process is shutting down (its engine threads were stopped under the job): another worker goes on.
      if (closing) {
        await handBackJob(ctx, job.id, data.attempt);
        return;
      }
      await failJob(ctx, job.id, failureOf(error), data.attempt);
    }
  }

  /** What the engine's own check found: speech it decoded again, and speech no word covers even then. */
  function countCoverage(kind: 'file' | 'catchup', result: { uncoveredSpeechS: number; redecodedGaps: number }): void {
    redecodedGaps.inc({ kind }, result.redecodedGaps);
    uncoveredSpeech.inc({ kind }, result.uncoveredSpeechS);
    if (result.uncoveredSpeechS > 0) logger.warn({ kind, uncoveredSpeechS: result.uncoveredSpeechS }, 'speech no transcribed word covers');
  }

  // Failures are recorded on the job itself; a processor that still throws (the database gone mid-failure) is
  // logged, and the sweeper repairs the job once the database answers again.
  const running = new Set<Promise<void>>();
  const run = (handler: (data: TranscriptionJobData) => Promise<void>) => (bullJob: Bull.Job<TranscriptionJobData>) => {
    const processing = handler(bullJob.data).catch((error) => logger.error(
      { bullJob: bullJob.id, error: String(error) }, 'transcription job processor failed',
    ));
    running.add(processing);
    void processing.finally(() => running.delete(processing));
    return processing;
  };
  void queue.process('transcribe', options.concurrency, run(processTranscribe));
  void queue.process('fetch', 2, run(processFetch));
  void queue.process('prepare', 2, run(processPrepare));
  // A live recording that ended: its data is `jobId` (the recording's id; a live recording has no job row).
  // The accurate model (file jobs' engine and decoding) reads a finished live recording again: the catch-up.
  const catchUp: CatchUp = async (path, language, { speakerLabels }) => {
    const words: TimedWord[] = [];
    const speakers: SpeakerTurnOnMaster[] = [];
    const result = await engines.transcribeFile({
      path,
      language: language ?? undefined,
      beamSize: options.beamSize ?? FILE_BEAM_SIZE,
      speakerLabels,
      onSegment: async (segment) => {
        words.push(...segment.words);
        if (speakerLabels && segment.speaker !== undefined && segment.speaker >= 0) {
          speakers.push({ start: segment.start, end: segment.end, speaker: segment.speaker, confidence: segment.speakerConfidence ?? 1 });
        }
      },
    });
    countCoverage('catchup', result);
    return { words, language: result.language ?? null, ...(speakerLabels ? { speakers } : {}) };
  };
  void queue.process('finalize', 1, run(async (data) => {
    await finalizeRecording({ ...ctx, dataDir: options.dataDir, catchUp }, data.jobId);
    options.afterFinalize?.(data.jobId);
  }));

  async function sweep(): Promise<void> {
    // Jobs left queued while slots are free (a dispatch lost in a crash).
    const accounts = await prisma.job.findMany({ where: { state: 'queued' }, distinct: ['accountId'], select: { accountId: true } });
    for (const { accountId } of accounts) await dispatchQueued(ctx, accountId);
    // Admitted or fetching jobs whose Bull job is gone (process died between commit and add) or failed
    // in Bull (it stalled more than maxStalledCount times: it kills workers, so it ends failed).
    const inFlight = await prisma.job.findMany({
      where: {
        OR: [{ state: { in: ['transcribing', 'fetching'] } }, { state: 'queued', startedAt: { not: null } }],
        updatedAt: { lt: new Date(Date.now() - 5_000) },
        // Archived work waits untouched until it is restored.
        recording: ACTIVE_WORK,
      },
    });
    for (const job of inFlight) {
      const name = job.state === 'fetching' ? 'fetch' : 'transcribe';
      const data = { jobId: job.id, attempt: job.attempts };
      const bullJob = await queue.getJob(bullJobId(name, data));
      if (!bullJob) await enqueue(queue, name, data);
      else if (await bullJob.isFailed()) {
        await failJob(
          ctx, job.id, { message: `The job stopped its worker repeatedly: ${bullJob.failedReason ?? 'worker lost'}.`, code: 'worker_lost' },
          job.attempts,
        );
      }
    }
    // Uploads opened for cropping whose measuring was never queued.
    const unmeasured = await prisma.job.findMany({ where: {
      state: 'cropping', peaks: { equals: Prisma.DbNull }, sourceUrl: null, updatedAt: { lt: new Date(Date.now() - 5_000) },
      recording: { lifecycle: 'active' },
    } });
    for (const job of unmeasured) await enqueue(queue, 'prepare', { jobId: job.id, attempt: job.attempts });
    // A link's fetched copy is offered for cropping for ten minutes only.
    await expirePreviews(prisma);
    // Live recordings that ended but were not finalized (the finalize work lost with a process).
    const unfinalized = await prisma.recording.findMany({
      where: { kind: 'live', state: 'ended', updatedAt: { lt: new Date(Date.now() - 30_000) } }, select: { id: true },
    });
    for (const { id } of unfinalized) await enqueue(queue, 'finalize', { jobId: id, attempt: 0 });
  }

  let sweeping: Promise<void> | null = null;
  const runSweep = () => (sweeping ??= sweep().catch((error) => logger.error({ err: error }, 'transcription sweep failed')).finally(
    () => (sweeping = null),
  ));
  const timer = options.sweepIntervalMs === 0 ? null : setInterval(runSweep, options.sweepIntervalMs ?? 10_000);
  timer?.unref();

  return {
    sweep: () => runSweep(),
    async close() {
      // Graceful: take no new work here, stop the engine threads (a running file job is handed back to the queue
      // for another worker, not failed), then wait for the processors to return.
      closing = true;
      if (timer) clearInterval(timer);
      await sweeping;
      uncountQueue();
      await queue.pause(true, true);
      await engines.close();
      // The processors whose engine stopped hand their jobs back now, while the database is still open.
      await Promise.all([...running]);
      await queue.close();
    },
  };
}


/**
 * The one owner of file and link job state: every state move (creation's first state aside, which the
 * transcription writes with its rows), per-account admission, queue positions. Each move is one database
 * transaction that also appends the recording's durable events (src/transcript/events.ts); the work it causes
 * goes to the injected `JobQueue`. Processors (workers/transcription-worker.ts) do the work and call the moves
 * named here; they write no job row themselves.
 *
 * States: cropping → queued → transcribing → done | failed; links start in fetching. Past the account's
 * concurrency limit a job waits `queued` (never refused); `dispatchQueued` admits the oldest queued jobs when
 * slots are free, under a per-account advisory lock so two processes never admit past the limit.
 */
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { Frame, PubSub } from '../core/pubsub.js';
import { errors } from '../core/errors.js';
import { isObject, optionalNumber } from '../core/validate.js';
import type { ServiceDeps } from '../core/services.js';
import { commitSegment, inTransaction, type PendingFrame, type SegmentToCommit } from '../transcript/index.js';
import { TX_OPTIONS, type Tx } from '../core/db/transactions.js';
import type { JobQueue } from './queue.js';
import type { Metering } from '../billing/index.js';

declare module '../core/services.js' {
  interface Services {
    jobs: JobsService;
  }
}

export type JobState = 'cropping' | 'queued' | 'fetching' | 'transcribing' | 'done' | 'failed';

export interface JobProgress {
  pct: number;
  processedS?: number;
  totalS?: number;
  segmentsDone?: number;
  segmentsTotal?: number;
  phase?: 'fetching' | 'extracting' | null;
  phasePct?: number | null;
  fetchedBytes?: number;
  fetchTotalBytes?: number | null;
  /** Once done: speech no word covers after the engine decoded it again (workers/engine/pipeline.ts). */
  uncoveredSpeechS?: number;
}

export interface JobsContext {
  prisma: PrismaClient;
  pubsub: Pick<PubSub, 'publish'>;
  queue: JobQueue;
  /** Charges the moves open, settle and void (src/billing/metering.ts); absent where nothing is billed. */
  metering?: Metering;
}

type JobRow = Prisma.JobGetPayload<{}>;

/**
 * The recordings whose work still counts (holds or takes a slot, has a queue position, is swept): neither the
 * recording nor its transcription archived. Archived work waits where it was until restored.
 */
export const ACTIVE_WORK = { lifecycle: 'active', transcription: { lifecycle: 'active' } } as const satisfies Prisma.RecordingWhereInput;

/** The frame every job state change sends: the state and the fields that changed with it. */
export function stateFrame(
  job: Pick<JobRow, 'state' | 'error' | 'errorCode' | 'progress' | 'attempts'>, extra: Record<string, unknown> = {},
): PendingFrame {
  return {
    type: 'job.state',
    audience: 'transcription',
    body: { state: job.state, progress: job.progress, error: job.error, errorCode: job.errorCode, attempt: job.attempts, ...extra },
  };
}

export function progressFrame(state: JobState, progress: JobProgress): PendingFrame {
  return { type: 'job.progress', audience: 'transcription', body: { state, progress } };
}

/** 1 for the next job of the account to start; null unless queued. Ties on `queuedAt` break by id, as admission does. */
export async function queuePosition(
  prisma: PrismaClient | Tx, job: Pick<JobRow, 'id' | 'accountId' | 'state' | 'queuedAt'>,
): Promise<number | null> {
  if (job.state !== 'queued' || !job.queuedAt) return null;
  const ahead = await prisma.job.count({
    where: {
      accountId: job.accountId,
      state: 'queued',
      recording: ACTIVE_WORK,
      OR: [{ queuedAt: { lt: job.queuedAt } }, { queuedAt: job.queuedAt, id: { lt: job.id } }],
    },
  });
  return ahead + 1;
}

/**
 * The queue positions of several jobs at once (a page of transcriptions): one read of their accounts' queues in
 * order, the same places `queuePosition` counts one by one. Jobs not queued are left out.
 */
export async function queuePositions(
  prisma: PrismaClient, jobs: Array<Pick<JobRow, 'id' | 'accountId' | 'state' | 'queuedAt'>>,
): Promise<Map<string, number>> {
  const queued = jobs.filter((job) => job.state === 'queued' && job.queuedAt);
  const positions = new Map<string, number>();
  if (queued.length === 0) return positions;
  const lines = await prisma.job.findMany({
    where: {
      accountId: { in: [...new Set(queued.map((job) => job.accountId))] }, state: 'queued', recording: ACTIVE_WORK, queuedAt: { not: null },
    },
    select: { id: true, accountId: true },
    orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }],
  });
  const next = new Map<string, number>();
  for (const line of lines) {
    const place = (next.get(line.accountId) ?? 0) + 1;
    next.set(line.accountId, place);
    positions.set(line.id, place);
  }
  // A queued job whose recording no longer counts is not in its line: counted on its own, as before.
  for (const job of queued) if (!positions.has(job.id)) positions.set(job.id, (await queuePosition(prisma, job)) ?? 1);
  return positions;
}

/**
 * Admits the account's oldest queued jobs while it has free slots and gives each a Bull `transcribe` job. An
 * admitted job stays `queued` (at the head of the line, marked by `startedAt`) until a worker's engine thread
 * actually takes it and moves it to `transcribing`: a job waiting for a busy worker fleet never claims to be
 * transcribing. Slots count admitted and transcribing jobs. The Bull job is added inside the transaction: if the
 * commit then fails, the Bull job finds its attempt stale and does nothing; if the process dies after the
 * commit, the Bull job already exists.
 */
export async function dispatchQueued(ctx: JobsContext, accountId: string): Promise<string[]> {
  return ctx.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`speechgate:jobs:${accountId}`}))`;
    const account = await tx.account.findUnique({ where: { id: accountId }, select: { concurrencyLimit: true } });
    if (!account) return [];
    // Archived work neither holds a slot nor takes one; it waits where it was until restored.
    const running = await tx.job.count({
      where: { accountId, recording: ACTIVE_WORK, OR: [{ state: 'transcribing' }, { state: 'queued', startedAt: { not: null } }] },
    });
    // With billing on, live audio being metered (a live recording or realtime session running) holds a slot too: the
    // plan's concurrent transcriptions count both kinds, as billing's runningCount does. A slot it frees is taken by
    // the sweep (workers/transcription-worker.ts, every 10 s). Billing off: nothing is metered, files only.
    const live = (await ctx.metering?.runningLive(tx, accountId)) ?? 0;
    const free = Math.max(0, account.concurrencyLimit - running - live);
    if (free === 0) return [];
    const next = await tx.job.findMany({
      where: { accountId, state: 'queued', startedAt: null, recording: ACTIVE_WORK },
      orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }],
      take: free,
    });
    for (const job of next) {
      const updated = await tx.job.update({ where: { id: job.id }, data: { startedAt: new Date(), attempts: { increment: 1 } } });
      await ctx.queue.add('transcribe', { jobId: job.id, attempt: updated.attempts });
    }
    return next.map((job) => job.id);
  }, TX_OPTIONS);
}

/**
 * A worker's engine thread takes an admitted job: `queued` → `transcribing`. Returns false when the job moved on
 * meanwhile (retried, taken by another attempt). The jobs behind it move up one place.
 */
export async function beginTranscribing(ctx: JobsContext, jobId: string, attempt: number): Promise<boolean> {
  const recordingId = await recordingOf(ctx.prisma, jobId);
  const begun = await inTransaction(ctx, recordingId, async (tx) => {
    const moved = await tx.job.updateMany({
      where: { id: jobId, state: 'queued', attempts: attempt, startedAt: { not: null } },
      data: { state: 'transcribing', startedAt: new Date(), progress: { pct: 0, processedS: 0, segmentsDone: 0 } },
    });
    if (!moved.count) return { result: null, frames: [] };
    const job = await tx.job.findUniqueOrThrow({ where: { id: jobId } });
    // The charge opens as the job starts; a file costing more than the account can spend fails instead, uncharged.
    const charge = await ctx.metering?.openFile(tx, job);
    if (charge?.refused) {
      const failed = await tx.job.update({
        where: { id: jobId },
        data: { state: 'failed', error: charge.refused.message, errorCode: charge.refused.code, finishedAt: new Date() },
      });
      await tx.recording.update({ where: { id: recordingId }, data: { state: 'ended' } });
      return { result: { job: failed, started: false, charge }, frames: [stateFrame(failed)] };
    }
    return { result: { job, started: true, charge }, frames: [stateFrame(job, { queue: null })] };
  });
  if (!begun) return false;
  if (begun.charge) await ctx.metering?.after(begun.job.accountId, begun.charge.metered);
  if (begun.started) await announceQueuePositions(ctx, begun.job.accountId);
  else await dispatchQueued(ctx, begun.job.accountId);
  return begun.started;
}

/** Sends each still-queued job of the account a `job.progress` frame with its new queue position (not durable: positions are derived). */
export async function announceQueuePositions(ctx: Pick<JobsContext, 'prisma' | 'pubsub'>, accountId: string): Promise<void> {
  const queued = await ctx.prisma.job.findMany({
    where: { accountId, state: 'queued', recording: ACTIVE_WORK },
    orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }],
    select: { recordingId: true, recording: { select: { transcriptionId: true } } },
  });
  queued.forEach((job, index) => {
    const frame: Frame = {
      type: 'job.progress', recordingId: job.recordingId, state: 'queued', queue: { position: index + 1 }, at: new Date().toISOString(),
    };
    ctx.pubsub.publish(`transcription:${job.recording.transcriptionId}`, frame);
  });
}

/** Puts a job in the account's queue (creation, end of fetching, job/start, retry) and admits what fits. */
export async function queueJob(
  ctx: JobsContext,
  jobId: string,
  data: Partial<Pick<JobRow, 'windowStartS' | 'windowEndS'>> = {},
  expectStates: JobState[],
): Promise<void> {
  const job = await inTransaction(ctx, await recordingOf(ctx.prisma, jobId), async (tx) => {
    const current = await tx.job.findUnique({ where: { id: jobId } });
    if (!current) throw errors.notFound('The job');
    if (!expectStates.includes(current.state as JobState)) {
      throw errors.invalidState(`The job is ${current.state}; this move needs it ${expectStates.join(' or ')}.`, { state: current.state });
    }
    const updated = await tx.job.update({
      where: { id: jobId },
      data: {
        ...data, state: 'queued', queuedAt: new Date(), startedAt: null, finishedAt: null, error: null, errorCode: null,
        progress: { pct: 0 },
      },
    });
    const position = await queuePosition(tx, updated);
    return { result: updated, frames: [stateFrame(updated, { queue: { position } })] };
  });
  await dispatchQueued(ctx, job.accountId);
}

async function recordingOf(prisma: PrismaClient, jobId: string): Promise<string> {
  const job = await prisma.job.findUnique({ where: { id: jobId }, select: { recordingId: true } });
  if (!job) throw errors.notFound('The job');
  return job.recordingId;
}

/**
 * A worker shutting down gives its running job back instead of failing it: `transcribing` → `queued` (its place in
 * the line kept), then admitted again for another worker, which resumes after the last committed segment. Its charge
 * stays open (the next run finds it and charges nothing twice).
 */
export async function handBackJob(ctx: JobsContext, jobId: string, attempt: number): Promise<boolean> {
  const recordingId = await recordingOf(ctx.prisma, jobId);
  const handed = await inTransaction(ctx, recordingId, async (tx) => {
    const moved = await tx.job.updateMany({
      where: { id: jobId, state: 'transcribing', attempts: attempt }, data: { state: 'queued', startedAt: null },
    });
    if (!moved.count) return { result: null, frames: [] };
    const job = await tx.job.findUniqueOrThrow({ where: { id: jobId } });
    return { result: job, frames: [stateFrame(job, { queue: { position: await queuePosition(tx, job) } })] };
  });
  if (handed) await dispatchQueued(ctx, handed.accountId);
  return handed !== null;
}

/** Ends a job `failed` with a message and, when machine-readable, a code; frees its slot for the next. */
export async function failJob(
  ctx: JobsContext, jobId: string, error: { message: string; code: string | null }, attempt?: number,
): Promise<boolean> {
  const recordingId = await recordingOf(ctx.prisma, jobId);
  const failed = await inTransaction(ctx, recordingId, async (tx) => {
    const current = await tx.job.findUnique({ where: { id: jobId } });
    if (!current || ![
      'fetching', 'transcribing', 'queued', 'cropping',
    ].includes(current.state) || (attempt !== undefined && current.attempts !== attempt)) {
      return { result: null, frames: [] };
    }
    const updated = await tx.job.update({
      where: { id: jobId },
      data: { state: 'failed', error: error.message, errorCode: error.code, finishedAt: new Date() },
    });
    await tx.recording.update({ where: { id: recordingId }, data: { state: 'ended' } });
    // What the failed run was charged comes back (a retry opens a new charge); credit still held is released.
    await ctx.metering?.voidFile(tx, recordingId, 'the transcription failed');
    return { result: updated, frames: [stateFrame(updated)] };
  });
  if (failed) await dispatchQueued(ctx, failed.accountId);
  return failed !== null;
}

export interface JobView {
  recordingId: string;
  state: JobState;
  progress: JobProgress;
  error: string | null;
  errorCode: string | null;
  source: string | null;
  queue: { position: number } | null;
  preview: {
    peaks: number[] | null; bucketS: number | null; durationS: number | null; expiresAt: string | null; available: boolean;
  } | null;
  window: { startS: number; endS: number | null } | null;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A job as readers see it; `positions` (queuePositions of a page) spares a query per queued job. */
export async function jobView(prisma: PrismaClient, job: JobRow, positions?: Map<string, number>): Promise<JobView> {
  const peaks = job.peaks as { peaks?: number[]; bucketS?: number; durationS?: number } | null;
  const previewLive = !!job.previewPath && (!job.previewExpiresAt || job.previewExpiresAt.getTime() > Date.now());
  return {
    recordingId: job.recordingId,
    state: job.state as JobState,
    progress: (job.progress ?? { pct: 0 }) as unknown as JobProgress,
    error: job.error,
    errorCode: job.errorCode,
    source: job.sourceUrl,
    queue: job.state === 'queued' ? { position: positions?.get(job.id) ?? (await queuePosition(prisma, job)) ?? 1 } : null,
    preview:
      job.state === 'cropping'
        ? {
            peaks: peaks?.peaks ?? null,
            bucketS: peaks?.bucketS ?? null,
            durationS: peaks?.durationS ?? null,
            expiresAt: job.previewExpiresAt?.toISOString() ?? null,
            available: previewLive,
          }
        : null,
    window: job.windowStartS !== null || job.windowEndS !== null ? { startS: job.windowStartS ?? 0, endS: job.windowEndS } : null,
    attempts: job.attempts,
    createdAt: job.createdAt.toISOString(),
    // Internally startedAt also marks a queued job as admitted (an engine thread is about to take it); to a
    // reader a job has started only once it left `queued`.
    startedAt: job.state === 'queued' ? null : (job.startedAt?.toISOString() ?? null),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

// ---- the moves processors make (workers/transcription-worker.ts) ----

/** The job of one piece of queued work: which job, which attempt, which recording. */
export interface JobRef {
  id: string;
  recordingId: string;
  attempt: number;
}

/** Fetch progress of a link (`fetching`); nothing when the job moved on meanwhile. */
export async function recordFetchProgress(ctx: JobsContext, job: JobRef, progress: JobProgress): Promise<void> {
  await inTransaction(ctx, job.recordingId, async (tx) => {
    const updated = await tx.job.updateMany({
      where: { id: job.id, state: 'fetching', attempts: job.attempt }, data: { progress: progress as object },
    });
    return { result: null, frames: updated.count ? [progressFrame('fetching', progress)] : [] };
  });
}

export interface Waveform {
  peaks: number[];
  bucketS: number;
  durationS: number;
}

/** A fetched link opened for cropping (`fetching` → `cropping`): its waveform and a preview until `previewExpiresAt`. */
export async function openCropping(
  ctx: JobsContext, job: JobRef, waveform: Waveform, preview: { path: string; expiresAt: Date },
): Promise<void> {
  await inTransaction(ctx, job.recordingId, async (tx) => {
    const updated = await tx.job.update({
      where: { id: job.id },
      data: {
        state: 'cropping', peaks: { ...waveform }, previewPath: preview.path, previewExpiresAt: preview.expiresAt, progress: { pct: 0 },
      },
    });
    return { result: updated, frames: [stateFrame(updated)] };
  });
}

/** An upload opened for cropping has been measured: its waveform, and its source as the preview. */
export async function recordWaveform(ctx: JobsContext, job: JobRef, waveform: Waveform, previewPath: string): Promise<void> {
  await inTransaction(ctx, job.recordingId, async (tx) => {
    const updated = await tx.job.update({ where: { id: job.id }, data: { peaks: { ...waveform }, previewPath } });
    return {
      result: null,
      frames: [{
        type: 'job.progress', audience: 'transcription', body: { state: 'cropping', progress: updated.progress, peaksReady: true },
      }],
    };
  });
}

/**
 * Thrown by `recordSegment` when the job moved on (retried, failed, taken over by another attempt): the run
 * stops quietly. Archiving is not one of these: an archived job's run goes on and finishes.
 */
export class StaleJob extends Error {}

/**
 * One transcribed segment of a `transcribing` job: stored by `commitSegment` with the job's progress, in one
 * transaction. Throws StaleJob when this attempt no longer owns the job.
 */
export async function recordSegment(ctx: JobsContext, job: JobRef, segment: SegmentToCommit, totalS: number): Promise<number> {
  return inTransaction(ctx, job.recordingId, async (tx) => {
    const still = await tx.job.findFirst({ where: { id: job.id, state: 'transcribing', attempts: job.attempt }, select: { id: true } });
    if (!still) throw new StaleJob();
    const committed = await commitSegment(tx, job.recordingId, segment);
    const segmentsDone = committed.seq + 1;
    const progress: JobProgress = {
      pct: totalS > 0 ? Math.min(99.9, Math.round((segment.end / totalS) * 1000) / 10) : 0,
      processedS: segment.end,
      totalS,
      segmentsDone,
      segmentsTotal: segmentsDone,
    };
    await tx.job.update({ where: { id: job.id }, data: { progress: progress as object } });
    return { result: segmentsDone, frames: [committed.frame, progressFrame('transcribing', progress)] };
  });
}

/**
 * `transcribing` → `done`; the `done` frame says what decoded the file (model, beam width), the language heard and the
 * speech left without words.
 */
export async function finishTranscribing(
  ctx: JobsContext,
  job: JobRef & { accountId: string },
  outcome: {
    totalS: number; segmentsDone: number; spokenLanguage: string | null; language: string | null; model: string; beamSize: number;
    uncoveredSpeechS: number;
  },
): Promise<void> {
  const { totalS, segmentsDone } = outcome;
  // Speech the engine heard but no word covers, even after decoding it again (0 when nothing was lost), rounded to ms.
  const uncoveredSpeechS = Math.round(outcome.uncoveredSpeechS * 1000) / 1000;
  const settled = await inTransaction(ctx, job.recordingId, async (tx) => {
    const updated = await tx.job.updateMany({
      where: { id: job.id, state: 'transcribing', attempts: job.attempt },
      data: {
        state: 'done', finishedAt: new Date(),
        progress: { pct: 100, processedS: totalS, totalS, segmentsDone, segmentsTotal: segmentsDone, uncoveredSpeechS },
      },
    });
    if (!updated.count) return { result: null, frames: [] };
    // The summary is written next (src/summaries): pending from this moment, so it never reads as missing.
    await tx.recording.update({
      where: { id: job.recordingId },
      data: {
        state: 'finalized', finalizedAt: new Date(), spokenLanguage: outcome.spokenLanguage, summaryState: 'pending', summaryAt: new Date(),
      },
    });
    // Settled at the exact length transcribed (at least the minimum billed).
    const metered = await ctx.metering?.settleFile(tx, job.recordingId, totalS);
    const done = await tx.job.findUniqueOrThrow({ where: { id: job.id } });
    return {
      result: metered ?? null,
      frames: [stateFrame(done, {
        language: outcome.language, lastSeq: segmentsDone - 1, model: outcome.model, beamSize: outcome.beamSize, uncoveredSpeechS,
      })],
    };
  });
  if (settled) await ctx.metering?.after(job.accountId, settled);
  await dispatchQueued(ctx, job.accountId);
}

/** Cropping previews past their time are no longer served (the fetched copy stays as the job's source). */
export async function expirePreviews(prisma: PrismaClient): Promise<void> {
  await prisma.job.updateMany({ where: { previewExpiresAt: { lt: new Date() }, previewPath: { not: null } }, data: { previewPath: null } });
}

/** The first row of a job, written by its transcription in the same transaction as its other rows. */
export async function createJob(
  tx: Tx,
  data: {
    id: string; recordingId: string; accountId: string; state: 'fetching' | 'cropping' | 'queued'; sourceUrl: string | null;
    windowStartS: number | null; windowEndS: number | null;
  },
): Promise<{ job: JobRow; frame: PendingFrame }> {
  const job = await tx.job.create({ data: { ...data, queuedAt: data.state === 'queued' ? new Date() : null, progress: { pct: 0 } } });
  return { job, frame: stateFrame(job) };
}

// ---- the moves a caller asks for (GraphQL and REST: /v1/recordings/{id}/job) ----

/** A window for `POST /job/start` (CropWindow: `startS` required, `endS` optional). */
export function parseCropWindow(body: unknown): { startS: number; endS: number | null } {
  if (!isObject(body)) {
    throw errors.invalidOptions('The body must be a JSON object with startS (and optionally endS).', { field: 'startS' });
  }
  for (const key of Object.keys(body)) if (key !== 'startS' && key !== 'endS') throw errors.invalidOptions(`${key} is not a field of the `
    + `crop window (startS, endS).`, { field: key });
  const startS = optionalNumber(body, 'startS') ?? 0;
  const endS = optionalNumber(body, 'endS');
  if (endS !== null && endS <= startS) throw errors.invalidOptions('endS must be after startS.', { field: 'endS' });
  return { startS, endS };
}

export class JobsService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly queue: JobQueue,
    private readonly metering?: Metering,
  ) {}

  get context(): JobsContext {
    return { prisma: this.deps.prisma, pubsub: this.deps.pubsub, queue: this.queue, metering: this.metering };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }

  /**
   * After a new job's rows are committed: a link goes to be fetched, an upload opened for cropping to be
   * measured, a queued job to admission.
   */
  async handOver(job: { id: string; accountId: string; state: 'fetching' | 'cropping' | 'queued'; crop: boolean }): Promise<void> {
    if (job.state === 'fetching') await this.queue.add('fetch', { jobId: job.id, attempt: 0, crop: job.crop });
    else if (job.state === 'cropping') await this.queue.add('prepare', { jobId: job.id, attempt: 0 });
    else await dispatchQueued(this.context, job.accountId);
  }

  private async owned(accountId: string, recordingId: string) {
    const job = await this.deps.prisma.job.findFirst({
      where: { recordingId, accountId }, include: { recording: { select: { lifecycle: true } } },
    });
    if (!job || job.recording.lifecycle !== 'active') throw errors.notFound('The job of this recording');
    return job;
  }

  async get(accountId: string, recordingId: string): Promise<JobView> {
    const { recording: _r, ...job } = await this.owned(accountId, recordingId);
    return jobView(this.deps.prisma, job);
  }

  /** Releases a `cropping` job with its window; transcript timestamps then count from the window's start. */
  async start(accountId: string, recordingId: string, body: unknown): Promise<JobView> {
    const window = parseCropWindow(body ?? {});
    const job = await this.owned(accountId, recordingId);
    if (job.state !== 'cropping') {
      throw errors.invalidState(`The job is ${job.state}; only a cropping job can be started.`, { state: job.state });
    }
    const recording = await this.deps.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } });
    if (!recording.sourcePath) throw errors.invalidState('The job has no stored source yet; wait for its waveform.', { state: job.state });
    if (recording.durationS !== null && window.startS >= recording.durationS) {
      throw errors.invalidOptions(`startS must be before the end of the audio (${recording.durationS.toFixed(2)} s).`, { field: 'startS' });
    }
    await this.deps.prisma.job.update({ where: { id: job.id }, data: { previewPath: null, previewExpiresAt: null } });
    await queueJob(this.context, job.id, { windowStartS: window.startS, windowEndS: window.endS }, ['cropping']);
    return this.get(accountId, recordingId);
  }

  /**
   * Re-queues a failed job. With a stored source it goes back to `queued` (and waits its turn past the
   * concurrency limit); a link whose fetch failed is fetched again.
   */
  async retry(accountId: string, recordingId: string): Promise<JobView> {
    const job = await this.owned(accountId, recordingId);
    if (job.state !== 'failed') {
      throw errors.invalidState(`The job is ${job.state}; only a failed job can be retried.`, { state: job.state });
    }
    const recording = await this.deps.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } });
    await this.deps.prisma.recording.update({ where: { id: recordingId }, data: { state: 'processing' } });
    if (recording.sourcePath) {
      await queueJob(this.context, job.id, {}, ['failed']);
    } else if (job.sourceUrl) {
      const updated = await inTransaction(this.deps, recordingId, async (tx) => {
        const moved = await tx.job.update({
          where: { id: job.id },
          data: { state: 'fetching', error: null, errorCode: null, finishedAt: null, progress: { pct: 0, phase: 'fetching' } },
        });
        return { result: moved, frames: [stateFrame(moved)] };
      });
      await this.queue.add('fetch', { jobId: job.id, attempt: updated.attempts });
    } else {
      throw errors.invalidState('The job has no stored source to retry from.', { state: job.state });
    }
    return this.get(accountId, recordingId);
  }
}

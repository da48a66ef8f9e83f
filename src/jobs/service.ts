/**
 * The rules of file and link jobs: state moves, per-account admission, queue positions, and the durable event
 * log. Every state change is one database transaction that also appends its RecordingEvent rows (gapless `seq`
 * per recording, counted on Recording.lastEventSeq under that row's lock); the frames are published only after
 * the commit, so a subscriber never sees a change the database does not have.
 *
 * States: cropping → queued → transcribing → done | failed; links start in fetching. Past the account's
 * concurrency limit a job waits `queued` (never refused); `dispatchQueued` admits the oldest queued jobs when
 * slots are free, under a per-account advisory lock so two processes never admit past the limit.
 */
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { Frame, PubSub, Topic } from '../core/pubsub.js';
import { errors } from '../core/errors.js';
import type { JobQueue } from './queue.js';

export type Tx = Prisma.TransactionClient;

/**
 * Interactive transactions wait for locks (the account's admission lock, a recording row) while the machine may
 * be saturated by transcription; Prisma's 5 s default turns a slow moment into a failed state change.
 */
export const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;
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
}

export interface JobsContext {
  prisma: PrismaClient;
  pubsub: Pick<PubSub, 'publish'>;
  queue: JobQueue;
}

/** A frame headed for the durable log and then the sockets. */
export interface PendingFrame {
  type: string;
  /**
   * Who hears it besides the durable log: `job` frames are published on the transcription's topic (its events
   * socket and `transcriptionEvents`); `log` frames (a file job's committed segments) are only written to the log
   * (`GET /v1/recordings/{id}/events`): no socket or subscription reads them live.
   */
  audience: 'job' | 'log';
  body: Record<string, unknown>;
}

type JobRow = Prisma.JobGetPayload<{}>;

/**
 * The recordings whose work still counts (holds or takes a slot, has a queue position, is swept): neither the
 * recording nor its transcription archived. Archived work waits where it was until restored.
 */
export const ACTIVE_WORK = { lifecycle: 'active', transcription: { lifecycle: 'active' } } as const satisfies Prisma.RecordingWhereInput;

/**
 * Appends frames to a recording's durable log inside `tx` and returns them stamped with `seq` and `at`.
 * The increment takes the recording row's lock, so concurrent writers serialise and `seq` stays gapless.
 */
export async function appendEvents(tx: Tx, recordingId: string, frames: PendingFrame[]): Promise<Array<{ frame: Frame; topics: Topic[] }>> {
  if (frames.length === 0) return [];
  const recording = await tx.recording.update({
    where: { id: recordingId },
    data: { lastEventSeq: { increment: frames.length } },
    select: { lastEventSeq: true, transcriptionId: true },
  });
  const firstSeq = recording.lastEventSeq - frames.length + 1;
  const at = new Date();
  const stamped = frames.map((pending, index) => {
    const frame: Frame = { type: pending.type, recordingId, ...pending.body, seq: firstSeq + index, at: at.toISOString() };
    const topics: Topic[] = pending.audience === 'job' ? [`transcription:${recording.transcriptionId}`] : [];
    return { frame, topics };
  });
  await tx.recordingEvent.createMany({
    data: stamped.map(({ frame }) => ({ recordingId, seq: frame.seq as number, type: frame.type, payload: frame as Prisma.InputJsonValue, createdAt: at })),
  });
  return stamped;
}

export function publishAll(pubsub: Pick<PubSub, 'publish'>, published: Array<{ frame: Frame; topics: Topic[] }>): void {
  for (const { frame, topics } of published) for (const topic of topics) pubsub.publish(topic, frame);
}

/** One state change: `change` runs in a transaction and returns the frames it caused; they are published after commit. */
export async function inTransaction<T>(
  ctx: Pick<JobsContext, 'prisma' | 'pubsub'>,
  recordingId: string,
  change: (tx: Tx) => Promise<{ result: T; frames: PendingFrame[] }>,
): Promise<T> {
  const { result, published } = await ctx.prisma.$transaction(async (tx) => {
    const { result, frames } = await change(tx);
    return { result, published: await appendEvents(tx, recordingId, frames) };
  }, TX_OPTIONS);
  publishAll(ctx.pubsub, published);
  return result;
}

/** The frame every job state change sends: the state and the fields that changed with it. */
export function stateFrame(job: Pick<JobRow, 'state' | 'error' | 'errorCode' | 'progress' | 'attempts'>, extra: Record<string, unknown> = {}): PendingFrame {
  return {
    type: 'job.state',
    audience: 'job',
    body: { state: job.state, progress: job.progress, error: job.error, errorCode: job.errorCode, attempt: job.attempts, ...extra },
  };
}

export function progressFrame(state: JobState, progress: JobProgress): PendingFrame {
  return { type: 'job.progress', audience: 'job', body: { state, progress } };
}

/** 1 for the next job of the account to start; null unless queued. Ties on `queuedAt` break by id, as admission does. */
export async function queuePosition(prisma: PrismaClient | Tx, job: Pick<JobRow, 'id' | 'accountId' | 'state' | 'queuedAt'>): Promise<number | null> {
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
    const free = Math.max(0, account.concurrencyLimit - running);
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
    return { result: job, frames: [stateFrame(job, { queue: null })] };
  });
  if (begun) await announceQueuePositions(ctx, begun.accountId);
  return begun !== null;
}

/** Sends each still-queued job of the account a `job.progress` frame with its new queue position (not durable: positions are derived). */
export async function announceQueuePositions(ctx: Pick<JobsContext, 'prisma' | 'pubsub'>, accountId: string): Promise<void> {
  const queued = await ctx.prisma.job.findMany({
    where: { accountId, state: 'queued', recording: ACTIVE_WORK },
    orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }],
    select: { recordingId: true, recording: { select: { transcriptionId: true } } },
  });
  queued.forEach((job, index) => {
    const frame: Frame = { type: 'job.progress', recordingId: job.recordingId, state: 'queued', queue: { position: index + 1 }, at: new Date().toISOString() };
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
      data: { ...data, state: 'queued', queuedAt: new Date(), startedAt: null, finishedAt: null, error: null, errorCode: null, progress: { pct: 0 } },
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

/** Ends a job `failed` with a message and, when machine-readable, a code; frees its slot for the next. */
export async function failJob(ctx: JobsContext, jobId: string, error: { message: string; code: string | null }, attempt?: number): Promise<boolean> {
  const recordingId = await recordingOf(ctx.prisma, jobId);
  const failed = await inTransaction(ctx, recordingId, async (tx) => {
    const current = await tx.job.findUnique({ where: { id: jobId } });
    if (!current || !['fetching', 'transcribing', 'queued', 'cropping'].includes(current.state) || (attempt !== undefined && current.attempts !== attempt)) {
      return { result: null, frames: [] };
    }
    const updated = await tx.job.update({
      where: { id: jobId },
      data: { state: 'failed', error: error.message, errorCode: error.code, finishedAt: new Date() },
    });
    await tx.recording.update({ where: { id: recordingId }, data: { state: 'ended' } });
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
  preview: { peaks: number[] | null; bucketS: number | null; durationS: number | null; expiresAt: string | null; available: boolean } | null;
  window: { startS: number; endS: number | null } | null;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export async function jobView(prisma: PrismaClient, job: JobRow): Promise<JobView> {
  const peaks = job.peaks as { peaks?: number[]; bucketS?: number; durationS?: number } | null;
  const previewLive = !!job.previewPath && (!job.previewExpiresAt || job.previewExpiresAt.getTime() > Date.now());
  return {
    recordingId: job.recordingId,
    state: job.state as JobState,
    progress: (job.progress ?? { pct: 0 }) as unknown as JobProgress,
    error: job.error,
    errorCode: job.errorCode,
    source: job.sourceUrl,
    queue: job.state === 'queued' ? { position: (await queuePosition(prisma, job)) ?? 1 } : null,
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

/**
 * The job of a file or link recording in GraphQL: its state, progress, queue place and cropping preview
 * (`recordingJob`), and the moves a caller may ask for (`startRecordingJob` with a crop window,
 * `retryRecordingJob`). REST: rest/routes/jobs.ts.
 */
import { builder } from '../core/builder.js';
import type { JobProgress, JobView } from './service.js';

export const CropWindowInput = builder.inputType('CropWindowInput', {
  description: 'CropWindow: the part of the source to transcribe (seconds); transcript times count from `startS`.',
  fields: (t) => ({
    startS: t.float({ description: 'Seconds; default 0 (absent or null: the start).' }),
    endS: t.float({ description: 'Seconds, greater than `startS`; absent or null: to the end.' }),
  }),
});

export const JobQueueType = builder.objectRef<{ position: number }>('JobQueue').implement({
  description: 'Where a queued job waits behind the account\'s other transcriptions.',
  fields: (t) => ({ position: t.exposeInt('position', { description: '1 is the next job to start.' }) }),
});

export const JobPreviewType = builder.objectRef<NonNullable<JobView['preview']>>('JobPreview').implement({
  description: 'The cropping step: the waveform and whether `/job/preview` media is available.',
  fields: (t) => ({
    peaks: t.floatList({ nullable: true, resolve: (p) => p.peaks, description: 'Peak amplitude 0..1 per bucket; null until the file is '
      + 'measured.' }),
    bucketS: t.exposeFloat('bucketS', { nullable: true, description: 'Seconds per peak.' }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    expiresAt: t.exposeString('expiresAt', { nullable: true, description: 'A link\'s fetched copy is kept ten minutes.' }),
    available: t.exposeBoolean('available'),
  }),
});

export const JobWindowType = builder.objectRef<NonNullable<JobView['window']>>('JobWindow').implement({
  fields: (t) => ({ startS: t.exposeFloat('startS'), endS: t.exposeFloat('endS', { nullable: true }) }),
});

const JobProgressType = builder.objectRef<JobProgress>('JobProgress').implement({
  description: 'How far a job is. Fields a step does not report are null: the fetch ones only while fetching a link, '
    + '`uncoveredSpeechS` once done.',
  fields: (t) => ({
    pct: t.exposeFloat('pct', { description: '0 to 100.' }),
    processedS: t.float({ nullable: true, description: 'Seconds of audio transcribed so far.', resolve: (p) => p.processedS ?? null }),
    totalS: t.float({ nullable: true, description: 'Seconds of audio to transcribe.', resolve: (p) => p.totalS ?? null }),
    segmentsDone: t.int({ nullable: true, description: 'Segments committed so far.', resolve: (p) => p.segmentsDone ?? null }),
    segmentsTotal: t.int({ nullable: true, description: 'Segments in all, once known.', resolve: (p) => p.segmentsTotal ?? null }),
    phase: t.string({
      nullable: true, description: 'While fetching a link: `fetching`, then `extracting`.', resolve: (p) => p.phase ?? null,
    }),
    phasePct: t.float({
      nullable: true, description: 'How far the phase is, 0 to 100, when its size is known.', resolve: (p) => p.phasePct ?? null,
    }),
    fetchedBytes: t.float({ nullable: true, description: 'Bytes of the link fetched so far.', resolve: (p) => p.fetchedBytes ?? null }),
    fetchTotalBytes: t.float({ nullable: true, description: 'The link\'s size, when it said.', resolve: (p) => p.fetchTotalBytes ?? null }),
    uncoveredSpeechS: t.float({
      nullable: true,
      description: 'Once done: seconds of speech the engine heard that no word of the transcript covers, even after decoding '
        + 'that audio again (0 when no word was lost).',
      resolve: (p) => p.uncoveredSpeechS ?? null,
    }),
  }),
});

export const JobType = builder.objectRef<JobView>('TranscriptionJob').implement({
  description: 'The server-owned job that turns a file or link recording into a transcript.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    state: t.exposeString('state', { description: 'cropping, queued, fetching, transcribing, done or failed.' }),
    progress: t.field({ type: JobProgressType, resolve: (job) => job.progress }),
    error: t.exposeString('error', { nullable: true }),
    errorCode: t.exposeString('errorCode', {
      nullable: true,
      description: 'Machine-readable: invalid_audio, link_refused, link_unreachable, link_http_error, too_large, too_many_redirects, '
        + 'source_missing, worker_lost, internal.',
    }),
    source: t.exposeString('source', { nullable: true, description: 'The link the job came from.' }),
    queue: t.field({ type: JobQueueType, nullable: true, resolve: (job) => job.queue }),
    preview: t.field({ type: JobPreviewType, nullable: true, description: 'While cropping.', resolve: (job) => job.preview }),
    window: t.field({ type: JobWindowType, nullable: true, resolve: (job) => job.window }),
    attempts: t.exposeInt('attempts'),
    createdAt: t.exposeString('createdAt'),
    startedAt: t.exposeString('startedAt', { nullable: true }),
    finishedAt: t.exposeString('finishedAt', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  recordingJob: t.field({
    type: JobType,
    description: 'Job state and progress; a queued job carries its place in the account\'s queue.',
    authScopes: { read: true },
    args: { recordingId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.jobs.get(ctx.identity!.account.id, String(args.recordingId)),
  }),
}));

builder.mutationFields((t) => ({
  startRecordingJob: t.field({
    type: JobType,
    description: 'Release a cropping job with a window (`startS`, optional `endS`); transcript times count from `startS`.',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }), window: t.arg({ type: CropWindowInput }) },
    resolve: (_root, args, ctx) => ctx.services.jobs.start(ctx.identity!.account.id, String(args.recordingId), args.window ?? {}),
  }),
  retryRecordingJob: t.field({
    type: JobType,
    description: 'Re-queue a failed job (a link whose fetch failed is fetched again).',
    authScopes: { write: true },
    args: { recordingId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.jobs.retry(ctx.identity!.account.id, String(args.recordingId)),
  }),
}));

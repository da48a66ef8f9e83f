import { builder } from '../builder.js';
import type { JobView } from '../../services/jobs.js';
import type { ProbeRecord } from '../../services/links/index.js';
import type { TranscriptionPage, TranscriptionView } from '../../services/transcriptions.js';
import { ShareLinkType } from '../share-links/types.js';

export const JobQueueType = builder.objectRef<{ position: number }>('JobQueue').implement({
  description: 'Where a queued job waits behind the account\'s other transcriptions.',
  fields: (t) => ({ position: t.exposeInt('position', { description: '1 is the next job to start.' }) }),
});

export const JobPreviewType = builder.objectRef<NonNullable<JobView['preview']>>('JobPreview').implement({
  description: 'The cropping step: the waveform and whether `/job/preview` media is available.',
  fields: (t) => ({
    peaks: t.floatList({ nullable: true, resolve: (p) => p.peaks, description: 'Peak amplitude 0..1 per bucket; null until the file is measured.' }),
    bucketS: t.exposeFloat('bucketS', { nullable: true, description: 'Seconds per peak.' }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    expiresAt: t.exposeString('expiresAt', { nullable: true, description: 'A link\'s fetched copy is kept ten minutes.' }),
    available: t.exposeBoolean('available'),
  }),
});

export const JobWindowType = builder.objectRef<NonNullable<JobView['window']>>('JobWindow').implement({
  fields: (t) => ({ startS: t.exposeFloat('startS'), endS: t.exposeFloat('endS', { nullable: true }) }),
});

export const JobType = builder.objectRef<JobView>('TranscriptionJob').implement({
  description: 'The server-owned job that turns a file or link recording into a transcript.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    state: t.exposeString('state', { description: 'cropping, queued, fetching, transcribing, done or failed.' }),
    progress: t.field({
      type: 'JSON',
      description: '`pct` 0..100, `processedS`, `totalS`, `segmentsDone`, `segmentsTotal`; while fetching `phase` (fetching, extracting), `phasePct`, `fetchedBytes`, `fetchTotalBytes`.',
      resolve: (job) => job.progress,
    }),
    error: t.exposeString('error', { nullable: true }),
    errorCode: t.exposeString('errorCode', { nullable: true }),
    source: t.exposeString('source', { nullable: true, description: 'The link the job came from.' }),
    queue: t.field({ type: JobQueueType, nullable: true, resolve: (job) => job.queue }),
    preview: t.field({ type: JobPreviewType, nullable: true, resolve: (job) => job.preview }),
    window: t.field({ type: JobWindowType, nullable: true, resolve: (job) => job.window }),
    attempts: t.exposeInt('attempts'),
    createdAt: t.exposeString('createdAt'),
    startedAt: t.exposeString('startedAt', { nullable: true }),
    finishedAt: t.exposeString('finishedAt', { nullable: true }),
  }),
});

export const TranscriptionType = builder.objectRef<TranscriptionView>('Transcription').implement({
  description: 'A transcription of a file or a link (one recording, one job), or a live transcription.',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind', { description: 'file, link or live.' }),
    name: t.exposeString('name'),
    state: t.exposeString('state', { description: 'Lifecycle: active or archived.' }),
    settings: t.field({ type: 'JSON', resolve: (tr) => tr.settings }),
    sourceUrl: t.exposeString('sourceUrl', { nullable: true }),
    recordingId: t.exposeID('recordingId', { nullable: true }),
    job: t.field({ type: JobType, nullable: true, resolve: (tr) => tr.job }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    spokenLanguage: t.exposeString('spokenLanguage', { nullable: true }),
    shareLink: t.field({ type: ShareLinkType, nullable: true, resolve: (tr) => tr.shareLink }),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    archivedAt: t.exposeString('archivedAt', { nullable: true }),
    purgeAfter: t.exposeString('purgeAfter', { nullable: true }),
  }),
});

export const TranscriptionPageType = builder.objectRef<TranscriptionPage>('TranscriptionPage').implement({
  fields: (t) => ({
    items: t.field({ type: [TranscriptionType], resolve: (page) => page.items }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Absent on the last page.' }),
  }),
});

export const ProbeMediaType = builder.objectRef<ProbeRecord['media'][number]>('ProbeMedia').implement({
  fields: (t) => ({ url: t.exposeString('url'), title: t.exposeString('title', { nullable: true }) }),
});

export const ProbeRecordType = builder.objectRef<ProbeRecord>('ProbeRecord').implement({
  description: 'What a link is: a file to transcribe, a live stream, a page with recordings on it, or nothing usable.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'file, live or unknown.' }),
    ok: t.exposeBoolean('ok'),
    problem: t.exposeString('problem', { nullable: true }),
    source: t.exposeString('source', { nullable: true, description: 'radio, or the video platform\'s name.' }),
    media: t.field({ type: [ProbeMediaType], resolve: (p) => p.media }),
    contentType: t.exposeString('contentType', { nullable: true }),
    bytes: t.exposeFloat('bytes', { nullable: true }),
    url: t.exposeString('url', { description: 'The address after redirects.' }),
  }),
});

export interface JobEventFrame { type: string; recordingId?: string; seq?: number; at?: string; [key: string]: unknown }

export const JobEventType = builder.objectRef<JobEventFrame>('TranscriptionEvent').implement({
  description: 'A frame of the transcription\'s events socket: `job.state` (state changes) and `job.progress` (each step).',
  fields: (t) => ({
    type: t.string({ resolve: (f) => f.type }),
    recordingId: t.id({ nullable: true, resolve: (f) => f.recordingId ?? null }),
    seq: t.int({ nullable: true, resolve: (f) => f.seq ?? null, description: 'Durable event seq; absent on queue-position updates.' }),
    at: t.string({ nullable: true, resolve: (f) => f.at ?? null }),
    state: t.string({ nullable: true, resolve: (f) => (typeof f.state === 'string' ? f.state : null) }),
    frame: t.field({ type: 'JSON', description: 'The whole frame as the REST socket sends it.', resolve: (f) => f }),
  }),
});

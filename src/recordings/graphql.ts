import { builder } from '../core/builder.js';
import { readerOf, type TranscriptSnapshot } from './service.js';

type Sentence = TranscriptSnapshot['sentences'][number];
type SegmentRow = TranscriptSnapshot['segments'][number];
interface WordValue { start: number; end: number; text: string; prob: number }

export const WordType = builder.objectRef<WordValue>('Word').implement({
  fields: (t) => ({ start: t.exposeFloat('start'), end: t.exposeFloat('end'), text: t.exposeString('text'), prob: t.exposeFloat('prob') }),
});

export const TranscriptSentenceType = builder.objectRef<Sentence>('TranscriptSentence').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    speaker: t.exposeInt('speaker', { description: '-1: speaker labels were off.' }),
    start: t.exposeFloat('start'),
    end: t.exposeFloat('end'),
    text: t.exposeString('text'),
    translations: t.field({ type: 'JSON', resolve: (s) => s.translations }),
    confidence: t.exposeFloat('confidence', { nullable: true }),
    unclear: t.boolean({ nullable: true, description: 'Below the confidence policy\'s hideBelow; every word is kept.', resolve: (s) => s.unclear ?? null }),
  }),
});

export const TranscriptSegmentType = builder.objectRef<SegmentRow>('TranscriptSegment').implement({
  fields: (t) => ({
    seq: t.exposeInt('seq'),
    speaker: t.exposeInt('speaker'),
    start: t.exposeFloat('start'),
    end: t.exposeFloat('end'),
    text: t.exposeString('text'),
    words: t.field({ type: [WordType], resolve: (s) => s.words as WordValue[] }),
    confidence: t.exposeFloat('confidence', { nullable: true }),
    language: t.exposeString('language', { nullable: true }),
    decoder: t.exposeString('decoder', { nullable: true }),
  }),
});

export const SpeakerType = builder.objectRef<{ index: number; name: string | null }>('TranscriptSpeaker').implement({
  fields: (t) => ({ index: t.exposeInt('index'), name: t.exposeString('name', { nullable: true }) }),
});

export const TranscriptJobStateType = builder.objectRef<NonNullable<TranscriptSnapshot['job']>>('TranscriptJobState').implement({
  fields: (t) => ({ state: t.exposeString('state'), pct: t.exposeFloat('pct') }),
});

export const TranscriptSnapshotType = builder.objectRef<TranscriptSnapshot>('TranscriptSnapshot').implement({
  description: 'The transcript up to `lastSeq`; while the job runs it is `partial`.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    transcriptionId: t.exposeID('transcriptionId'),
    state: t.exposeString('state'),
    language: t.exposeString('language', { nullable: true }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    lastSeq: t.exposeInt('lastSeq'),
    partial: t.exposeBoolean('partial'),
    job: t.field({ type: TranscriptJobStateType, nullable: true, resolve: (s) => s.job }),
    sentences: t.field({ type: [TranscriptSentenceType], resolve: (s) => s.sentences }),
    segments: t.field({ type: [TranscriptSegmentType], resolve: (s) => s.segments }),
    speakers: t.field({ type: [SpeakerType], resolve: (s) => s.speakers }),
  }),
});

interface EventEntry { seq: number; type: string; at: string; frame: unknown }
export const RecordingEventType = builder.objectRef<EventEntry>('RecordingEvent').implement({
  fields: (t) => ({
    seq: t.exposeInt('seq'),
    type: t.exposeString('type'),
    at: t.exposeString('at', { description: 'When the event was written.' }),
    frame: t.field({ type: 'JSON', resolve: (e) => e.frame }),
  }),
});

export const RecordingEventPageType = builder.objectRef<{ events: EventEntry[]; lastSeq: number; nextCursor: string | null }>('RecordingEventPage').implement({
  fields: (t) => ({
    events: t.field({ type: [RecordingEventType], resolve: (p) => p.events }),
    lastSeq: t.exposeInt('lastSeq'),
    nextCursor: t.exposeString('nextCursor', { nullable: true }),
  }),
});

export const MediaTokenType = builder.objectRef<{ token: string; expiresAt: string }>('MediaToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Pass as `media=` on /audio and /audio/clip of this recording.' }),
    expiresAt: t.exposeString('expiresAt'),
  }),
});

export const RecordingType = builder.objectRef<import('./service.js').RecordingView>('Recording').implement({
  description: 'The unit that holds a transcript. A file or link transcription has exactly one.',
  fields: (t) => ({
    id: t.exposeID('id'),
    transcriptionId: t.exposeID('transcriptionId'),
    name: t.exposeString('name', { nullable: true }),
    state: t.exposeString('state', { description: 'File recordings: processing, ended (job failed) or finalized.' }),
    lifecycle: t.exposeString('lifecycle', { description: 'active or archived.' }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    spokenLanguage: t.exposeString('spokenLanguage', { nullable: true }),
    lastSeq: t.exposeInt('lastSeq'),
    createdAt: t.exposeString('createdAt'),
    updatedAt: t.exposeString('updatedAt'),
    archivedAt: t.exposeString('archivedAt', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  recording: t.field({
    type: RecordingType,
    description: 'One recording: its owner, or anyone with a `shareCode` of its transcription.',
    authScopes: { public: true },
    args: { id: t.arg.id({ required: true }), shareCode: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.recordings.get(String(args.id), readerOf(ctx, args)),
  }),
  recordingTranscript: t.field({
    type: TranscriptSnapshotType,
    description: 'Transcript snapshot (sentences, segments with words, speakers, lastSeq). `after` returns segments past a seq. Owner, or anyone with a `shareCode`.',
    // A share code is a credential of its own: the service decides between owner and link.
    authScopes: { public: true },
    args: { recordingId: t.arg.id({ required: true }), after: t.arg.int(), lang: t.arg.string(), shareCode: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.recordings.transcript(String(args.recordingId), readerOf(ctx, args), { after: args.after, lang: args.lang }),
  }),
  recordingEvents: t.field({
    type: RecordingEventPageType,
    description: 'The recording\'s durable event log in order; `cursor` from a previous page or `after` a seq, not both.',
    authScopes: { read: true },
    args: { recordingId: t.arg.id({ required: true }), cursor: t.arg.string(), after: t.arg.int(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.events(ctx.identity!.account.id, String(args.recordingId), args),
  }),
  recordingMediaToken: t.field({
    type: MediaTokenType,
    description: 'The owner\'s credential for this recording\'s media URLs: the same for a UTC day, valid to the end of the next.',
    authScopes: { read: true },
    args: { recordingId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.recordings.mediaToken(String(args.recordingId), { accountId: ctx.identity!.account.id }),
  }),
}));

builder.mutationFields((t) => ({
  archiveRecording: t.field({
    type: RecordingType,
    description: 'Hide a recording: share-link reads answer 404 and its job leaves the queue; data kept.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.archiveRecording(ctx.identity!.account.id, String(args.id)),
  }),
  restoreRecording: t.field({
    type: RecordingType,
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.restoreRecording(ctx.identity!.account.id, String(args.id)),
  }),
  purgeRecording: t.field({
    type: 'JSON',
    description: 'Delete an archived recording (transcript, events, job, media) for good: `{id, purged: true}`.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.purgeRecording(ctx.identity!.account.id, String(args.id)),
  }),
}));

// No recording subscription yet: the live recordings module adds one (and publishes its topic) with the subscribe socket.

import { builder } from '../core/builder.js';
import { uploadedStream } from '../core/uploads.js';
import { LifecycleTimesRef, PurgedType } from '../core/lifecycle.js';
import { SpeakerLabels } from '../meta/graphql.js';
import { ConfidencePolicyInput, SettingsType } from '../recordings/graphql.js';
import { CropWindowInput, JobType } from '../jobs/graphql.js';
import type { ProbeRecord } from '../links/index.js';
import { takeStagedUpload, type CaptureSource, type TranscriptionPage, type TranscriptionView } from './service.js';
import { ShareLinkType } from '../share-links/graphql.js';
import { errors } from '../core/errors.js';
import { baseUrlOf } from '../core/context.js';
import { actorOf } from '../core/identity/actor.js';

/**
 * Typed inputs of file and link transcriptions, with the spec's field names (CreateTranscription, SettingsPatch,
 * ConfidencePolicy, CropWindow). The service validates the values (ranges, codes, combinations) and names the
 * field it refuses; the REST routes run the same validation on the raw body first, so an unknown field or a
 * wrong type answers `400 invalid_options` naming it rather than GraphQL's coercion message.
 */

export const SettingsPatchInput = builder.inputType('SettingsPatchInput', {
  description: 'SettingsPatch: capture settings of a file job; in an update, keys left out stay and null clears one. Unknown keys are '
    + 'refused (400 naming `settings.<key>`).',
  fields: (t) => ({
    spokenLanguage: t.string({ description: 'A language code such as `en`; absent, empty, `auto` or null: detect.' }),
    speakerLabels: t.field({
      type: SpeakerLabels,
      description: '`on` or `auto`: each segment gets `speaker` (from 0) and `speakerConfidence` from classical diarization (MFCC '
        + 'statistics and BIC clustering, no neural embedding: a file\'s whole audio at once; live capture online, each segment '
        + '`speakerProvisional` until a `transcript.speaker` frame settles it, and clustered again from the whole audio at finalize); '
        + '`off` or absent: `speaker` -1.',
    }),
    confidencePolicy: t.field({ type: ConfidencePolicyInput, description: 'null clears a stored policy (back to the default).' }),
    voiceByLang: t.field({
      type: 'JSON',
      description: 'Which voice speaks each language of a spoken translation (`POST /v1/recordings/{id}/voice`): a voice language (GET '
        + '/v1/languages `voice`) to a catalogue voice that speaks it (GET /v1/voices/available) or one of the account\'s cloned voices '
        + '(`voi_…`; while it is not ready, switched off or deleted, the language\'s default speaks): {"es": "ef_dora", "fr": "voi_…"}. A '
        + 'recording\'s pin wins over its transcription\'s; null clears.',
    }),
  }),
});

export const CreateTranscriptionInput = builder.inputType('CreateTranscriptionInput', {
  description: 'CreateTranscription: a link (`url`) or, with an uploaded file, its options.',
  fields: (t) => ({
    url: t.string({ description: 'An http or https link, fetched server-side; absent for a file upload. Private, loopback and '
      + 'cloud-metadata addresses are refused (400, `details.problem` `link_refused`).' }),
    name: t.string({ description: 'Default: the file name or the URL. Not blank; at most 300 characters; trimmed.' }),
    settings: t.field({ type: SettingsPatchInput }),
    crop: t.boolean({ description: 'Default false: open the cropping step (waveform peaks and `/job/preview`) before transcribing; not '
      + 'with `startS`/`endS`.' }),
    startS: t.float({ description: 'Start of the window to transcribe, in seconds; not together with `crop`.' }),
    endS: t.float({ description: 'End of the window, in seconds; must be greater than `startS` (not with `crop`).' }),
    durationS: t.float({ description: 'Source length as measured by the client.' }),
    shareLink: t.boolean({ description: 'Default true: make the default share link (download, export, translate on).' }),
  }),
});

export const CaptureSourceKind = builder.enumType('CaptureSourceKind', { values: ['mic', 'stream'] as const });

export const CaptureSourceInput = builder.inputType('CaptureSourceInput', {
  description: 'CaptureSource: a publisher\'s microphone (`mic`, the default) or a live stream the server pulls (`stream` with `url`).',
  fields: (t) => ({
    kind: t.field({ type: CaptureSourceKind, required: true }),
    url: t.string({ description: 'For `stream`: the http(s) address of the live audio; private, loopback and metadata addresses are '
      + 'refused (400, `details.problem` `link_refused`).' }),
  }),
});

const MicSourceType = builder.objectRef<Extract<CaptureSource, { kind: 'mic' }>>('MicSource').implement({
  description: 'The publisher\'s microphone: a browser or device publishes the audio (`{kind: "mic"}`).',
  fields: (t) => ({ kind: t.field({ type: CaptureSourceKind, description: 'Always `mic`.', resolve: () => 'mic' as const }) }),
});

const StreamSourceType = builder.objectRef<Extract<CaptureSource, { kind: 'stream' }>>('StreamSource').implement({
  description: 'A live stream the server pulls when a recording starts (`{kind: "stream", url}`).',
  fields: (t) => ({
    kind: t.field({ type: CaptureSourceKind, description: 'Always `stream`.', resolve: () => 'stream' as const }),
    url: t.exposeString('url', {
      description: 'The http(s) address of the live audio; private, loopback and metadata addresses are refused (400, '
        + '`details.problem` `link_refused`).',
    }),
  }),
});

/** Where a live transcription's or a broadcast's audio comes from: set at creation, never changed. */
export const CaptureSourceType = builder.unionType('CaptureSource', {
  description: 'Where the audio comes from: the publisher\'s microphone, or a live stream the server pulls.',
  types: [MicSourceType, StreamSourceType],
  resolveType: (source) => (source.kind === 'stream' ? StreamSourceType : MicSourceType),
});

export const CreateLiveTranscriptionInput = builder.inputType('CreateLiveTranscriptionInput', {
  description: 'CreateLiveTranscription: created idle, with no recording until one is started.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Not blank; at most 300 characters; trimmed.' }),
    settings: t.field({ type: SettingsPatchInput }),
    source: t.field({ type: CaptureSourceInput, description: 'Default: mic (`{kind: "mic"}`).' }),
    broadcasts: t.stringList({ description: 'Broadcast ids to feed from the start (default none): active broadcasts of this account, '
      + 'otherwise 404 naming `broadcasts`.' }),
  }),
});

export const UpdateTranscriptionInput = builder.inputType('UpdateTranscriptionInput', {
  description: 'Rename (`name`) or change the default settings (`settings`, merged key by key; null clears a key).',
  fields: (t) => ({
    name: t.string({ description: 'Not blank; at most 300 characters; trimmed.' }),
    settings: t.field({
      type: SettingsPatchInput, description: 'Merged key by key into the stored settings; a key set to null is cleared.',
    }),
  }),
});

export const TranscriptionType = builder.objectRef<TranscriptionView>('Transcription').implement({
  description: 'A transcription of a file or a link (one recording, one job), or a live transcription.',
  interfaces: [LifecycleTimesRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind', { description: 'file, link or live.' }),
    name: t.exposeString('name'),
    state: t.exposeString('state', { description: 'Lifecycle: active or archived.' }),
    settings: t.field({
      type: SettingsType, description: 'Default capture settings of its recordings.',
      resolve: (tr) => tr.settings as Record<string, unknown>,
    }),
    sourceUrl: t.exposeString('sourceUrl', { nullable: true }),
    source: t.field({ type: CaptureSourceType, nullable: true, description: 'Live: where the audio comes from (null for file and link '
      + 'transcriptions).', resolve: (tr) => tr.source }),
    recordingId: t.exposeID('recordingId', { nullable: true, description: 'The newest recording; a live transcription has none until one '
      + 'starts.' }),
    job: t.field({ type: JobType, nullable: true, resolve: (tr) => tr.job }),
    durationS: t.exposeFloat('durationS', { nullable: true }),
    spokenLanguage: t.exposeString('spokenLanguage', { nullable: true }),
    shareLink: t.field({ type: ShareLinkType, nullable: true, description: 'The default link (null with `shareLink: false` or once '
      + 'revoked).', resolve: (tr) => tr.shareLink }),
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
    frame: t.field({ type: 'Frame', description: 'The whole frame as the REST socket sends it.', resolve: (f) => f as { type: string } }),
  }),
});

builder.queryFields((t) => ({
  transcriptions: t.field({
    type: TranscriptionPageType,
    description: 'The caller\'s transcriptions, newest first, paged with `cursor`; `lifecycle` active (default), archived or all.',
    authScopes: { read: true },
    args: { cursor: t.arg.string(), lifecycle: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.list(ctx.identity!.account.id, args),
  }),
  transcription: t.field({
    type: TranscriptionType,
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.get(ctx.identity!.account.id, String(args.id)),
  }),
  transcriptionProbe: t.field({
    type: ProbeRecordType,
    description: 'Looks at a link without storing anything. Private, loopback and cloud-metadata addresses are refused.',
    authScopes: { read: true },
    args: { url: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.probe(ctx.identity!.account.id, args.url),
  }),
}));

/**
 * A `file` argument as the service takes an upload: a GraphQL multipart file, or an upload the REST route already
 * streamed to storage (`POST /v1/transcriptions` as multipart runs this mutation with it).
 */
function uploadOf(value: unknown) {
  return takeStagedUpload(value) ?? uploadedStream(value, 'file');
}

builder.mutationFields((t) => ({
  createTranscription: t.field({
    type: TranscriptionType,
    description: 'Transcribe an uploaded file (`file`) or a link (`options.url`). `options` holds the CreateTranscription fields. Answers '
      + 'at once; follow `job`.',
    authScopes: { write: true },
    args: {
      options: t.arg({ type: CreateTranscriptionInput }),
      file: t.arg({ type: 'Upload' }),
    },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.create(
      actorOf(ctx.identity!), args.options ?? {}, uploadOf(args.file), baseUrlOf(ctx),
    ),
  }),
  uploadRecording: t.field({
    type: TranscriptionType,
    description: 'A file (`file`) or link (`options.url`) recording inside a live transcription, with no live phase: transcribed at full '
      + 'speed as a file job. `options` holds the CreateTranscription fields but `shareLink`; its `settings` apply to this recording. '
      + 'Answers the transcription; `job.recordingId` names the new recording.',
    authScopes: { write: true },
    args: {
      transcriptionId: t.arg.id({ required: true }),
      options: t.arg({ type: CreateTranscriptionInput }),
      file: t.arg({ type: 'Upload' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.transcriptions.uploadRecording(
        actorOf(ctx.identity!), String(args.transcriptionId), args.options ?? {}, uploadOf(args.file), baseUrlOf(ctx),
      ),
  }),
  createLiveTranscription: t.field({
    type: TranscriptionType,
    description: 'A live transcription (CreateLiveTranscription), created idle: start a recording to capture.',
    authScopes: { write: true },
    args: { input: t.arg({ type: CreateLiveTranscriptionInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.createLive(
      { accountId: ctx.identity!.account.id, principalId: ctx.identity!.principal.id }, args.input,
    ),
  }),
  updateTranscription: t.field({
    type: TranscriptionType,
    description: 'Rename (`name`) or change default settings (`settings`, merged; null clears a key).',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateTranscriptionInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.update(ctx.identity!.account.id, String(args.id), args.input),
  }),
  archiveTranscription: t.field({
    type: TranscriptionType,
    description: 'Hide it; its share links stop working; data kept until restored or purged.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.archive(ctx.identity!.account.id, String(args.id)),
  }),
  restoreTranscription: t.field({
    type: TranscriptionType,
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.restore(ctx.identity!.account.id, String(args.id)),
  }),
  purgeTranscription: t.field({
    type: PurgedType,
    description: 'Delete an archived transcription and its media for good: `{id, purged: true}`.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.transcriptions.purge(ctx.identity!.account.id, String(args.id)),
  }),
}));

builder.subscriptionFields((t) => ({
  transcriptionEvents: t.field({
    type: JobEventType,
    description: 'The events socket\'s frames as a subscription: `job.state` on every state change and `job.progress` per step.',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    subscribe: async (_root, args, ctx) => {
      // Ownership is checked before listening: another account's id is 404, not a silent empty stream.
      await ctx.services.transcriptions.get(ctx.identity!.account.id, String(args.id));
      return ctx.pubsub.subscribe(`transcription:${String(args.id)}`);
    },
    resolve: (frame) => frame as JobEventFrame,
  }),
}));

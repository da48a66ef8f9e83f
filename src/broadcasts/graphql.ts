import DataLoader from 'dataloader';
import { builder } from '../core/builder.js';
import { LifecycleTimesRef, PurgedType } from '../core/lifecycle.js';
import { baseUrlOf, type Context } from '../core/context.js';
import { CaptureSourceInput, CaptureSourceType, SettingsPatchInput, TranscriptionType } from '../transcriptions/graphql.js';
import { SettingsType } from '../recordings/graphql.js';
import { RecordingGrantType, RecordingPageType } from '../live/recordings-graphql.js';
import type { BroadcastPage, BroadcastRefView, BroadcastView, LastRecordingView } from './service.js';
import { FIX_KINDS, SOURCE_PROBLEMS, type AudioSourceCheck, type AudioSourceFix } from './source-check.js';
import { MAX_SOURCE_URL } from './audio-sources.js';

export const Access = builder.enumType('Access', { values: ['public', 'private'] as const });

export const CreateBroadcastInput = builder.inputType('CreateBroadcastInput', {
  description: 'CreateBroadcast: `name`; `code` (derived from the name when left out), `access` (public), `password` (required when '
    + 'private), `settings`, `source` (mic).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Not blank; at most 300 characters; trimmed.' }),
    access: t.field({ type: Access, description: 'Default: public.' }),
    code: t.string({ description: 'The link listeners open: 3 to 64 lower-case letters, digits and inner hyphens; globally unique. '
      + 'Default: derived from `name` (a short suffix when that is taken).' }),
    password: t.string({ description: 'Required when `access` is private (4 to 200 characters); listeners of a private broadcast prove '
      + 'it; only its hash is kept.' }),
    settings: t.field({ type: SettingsPatchInput }),
    source: t.field({ type: CaptureSourceInput, description: 'Default: mic (`{kind: "mic"}`); set at creation, never changed.' }),
  }),
});

export const UpdateBroadcastInput = builder.inputType('UpdateBroadcastInput', {
  description: 'Fields left out stay: `name`, `access`, `password` (null clears it on a public broadcast), `code` (the old one keeps '
    + 'opening it), `settings` (merged; null clears a key).',
  fields: (t) => ({
    name: t.string({ description: 'Not blank; at most 300 characters; trimmed.' }),
    access: t.field({ type: Access }),
    code: t.string({ description: 'The link listeners open: 3 to 64 lower-case letters, digits and inner hyphens; globally unique (the '
      + 'old code keeps opening the broadcast).' }),
    password: t.string({ description: 'A new password (4 to 200 characters; only its hash is kept); null clears it (only while public).' }),
    settings: t.field({
      type: SettingsPatchInput, description: 'Merged key by key into the stored settings; a key set to null is cleared.',
    }),
  }),
});

export const CurrentRecordingType = builder.objectRef<NonNullable<BroadcastView['currentRecording']>>('CurrentRecording').implement({
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    state: t.exposeString('state'),
    startedAt: t.exposeString('startedAt', { nullable: true }),
    transcriptionId: t.exposeID('transcriptionId', { nullable: true, description: 'The live transcription the recording is made in.' }),
  }),
});

const AudioSourceType = builder.objectRef<BroadcastView['audioSources'][number]>('AudioSource').implement({
  description: 'A stream the broadcast can record besides the microphone (an internet radio, a platform\'s live stream).',
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name'), url: t.exposeString('url') }),
});

const LastRecordingType = builder.objectRef<LastRecordingView>('LastRecording').implement({
  description: 'The newest recording among those of the live transcriptions feeding the broadcast.',
  fields: (t) => ({
    recordingId: t.exposeID('recordingId'),
    transcriptionId: t.exposeID('transcriptionId', { description: 'The live transcription it was made in.' }),
    kind: t.exposeString('kind', { description: '`live`, or `file` for one uploaded into a feeding transcription.' }),
    name: t.exposeString('name', { nullable: true }),
    state: t.exposeString('state', { description: 'Live: live ⇄ paused → ended → finalized; file: processing, ended (job failed) or '
      + 'finalized.' }),
    lifecycle: t.exposeString('lifecycle', { description: 'active or archived.' }),
    startedAt: t.exposeString('startedAt'),
    endedAt: t.exposeString('endedAt', { nullable: true }),
    durationS: t.exposeFloat('durationS', { nullable: true, description: 'Seconds of audio, once finalized.' }),
  }),
});

const TranscriptionRefType = builder.objectRef<BroadcastView['transcriptions'][number]>('TranscriptionRef').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

export const BroadcastType = builder.objectRef<BroadcastView>('Broadcast').implement({
  description: 'A link (`code`) that listeners open, fed by the live transcriptions attached to it.',
  interfaces: [LifecycleTimesRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    code: t.exposeString('code', {
      description: 'The link listeners open; globally unique. Every code the broadcast had keeps opening it.',
    }),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: 'Always `broadcast`.' }),
    source: t.field({
      type: CaptureSourceType, description: 'Where the audio comes from: mic, or a stream the server pulls.', resolve: (b) => b.source,
    }),
    access: t.field({ type: Access, resolve: (b) => b.access }),
    lifecycle: t.exposeString('lifecycle', { description: 'active or archived.' }),
    ownerPrincipalId: t.exposeString('ownerPrincipalId'),
    shareUrl: t.exposeString('shareUrl', { description: 'The listener page (`/b/{code}`).' }),
    settings: t.field({
      type: SettingsType, description: 'Default capture settings: spokenLanguage, speakerLabels, confidencePolicy.',
      resolve: (b) => b.settings as Record<string, unknown>,
    }),
    recordingCount: t.exposeInt('recordingCount', { description: 'Recordings made in the live transcriptions feeding it.' }),
    audioSources: t.field({
      type: [AudioSourceType], description: 'Streams it can record besides the microphone, oldest first.', resolve: (b) => b.audioSources,
    }),
    transcriptions: t.field({
      type: [TranscriptionRefType], description: 'Live transcriptions feeding it.', resolve: (b) => b.transcriptions,
    }),
    currentRecording: t.field({ type: CurrentRecordingType, nullable: true, description: 'The recording in flight in a feeding '
      + 'transcription.', resolve: (b) => b.currentRecording }),
    lastRecording: t.field({
      type: LastRecordingType, nullable: true,
      description: 'The newest recording among those of the transcriptions feeding it (archived ones included, as in `recordingCount`).',
      resolve: (b) => b.lastRecording,
    }),
    lastRecordedAt: t.exposeString('lastRecordedAt', { nullable: true, description: 'The newest start among the feeding transcriptions\' '
      + 'recordings.' }),
  }),
});

export const BroadcastPageType = builder.objectRef<BroadcastPage>('BroadcastPage').implement({
  fields: (t) => ({
    items: t.field({ type: [BroadcastType], resolve: (page) => page.items }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Absent on the last page.' }),
  }),
});

/** The acting principal, with its kind (billing's usage source of the recordings it starts). */
const actorOf = (ctx: Context) => ({
  accountId: ctx.identity!.account.id, principalId: ctx.identity!.principal.id, principalKind: ctx.identity!.principal.kind,
});

builder.queryFields((t) => ({
  broadcasts: t.field({
    type: BroadcastPageType,
    description: 'The caller\'s broadcasts, newest first, paged with `cursor`; `lifecycle` active (default), archived or all (up to '
      + '`limit` of each).',
    authScopes: { read: true },
    args: { cursor: t.arg.string(), lifecycle: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.list(ctx.identity!.account.id, args, baseUrlOf(ctx)),
  }),
  broadcast: t.field({
    type: BroadcastType,
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.get(ctx.identity!.account.id, String(args.id), baseUrlOf(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  createBroadcast: t.field({
    type: BroadcastType,
    description: 'Create a broadcast (CreateBroadcast). A `code` taken by any broadcast is 409 `conflict`.',
    authScopes: { write: true },
    args: { input: t.arg({ type: CreateBroadcastInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.create(actorOf(ctx), args.input, baseUrlOf(ctx)),
  }),
  updateBroadcast: t.field({
    type: BroadcastType,
    description: 'Rename, change access or password, change `code` (every code it had keeps opening it), or merge default settings.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateBroadcastInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.update(ctx.identity!.account.id, String(args.id), args.input, baseUrlOf(ctx)),
  }),
  archiveBroadcast: t.field({
    type: BroadcastType,
    description: 'Hidden from the default listing; its links dead at once; data kept.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.archive(ctx.identity!.account.id, String(args.id), baseUrlOf(ctx)),
  }),
  restoreBroadcast: t.field({
    type: BroadcastType,
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.restore(ctx.identity!.account.id, String(args.id), baseUrlOf(ctx)),
  }),
  purgeBroadcast: t.field({
    type: PurgedType,
    description: 'Delete an archived broadcast for good (its codes become free); the transcriptions that fed it stay. '
      + '`{id, purged: true}`.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.purge(ctx.identity!.account.id, String(args.id)),
  }),
}));

// ---- the transcriptions feeding broadcasts: both directions --------------------------------------------------------

const BroadcastRefType = builder.objectRef<BroadcastRefView>('BroadcastRef').implement({
  description: 'A broadcast a live transcription feeds.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    code: t.exposeString('code'),
    access: t.field({ type: Access, resolve: (ref) => ref.access }),
    shareUrl: t.exposeString('shareUrl'),
  }),
});

builder.objectField(TranscriptionType, 'broadcasts', (t) =>
  t.field({
    type: [BroadcastRefType],
    description: 'Live: the broadcasts it feeds, in the order they were attached (empty for file and link transcriptions).',
    resolve: async (transcription, _args, ctx) => (await broadcastRefs(ctx).loadMany(transcription.broadcastIds)).filter(
      (ref): ref is BroadcastRefView => !!ref && !(ref instanceof Error),
    ),
  }),
);

/**
 * The caller's broadcasts by id, loaded once per request: a page of transcriptions reads the broadcasts they feed in
 * one query, not one per transcription. Null for an id no broadcast of the account has (purged).
 */
function broadcastRefs(ctx: Context): DataLoader<string, BroadcastRefView | null> {
  let loader = ctx.loaders.get('broadcastRefs') as DataLoader<string, BroadcastRefView | null> | undefined;
  if (!loader) {
    loader = new DataLoader(async (ids: readonly string[]) => {
      const refs = new Map(
        (await ctx.services.broadcasts.refs(ctx.identity!.account.id, [...ids], baseUrlOf(ctx))).map((ref) => [ref.id, ref]),
      );
      return ids.map((id) => refs.get(id) ?? null);
    });
    ctx.loaders.set('broadcastRefs', loader);
  }
  return loader;
}

builder.mutationFields((t) => ({
  ...Object.fromEntries((['attach', 'detach'] as const).map((move) => [`${move}TranscriptionBroadcast`, t.field({
    type: TranscriptionType,
    description: move === 'attach'
      ? 'The live transcription feeds the broadcast (many to many; repeating changes nothing). Returns the transcription.'
      : 'The transcription stops feeding the broadcast (repeating changes nothing). Returns the transcription.',
    authScopes: { write: true },
    args: { transcriptionId: t.arg.id({ required: true }), broadcastId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const accountId = ctx.identity!.account.id;
      await ctx.services.broadcasts.feed(accountId, String(args.transcriptionId), String(args.broadcastId), move === 'attach');
      return ctx.services.transcriptions.get(accountId, String(args.transcriptionId));
    },
  })])),
}));

export const StartBroadcastRecordingInput = builder.inputType('StartBroadcastRecordingInput', {
  fields: (t) => ({
    scriptText: t.string({ description: 'Words to follow like a teleprompter (stored with the recording).' }),
    audioSource: t.string({ description: 'The id of one of the broadcast\'s audio sources, recorded instead of the microphone: the new '
      + 'transcription\'s source is `{kind: "stream", url}` with its address, which the server pulls (the grant has no `streamUrl`).' }),
  }),
});

builder.mutationFields((t) => ({
  startBroadcastRecording: t.field({
    type: RecordingGrantType,
    description: 'Start a recording made in a new live transcription that hears the broadcast and feeds it; answers the publisher grant. '
      + '409 `conflict` with `details.takeover` while another device records it.',
    authScopes: { write: true },
    args: { broadcastId: t.arg.id({ required: true }), input: t.arg({ type: StartBroadcastRecordingInput }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.startRecording(
      actorOf(ctx), String(args.broadcastId), args.input ?? {}, baseUrlOf(ctx),
    ),
  }),
}));

// ---- audio sources and the broadcast's recordings -----------------------------------------------------------------

export const CreateAudioSourceInput = builder.inputType('CreateAudioSourceInput', {
  description: 'CreateAudioSource: `url` (http or https address of the stream), `name` (the address\'s host when left out).',
  fields: (t) => ({
    url: t.string({ required: true, description: `The http or https address of the stream (an internet radio, an HLS playlist, a `
      + `platform's live stream), at most ${MAX_SOURCE_URL} characters. Private, loopback and cloud-metadata addresses are refused (400, `
      + '`details.problem` `link_refused`).' }),
    name: t.string({ description: 'Default: the address\'s host. Not blank; at most 300 characters; trimmed.' }),
  }),
});

const AudioSourceState = builder.enumType('AudioSourceState', {
  description: '`ready`: the address as given was opened and audio came back, so a recording from it pulls it. '
    + '`error`: it could not be opened or gave nothing playable.',
  values: ['ready', 'error'] as const,
});
const SourceProblem = builder.enumType('SourceProblem', {
  description: 'Why a source check failed: `address_refused` (the address, a redirect or what its name resolves to is private, '
    + 'loopback or cloud metadata), `unreachable` (DNS, connection, TLS, too many redirects), `http_error` (it answered an '
    + 'HTTP error: `httpStatus`), `not_audio` (nothing ffmpeg decodes as audio), `playlist` (a playlist file such as .m3u or '
    + '.pls, not the stream; an HLS playlist is the stream and is `ready` when its segments play), `page` (a web page), '
    + '`timeout` (no second of audio within the check\'s time).',
  values: SOURCE_PROBLEMS,
});
const FixKind = builder.enumType('FixKind', {
  description: 'What a fix changed: `https` (the http address over https, after `unreachable`, `http_error` or `not_audio`), '
    + '`playlist` (the first stream the playlist lists that plays), `page` (the first audio or video the page names, by '
    + '`<audio>`/`<video>`/`<source>`, `og:audio`/`og:video` or a link to a media file, that plays).',
  values: FIX_KINDS,
});

const AudioSourceFixType = builder.objectRef<AudioSourceFix>('AudioSourceFix').implement({
  description: 'A corrected address that was opened and gave audio (add it as a source to use it).',
  fields: (t) => ({
    url: t.exposeString('url'),
    kind: t.field({ type: FixKind, resolve: (fix) => fix.kind }),
    label: t.exposeString('label', { description: 'Short text of what changed.' }),
  }),
});

const AudioSourceCheckType = builder.objectRef<AudioSourceCheck>('AudioSourceCheck').implement({
  description: '`ready`: the address as given was opened and audio came back (a recording from it will pull it). `error`: '
    + '`problem`, `message`, `httpStatus` when it answered an HTTP error, and `fix` when a corrected address gave audio.',
  fields: (t) => ({
    state: t.field({ type: AudioSourceState, resolve: (check) => check.state }),
    checkedAt: t.exposeString('checkedAt', { description: 'When the source was opened (a cached answer keeps its time).' }),
    problem: t.field({ type: SourceProblem, nullable: true, resolve: (check) => check.problem }),
    message: t.exposeString('message', { nullable: true, description: 'The failure in the server\'s words.' }),
    httpStatus: t.exposeInt(
      'httpStatus', { nullable: true, description: 'The HTTP status the source answered, when that is the failure.' },
    ),
    fix: t.field({ type: AudioSourceFixType, nullable: true, resolve: (check) => check.fix }),
  }),
});

builder.queryFields((t) => ({
  broadcastAudioSourceCheck: t.field({
    type: AudioSourceCheckType,
    description: 'Open one of the broadcast\'s audio sources and say whether audio comes back (cached a minute when ready, 20 s when not, '
      + 'unless `fresh`). Records nothing.',
    authScopes: { read: true },
    args: { broadcastId: t.arg.id({ required: true }), sourceId: t.arg.id({ required: true }), fresh: t.arg.boolean() },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.checkAudioSource(
      ctx.identity!.account.id, String(args.broadcastId), String(args.sourceId), args.fresh ?? false,
    ),
  }),
  broadcastRecordings: t.field({
    type: RecordingPageType,
    description: 'The recordings made in the live transcriptions feeding the broadcast, newest first, paged with `cursor`; `lifecycle` '
      + 'active (default), archived or all.',
    authScopes: { read: true },
    args: { broadcastId: t.arg.id({ required: true }), cursor: t.arg.string(), lifecycle: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.recordings(ctx.identity!.account.id, String(args.broadcastId), args),
  }),
}));

builder.mutationFields((t) => ({
  createBroadcastAudioSource: t.field({
    type: BroadcastType,
    description: 'Keep a stream with the broadcast (CreateAudioSource); answers the broadcast. An archived broadcast is 409 '
      + '`invalid_state`.',
    authScopes: { write: true },
    args: { broadcastId: t.arg.id({ required: true }), input: t.arg({ type: CreateAudioSourceInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.addAudioSource(
      ctx.identity!.account.id, String(args.broadcastId), args.input, baseUrlOf(ctx),
    ),
  }),
  deleteBroadcastAudioSource: t.field({
    type: BroadcastType,
    description: 'Remove an audio source; what was recorded from it stays. Answers the broadcast.',
    authScopes: { write: true },
    args: { broadcastId: t.arg.id({ required: true }), sourceId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.broadcasts.removeAudioSource(
      ctx.identity!.account.id, String(args.broadcastId), String(args.sourceId), baseUrlOf(ctx),
    ),
  }),
}));

/**
 * Live recordings in GraphQL (src/live/recordings.ts): the publisher grant, a transcription's recordings page, and
 * the start / publish-token / settings / pause / resume / stop mutations. The Recording type itself is recordings'.
 */
import { builder } from '../core/builder.js';
import { baseUrlOf } from '../core/context.js';
import { actorOf } from '../core/identity/actor.js';
import { LatencyMode, SpeakerLabels } from '../meta/graphql.js';
import { ConfidencePolicyInput, RecordingType } from '../recordings/graphql.js';

// ---- live recordings (src/live/recordings.ts) ----------------------------------------------------------------

export const RecordingGrantType = builder.objectRef<import('../live/recordings.js').RecordingGrant>('RecordingGrant').implement({
  description: 'A publisher grant: connect to `streamUrl` as given (the realtime socket protocol) before `expiresAt`; commits are stored.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    streamUrl: t.exposeString('streamUrl', { nullable: true, description: 'The publisher\'s socket, as given; null for a stream-URL '
      + 'source (the server pulls it itself).' }),
    expiresAt: t.exposeString('expiresAt', { description: 'Connect before it.' }),
    recording: t.field({ type: RecordingType, resolve: (grant) => grant.recording }),
  }),
});

export const RecordingPageType = builder.objectRef<import('../live/recordings.js').RecordingPage>('RecordingPage').implement({
  fields: (t) => ({
    items: t.field({ type: [RecordingType], resolve: (page) => page.items }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Absent on the last page.' }),
  }),
});

export const StartRecordingInput = builder.inputType('StartRecordingInput', {
  fields: (t) => ({
    scriptText: t.string({ description: 'Words to follow like a teleprompter (stored with the recording).' }),
  }),
});

export const RecordingSettingsInput = builder.inputType('RecordingSettingsInput', {
  description: 'A recording\'s settings: capture settings of a running live recording, and its own confidence policy (any recording, any '
    + 'state); fields left out stay, null sets a field back to its default.',
  fields: (t) => ({
    latencyMode: t.field({ type: LatencyMode }),
    spokenLanguage: t.string({ description: 'A language code (`GET /v1/languages`); empty, `auto` or null: detect.' }),
    speakerLabels: t.field({ type: SpeakerLabels, description: 'From the next segment on: `on` and `auto` label speakers (provisionally, '
      + 'settled by `transcript.speaker` frames), `off` stops; earlier segments keep their labels.' }),
    translate: t.stringList({ description: 'Languages each commit is translated into from the next one on (`GET /v1/languages` lists the '
      + 'targets): a `transcript.translated` frame to the publisher and subscribers, the translations kept with the segment. `[]` or '
      + 'null: none.' }),
    llmFix: t.boolean({ description: 'From the next line on, each committed line is fixed by the chat model the server names '
      + '(`LLM_FIX_API_URL`; a late fix is stored with a `transcript.amended` event). A server without one refuses `true` (400 '
      + '`invalid_options` naming `llmFix`). Null: off.' }),
    confidencePolicy: t.field({ type: ConfidencePolicyInput, description: 'The recording\'s own ConfidencePolicy, over its '
      + 'transcription\'s and broadcasts\'; taken in any state when sent without capture settings; null clears it.' }),
    voiceByLang: t.field({ type: 'JSON', description: 'Which voice speaks each language of its spoken translation (`POST '
      + '/v1/recordings/{id}/voice`), over its transcription\'s pins: a voice language (GET /v1/languages `voice`) to a catalogue voice '
      + 'that speaks it (GET /v1/voices/available) or one of the account\'s cloned voices (`voi_…`; while it is not ready, switched off '
      + 'or deleted, the language\'s default speaks). Taken in any state; null or {} clears.' }),
  }),
});

builder.queryFields((t) => ({
  transcriptionRecordings: t.field({
    type: RecordingPageType,
    description: 'The recordings of a transcription, newest first, paged with `cursor`.',
    authScopes: { read: true },
    args: { transcriptionId: t.arg.id({ required: true }), cursor: t.arg.string(), limit: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.liveRecordings.list(ctx.identity!.account.id, String(args.transcriptionId), args),
  }),
}));

builder.mutationFields((t) => ({
  startRecording: t.field({
    type: RecordingGrantType,
    description: 'Start a recording of a live transcription and get the publisher grant. 409 `conflict` with `details.takeover` while '
      + 'another device records.',
    authScopes: { write: true },
    args: { transcriptionId: t.arg.id({ required: true }), input: t.arg({ type: StartRecordingInput }) },
    resolve: (_root, args, ctx) => ctx.services.liveRecordings.start(
      actorOf(ctx.identity!), String(args.transcriptionId), args.input ?? {}, baseUrlOf(ctx),
    ),
  }),
  recordingPublishToken: t.field({
    type: RecordingGrantType,
    description: 'A new publisher grant for an open live recording (re-attach after a dropped network). 409 `conflict` with '
      + '`details.takeover` while another publisher is attached, unless `takeover` is true: then that one is demoted.',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }), takeover: t.arg.boolean() },
    resolve: (_root, args, ctx) => ctx.services.liveRecordings.publishToken(
      ctx.identity!.account.id, String(args.id), args.takeover === true, baseUrlOf(ctx),
    ),
  }),
  updateRecordingSettings: t.field({
    type: RecordingType,
    description: 'Change mode, language or speaker labels of a live recording\'s running capture, from the next segment on; or the '
      + 'recording\'s own confidence policy (any recording, any state).',
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RecordingSettingsInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.liveRecordings.updateSettings(ctx.identity!.account.id, String(args.id), args.input),
  }),
  ...Object.fromEntries((['pause', 'resume', 'stop'] as const).map((move) => [`${move}Recording`, t.field({
    type: RecordingType,
    description: {
      pause: 'live → paused (idempotent): audio sent while paused is not transcribed or kept; answers once what was said '
        + 'before it is stored (10 s at most).', resume: 'paused → live.',
      stop: 'paused → ended (only from paused); finalization follows.',
    }[move],
    authScopes: { write: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.liveRecordings[move](ctx.identity!.account.id, String(args.id)),
  })])),
}));

/**
 * Realtime sessions: `createRealtimeSession` validates the options and signs them into an expiring stream URL
 * (nothing is stored). API keys only (servers); the service refuses persons' tokens. The stream URL is built from
 * the address the request reached (`ctx.baseUrl`). `POST /v1/realtime/sessions` runs this mutation.
 */
import { builder } from '../core/builder.js';
import { baseUrlOf } from '../core/context.js';
import { LatencyMode, SpeakerLabels } from '../meta/graphql.js';
import type { CreateSessionResponse } from './service.js';

export const RealtimeSessionOptionsInput = builder.inputType('RealtimeSessionOptionsInput', {
  description: 'Realtime session options; absent fields take their defaults.',
  fields: (t) => ({
    spokenLanguage: t.string({ description: 'A language code of `realtimeCapabilities.languages`; absent, empty or `auto`: detect.' }),
    translate: t.stringList({ description: 'Target language codes (at most 10); `[]` is off.' }),
    speakerLabels: t.field({
      type: SpeakerLabels,
      description: '`on` or `auto`: each commit gets a provisional `speaker` (from 0, `speakerProvisional: true`, `speakerConfidence`), '
        + 'assigned online from what was heard so far; a `transcript.speaker` frame (`seq`, `speaker`, `speakerConfidence`, '
        + '`speakerProvisional: false`) settles it once about 20 s more speech was labelled, and at the end every label is settled. '
        + 'Drafts carry the speaker they would get now. `off` (the default at creation): -1. Turned on by `session.update`, labels '
        + 'start from that point; earlier segments are not labelled.',
    }),
    latencyMode: t.field({ type: LatencyMode }),
    llmFix: t.boolean({ description: 'AI-assisted auto-fix: each committed line is fixed by the chat model the server names in '
      + '`LLM_FIX_API_URL` (`transcript.latency` says how each ended; a late fix comes as `transcript.amended`). A server without one '
      + 'answers `true` with 400 `invalid_options` naming `llmFix` (false is accepted).' }),
    voice: t.stringList({ description: 'Languages to speak, or `lang:voice` pairs.' }),
    voiceByLang: t.field({ type: 'JSON', description: 'An open map: language code → voice name; `{}` clears every pin.' }),
  }),
});

const RealtimeSessionType = builder.objectRef<CreateSessionResponse>('RealtimeSession').implement({
  description: 'CreateSessionResponse: connect to `streamUrl` as given before `expiresAt`.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    streamUrl: t.exposeString('streamUrl', { description: 'The socket, with its own signed token (no header needed).' }),
    expiresAt: t.exposeString('expiresAt'),
  }),
});

builder.mutationFields((t) => ({
  createRealtimeSession: t.field({
    type: RealtimeSessionType,
    description: 'Create a realtime session: API keys with `write` only (a browser streams through a session its server created).',
    // Also `key` (an API key): the service refuses persons' tokens with 403 naming it.
    authScopes: { write: true },
    args: { options: t.arg({ type: RealtimeSessionOptionsInput }) },
    resolve: (_root, args, ctx) => {
      return ctx.services.realtime.createSession(ctx, args.options ?? {}, baseUrlOf(ctx));
    },
  }),
}));

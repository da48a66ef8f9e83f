/**
 * Realtime sessions: create one (API key) and its socket. `GET /v1/realtime/capabilities` is a meta route
 * (rest/routes/meta.ts) whose realtime part the realtime service fills from the engine.
 *
 * Creating a session runs the `createRealtimeSession` mutation; its stream URL is built from the address this
 * request reached (PUBLIC_URL or the Host header), which the router puts in the context (`ctx.baseUrl`).
 */
import { REALTIME_MAX_PAYLOAD } from '../../src/live/index.js';
import { CreateRealtimeSessionDocument, type RealtimeSessionOptionsInput } from '../../src/generated/graphql.js';
import { inputSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec, type SocketRoute } from '../types.js';
import { liveCreationRefusals } from './billing.js';

/** `session.update` changes only what it names, so a null there is refused (but `spokenLanguage`'s: detect). */
const notNull = ['translate', 'speakerLabels', 'latencyMode', 'llmFix', 'voice', 'voiceByLang'];
const sessionUpdateSchema = inputSchema('RealtimeSessionOptionsInput', {
  properties: Object.fromEntries(notNull.map((name) => [name, { nullable: false }])),
});

const num = { type: 'number' };
const str = { type: 'string' };
const committedSegmentSchema = {
  type: 'object', required: ['seq', 'speaker', 'start', 'end', 'text', 'words'],
  properties: {
    seq: { type: 'integer', minimum: 0, description: 'Gapless from 0 in a session.' },
    speaker: { type: 'integer', description: '-1: speaker labels off.' },
    start: num, end: num, text: str,
    words: {
      type: 'array',
      items: { type: 'object', required: ['start', 'end', 'text', 'prob'], properties: { start: num, end: num, text: str, prob: num } },
    },
    confidence: { type: 'number', nullable: true },
    speakerConfidence: {
      type: 'number', nullable: true, description: '0..1 diarization confidence of `speaker`; absent when speaker labels were off.',
    },
    language: { type: 'string', nullable: true },
    latencyS: { type: 'number', nullable: true, description: 'Seconds from the segment end arriving to its commit.' },
    decoder: { type: 'string', enum: ['fast', 'accuracy'], nullable: true },
    catchup: { type: 'boolean', nullable: true, description: 'True when the fast decoder committed it.' },
    gapBefore: { type: 'number', nullable: true, description: 'Seconds of capture audio the client reported lost just before.' },
  },
};

/** The realtime socket's frames, also those of a live recording's publisher socket (rest/routes/recordings.ts). */
export const realtimeFrames: SocketRoute['frames'] = {
  server: [
    { type: 'session.loading', description: '`stage`: `download` then `model`; heartbeat while the engine warms.' },
    { type: 'session.ready', description: 'Audio may now be sent.' },
    { type: 'transcript.draft', description: '`segments` [{start, text, speaker, tentative}]: the live tail, each a full replacement; '
      + '`audioS` is the audio it reflects.' },
    { type: 'transcript.committed', description: '`segment` (CommittedSegment): final, `seq` gapless from 0.',
      schema: { type: 'object', properties: { segment: committedSegmentSchema } } },
    { type: 'transcript.words', description: '`seq`, `words`: word timings of the newest committed text.' },
    { type: 'transcript.translated', description: '`seq`, `translations` (language → text) and `translationSources` (language → provider): '
      + 'a commit in the `translate` languages, sent after that commit (a live recording: also the languages its listeners asked for). A '
      + 'failure is an `error` frame naming the `seq`.' },
    { type: 'transcript.speaker', description: 'With `speakerLabels`: `seq`, `speaker`, `speakerConfidence`, `speakerProvisional: false`: '
      + 'a commit\'s label settled (sent again if a later merge moves it), always after that commit and before `session.done`.' },
    { type: 'transcript.amended', description: 'With `llmFix`: `seq`, `reason` (`llm_fix`), `segment` with the fixed text, '
      + '`previousText`: a line committed before its fix came, fixed in place.' },
    { type: 'transcript.latency', description: 'With `llmFix`: `seq`, `latencyS` (line end arriving → final text), `heldS`, `fix` '
      + '(`changed`, `unchanged`, `rejected`, `failed`; `problem` with failed): a held correction pass released the line.' },
    { type: 'session.updated', description: 'Answer to `session.update`: the `options` now in force, `changed`, and `ignored` (an '
      + 'unsupported language).' },
    { type: 'session.done', description: '`reason` (`eof`, `max_duration`, `cancelled`) and `stats` (`audioS`, `processingS`, '
      + '`realtimeFactor`); then the socket closes.' },
    { type: 'error', description: '`code`, `message`, `retryable`; `slow_consumer` closes the socket (commits are never dropped before '
      + 'it, drafts may be).' },
  ],
  client: [
    { type: 'eof', description: 'Flush, final commits, `session.done`, close.' },
    { type: 'cancel', description: 'Stop at once and drop the rest.' },
    { type: 'session.update', description: 'Any of the session options; left-out fields are unchanged.', schema: sessionUpdateSchema },
    { type: 'clock', description: '`pcm` cumulative captured samples (16 kHz), `wall` seconds since capture start: lost capture '
      + 'becomes `gapBefore`.' },
  ],
};

export const realtimeRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'post', path: '/v1/realtime/sessions', operationId: 'createRealtimeSession', tags: ['realtime'],
    auth: { mode: 'key', scopes: ['write'] },
    document: CreateRealtimeSessionDocument,
    // The caller and the options are checked on the raw body first (the same checks the mutation makes), so a
    // bad field is refused by name rather than coerced (GraphQL would read `translate: "de"` as `["de"]`).
    variables: ({ body }, ctx) => {
      ctx.services.realtime.checkSession(ctx, body);
      return { options: (body ?? null) as RealtimeSessionOptionsInput | null };
    },
    request: { schema: inputSchema('RealtimeSessionOptionsInput') }, // a null option is its default, as if left out
    response: { status: 201, description: 'The session.' },
    errors: [...liveCreationRefusals, { status: 400, code: 'invalid_options' }],
  }),
  {
    method: 'ws', path: '/v1/realtime/sessions/{token}/socket', operationId: 'realtimeSocket', tags: ['realtime'],
    auth: { mode: 'public', scopes: [] }, maxPayload: REALTIME_MAX_PAYLOAD,
    parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
    errors: [{ status: 401, code: 'invalid_token' }, { status: 410, code: 'session_expired' }, { status: 503, code: 'unavailable' }],
    frames: realtimeFrames,
    authorize: (_req, params, ctx) => { ctx.services.realtime.runtime.sockets.authorize(params.token ?? ''); },
    onConnection: (ws, _req, params, ctx) => {
      // Admission was judged in `authorize`; only the claims are needed now.
      const { runtime } = ctx.services.realtime;
      runtime.sockets.accept(ws, runtime.signer.verify(params.token ?? ''));
    },
  },
];

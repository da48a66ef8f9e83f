/**
 * Recordings (their job: rest/routes/jobs.ts): transcript, translation, speakers, exports, audio, signed media, clips,
 * the media token, the event log; live ones: start, publish, pause/resume/stop, settings. Exports and media are
 * handlers (rest/recording-media.ts); the rest run GraphQL. Who may read what is decided in src/recordings/service.ts.
 */
import {
  ArchiveRecordingDocument, NameRecordingSpeakerDocument, PauseRecordingDocument, PurgeRecordingDocument, RecordingDocument,
  RecordingEventsDocument, RecordingFieldsFragmentDoc, RecordingGrantFieldsFragmentDoc, RecordingMediaTokenDocument,
  RecordingPublishTokenDocument, type RecordingSettingsInput, RecordingTranscriptDocument, RecordingTranslationDocument,
  RestoreRecordingDocument, ResumeRecordingDocument, StartRecordingDocument, type StartRecordingInput, StopRecordingDocument,
  TranscriptionRecordingsDocument, UpdateRecordingSettingsDocument,
} from '../../src/generated/graphql.js';
import { MAX_TRANSLATION_SENTENCES } from '../../src/recordings/service.js';
import { MAX_SPEAKER_NAME, parseSpeakerIndex, parseSpeakerName } from '../../src/recordings/index.js';
import {
  RECORDING_SETTING_FIELDS, parseRecordingSettings, parseStartRecording, acceptPublisher, authorizePublisher, REALTIME_MAX_PAYLOAD,
  PAUSE_FLUSH_WAIT_MS,
} from '../../src/live/index.js';
import { cursorPageSchema, fragmentSchema, inputSchema, pageSchema } from '../shapes.js';
import { INT32_MAX, intParam, pageParameters, single, withoutLastCursor } from '../query.js';
import { lifecycleMoveRoutes } from '../lifecycle-routes.js';
import { audioAnswerSchema, sendAudio, sendClip, sendExport, sendSignedMedia } from '../recording-media.js';
import { graphqlRoute, type RestInput, type RouteSpec } from '../types.js';
import { liveCreationRefusals } from './billing.js';
import { realtimeFrames } from './realtime.js';

const shareCodeParam = { name: 'shareCode', in: 'query' as const, schema: { type: 'string' }, description: 'Read through a share link, '
  + 'with its permissions.' };
const listenerTokenParam = { name: 'listenerToken', in: 'query' as const, schema: { type: 'string' }, description: 'A private '
  + 'broadcast\'s listener (`POST /v1/listen/{code}/token`); a public broadcast\'s listener sends nothing.' };
export const mediaParam = { name: 'media', in: 'query' as const, schema: { type: 'string' }, description: 'The owner\'s media token '
  + '(`GET /v1/recordings/{id}/media-token`), for audio elements that cannot send a header; used when no bearer token is sent.' };
/** A signed-in person's access token in the URL, for players that cannot send a header (API keys in URLs are refused). */
export const accessTokenParam = { name: 'access_token', in: 'query' as const, schema: { type: 'string' }, description: 'A signed-in '
  + 'person\'s access token, for players that cannot send a header (an audio element). API keys are refused in URLs (403 '
  + '`key_from_browser`).' };
/** A seq to read past (-1 or absent: from the start); GraphQL's 32-bit Int bounds it, as the seq columns. */
const afterParam = { name: 'after', in: 'query' as const, schema: { type: 'integer', format: 'int32', minimum: -1, maximum: INT32_MAX } };
export const notFound = { status: 404, code: 'not_found', description: 'No such recording for this reader (or the share link was revoked, '
  + 'or its transcription archived).' };
const forbidden = { status: 403, code: 'forbidden', description: 'The share link lacks the permission this read needs.' };
const translationUnavailable = { status: 503, code: 'unavailable', description: 'The translation provider failed (quota, timeout, '
  + 'unreachable); `Retry-After` says when to ask again.' };

/** The reader's `shareCode` and `listenerToken` as an operation's variables. */
const reader = (query: RestInput['query']) => ({ shareCode: single(query.shareCode), listenerToken: single(query.listenerToken) });

export const recordingSchema = fragmentSchema(RecordingFieldsFragmentDoc);
/** A live recording's publisher grant. */
export const grantSchema = fragmentSchema(RecordingGrantFieldsFragmentDoc);

export const recordingRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}', operationId: 'getRecording', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] }, parameters: [shareCodeParam, listenerTokenParam],
    document: RecordingDocument, variables: ({ params, query }) => ({ id: params.id!, ...reader(query) }),
    response: { status: 200, description: 'The recording.' }, errors: [notFound],
  }),
  ...lifecycleMoveRoutes({
    collection: 'recordings', type: 'Recording', tag: 'recordings', schema: recordingSchema, notFound,
    documents: { archive: ArchiveRecordingDocument, restore: RestoreRecordingDocument, purge: PurgeRecordingDocument },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/transcript', operationId: 'getRecordingTranscript', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [shareCodeParam, listenerTokenParam, afterParam, { name: 'lang', in: 'query', schema: { type: 'string' } }],
    document: RecordingTranscriptDocument,
    variables: ({ params, query }) => {
      const after = intParam(query, 'after', `after must be a cursor (an integer from -1 to ${INT32_MAX}).`, { minimum: -1 });
      return { recordingId: params.id!, after, lang: single(query.lang), ...reader(query) };
    },
    response: { status: 200, description: 'The snapshot.' },
    errors: [notFound, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }, translationUnavailable],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/translation', operationId: 'getRecordingTranslation', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] }, textValues: { MAX_TRANSLATION_SENTENCES },
    parameters: [{ name: 'lang', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'sentences', in: 'query', schema: { type: 'string' } }, shareCodeParam, listenerTokenParam],
    document: RecordingTranslationDocument,
    variables: ({ params, query }) => {
      const sentences = single(query.sentences);
      const ids = sentences === undefined ? null : sentences.split(',').map((id) => id.trim()).filter(Boolean);
      return { recordingId: params.id!, lang: single(query.lang) ?? '', sentences: ids, ...reader(query) };
    },
    response: { status: 200, description: 'The sentences in `lang`.' },
    errors: [notFound, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }, translationUnavailable],
  }),
  graphqlRoute({
    method: 'put', path: '/v1/recordings/{id}/speakers/{idx}', operationId: 'nameRecordingSpeaker', tags: ['recordings'],
    textValues: { MAX_SPEAKER_NAME }, parameters: [{ name: 'idx', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } }],
    document: NameRecordingSpeakerDocument,
    variables: ({ params, body }) => ({ recordingId: params.id!, idx: parseSpeakerIndex(params.idx), name: parseSpeakerName(body) }),
    request: { schema: { type: 'object', additionalProperties: false, required: ['name'], properties: {
      name: { type: 'string', nullable: true, maxLength: MAX_SPEAKER_NAME, description: 'The speaker\'s name; null or empty clears it.' },
    } } },
    response: { status: 200, description: 'The speaker as it now reads: `index` and `name` (null when cleared).' },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }],
  }),
  {
    method: 'get', path: '/v1/recordings/{id}/export', operationId: 'exportRecording', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] }, parameters: [
      shareCodeParam, listenerTokenParam,
      { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: ['srt', 'json', 'xlsx', 'pdf'] } },
      { name: 'lang', in: 'query', schema: { type: 'string' } },
    ],
    response: { status: 200, description: 'The file, as an attachment.', contentType: 'application/octet-stream' },
    errors: [notFound, forbidden, { status: 400, code: 'invalid_options' }], handler: sendExport,
  },
  {
    method: 'get', path: '/v1/recordings/{id}/audio', operationId: 'getRecordingAudio', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] }, parameters: [
      shareCodeParam, listenerTokenParam, mediaParam, accessTokenParam,
      { name: 'kind', in: 'query', schema: { type: 'string', enum: ['delivery', 'source', 'master', 'voice'], default: 'delivery' } },
      { name: 'lang', in: 'query', schema: { type: 'string', maxLength: 35 } },
      { name: 'format', in: 'query', schema: { type: 'string', enum: ['ogg', 'caf', 'mp3'], default: 'ogg' } },
    ],
    response: { status: 302, description: 'Location: the signed URL.' },
    alternative: {
      status: 200, schema: audioAnswerSchema,
      description: 'With `Accept: application/json` (named in the header; an audio element\'s `*/*` gets the redirect): the signed URL as '
        + 'data, and `media`, the delivery renditions already encoded and kept (sealed), each with its own signed URL. Asking encodes '
        + 'nothing.',
    },
    errors: [notFound, forbidden, { status: 409, code: 'invalid_state' }], handler: sendAudio,
  },
  {
    method: 'get', path: '/v1/media/{id}/{file}', operationId: 'getSignedMedia', tags: ['recordings'], auth: { mode: 'public', scopes: [] },
    parameters: [
      { name: 'file', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'exp', in: 'query', required: true, schema: { type: 'integer', minimum: 0 } },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
    ],
    response: { status: 200, description: 'The audio.', contentType: 'audio/ogg' },
    errors: [{ status: 403, code: 'forbidden' }, notFound], handler: sendSignedMedia,
  },
  {
    method: 'get', path: '/v1/recordings/{id}/audio/clip', operationId: 'getRecordingAudioClip', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] }, parameters: [
      shareCodeParam, listenerTokenParam, mediaParam, accessTokenParam,
      { name: 'startS', in: 'query', schema: { type: 'number', minimum: 0, default: 0 } },
      { name: 'endS', in: 'query', schema: { type: 'number', minimum: 0 } },
    ],
    response: { status: 200, description: 'The clip.', contentType: 'audio/wav' },
    errors: [notFound, forbidden, { status: 400, code: 'invalid_options' }], handler: sendClip,
  },
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/media-token', operationId: 'getRecordingMediaToken', tags: ['recordings'],
    document: RecordingMediaTokenDocument, variables: ({ params }) => ({ recordingId: params.id! }),
    response: { status: 200, description: 'The token.' }, errors: [notFound],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/events', operationId: 'listRecordingEvents', tags: ['recordings'],
    parameters: [{ name: 'cursor', in: 'query', schema: { type: 'string' } }, afterParam,
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } }],
    document: RecordingEventsDocument,
    variables: ({ params, query }) => {
      const after = intParam(query, 'after', `after must be an event seq (an integer from -1 to ${INT32_MAX}).`, { minimum: -1 });
      const limit = intParam(query, 'limit', 'limit must be an integer from 1 to 500.', { minimum: 1, maximum: 500 });
      return { recordingId: params.id!, cursor: single(query.cursor), after, limit };
    },
    result: (data) => ({ status: 200, body: withoutLastCursor(data.recordingEvents) }),
    response: { status: 200, description: 'A page of events.', schema: cursorPageSchema(RecordingEventsDocument) },
    errors: [notFound, { status: 400, code: 'invalid_options' }],
  }),
  // ---- live recordings (src/live/recordings.ts) ----
  graphqlRoute({
    method: 'post', path: '/v1/transcriptions/{id}/recordings', operationId: 'startRecording', tags: ['recordings'], idempotent: true,
    document: StartRecordingDocument,
    variables: ({ params, body }) => {
      parseStartRecording(body);
      return { transcriptionId: params.id!, input: (body ?? null) as StartRecordingInput | null };
    },
    request: { required: false, schema: inputSchema('StartRecordingInput', { schema: { nullable: true } }) },
    response: { status: 201, description: 'The publisher grant.' },
    errors: [...liveCreationRefusals, { status: 404, code: 'not_found' }, { status: 400, code: 'invalid_options' },
      { status: 409, code: 'conflict' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/publish-token', operationId: 'recordingPublishToken', tags: ['recordings'],
    parameters: [{ name: 'takeover', in: 'query', schema: { type: 'boolean', default: false } }],
    document: RecordingPublishTokenDocument,
    variables: ({ params, query }) => ({ id: params.id!, takeover: single(query.takeover) === 'true' }),
    response: { status: 201, description: 'The publisher grant.' },
    errors: [notFound, { status: 409, code: 'conflict' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions/{id}/recordings', operationId: 'listTranscriptionRecordings', tags: ['recordings'],
    parameters: pageParameters(50),
    document: TranscriptionRecordingsDocument,
    variables: ({ params, query }) => ({
      transcriptionId: params.id!, cursor: single(query.cursor), limit: query.limit === undefined ? null : Number(query.limit),
    }),
    result: ({ transcriptionRecordings: page }) => ({
      status: 200, body: withoutLastCursor({ recordings: page.items, nextCursor: page.nextCursor }),
    }),
    response: { status: 200, description: 'A page.', schema: pageSchema('recordings', recordingSchema) },
    errors: [{ status: 404, code: 'not_found' }, { status: 400, code: 'invalid_options' }],
  }),
  ...Object.entries({ pause: PauseRecordingDocument, resume: ResumeRecordingDocument, stop: StopRecordingDocument }).map(
    ([move, document]) => graphqlRoute({
      method: 'post', path: `/v1/recordings/{id}/${move}`, operationId: `${move}Recording`, tags: ['recordings'],
      ...(move === 'pause' ? { textValues: { PAUSE_FLUSH_WAIT_S: PAUSE_FLUSH_WAIT_MS / 1000 } } : {}),
      document: document as typeof PauseRecordingDocument, variables: ({ params }) => ({ id: params.id! }),
      response: { status: 200, description: 'The recording.' }, errors: [notFound, { status: 409, code: 'invalid_state' }],
    }),
  ),
  graphqlRoute({
    method: 'patch', path: '/v1/recordings/{id}/settings', operationId: 'updateRecordingSettings', tags: ['recordings'],
    textValues: { RECORDING_SETTING_FIELDS: RECORDING_SETTING_FIELDS.join(', ') }, document: UpdateRecordingSettingsDocument,
    variables: ({ params, body }, ctx) => {
      // The service's parser first, so a bad field is refused by name before GraphQL coercion.
      parseRecordingSettings(body, ctx.services.realtime.runtime.optionRules());
      return { id: params.id!, input: body as RecordingSettingsInput };
    },
    request: { schema: inputSchema('RecordingSettingsInput') },
    response: { status: 200, description: 'The recording, `settings` as they now stand.' },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }],
  }),
  {
    method: 'ws', path: '/v1/recordings/{id}/publish/{token}', operationId: 'recordingPublisherSocket', tags: ['recordings'],
    auth: { mode: 'public', scopes: [] }, maxPayload: REALTIME_MAX_PAYLOAD, frames: realtimeFrames,
    parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
    errors: [{ status: 401, code: 'invalid_token' }, { status: 410, code: 'session_expired' }, { status: 409, code: 'conflict' },
      { status: 409, code: 'invalid_state' }, { status: 503, code: 'unavailable' }],
    authorize: (req, params, ctx) => authorizePublisher(ctx.services, req, params.id!, params.token ?? ''),
    onConnection: (ws, req, _params, ctx) => acceptPublisher(ctx.services, ctx.config.dataDir, ws, req),
  },
];

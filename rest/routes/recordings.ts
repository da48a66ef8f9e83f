/**
 * Reading file/link recordings (their job: rest/routes/jobs.ts): transcript, exports,
 * audio (302 to a signed URL, and the signed files themselves), WAV clips, the media token and the durable
 * event log. Media and exports are handler routes (binary answers and redirects); the rest run GraphQL.
 * Who may read what is decided in src/recordings/service.ts.
 */
import { requestBaseUrl } from '../../src/core/base-url.js';
import type { Context } from '../../src/core/context.js';
import { requireScope } from '../../src/core/identity/scopes.js';
import type { Identity } from '../../src/core/identity/identity.js';
import { MAX_TRANSLATION_SENTENCES, readerOf, type ReaderCredentials } from '../../src/recordings/service.js';
import {
  ArchiveRecordingDocument, NameRecordingSpeakerDocument, PauseRecordingDocument, PurgeRecordingDocument, RecordingDocument,
  RecordingEventsDocument, RecordingFieldsFragmentDoc, RecordingGrantFieldsFragmentDoc, RecordingMediaTokenDocument,
  RecordingPublishTokenDocument, type RecordingSettingsInput, RecordingTranscriptDocument, RecordingTranslationDocument,
  RestoreRecordingDocument, ResumeRecordingDocument, StartRecordingDocument, type StartRecordingInput, StopRecordingDocument,
  TranscriptionRecordingsDocument, UpdateRecordingSettingsDocument,
} from '../../src/generated/graphql.js';
import { cursorPageSchema, fragmentSchema, inputSchema, pageSchema, resultSchema } from '../shapes.js';
import {
  RECORDING_SETTING_FIELDS, parseRecordingSettings, parseStartRecording, acceptPublisher, authorizePublisher,
  REALTIME_MAX_PAYLOAD,
} from '../../src/live/index.js';
import { MAX_SPEAKER_NAME, parseSpeakerIndex, parseSpeakerName } from '../../src/recordings/index.js';
import { realtimeFrames } from './realtime.js';
import { INT32_MAX, intParam, pageParameters, single, withoutLastCursor } from '../query.js';
import { lifecycleMoveRoutes } from '../lifecycle-routes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';
import { liveCreationRefusals } from './billing.js';

/** `/audio` as data (`Accept: application/json`): the URL it would redirect to, and the sealed delivery renditions. */
const audioAnswerSchema = {
  type: 'object',
  required: ['url', 'expiresAt', 'media'],
  properties: {
    url: { type: 'string', description: 'The signed URL the redirect would name.' },
    expiresAt: { type: 'string', format: 'date-time' },
    media: {
      type: 'array',
      description: 'Delivery renditions already made and kept: `delivery` (Ogg/Opus), `delivery_caf`, `delivery_mp3`, in that order; '
        + 'empty before the first is made, and for a reader who may not have the delivery audio.',
      items: {
        type: 'object',
        required: ['rendition', 'format', 'contentType', 'bytes', 'url', 'expiresAt'],
        properties: {
          rendition: { type: 'string', enum: ['delivery', 'delivery_caf', 'delivery_mp3'] },
          format: { type: 'string', enum: ['ogg', 'caf', 'mp3'] },
          contentType: { type: 'string' },
          bytes: { type: 'integer', minimum: 1 },
          url: { type: 'string' },
          expiresAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};

const shareCodeParam = { name: 'shareCode', in: 'query' as const, schema: { type: 'string' }, description: 'Read through a share link, '
  + 'with its permissions.' };
const listenerTokenParam = {
  name: 'listenerToken', in: 'query' as const, schema: { type: 'string' },
  description: 'A private broadcast\'s listener (`POST /v1/listen/{code}/token`); a public broadcast\'s listener sends nothing.',
};
export const mediaParam = { name: 'media', in: 'query' as const, schema: { type: 'string' }, description: 'The owner\'s media token '
  + '(`GET /v1/recordings/{id}/media-token`), for audio elements that cannot send a header; used when no bearer token is sent.' };
/** A seq to read past: -1 (or left out) is from the start; GraphQL's 32-bit Int bounds it, as the seq columns. */
const afterParam = (what: string) => ({ name: 'after', in: 'query' as const, description: `Only what follows this ${what}; -1 or absent: `
  + `from the start.`, schema: { type: 'integer', format: 'int32', minimum: -1, maximum: INT32_MAX } });
export const notFound = { status: 404, code: 'not_found', description: 'No such recording for this reader (or the share link was revoked, '
  + 'or its transcription archived).' };
const forbidden = { status: 403, code: 'forbidden', description: 'The share link lacks the permission this read needs.' };
const translationUnavailable = { status: 503, code: 'unavailable', description: 'The translation provider failed (quota, timeout, '
  + 'unreachable); `Retry-After` says when to ask again.' };

/** The reader of a recording route, by the recordings module's rule (`readerOf`). */
export function credentialsOf(ctx: Context, query: Record<string, unknown>, allowMedia: boolean): ReaderCredentials {
  return readerOf(
    ctx, { shareCode: single(query.shareCode), media: single(query.media), listenerToken: single(query.listenerToken) }, { allowMedia },
  );
}

/** A signed-in person's access token in the URL, for players that cannot send a header (API keys in URLs are refused). */
export const accessTokenParam = {
  name: 'access_token', in: 'query' as const, schema: { type: 'string' },
  description: 'A signed-in person\'s access token, for players that cannot send a header (an audio element). API keys are refused in '
    + 'URLs (403 `key_from_browser`).',
};

/**
 * The reader of a media route (an audio element's `src`: no header can be sent): as `credentialsOf`, and a person's
 * access token in `access_token` counts as their bearer header when the request has none.
 */
export async function mediaCredentialsOf(ctx: Context, query: Record<string, unknown>): Promise<ReaderCredentials> {
  const person = await personFromAccessToken(ctx, query);
  return person ? { accountId: person.account.id } : credentialsOf(ctx, query, true);
}

/** The person whose access token rides in `access_token` (scope `read`), when the request sent no credential of its own. */
export async function personFromAccessToken(ctx: Context, query: Record<string, unknown>): Promise<Identity | null> {
  const token = single(query.access_token);
  if (!token || ctx.identity || ctx.credentialError) return null;
  const identity = await ctx.services.auth.resolver.resolve({ authorization: `Bearer ${token}` });
  return requireScope({ identity, credentialError: null }, 'read');
}

export const recordingSchema = fragmentSchema(RecordingFieldsFragmentDoc);

/** A live recording's publisher grant. */
export const grantSchema = fragmentSchema(RecordingGrantFieldsFragmentDoc);

export const recordingRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}', operationId: 'getRecording', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [shareCodeParam, listenerTokenParam],
    document: RecordingDocument,
    variables: ({ params, query }) => ({ id: params.id!, shareCode: single(query.shareCode), listenerToken: single(query.listenerToken) }),
    response: { status: 200, description: 'The recording.', schema: recordingSchema },
    errors: [notFound],
  }),
  ...lifecycleMoveRoutes({
    collection: 'recordings', type: 'Recording', tag: 'recordings', schema: recordingSchema, notFound,
    documents: { archive: ArchiveRecordingDocument, restore: RestoreRecordingDocument, purge: PurgeRecordingDocument },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/transcript', operationId: 'getRecordingTranscript', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [shareCodeParam, listenerTokenParam, afterParam('cursor'), { name: 'lang', in: 'query', schema: { type: 'string' } }],
    document: RecordingTranscriptDocument,
    variables: ({ params, query }) => {
      const after = intParam(query, 'after', `after must be a cursor (an integer from -1 to ${INT32_MAX}).`, { minimum: -1 });
      return {
        recordingId: params.id!, after, lang: single(query.lang), shareCode: single(query.shareCode),
        listenerToken: single(query.listenerToken),
      };
    },
    response: { status: 200, description: 'The snapshot.', schema: resultSchema(RecordingTranscriptDocument) },
    errors: [notFound, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }, translationUnavailable],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/translation', operationId: 'getRecordingTranslation', tags: ['recordings'],
    summary: 'Sentences of a recording in a translation target (`lang`), by sentence id.',
    description: `\`lang\` is required: a language the configured providers translate into from the spoken one, or for a recording with `
      + `its audio English and what they translate English into (the English pivot; \`GET /v1/languages\` lists them; the spoken language `
        + `itself is 400: read the transcript). \`sentences\` names up to ${MAX_TRANSLATION_SENTENCES} sentence ids, comma-separated, as `
          + `the transcript snapshot gives them (\`4.0,5.2\`); absent, every sentence. Each comes back with its text as spoken `
            + `(corrections included), its \`translation\` and \`source\` (\`cache\`, \`apertium\`, \`google\`, \`llm\`, or \`whisper\`: `
              + `read in English from the sentence's audio where no text provider serves the pair, the English pivot): translated now `
                + `unless the cache has it. The owner, a broadcast listener (lines under the confidence policy come \`suppressed\` and `
                  + `blank), or a share link that allows translation.`,
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      { name: 'lang', in: 'query', required: true, schema: { type: 'string' }, description: 'The language to translate into.' },
      { name: 'sentences', in: 'query', schema: { type: 'string' }, description: 'Comma-separated sentence ids; absent: all.' },
      shareCodeParam, listenerTokenParam,
    ],
    document: RecordingTranslationDocument,
    variables: ({ params, query }) => {
      const sentences = single(query.sentences);
      return {
        recordingId: params.id!, lang: single(query.lang) ?? '',
        sentences: sentences === undefined || sentences === null ? null : sentences.split(',').map((id) => id.trim()).filter(Boolean),
        shareCode: single(query.shareCode), listenerToken: single(query.listenerToken),
      };
    },
    response: { status: 200, description: 'The sentences in `lang`.', schema: resultSchema(RecordingTranslationDocument) },
    errors: [notFound, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }, translationUnavailable],
  }),
  graphqlRoute({
    method: 'put', path: '/v1/recordings/{id}/speakers/{idx}', operationId: 'nameRecordingSpeaker', tags: ['recordings'],
    summary: 'Name a speaker of a recording. Owner only.',
    description: `\`idx\` is the speaker label segments carry (an integer from 0). The body is \`{"name": ...}\`: trimmed, at most `
      + `${MAX_SPEAKER_NAME} characters; \`null\` or \`""\` clears the name. The name shows in transcript snapshots (\`speakers\`) and in `
        + `every export where speakers show (SRT cue prefixes, JSON \`speakers\`, the XLSX Speaker column, PDF paragraph headings; an `
          + `unnamed speaker reads "Speaker n+1"). Subscribers get a durable \`transcript.speaker\` frame with \`speaker\` (the index) `
            + `and \`name\` (null when cleared). Naming works on any recording, running or finished, and on an index no segment carries `
              + `yet.`,
    auth: { mode: 'userOrKey', scopes: ['write'] },
    parameters: [{ name: 'idx', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } }],
    document: NameRecordingSpeakerDocument,
    variables: ({ params, body }) => ({ recordingId: params.id!, idx: parseSpeakerIndex(params.idx), name: parseSpeakerName(body) }),
    request: {
      schema: {
        type: 'object', additionalProperties: false, required: ['name'],
        properties: { name: { type: 'string', nullable: true, maxLength: MAX_SPEAKER_NAME, description: 'The speaker\'s name; null or '
          + 'empty clears it.' } },
      },
    },
    response: {
      status: 200, description: 'The speaker as it now reads: `index` and `name` (null when cleared).',
      schema: resultSchema(NameRecordingSpeakerDocument),
    },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }],
  }),
  {
    method: 'get', path: '/v1/recordings/{id}/export', operationId: 'exportRecording', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      shareCodeParam, listenerTokenParam,
      { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: ['srt', 'json', 'xlsx', 'pdf'] } },
      { name: 'lang', in: 'query', schema: { type: 'string' } },
    ],
    response: { status: 200, description: 'The file, as an attachment.', contentType: 'application/octet-stream' },
    errors: [notFound, forbidden, { status: 400, code: 'invalid_options' }],
    handler: async (req, res, ctx) => {
      const rendered = await ctx.services.recordings.export(String(req.params.id), credentialsOf(ctx, req.query, false), {
        format: single(req.query.format), lang: single(req.query.lang),
      });
      res.setHeader('Content-Type', rendered.contentType);
      res.setHeader('Content-Disposition', `attachment; filename="${rendered.fileName}"`);
      res.setHeader('X-Export-Partial', String(rendered.partial));
      res.status(200).end(rendered.body);
    },
  },
  {
    method: 'get', path: '/v1/recordings/{id}/audio', operationId: 'getRecordingAudio', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      shareCodeParam, listenerTokenParam, mediaParam, accessTokenParam,
      { name: 'kind', in: 'query', schema: { type: 'string', enum: ['delivery', 'source', 'master', 'voice'], default: 'delivery' } },
      { name: 'lang', in: 'query', schema: { type: 'string', maxLength: 35 }, description: '`kind=voice` only (and required there): the '
        + 'spoken track\'s language.' },
      { name: 'format', in: 'query', schema: { type: 'string', enum: ['ogg', 'caf', 'mp3'], default: 'ogg' } },
    ],
    response: { status: 302, description: 'Location: the signed URL.' },
    alternative: {
      status: 200,
      description: 'With `Accept: application/json` (named in the header; an audio element\'s `*/*` gets the redirect): the signed URL as '
        + 'data, and `media`, the delivery renditions already encoded and kept (sealed), each with its own signed URL. Asking encodes '
        + 'nothing.',
      schema: audioAnswerSchema,
    },
    errors: [notFound, forbidden, { status: 409, code: 'invalid_state' }],
    handler: async (req, res, ctx) => {
      const credentials = await mediaCredentialsOf(ctx, req.query);
      const id = String(req.params.id);
      const signed = single(req.query.kind) === 'voice'
        ? await ctx.services.voiceTracks.audioUrl(id, credentials, { lang: single(req.query.lang), format: single(req.query.format) })
        : await ctx.services.recordings.audioUrl(id, credentials, { kind: single(req.query.kind), format: single(req.query.format) });
      const base = requestBaseUrl(req, ctx.config.publicUrl);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Expires-At', signed.expiresAt);
      if (!/\bapplication\/json\b/i.test(req.get('accept') ?? '')) return res.redirect(302, `${base}${signed.path}`);
      const media = (await ctx.services.recordings.sealedMedia(id, credentials)).map(
        ({ path, ...rendition }) => ({ ...rendition, url: `${base}${path}` }),
      );
      res.status(200).json({ url: `${base}${signed.path}`, expiresAt: signed.expiresAt, media });
    },
  },
  {
    method: 'get', path: '/v1/media/{id}/{file}', operationId: 'getSignedMedia', tags: ['recordings'],
    auth: { mode: 'public', scopes: [] },
    parameters: [
      { name: 'file', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'exp', in: 'query', required: true, schema: { type: 'integer', minimum: 0 } },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
    ],
    response: { status: 200, description: 'The audio.', contentType: 'audio/ogg' },
    errors: [{ status: 403, code: 'forbidden' }, notFound],
    handler: async (req, res, ctx) => {
      const signed = { exp: single(req.query.exp), sig: single(req.query.sig) };
      const name = String(req.params.file);
      const file = name.startsWith('voice-')
        ? await ctx.services.voiceTracks.signedMediaFile(String(req.params.id), name, signed)
        : await ctx.services.recordings.signedMediaFile(String(req.params.id), name, signed);
      res.type(file.contentType);
      res.setHeader('Cache-Control', 'private, max-age=300');
      res.sendFile(file.path);
    },
  },
  {
    method: 'get', path: '/v1/recordings/{id}/audio/clip', operationId: 'getRecordingAudioClip', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      shareCodeParam, listenerTokenParam, mediaParam, accessTokenParam,
      { name: 'startS', in: 'query', schema: { type: 'number', minimum: 0, default: 0 } },
      { name: 'endS', in: 'query', schema: { type: 'number', minimum: 0 } },
    ],
    response: { status: 200, description: 'The clip.', contentType: 'audio/wav' },
    errors: [notFound, forbidden, { status: 400, code: 'invalid_options' }],
    handler: async (req, res, ctx) => {
      const wav = await ctx.services.recordings.clip(String(req.params.id), await mediaCredentialsOf(ctx, req.query), {
        startS: single(req.query.startS), endS: single(req.query.endS),
      });
      res.setHeader('Content-Type', 'audio/wav');
      res.status(200).end(wav);
    },
  },
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/media-token', operationId: 'getRecordingMediaToken', tags: ['recordings'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: RecordingMediaTokenDocument,
    variables: ({ params }) => ({ recordingId: params.id! }),
    response: { status: 200, description: 'The token.', schema: resultSchema(RecordingMediaTokenDocument) },
    errors: [notFound],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/events', operationId: 'listRecordingEvents', tags: ['recordings'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: [
      { name: 'cursor', in: 'query', schema: { type: 'string' } }, afterParam('event seq'),
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
    ],
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
    method: 'post', path: '/v1/transcriptions/{id}/recordings', operationId: 'startRecording', tags: ['recordings'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: StartRecordingDocument,
    idempotent: true,
    variables: ({ params, body }) => {
      parseStartRecording(body);
      return { transcriptionId: params.id!, input: (body ?? null) as StartRecordingInput | null };
    },
    request: { required: false, schema: inputSchema('StartRecordingInput', { schema: { nullable: true } }) },
    response: { status: 201, description: 'The publisher grant.', schema: grantSchema },
    errors: [
      ...liveCreationRefusals, { status: 404, code: 'not_found' }, { status: 400, code: 'invalid_options' },
      { status: 409, code: 'conflict' }, { status: 409, code: 'invalid_state' },
    ],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/publish-token', operationId: 'recordingPublishToken', tags: ['recordings'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    parameters: [{ name: 'takeover', in: 'query', schema: { type: 'boolean', default: false } }],
    document: RecordingPublishTokenDocument,
    variables: ({ params, query }) => ({ id: params.id!, takeover: single(query.takeover) === 'true' }),
    response: { status: 201, description: 'The publisher grant.', schema: grantSchema },
    errors: [notFound, { status: 409, code: 'conflict' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions/{id}/recordings', operationId: 'listTranscriptionRecordings', tags: ['recordings'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: pageParameters(50),
    document: TranscriptionRecordingsDocument,
    variables: ({ params, query }) => ({
      transcriptionId: params.id!, cursor: single(query.cursor), limit: query.limit === undefined ? null : Number(query.limit),
    }),
    result: (data) => {
      const page = data.transcriptionRecordings;
      return { status: 200, body: withoutLastCursor({ recordings: page.items, nextCursor: page.nextCursor }) };
    },
    response: { status: 200, description: 'A page.', schema: pageSchema('recordings', recordingSchema) },
    errors: [{ status: 404, code: 'not_found' }, { status: 400, code: 'invalid_options' }],
  }),
  ...(['pause', 'resume', 'stop'] as const).map((move) =>
    graphqlRoute({
      method: 'post', path: `/v1/recordings/{id}/${move}`, operationId: `${move}Recording`, tags: ['recordings'],
      auth: { mode: 'userOrKey', scopes: ['write'] },
      document: (move === 'pause' ? PauseRecordingDocument : move === 'resume' ? ResumeRecordingDocument : StopRecordingDocument) as
        typeof PauseRecordingDocument,
      variables: ({ params }) => ({ id: params.id! }),
      result: (data) => ({ status: 200, body: (data as Record<string, unknown>)[`${move}Recording`] }),
      response: { status: 200, description: 'The recording.', schema: recordingSchema },
      errors: [notFound, { status: 409, code: 'invalid_state' }],
    }),
  ),
  graphqlRoute({
    method: 'patch', path: '/v1/recordings/{id}/settings', operationId: 'updateRecordingSettings', tags: ['recordings'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: UpdateRecordingSettingsDocument,
    variables: ({ params, body }, ctx) => {
      // The service's parser first, so a bad field is refused by name before GraphQL coercion.
      parseRecordingSettings(body, ctx.services.realtime.runtime.optionRules());
      return { id: params.id!, input: body as RecordingSettingsInput };
    },
    request: { schema: inputSchema('RecordingSettingsInput') },
    response: { status: 200, description: 'The recording, `settings` as they now stand.', schema: recordingSchema },
    errors: [
      notFound,
      { status: 400, code: 'invalid_options', description: `A field other than ${RECORDING_SETTING_FIELDS.join(', ')}, an unknown `
        + `language or mode, a policy value out of range or of the wrong type, a field the policy lacks; \`details.field\` names it `
          + `(\`confidencePolicy.hideBelow\`).` },
      { status: 409, code: 'invalid_state' },
    ],
  }),
  {
    method: 'ws', path: '/v1/recordings/{id}/publish/{token}', operationId: 'recordingPublisherSocket', tags: ['recordings'],
    auth: { mode: 'public', scopes: [] },
    maxPayload: REALTIME_MAX_PAYLOAD,
    parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
    errors: [
      { status: 401, code: 'invalid_token' }, { status: 410, code: 'session_expired' }, { status: 409, code: 'conflict' },
      { status: 409, code: 'invalid_state' }, { status: 503, code: 'unavailable' },
    ],
    frames: realtimeFrames,
    authorize: (req, params, ctx) => authorizePublisher(ctx.services, req, params.id!, params.token ?? ''),
    onConnection: (ws, req, _params, ctx) => acceptPublisher(ctx.services, ctx.config.dataDir, ws, req),
  },
];

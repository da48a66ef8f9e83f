/**
 * Broadcasts: create, list, read, change (name, access and password, code, settings), archive, restore, purge; the
 * live transcriptions feeding them and their recordings; their audio sources and the check of one.
 */
import {
  ArchiveBroadcastDocument,
  AudioSourceCheckFieldsFragmentDoc,
  BroadcastAudioSourceCheckDocument,
  BroadcastRecordingsDocument,
  CreateBroadcastAudioSourceDocument,
  DeleteBroadcastAudioSourceDocument,
  type CreateAudioSourceInput,
  AttachTranscriptionBroadcastDocument,
  StartBroadcastRecordingDocument,
  type StartBroadcastRecordingInput,
  DetachTranscriptionBroadcastDocument,
  BroadcastDocument,
  BroadcastFieldsFragmentDoc,
  BroadcastsDocument,
  CreateBroadcastDocument,
  PurgeBroadcastDocument,
  RestoreBroadcastDocument,
  UpdateBroadcastDocument,
  type CreateBroadcastInput,
  type UpdateBroadcastInput,
} from '../../src/generated/graphql.js';
import { parseBroadcastFields, parseBroadcastStart } from '../../src/broadcasts/service.js';
import { MAX_SOURCE_URL, parseAudioSourceInput, CHECK_MS, FIX_KINDS, SOURCE_PROBLEMS } from '../../src/broadcasts/index.js';
import { single, withoutLastCursor } from '../query.js';
import { grantSchema, recordingSchema } from './recordings.js';
import { lifecycleListParameters, lifecycleListVariables, lifecycleMoveRoutes } from '../lifecycle-routes.js';
import { fragmentSchema, inputSchema, pageSchema } from '../shapes.js';
import { graphqlRoute, type JsonSchema, type RouteSpec } from '../types.js';
import { transcriptionSchema } from './transcriptions.js';
import { liveCreationRefusals } from './billing.js';


export const broadcastSchema = fragmentSchema(BroadcastFieldsFragmentDoc);

const notFound = { status: 404, code: 'not_found', description: 'No such broadcast in this account.' };
const sourceParameter = {
  name: 'source', in: 'path' as const, required: true, description: 'The audio source\'s id (`AudioSource.id`).',
  schema: { type: 'string' },
};
const noSuchSource = { status: 404, code: 'not_found', description: 'No such broadcast in this account, or no such audio source of it '
  + '(`details.field` `source`).' };

const audioSourceCheckSchema = fragmentSchema(AudioSourceCheckFieldsFragmentDoc);
const invalid = (what: string) => ({ status: 400, code: 'invalid_options', description: `${what}; \`details.field\` names it.` });
const codeTaken = { status: 409, code: 'conflict', description: 'The `code` is taken by a broadcast (now or before: old codes keep '
  + 'opening their broadcast).' };

export const broadcastRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'post', path: '/v1/broadcasts', operationId: 'createBroadcast', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: CreateBroadcastDocument,
    idempotent: true,
    variables: ({ body }) => {
      parseBroadcastFields(body, 'create');
      return { input: body as CreateBroadcastInput };
    },
    request: { schema: inputSchema('CreateBroadcastInput') },
    response: { status: 201, description: 'The broadcast.', schema: broadcastSchema },
    errors: [invalid('An unknown field, a missing or blank `name`, a malformed `code`, a private broadcast without `password`, an unknown '
      + 'setting, a stream address the server does not fetch from'), codeTaken],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts', operationId: 'listBroadcasts', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: lifecycleListParameters,
    document: BroadcastsDocument,
    variables: ({ query }) => lifecycleListVariables(query),
    result: (data) => ({
      status: 200, body: withoutLastCursor({ broadcasts: data.broadcasts.items, nextCursor: data.broadcasts.nextCursor }),
    }),
    response: { status: 200, description: 'A page.', schema: pageSchema('broadcasts', broadcastSchema) },
    errors: [
      invalid('A `lifecycle` other than active, archived or all, a `limit` out of 1..500, or a cursor this endpoint did not return'),
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts/{id}', operationId: 'getBroadcast', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: BroadcastDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The broadcast.', schema: broadcastSchema },
    errors: [notFound],
  }),
  graphqlRoute({
    method: 'patch', path: '/v1/broadcasts/{id}', operationId: 'updateBroadcast', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: UpdateBroadcastDocument,
    variables: ({ params, body }) => {
      parseBroadcastFields(body, 'patch');
      return { id: params.id!, input: body as UpdateBroadcastInput };
    },
    request: { schema: inputSchema('UpdateBroadcastInput') },
    response: { status: 200, description: 'The broadcast.', schema: broadcastSchema },
    errors: [
      notFound, invalid('An unknown field (`source` never changes), a blank `name`, a malformed `code`, private without a password'),
      codeTaken,
    ],
  }),
  ...lifecycleMoveRoutes({
    collection: 'broadcasts', type: 'Broadcast', tag: 'broadcasts', schema: broadcastSchema, notFound,
    documents: { archive: ArchiveBroadcastDocument, restore: RestoreBroadcastDocument, purge: PurgeBroadcastDocument },
  }),
  ...(['put', 'delete'] as const).map((method) =>
    graphqlRoute({
      method, path: '/v1/transcriptions/{id}/broadcasts/{broadcast}',
      operationId: method === 'put' ? 'attachTranscriptionBroadcast' : 'detachTranscriptionBroadcast', tags: ['broadcasts'],
      auth: { mode: 'userOrKey', scopes: ['write'] },
      parameters: [{ name: 'broadcast', in: 'path', required: true, schema: { type: 'string' } }],
      document: (method === 'put' ? AttachTranscriptionBroadcastDocument : DetachTranscriptionBroadcastDocument) as
        typeof AttachTranscriptionBroadcastDocument,
      variables: ({ params }) => ({ transcriptionId: params.id!, broadcastId: params.broadcast! }),
      result: (data) => ({
        status: 200,
        body: (data as Record<string, unknown>)[method === 'put' ? 'attachTranscriptionBroadcast' : 'detachTranscriptionBroadcast'],
      }),
      response: { status: 200, description: 'The transcription, `broadcasts` as they now stand.', schema: transcriptionSchema },
      errors: [{ status: 404, code: 'not_found' }, ...(method === 'put' ? [{ status: 409, code: 'invalid_state' }] : [])],
    }),
  ),
  graphqlRoute({
    method: 'post', path: '/v1/broadcasts/{id}/recordings', operationId: 'startBroadcastRecording', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: StartBroadcastRecordingDocument,
    idempotent: true,
    variables: ({ params, body }) => {
      parseBroadcastStart(body);
      return { broadcastId: params.id!, input: (body ?? null) as StartBroadcastRecordingInput | null };
    },
    request: { required: false, schema: inputSchema('StartBroadcastRecordingInput', { schema: { nullable: true } }) },
    response: { status: 201, description: 'The publisher grant.', schema: grantSchema },
    errors: [
      ...liveCreationRefusals, { status: 404, code: 'not_found' },
      invalid('A field other than `scriptText` and `audioSource`, or a script over 100,000 characters'), { status: 409, code: 'conflict' },
      { status: 409, code: 'invalid_state' },
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts/{id}/recordings', operationId: 'listBroadcastRecordings', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: lifecycleListParameters,
    document: BroadcastRecordingsDocument,
    variables: ({ params, query }) => ({ broadcastId: params.id!, ...lifecycleListVariables(query) }),
    result: (data) => {
      const page = data.broadcastRecordings;
      return { status: 200, body: withoutLastCursor({ recordings: page.items, nextCursor: page.nextCursor }) };
    },
    response: { status: 200, description: 'A page.', schema: pageSchema('recordings', recordingSchema) },
    errors: [notFound, invalid('A `lifecycle` other than active, archived or all, a `limit` out of 1..500, or a cursor this endpoint did '
      + 'not return')],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/broadcasts/{id}/audio-sources', operationId: 'createBroadcastAudioSource', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: CreateBroadcastAudioSourceDocument,
    idempotent: true,
    variables: ({ params, body }) => {
      parseAudioSourceInput(body);
      return { broadcastId: params.id!, input: body as CreateAudioSourceInput };
    },
    request: { schema: inputSchema('CreateAudioSourceInput') },
    response: { status: 201, description: 'The broadcast, the new source last in `audioSources`.', schema: broadcastSchema },
    errors: [
      notFound,
      invalid('An unknown field, a missing `url`, one that is not http or https or that the server does not fetch from, a blank or too '
        + 'long `name`'),
      { status: 409, code: 'conflict' },
      { status: 409, code: 'invalid_state' },
    ],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/broadcasts/{id}/audio-sources/{source}', operationId: 'deleteBroadcastAudioSource', tags: ['broadcasts'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    parameters: [sourceParameter],
    document: DeleteBroadcastAudioSourceDocument,
    variables: ({ params }) => ({ broadcastId: params.id!, sourceId: params.source! }),
    response: { status: 200, description: 'The broadcast.', schema: broadcastSchema },
    errors: [noSuchSource],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts/{id}/audio-sources/{source}/check', operationId: 'checkBroadcastAudioSource', tags: ['broadcasts'],
    summary: 'Open the audio source and say whether audio comes back (AudioSourceCheck); records nothing.',
    description: `The address is opened as a recording from it would open it (through the link policy; an HLS playlist is followed) and `
      + `decoded until a second of audio comes back, for at most ${CHECK_MS / 1000} s. \`ready\` only when the address as given plays; `
        + `otherwise \`error\` with \`problem\`, and \`fix\` when a corrected address (https, the stream a playlist lists, the audio a `
          + `page plays) was opened and gave audio. Answers are cached, shared by every gateway: a ready one for a minute, a failed one `
            + `for 20 s, unless \`fresh=true\`.`,
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: [sourceParameter, { name: 'fresh', in: 'query', schema: { type: 'boolean', default: false } }],
    document: BroadcastAudioSourceCheckDocument,
    variables: ({ params, query }) => ({ broadcastId: params.id!, sourceId: params.source!, fresh: single(query.fresh) === 'true' }),
    response: { status: 200, description: 'The check (a failing source is a 200 with `state: error`).', schema: audioSourceCheckSchema },
    errors: [noSuchSource],
  }),
];

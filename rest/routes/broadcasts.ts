/**
 * Broadcasts: create, list, read, change (name, access and password, code, settings), archive, restore, purge; the
 * live transcriptions feeding them and their recordings; their audio sources and the check of one.
 */
import {
  ArchiveBroadcastDocument, AttachTranscriptionBroadcastDocument, AudioSourceCheckFieldsFragmentDoc, BroadcastAudioSourceCheckDocument,
  BroadcastDocument, BroadcastFieldsFragmentDoc, BroadcastRecordingsDocument, BroadcastsDocument, CreateBroadcastAudioSourceDocument,
  CreateBroadcastDocument, DeleteBroadcastAudioSourceDocument, DetachTranscriptionBroadcastDocument, PurgeBroadcastDocument,
  RestoreBroadcastDocument, StartBroadcastRecordingDocument, UpdateBroadcastDocument, type CreateAudioSourceInput,
  type CreateBroadcastInput, type StartBroadcastRecordingInput, type UpdateBroadcastInput,
} from '../../src/generated/graphql.js';
import { parseBroadcastFields, parseBroadcastStart } from '../../src/broadcasts/service.js';
import { CHECK_MS, parseAudioSourceInput } from '../../src/broadcasts/index.js';
import { single, withoutLastCursor } from '../query.js';
import { recordingSchema } from './recordings.js';
import { lifecycleListParameters, lifecycleListVariables, lifecycleMoveRoutes } from '../lifecycle-routes.js';
import { fragmentSchema, inputSchema, pageSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';
import { liveCreationRefusals } from './billing.js';

export const broadcastSchema = fragmentSchema(BroadcastFieldsFragmentDoc);

const notFound = { status: 404, code: 'not_found', description: 'No such broadcast in this account.' };
const sourceParameter = { name: 'source', in: 'path' as const, required: true, description: 'The audio source\'s id (`AudioSource.id`).',
  schema: { type: 'string' } };
const noSuchSource = { status: 404, code: 'not_found', description: 'No such broadcast in this account, or no such audio source of it '
  + '(`details.field` `source`).' };
const invalid = { status: 400, code: 'invalid_options' }; // each route's text is in rest/operations/broadcasts.md
const codeTaken = { status: 409, code: 'conflict', description: 'The `code` is taken by a broadcast (now or before: old codes keep '
  + 'opening their broadcast).' };

export const broadcastRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'post', path: '/v1/broadcasts', operationId: 'createBroadcast', tags: ['broadcasts'], idempotent: true,
    document: CreateBroadcastDocument,
    variables: ({ body }) => {
      parseBroadcastFields(body, 'create');
      return { input: body as CreateBroadcastInput };
    },
    request: { schema: inputSchema('CreateBroadcastInput') },
    response: { status: 201, description: 'The broadcast.' },
    errors: [invalid, codeTaken],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts', operationId: 'listBroadcasts', tags: ['broadcasts'], parameters: lifecycleListParameters,
    document: BroadcastsDocument,
    variables: ({ query }) => lifecycleListVariables(query),
    result: ({ broadcasts: page }) => ({ status: 200, body: withoutLastCursor({ broadcasts: page.items, nextCursor: page.nextCursor }) }),
    response: { status: 200, description: 'A page.', schema: pageSchema('broadcasts', broadcastSchema) },
    errors: [invalid],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts/{id}', operationId: 'getBroadcast', tags: ['broadcasts'],
    document: BroadcastDocument, variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The broadcast.' }, errors: [notFound],
  }),
  graphqlRoute({
    method: 'patch', path: '/v1/broadcasts/{id}', operationId: 'updateBroadcast', tags: ['broadcasts'],
    document: UpdateBroadcastDocument,
    variables: ({ params, body }) => {
      parseBroadcastFields(body, 'patch');
      return { id: params.id!, input: body as UpdateBroadcastInput };
    },
    request: { schema: inputSchema('UpdateBroadcastInput') },
    response: { status: 200, description: 'The broadcast.' },
    errors: [notFound, invalid, codeTaken],
  }),
  ...lifecycleMoveRoutes({
    collection: 'broadcasts', type: 'Broadcast', tag: 'broadcasts', schema: broadcastSchema, notFound,
    documents: { archive: ArchiveBroadcastDocument, restore: RestoreBroadcastDocument, purge: PurgeBroadcastDocument },
  }),
  ...(['put', 'delete'] as const).map((method) => graphqlRoute({
    method, path: '/v1/transcriptions/{id}/broadcasts/{broadcast}', tags: ['broadcasts'],
    operationId: method === 'put' ? 'attachTranscriptionBroadcast' : 'detachTranscriptionBroadcast',
    parameters: [{ name: 'broadcast', in: 'path', required: true, schema: { type: 'string' } }],
    document: (method === 'put' ? AttachTranscriptionBroadcastDocument : DetachTranscriptionBroadcastDocument) as
      typeof AttachTranscriptionBroadcastDocument,
    variables: ({ params }) => ({ transcriptionId: params.id!, broadcastId: params.broadcast! }),
    response: { status: 200, description: 'The transcription, `broadcasts` as they now stand.' },
    errors: [{ status: 404, code: 'not_found' }, ...(method === 'put' ? [{ status: 409, code: 'invalid_state' }] : [])],
  })),
  graphqlRoute({
    method: 'post', path: '/v1/broadcasts/{id}/recordings', operationId: 'startBroadcastRecording', tags: ['broadcasts'], idempotent: true,
    document: StartBroadcastRecordingDocument,
    variables: ({ params, body }) => {
      parseBroadcastStart(body);
      return { broadcastId: params.id!, input: (body ?? null) as StartBroadcastRecordingInput | null };
    },
    request: { required: false, schema: inputSchema('StartBroadcastRecordingInput', { schema: { nullable: true } }) },
    response: { status: 201, description: 'The publisher grant.' },
    errors: [
      ...liveCreationRefusals, { status: 404, code: 'not_found' }, invalid, { status: 409, code: 'conflict' },
      { status: 409, code: 'invalid_state' },
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts/{id}/recordings', operationId: 'listBroadcastRecordings', tags: ['broadcasts'],
    parameters: lifecycleListParameters,
    document: BroadcastRecordingsDocument,
    variables: ({ params, query }) => ({ broadcastId: params.id!, ...lifecycleListVariables(query) }),
    result: ({ broadcastRecordings: page }) =>
      ({ status: 200, body: withoutLastCursor({ recordings: page.items, nextCursor: page.nextCursor }) }),
    response: { status: 200, description: 'A page.', schema: pageSchema('recordings', recordingSchema) },
    errors: [notFound, invalid],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/broadcasts/{id}/audio-sources', operationId: 'createBroadcastAudioSource', tags: ['broadcasts'],
    idempotent: true,
    document: CreateBroadcastAudioSourceDocument,
    variables: ({ params, body }) => {
      parseAudioSourceInput(body);
      return { broadcastId: params.id!, input: body as CreateAudioSourceInput };
    },
    request: { schema: inputSchema('CreateAudioSourceInput') },
    response: { status: 201, description: 'The broadcast, the new source last in `audioSources`.' },
    errors: [notFound, invalid, { status: 409, code: 'conflict' }, { status: 409, code: 'invalid_state' }],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/broadcasts/{id}/audio-sources/{source}', operationId: 'deleteBroadcastAudioSource', tags: ['broadcasts'],
    parameters: [sourceParameter],
    document: DeleteBroadcastAudioSourceDocument,
    variables: ({ params }) => ({ broadcastId: params.id!, sourceId: params.source! }),
    response: { status: 200, description: 'The broadcast.' }, errors: [noSuchSource],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/broadcasts/{id}/audio-sources/{source}/check', operationId: 'checkBroadcastAudioSource', tags: ['broadcasts'],
    textValues: { CHECK_S: CHECK_MS / 1000 },
    parameters: [sourceParameter, { name: 'fresh', in: 'query', schema: { type: 'boolean', default: false } }],
    document: BroadcastAudioSourceCheckDocument,
    variables: ({ params, query }) => ({ broadcastId: params.id!, sourceId: params.source!, fresh: single(query.fresh) === 'true' }),
    response: { status: 200, description: 'The check (a failing source is a 200 with `state: error`).' },
    errors: [noSuchSource],
  }),
];

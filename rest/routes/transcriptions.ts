/**
 * File and link transcriptions: create (multipart upload or JSON link), list, read, rename, lifecycle moves,
 * the link probe and the events socket. Creation is a handler route because the upload is streamed to storage
 * as it arrives (never held in memory: rest/uploads.ts); everything else runs its GraphQL operation.
 */
import { requireScope } from '../../src/core/identity/scopes.js';
import { errors } from '../../src/core/errors.js';
import {
  ArchiveTranscriptionDocument, CreateLiveTranscriptionDocument, type CreateLiveTranscriptionInput, JobFieldsFragmentDoc,
  PurgeTranscriptionDocument, RestoreTranscriptionDocument, TranscriptionDocument, TranscriptionFieldsFragmentDoc,
  TranscriptionProbeDocument, TranscriptionsDocument, UpdateTranscriptionDocument, type UpdateTranscriptionInput,
} from '../../src/generated/graphql.js';
import { fragmentSchema, inputSchema, pageSchema } from '../shapes.js';
import { parseCreateLiveOptions, parseTranscriptionPatch } from '../../src/transcriptions/service.js';
import { withoutLastCursor } from '../query.js';
import { lifecycleListParameters, lifecycleListVariables, lifecycleMoveRoutes } from '../lifecycle-routes.js';
import { fileOrLinkCreate } from '../uploads.js';
import { graphqlRoute, type JsonSchema, type RouteSpec } from '../types.js';
import { creationRefusals } from './billing.js';

export const jobSchema = fragmentSchema(JobFieldsFragmentDoc);
export const transcriptionSchema = fragmentSchema(TranscriptionFieldsFragmentDoc);

/** REST's JSON create is a link: `url` is required (GraphQL's also takes a file). */
const linkRequired = { required: ['url'], properties: { url: { minLength: 1 } } };
/** A recording upload's options: CreateTranscription without `shareLink`. */
const uploadOptionsSchema = inputSchema('CreateTranscriptionInput', { omit: ['shareLink'] });
const uploadLinkSchema = inputSchema('CreateTranscriptionInput', { omit: ['shareLink'], ...linkRequired });
const notFound = { status: 404, code: 'not_found', description: 'No such transcription in this account.' };

/** The two bodies of both create routes: multipart (a file and its options) or JSON (a link). */
const fileOrLinkRequest = (description: string, options: JsonSchema, link: JsonSchema) => ({
  contentType: 'multipart/form-data', required: true, description, alternatives: [{ contentType: 'application/json', schema: link }],
  schema: { type: 'object', properties: { options, file: { type: 'string', format: 'binary' } } },
});

/** What an upload or a link can be refused for besides its fields. */
const fileOrLinkErrors = [
  { status: 400, code: 'invalid_audio', description: 'The file is not audio or video with an audio stream.' },
  { status: 413, code: 'invalid_options', description: 'The file is larger than `limits.maxUploadBytes`; nothing is kept.' },
  { status: 415, code: 'invalid_options', description: 'Neither multipart/form-data nor application/json.' },
];

export const transcriptionRoutes: RouteSpec[] = [
  {
    method: 'post', path: '/v1/transcriptions', operationId: 'createTranscription', tags: ['transcriptions'],
    idempotent: true, ownBody: true,
    request: fileOrLinkRequest('A file: `multipart/form-data` with an optional `options` part (CreateTranscription as JSON, before the '
      + 'file) and one `file` part (audio or video: mp3, wav, flac, ogg, m4a, mp4 and more, up to `limits.maxUploadBytes`; a video '
      + 'keeps only its audio). A link: `application/json` with CreateTranscription, `url` required.',
      inputSchema('CreateTranscriptionInput'), inputSchema('CreateTranscriptionInput', linkRequired)),
    response: { status: 201, description: 'The transcription; `job.recordingId` names the recording.', schema: transcriptionSchema },
    errors: [...creationRefusals, { status: 400, code: 'invalid_options' }, ...fileOrLinkErrors],
    handler: fileOrLinkCreate(() => ({ into: 'transcription' })),
  },
  {
    method: 'post', path: '/v1/transcriptions/{id}/recordings/upload', operationId: 'uploadRecording', tags: ['recordings'],
    idempotent: true, ownBody: true,
    request: fileOrLinkRequest('As `POST /v1/transcriptions`, without `shareLink`.', uploadOptionsSchema, uploadLinkSchema),
    response: { status: 201, description: 'The transcription; `job.recordingId` names the new recording.', schema: transcriptionSchema },
    errors: [
      ...creationRefusals, notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }, ...fileOrLinkErrors,
    ],
    handler: fileOrLinkCreate((req) => ({ into: 'recording', transcriptionId: String(req.params.id) })),
  },
  graphqlRoute({
    method: 'post', path: '/v1/transcriptions/live', operationId: 'createLiveTranscription', tags: ['transcriptions'], idempotent: true,
    document: CreateLiveTranscriptionDocument,
    // The service's parser first: an unknown field or a wrong type is refused naming it, before GraphQL coercion.
    variables: ({ body }) => {
      parseCreateLiveOptions(body);
      return { input: body as CreateLiveTranscriptionInput };
    },
    request: { schema: inputSchema('CreateLiveTranscriptionInput') },
    response: { status: 201, description: 'The live transcription.' },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 404, code: 'not_found' }],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions', operationId: 'listTranscriptions', tags: ['transcriptions'],
    parameters: lifecycleListParameters, document: TranscriptionsDocument, variables: ({ query }) => lifecycleListVariables(query),
    result: (data) => ({
      status: 200, body: withoutLastCursor({ transcriptions: data.transcriptions.items, nextCursor: data.transcriptions.nextCursor }),
    }),
    response: { status: 200, description: 'A page.', schema: pageSchema('transcriptions', transcriptionSchema) },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions/probe', operationId: 'probeTranscriptionLink', tags: ['transcriptions'],
    parameters: [{ name: 'url', in: 'query', required: true, schema: { type: 'string', minLength: 1 } }],
    document: TranscriptionProbeDocument,
    variables: ({ query }) => {
      if (typeof query.url !== 'string' || !query.url) {
        throw errors.invalidOptions('url is required (the link to look at).', { field: 'url' });
      }
      return { url: query.url };
    },
    response: { status: 200, description: 'The probe record.' },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 429, code: 'rate_limited' }],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions/{id}', operationId: 'getTranscription', tags: ['transcriptions'],
    document: TranscriptionDocument, variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The transcription.' }, errors: [notFound],
  }),
  graphqlRoute({
    method: 'patch', path: '/v1/transcriptions/{id}', operationId: 'updateTranscription', tags: ['transcriptions'],
    document: UpdateTranscriptionDocument,
    variables: ({ params, body }) => {
      parseTranscriptionPatch(body ?? {});
      return { id: params.id!, input: (body ?? {}) as UpdateTranscriptionInput };
    },
    request: { schema: inputSchema('UpdateTranscriptionInput') },
    response: { status: 200, description: 'The transcription.' },
    errors: [notFound, { status: 400, code: 'invalid_options' }],
  }),
  ...lifecycleMoveRoutes({
    collection: 'transcriptions', type: 'Transcription', tag: 'transcriptions', schema: transcriptionSchema, notFound,
    documents: { archive: ArchiveTranscriptionDocument, restore: RestoreTranscriptionDocument, purge: PurgeTranscriptionDocument },
  }),
  {
    method: 'ws', path: '/v1/transcriptions/{id}/events', operationId: 'transcriptionEvents', tags: ['transcriptions'], errors: [notFound],
    frames: {
      server: [
        { type: 'events.ready' }, { type: 'recording.started' }, { type: 'recording.state' }, { type: 'recording.settings' },
        { type: 'recording.ingest' }, { type: 'stream.ingest' }, { type: 'job.state' }, { type: 'job.progress' },
      ],
    },
    authorize: async (_req, params, ctx) => {
      const identity = requireScope(ctx, 'read');
      await ctx.services.transcriptions.get(identity.account.id, params.id!);
    },
    onConnection: async (socket, _req, params, ctx) => {
      const frames = ctx.pubsub.subscribe(`transcription:${params.id!}`);
      socket.on('close', () => void frames.return?.());
      // Ask for the first frame before reading the job: that starts the subscription, so a change made while the
      // snapshot is read is delivered after `events.ready` rather than lost (frames carry `seq` to de-duplicate).
      let next = frames.next();
      const current = await ctx.services.transcriptions.get(ctx.identity!.account.id, params.id!);
      socket.send(JSON.stringify({ type: 'events.ready', transcriptionId: current.id, job: current.job }));
      for (;;) {
        const { value, done } = await next;
        if (done || socket.readyState !== socket.OPEN) break;
        socket.send(JSON.stringify(value));
        next = frames.next();
      }
    },
  },
];

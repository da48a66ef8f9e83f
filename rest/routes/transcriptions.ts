/**
 * File and link transcriptions: create (multipart upload or JSON link), list, read, rename, lifecycle moves,
 * the link probe and the events socket. Creation is a handler route because the upload is streamed to storage
 * as it arrives (never held in memory); everything else runs its GraphQL operation.
 */
import type { Request, Response } from 'express';
import { requireScope } from '../../src/core/identity/scopes.js';
import { ApiError, errors } from '../../src/core/errors.js';
import type { Context } from '../../src/core/context.js';
import {
  ArchiveTranscriptionDocument, CreateLiveTranscriptionDocument, type CreateLiveTranscriptionInput, CreateTranscriptionDocument,
  type CreateTranscriptionInput, JobFieldsFragmentDoc, PurgeTranscriptionDocument, RestoreTranscriptionDocument, TranscriptionDocument,
  TranscriptionFieldsFragmentDoc, TranscriptionProbeDocument, TranscriptionsDocument, UpdateTranscriptionDocument,
  type UpdateTranscriptionInput, UploadRecordingDocument,
} from '../../src/generated/graphql.js';
import { fragmentSchema, inputSchema, pageSchema, resultSchema } from '../shapes.js';
import { refuseBadInput } from '../../src/core/text-input.js';
import { canonicalJson, fingerprintOf } from '../../src/core/idempotency.js';
import { isStagedUpload, parseCreateLiveOptions, parseCreateOptions, parseTranscriptionPatch } from '../../src/transcriptions/service.js';
import { holdIdempotencyKey, requestLine } from '../middleware/idempotency.js';
import { withoutLastCursor } from '../query.js';
import { readMultipart } from '../multipart.js';
import { useJsonBody } from '../middleware/json-body.js';
import { lifecycleListParameters, lifecycleListVariables, lifecycleMoveRoutes } from '../lifecycle-routes.js';
import { graphqlRoute, type HandlerRoute, type JsonSchema, type RouteSpec, type RunTyped } from '../types.js';
import { creationRefusals } from './billing.js';

/** Multipart framing around the file: an upload whose Content-Length exceeds the limit by more is refused unread. */
const MULTIPART_SLACK_BYTES = 64 * 1024;

export const jobSchema = fragmentSchema(JobFieldsFragmentDoc);

export const transcriptionSchema = fragmentSchema(TranscriptionFieldsFragmentDoc);

/** CreateTranscription as the `options` part of an upload (`url` absent: a file is sent). */
const createOptionsSchema = inputSchema('CreateTranscriptionInput');

/** REST's JSON create is a link: `url` is required (GraphQL's also takes a file). */
const linkRequired = { required: ['url'], properties: { url: { minLength: 1 } } };

/** CreateTranscription as a JSON body: a link. */
const createFromLinkSchema = inputSchema('CreateTranscriptionInput', linkRequired);

const notFound = { status: 404, code: 'not_found', description: 'No such transcription in this account.' };

/** A recording upload's options: CreateTranscription without `shareLink`. */
const uploadOptionsSchema = inputSchema('CreateTranscriptionInput', { omit: ['shareLink'] });
const uploadFromLinkSchema = inputSchema('CreateTranscriptionInput', { omit: ['shareLink'], ...linkRequired });

/** The `options` part: JSON, checked as soon as it arrives so a bad one is refused before the file is read. */
function parseOptionsPart(value: string): unknown {
  let options: unknown;
  try {
    options = JSON.parse(value);
  } catch {
    throw errors.invalidOptions('options must be a JSON object.', { field: 'options' });
  }
  refuseBadInput(options);
  return options;
}

/**
 * `multipart/form-data`: one `file` part and an optional `options` JSON part, in either order. The file is
 * streamed into storage as it arrives; the Idempotency-Key is claimed once the whole body is read, with a
 * fingerprint of the options and of the file's bytes.
 */
async function createFromMultipart(
  req: Request, res: Response, ctx: Context, target: CreateTarget, run: RunTyped,
): Promise<{ id: string } | null> {
  const service = ctx.services.transcriptions;
  const body = await readMultipart(req, {
    fields: ['options'],
    // Checked as if a file followed, unless the options name a link (a multipart body may carry only options).
    onField: (_name, value) => {
      const options = parseOptionsPart(value);
      parseCreateOptions(options, !(options && typeof options === 'object' && 'url' in options && options.url), target.into);
    },
    file: 'file',
    onFile: (stream, info) => service.stageUpload({ stream, ...info }),
    discard: (staged) => service.discardUpload(staged),
  });
  const options = body.fields.options === undefined ? {} : parseOptionsPart(body.fields.options);
  const upload = body.file;
  try {
    const fingerprint = fingerprintOf([
      requestLine(req), canonicalJson(options), upload?.sha256 ?? '', upload?.fileName ?? '', upload?.mimeType ?? '',
    ]);
    if (await holdIdempotencyKey(ctx.services.idempotency, req, res, fingerprint)) {
      if (upload) await service.discardUpload(upload);
      return null;
    }
  } catch (error) {
    if (upload) await service.discardUpload(upload);
    throw error;
  }
  // The same mutations as a GraphQL multipart request, with the file already in storage as the `file` variable.
  const variables = { options: options as CreateTranscriptionInput, file: upload ?? null };
  try {
    return target.into === 'recording'
      ? (await run(UploadRecordingDocument, { transcriptionId: target.transcriptionId, ...variables })).uploadRecording
      : (await run(CreateTranscriptionDocument, variables)).createTranscription;
  } catch (error) {
    // Refused before the service took the file over (variables GraphQL could not take): nothing may keep it. Once
    // taken, the service removes it on its own failures, and a failure after it stored the recording keeps it.
    if (upload && isStagedUpload(upload)) await service.discardUpload(upload);
    throw error;
  }
}

/** What a create body makes: a new transcription, or a recording uploaded into a live one. */
type CreateTarget = { into: 'transcription' } | { into: 'recording'; transcriptionId: string };

/**
 * The handler of both create routes: a file (`multipart/form-data`, streamed to storage as it arrives) or a link
 * (JSON, which runs the typed GraphQL operation). Answers 201 with the transcription.
 */
function createHandler(targetOf: (req: Request) => CreateTarget): HandlerRoute['handler'] {
  return async (req, res, ctx, run) => {
    requireScope(ctx, 'write');
    const target = targetOf(req);
    let created: { id: string } | null;
    if (req.is('multipart/form-data')) {
      const declared = Number(req.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > ctx.config.limits.maxUploadBytes + MULTIPART_SLACK_BYTES) {
        // Refused before reading: the client stops sending, and nothing was stored.
        res.setHeader('Connection', 'close');
        throw new ApiError(
          'invalid_options', 413, `file is larger than limits.maxUploadBytes (${ctx.config.limits.maxUploadBytes} bytes).`,
          { details: { field: 'file', limit: ctx.config.limits.maxUploadBytes } },
        );
      }
      try {
        created = await createFromMultipart(req, res, ctx, target, run);
      } catch (error) {
        // The rest of a refused upload is not read: close the connection after the answer.
        res.setHeader('Connection', 'close');
        throw error;
      }
    } else if (req.is('application/json')) {
      // Parser errors go on as they are: the envelope maps them (bad JSON 400, too large 413, bad charset 415).
      await new Promise<void>((resolve, reject) => parseJson(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
      // The link form runs the typed mutation (CreateTranscriptionInput, shared with GraphQL); the service's
      // parser runs on the raw body first so a bad field is refused by name, not by coercion.
      parseCreateOptions(req.body, false, target.into);
      const fingerprint = fingerprintOf([requestLine(req), canonicalJson(req.body)]);
      if (await holdIdempotencyKey(ctx.services.idempotency, req, res, fingerprint)) return;
      const options = req.body as CreateTranscriptionInput;
      created = target.into === 'recording'
        ? (await run(UploadRecordingDocument, { transcriptionId: target.transcriptionId, options })).uploadRecording
        : (await run(CreateTranscriptionDocument, { options })).createTranscription;
    } else {
      throw new ApiError('invalid_options', 415, `The body must be multipart/form-data (a file) or application/json (a url), not `
        + `${req.get('content-type') ?? 'untyped'}.`, { details: { field: 'Content-Type' } });
    }
    if (created) res.status(201).json(created);
  };
}

/** The two bodies of both create routes: multipart (a file and its options) or JSON (a link). */
function fileOrLinkRequest(description: string, options: JsonSchema, link: JsonSchema) {
  return {
    contentType: 'multipart/form-data', required: true, description,
    schema: { type: 'object', properties: { options, file: { type: 'string', format: 'binary' } } },
    alternatives: [{ contentType: 'application/json', schema: link }],
  };
}

/** What an upload or a link can be refused for besides its fields. */
const fileOrLinkErrors = [
  { status: 400, code: 'invalid_audio', description: 'The file is not audio or video with an audio stream.' },
  { status: 413, code: 'invalid_options', description: 'The file is larger than `limits.maxUploadBytes`; nothing is kept.' },
  { status: 415, code: 'invalid_options', description: 'Neither multipart/form-data nor application/json.' },
];

/** The JSON body of a link transcription: parsed like every other route's, its errors answered by the envelope. */
const parseJson = useJsonBody();

export const transcriptionRoutes: RouteSpec[] = [
  {
    method: 'post', path: '/v1/transcriptions', operationId: 'createTranscription', tags: ['transcriptions'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    idempotent: true,
    ownBody: true,
    request: fileOrLinkRequest('A file: `multipart/form-data` with an optional `options` part (CreateTranscription as JSON, before the '
      + 'file) and one `file` part (audio or video: mp3, wav, flac, ogg, m4a, mp4 and more, up to `limits.maxUploadBytes`; a video '
      + 'keeps only its audio). A link: `application/json` with CreateTranscription, `url` '
        + 'required.', createOptionsSchema, createFromLinkSchema),
    response: { status: 201, description: 'The transcription; `job.recordingId` names the recording.', schema: transcriptionSchema },
    errors: [...creationRefusals, { status: 400, code: 'invalid_options' }, ...fileOrLinkErrors],
    handler: createHandler(() => ({ into: 'transcription' })),
  },
  {
    method: 'post', path: '/v1/transcriptions/{id}/recordings/upload', operationId: 'uploadRecording', tags: ['recordings'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    idempotent: true,
    ownBody: true,
    request: fileOrLinkRequest('As `POST /v1/transcriptions`, without `shareLink`.', uploadOptionsSchema, uploadFromLinkSchema),
    response: { status: 201, description: 'The transcription; `job.recordingId` names the new recording.', schema: transcriptionSchema },
    errors: [
      ...creationRefusals, notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }, ...fileOrLinkErrors,
    ],
    handler: createHandler((req) => ({ into: 'recording', transcriptionId: String(req.params.id) })),
  },
  graphqlRoute({
    method: 'post', path: '/v1/transcriptions/live', operationId: 'createLiveTranscription', tags: ['transcriptions'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: CreateLiveTranscriptionDocument,
    idempotent: true,
    // The service's parser first: an unknown field or a wrong type is refused naming it, before GraphQL coercion.
    variables: ({ body }) => {
      parseCreateLiveOptions(body);
      return { input: body as CreateLiveTranscriptionInput };
    },
    request: { schema: inputSchema('CreateLiveTranscriptionInput') },
    response: { status: 201, description: 'The live transcription.', schema: transcriptionSchema },
    errors: [{ status: 400, code: 'invalid_options' }],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions', operationId: 'listTranscriptions', tags: ['transcriptions'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: lifecycleListParameters,
    document: TranscriptionsDocument,
    variables: ({ query }) => lifecycleListVariables(query),
    result: (data) => ({
      status: 200,
      body: withoutLastCursor({ transcriptions: data.transcriptions.items, nextCursor: data.transcriptions.nextCursor }),
    }),
    response: { status: 200, description: 'A page.', schema: pageSchema('transcriptions', transcriptionSchema) },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions/probe', operationId: 'probeTranscriptionLink', tags: ['transcriptions'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: [{ name: 'url', in: 'query', required: true, schema: { type: 'string', minLength: 1 } }],
    document: TranscriptionProbeDocument,
    variables: ({ query }) => {
      if (typeof query.url !== 'string' || !query.url) {
        throw errors.invalidOptions('url is required (the link to look at).', { field: 'url' });
      }
      return { url: query.url };
    },
    response: { status: 200, description: 'The probe record.', schema: resultSchema(TranscriptionProbeDocument) },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 429, code: 'rate_limited' }],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/transcriptions/{id}', operationId: 'getTranscription', tags: ['transcriptions'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: TranscriptionDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The transcription.', schema: transcriptionSchema },
    errors: [notFound],
  }),
  graphqlRoute({
    method: 'patch', path: '/v1/transcriptions/{id}', operationId: 'updateTranscription', tags: ['transcriptions'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: UpdateTranscriptionDocument,
    variables: ({ params, body }) => {
      parseTranscriptionPatch(body ?? {});
      return { id: params.id!, input: (body ?? {}) as UpdateTranscriptionInput };
    },
    request: { schema: inputSchema('UpdateTranscriptionInput') },
    response: { status: 200, description: 'The transcription.', schema: transcriptionSchema },
    errors: [notFound, { status: 400, code: 'invalid_options' }],
  }),
  ...lifecycleMoveRoutes({
    collection: 'transcriptions', type: 'Transcription', tag: 'transcriptions', schema: transcriptionSchema, notFound,
    documents: { archive: ArchiveTranscriptionDocument, restore: RestoreTranscriptionDocument, purge: PurgeTranscriptionDocument },
  }),
  {
    method: 'ws', path: '/v1/transcriptions/{id}/events', operationId: 'transcriptionEvents', tags: ['transcriptions'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    errors: [notFound],
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

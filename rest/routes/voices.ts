/**
 * Voices: the catalogue per language and its previews (open to anyone), and the account's cloned voices: create from
 * an upload (multipart, a handler route: the sample streams to storage) or from a recording's speaker, list, read,
 * change, delete, hear (preview) and fetch the sample (ranges). Business rules live in src/voices/service.ts.
 */
import type { Request, Response } from 'express';
import { errors, ApiError } from '../../src/core/errors.js';
import type { Context } from '../../src/core/context.js';
import { requireScope } from '../../src/core/identity/scopes.js';
import type { Identity } from '../../src/core/identity/identity.js';
import { refuseBadInput } from '../../src/core/text-input.js';
import {
  AvailableVoicesDocument, AvailableVoicesFieldsFragmentDoc, CreateVoiceDocument, CreateVoiceFromSpeakerDocument,
  type CreateVoiceFromSpeakerInput, type CreateVoiceInput, DeleteVoiceDocument, UpdateVoiceDocument, type UpdateVoiceInput,
  VoiceDocument, VoiceFieldsFragmentDoc, VoicesDocument,
} from '../../src/generated/graphql.js';
import { fragmentSchema, inputSchema, pageSchema, resultSchema } from '../shapes.js';
import { isStagedSample, MIN_SPEAKER_S, parseCreateVoice, parseFromSpeaker, parseVoicePatch } from '../../src/voices/service.js';
import { readMultipart } from '../multipart.js';
import { accessTokenParam, personFromAccessToken } from './recordings.js';
import { single, withoutLastCursor } from '../query.js';
import { graphqlRoute, type JsonSchema, type RouteSpec, type RouteParameter, type RunTyped } from '../types.js';

/** Multipart framing around the sample: a body whose Content-Length exceeds the limit by more is refused unread. */
const MULTIPART_SLACK_BYTES = 64 * 1024;

export const voiceSchema = fragmentSchema(VoiceFieldsFragmentDoc);

const availableSchema = fragmentSchema(AvailableVoicesFieldsFragmentDoc);

const formatParam: RouteParameter = {
  name: 'format', in: 'query', schema: { type: 'string', enum: ['ogg', 'caf'], default: 'ogg' },
  description: '`ogg` (Ogg/Opus) or `caf` (Opus in CAF, for browsers that do not play Ogg).',
};
const langParam = (description: string, required = false): RouteParameter => ({
  name: 'lang', in: 'query', required, schema: { type: 'string', minLength: 1, maxLength: 35 }, description,
});
const notFound = { status: 404, code: 'not_found', description: 'No such voice in this account.' };
const badLang = { status: 400, code: 'invalid_options', description: '`lang` is not a language a voice speaks (`details.allowed` lists '
  + 'them), or `format` is not ogg or caf.' };

/** The `meta` part: JSON, checked as soon as it arrives so a bad one is refused before the sample is read. */
function parseMetaPart(value: string): unknown {
  let meta: unknown;
  try {
    meta = JSON.parse(value);
  } catch {
    throw errors.invalidOptions('meta must be a JSON object (CreateVoice).', { field: 'meta' });
  }
  refuseBadInput(meta);
  parseCreateVoice(meta);
  return meta;
}

/** POST /v1/voices: `sample` streamed into the voice's folder, `meta` checked before it; 201 with the voice. */
async function createVoice(req: Request, res: Response, ctx: Context, run: RunTyped): Promise<void> {
  requireScope(ctx, 'write');
  if (!req.is('multipart/form-data')) {
    throw new ApiError('invalid_options', 415, `The body must be multipart/form-data with a "sample" audio part and a "meta" JSON part, `
      + `not ${req.get('content-type') ?? 'untyped'}.`, { details: { field: 'Content-Type' } });
  }
  const limit = ctx.config.voices.sampleMaxBytes;
  const declared = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit + MULTIPART_SLACK_BYTES) {
    res.setHeader('Connection', 'close');
    throw new ApiError(
      'invalid_options', 413, `sample is larger than ${limit} bytes (VOICE_SAMPLE_MAX_BYTES).`, { details: { field: 'sample', limit } },
    );
  }
  const service = ctx.services.voices;
  let created;
  try {
    const body = await readMultipart(req, {
      fields: ['meta'],
      onField: (_name, value) => parseMetaPart(value),
      file: 'sample',
      onFile: (stream, info) => service.stageSample({ stream, ...info }),
      discard: (staged) => service.discardSample(staged),
    });
    if (body.fields.meta === undefined) {
      if (body.file) await service.discardSample(body.file);
      throw errors.invalidOptions('meta is required: a JSON part with CreateVoice (name, consent …).', { field: 'meta' });
    }
    const sample = body.file;
    try {
      // The mutation a GraphQL multipart request runs, with the sample already in storage as its `sample` variable.
      created = (await run(CreateVoiceDocument, { input: parseMetaPart(body.fields.meta) as CreateVoiceInput, sample })).createVoice;
    } catch (error) {
      // Refused before the service took the sample over (variables GraphQL could not take): nothing may keep it.
      if (sample && isStagedSample(sample)) await service.discardSample(sample);
      throw error;
    }
  } catch (error) {
    // The rest of a refused upload is not read: close the connection after the answer.
    res.setHeader('Connection', 'close');
    throw error;
  }
  res.status(201).json(created);
}

/** The owner of a media URL: the bearer header, else a person's token in `access_token` (an audio element sends no header). */
async function ownerOf(req: Request, ctx: Context): Promise<Identity> {
  return (await personFromAccessToken(ctx, req.query)) ?? requireScope(ctx, 'read', 'This audio needs the owner\'s credential: a bearer '
    + 'token, or a person\'s access token in access_token=.');
}

function sendAudio(res: Response, file: { path: string; contentType: string }, cache: string): void {
  res.type(file.contentType);
  res.setHeader('Cache-Control', cache);
  res.sendFile(file.path);
}

export const voiceRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/voices/available', operationId: 'listAvailableVoices', tags: ['voices'],
    auth: { mode: 'optional', scopes: [] },
    parameters: [langParam('A language code (`en`, `pt-BR` …); GET /v1/languages lists the voice languages.', true)],
    document: AvailableVoicesDocument,
    variables: ({ query }) => ({ lang: single(query.lang)! }),
    response: { status: 200, description: 'The voices.', schema: availableSchema },
    errors: [badLang],
  }),
  {
    method: 'get', path: '/v1/voices/preview', operationId: 'previewCatalogueVoice', tags: ['voices'],
    auth: { mode: 'public', scopes: [] },
    parameters: [
      { name: 'voice', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 64 }, description: 'A catalogue voice id '
        + '(`af_heart`).' },
      langParam('The language; the voice must speak it.'), formatParam,
    ],
    response: { status: 200, description: 'The audio.', contentType: 'audio/ogg' },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 503, code: 'unavailable' }],
    handler: async (req, res, ctx) => {
      sendAudio(
        res,
        await ctx.services.voices.cataloguePreview({
          voice: single(req.query.voice), lang: single(req.query.lang), format: single(req.query.format),
        }),
        'public, max-age=86400',
      );
    },
  },
  graphqlRoute({
    method: 'get', path: '/v1/voices', operationId: 'listVoices', tags: ['voices'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    parameters: [
      { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'The `nextCursor` of the previous page.' },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
    ],
    document: VoicesDocument,
    variables: ({ query }) => ({
      cursor: single(query.cursor), limit: query.limit === undefined ? undefined : Number(single(query.limit)),
    }),
    result: (data) => ({ status: 200, body: withoutLastCursor({ voices: data.voices.items, nextCursor: data.voices.nextCursor }) }),
    response: { status: 200, description: 'A page.', schema: pageSchema('voices', voiceSchema) },
    errors: [{ status: 400, code: 'invalid_options' }],
  }),
  {
    method: 'post', path: '/v1/voices', operationId: 'createVoice', tags: ['voices'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    ownBody: true,
    request: {
      contentType: 'multipart/form-data', required: true,
      description: '`meta`: CreateVoice as JSON (before the sample, so a bad one is refused before the audio is read); `sample`: the '
        + 'audio.',
      schema: {
        type: 'object', required: ['meta', 'sample'],
        properties: {
          meta: inputSchema('CreateVoiceInput'),
          sample: { type: 'string', format: 'binary' },
        },
      },
    },
    response: { status: 201, description: 'The voice, `training` at progress 0 (a draft stays so).', schema: voiceSchema },
    errors: [
      { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }, { status: 400, code: 'invalid_audio' },
      { status: 413, code: 'invalid_options' }, { status: 415, code: 'invalid_options' },
    ],
    handler: createVoice,
  },
  graphqlRoute({
    method: 'post', path: '/v1/voices/from-speaker', operationId: 'createVoiceFromSpeaker', tags: ['voices'],
    summary: 'A cloned voice from a recording\'s own audio of one speaker (CreateVoiceFromSpeaker); works on a running recording. Answers '
      + '201 with the voice `training`; naming labels the speaker in the transcript.',
    description: `The sample is the speaker's segments (those labelled \`speaker\`) cut from the recording's master (or, while a live `
      + `recording runs, from its capture so far), at most 120 s of it. It needs at least ${MIN_SPEAKER_S} s of that speaker: the refusal `
        + `(400 naming \`speaker\`) states how much exists (\`details.speechS\`, \`details.requiredS\`). Without \`consent: true\` (false `
          + `is the default) the clone is refused (403 \`forbidden\`, \`details.reason: consent_required\`). The speaker is named `
            + `\`name\` in the transcript (as PUT /v1/recordings/{id}/speakers/{idx} does).`,
    auth: { mode: 'userOrKey', scopes: ['write'] },
    request: { schema: inputSchema('CreateVoiceFromSpeakerInput') },
    document: CreateVoiceFromSpeakerDocument,
    // The service's parser first: an unknown field or a wrong type is refused naming it, before GraphQL coercion.
    variables: ({ body }) => {
      parseFromSpeaker(body);
      return { input: body as CreateVoiceFromSpeakerInput };
    },
    response: { status: 201, description: 'The voice, `training` at progress 0.', schema: voiceSchema },
    errors: [
      { status: 404, code: 'not_found' }, { status: 403, code: 'forbidden' },
      { status: 400, code: 'invalid_options', description: `A bad or unknown field; fewer than ${MIN_SPEAKER_S} s of that speaker `
        + `(\`details.field\` \`speaker\`, \`details.speechS\` how much exists).` },
      { status: 409, code: 'invalid_state' },
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/voices/{id}', operationId: 'getVoice', tags: ['voices'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: VoiceDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The voice.', schema: voiceSchema },
    errors: [notFound],
  }),
  graphqlRoute({
    method: 'patch', path: '/v1/voices/{id}', operationId: 'updateVoice', tags: ['voices'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    request: { schema: inputSchema('UpdateVoiceInput') },
    document: UpdateVoiceDocument,
    variables: ({ params, body }) => {
      parseVoicePatch(body);
      return { id: params.id!, input: (body ?? {}) as UpdateVoiceInput };
    },
    response: { status: 200, description: 'The voice as it now is.', schema: voiceSchema },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 403, code: 'forbidden' }],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/voices/{id}', operationId: 'deleteVoice', tags: ['voices'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: DeleteVoiceDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: '`{id, deleted: true}`.', schema: resultSchema(DeleteVoiceDocument) },
    errors: [notFound],
  }),
  {
    method: 'get', path: '/v1/voices/{id}/preview', operationId: 'previewVoice', tags: ['voices'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [langParam('The language to speak (every voice language; default en-US).'), formatParam, accessTokenParam],
    response: { status: 200, description: 'The audio.', contentType: 'audio/ogg' },
    errors: [notFound, badLang, { status: 409, code: 'invalid_state' }, { status: 401, code: 'invalid_token' }],
    handler: async (req, res, ctx) => {
      const owner = await ownerOf(req, ctx);
      sendAudio(
        res,
        await ctx.services.voices.clonedPreview(owner.account.id, String(req.params.id), {
          lang: single(req.query.lang), format: single(req.query.format),
        }),
        'private, max-age=3600',
      );
    },
  },
  {
    method: 'get', path: '/v1/voices/{id}/sample', operationId: 'getVoiceSample', tags: ['voices'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    response: { status: 200, description: 'The audio (206 for a range).', contentType: 'application/octet-stream' },
    errors: [notFound],
    handler: async (req, res, ctx) => {
      const owner = requireScope(ctx, 'read');
      sendAudio(res, await ctx.services.voices.sample(owner.account.id, String(req.params.id)), 'private, no-cache');
    },
  },
];

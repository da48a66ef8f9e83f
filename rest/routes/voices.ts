/**
 * Voices: the catalogue per language and its previews (open to anyone), and the account's cloned voices: create from
 * an upload (multipart, a handler route: the sample streams to storage, rest/uploads.ts) or from a recording's speaker,
 * list, read, change, delete, hear (preview) and fetch the sample (ranges). Business rules live in src/voices/service.ts.
 */
import type { Request, Response } from 'express';
import type { Context } from '../../src/core/context.js';
import { requireScope } from '../../src/core/identity/scopes.js';
import type { Identity } from '../../src/core/identity/identity.js';
import {
  AvailableVoicesDocument, CreateVoiceFromSpeakerDocument, type CreateVoiceFromSpeakerInput, DeleteVoiceDocument, UpdateVoiceDocument,
  type UpdateVoiceInput, VoiceDocument, VoiceFieldsFragmentDoc, VoicesDocument,
} from '../../src/generated/graphql.js';
import { fragmentSchema, inputSchema, pageSchema } from '../shapes.js';
import { MIN_SPEAKER_S, parseFromSpeaker, parseVoicePatch } from '../../src/voices/service.js';
import { createVoiceFromUpload } from '../uploads.js';
import { personFromAccessToken } from '../recording-media.js';
import { accessTokenParam } from './recordings.js';
import { single, withoutLastCursor } from '../query.js';
import { graphqlRoute, type RouteSpec, type RouteParameter } from '../types.js';

export const voiceSchema = fragmentSchema(VoiceFieldsFragmentDoc);

const formatParam: RouteParameter = {
  name: 'format', in: 'query', schema: { type: 'string', enum: ['ogg', 'caf'], default: 'ogg' },
  description: '`ogg` (Ogg/Opus) or `caf` (Opus in CAF, for browsers that do not play Ogg).',
};
const langParam = (required = false): RouteParameter => ({ name: 'lang', in: 'query', required, schema: { type: 'string', minLength: 1,
  maxLength: 35 } });
const notFound = { status: 404, code: 'not_found', description: 'No such voice in this account.' };
const badLang = { status: 400, code: 'invalid_options', description: '`lang` is not a language a voice speaks (`details.allowed` lists '
  + 'them), or `format` is not ogg or caf.' };

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
    auth: { mode: 'optional', scopes: [] }, parameters: [langParam(true)],
    document: AvailableVoicesDocument, variables: ({ query }) => ({ lang: single(query.lang)! }),
    response: { status: 200, description: 'The voices.' }, errors: [badLang],
  }),
  {
    method: 'get', path: '/v1/voices/preview', operationId: 'previewCatalogueVoice', tags: ['voices'], auth: { mode: 'public', scopes: [] },
    parameters: [{ name: 'voice', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 64 } }, langParam(), formatParam],
    response: { status: 200, description: 'The audio.', contentType: 'audio/ogg' },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 503, code: 'unavailable' }],
    handler: async (req, res, ctx) => {
      const { voice, lang, format } = req.query;
      const preview = await ctx.services.voices.cataloguePreview({ voice: single(voice), lang: single(lang), format: single(format) });
      sendAudio(res, preview, 'public, max-age=86400');
    },
  },
  graphqlRoute({
    method: 'get', path: '/v1/voices', operationId: 'listVoices', tags: ['voices'],
    parameters: [
      { name: 'cursor', in: 'query', schema: { type: 'string' } },
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
    method: 'post', path: '/v1/voices', operationId: 'createVoice', tags: ['voices'], ownBody: true,
    request: {
      contentType: 'multipart/form-data', required: true,
      description: '`meta`: CreateVoice as JSON (before the sample, so a bad one is refused before the audio is read); `sample`: the '
        + 'audio.',
      schema: {
        type: 'object', required: ['meta', 'sample'],
        properties: { meta: inputSchema('CreateVoiceInput'), sample: { type: 'string', format: 'binary' } },
      },
    },
    response: { status: 201, description: 'The voice, `training` at progress 0 (a draft stays so).', schema: voiceSchema },
    errors: [
      { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }, { status: 400, code: 'invalid_audio' },
      { status: 413, code: 'invalid_options' }, { status: 415, code: 'invalid_options' },
    ],
    handler: createVoiceFromUpload,
  },
  graphqlRoute({
    method: 'post', path: '/v1/voices/from-speaker', operationId: 'createVoiceFromSpeaker', tags: ['voices'], textValues: { MIN_SPEAKER_S },
    request: { schema: inputSchema('CreateVoiceFromSpeakerInput') },
    document: CreateVoiceFromSpeakerDocument,
    // The service's parser first: an unknown field or a wrong type is refused naming it, before GraphQL coercion.
    variables: ({ body }) => {
      parseFromSpeaker(body);
      return { input: body as CreateVoiceFromSpeakerInput };
    },
    response: { status: 201, description: 'The voice, `training` at progress 0.' },
    errors: [
      { status: 404, code: 'not_found' }, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' },
      { status: 409, code: 'invalid_state' },
    ],
  }),
  graphqlRoute({
    method: 'get', path: '/v1/voices/{id}', operationId: 'getVoice', tags: ['voices'],
    document: VoiceDocument, variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The voice.' }, errors: [notFound],
  }),
  graphqlRoute({
    method: 'patch', path: '/v1/voices/{id}', operationId: 'updateVoice', tags: ['voices'],
    request: { schema: inputSchema('UpdateVoiceInput') },
    document: UpdateVoiceDocument,
    variables: ({ params, body }) => {
      parseVoicePatch(body);
      return { id: params.id!, input: (body ?? {}) as UpdateVoiceInput };
    },
    response: { status: 200, description: 'The voice as it now is.' },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 403, code: 'forbidden' }],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/voices/{id}', operationId: 'deleteVoice', tags: ['voices'],
    document: DeleteVoiceDocument, variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: '`{id, deleted: true}`.' }, errors: [notFound],
  }),
  {
    method: 'get', path: '/v1/voices/{id}/preview', operationId: 'previewVoice', tags: ['voices'],
    auth: { mode: 'optional', scopes: ['read'] }, parameters: [langParam(), formatParam, accessTokenParam],
    response: { status: 200, description: 'The audio.', contentType: 'audio/ogg' },
    errors: [notFound, badLang, { status: 409, code: 'invalid_state' }, { status: 401, code: 'invalid_token' }],
    handler: async (req, res, ctx) => {
      const owner = await ownerOf(req, ctx);
      const { lang, format } = req.query;
      const options = { lang: single(lang), format: single(format) };
      sendAudio(res, await ctx.services.voices.clonedPreview(owner.account.id, String(req.params.id), options), 'private, max-age=3600');
    },
  },
  {
    method: 'get', path: '/v1/voices/{id}/sample', operationId: 'getVoiceSample', tags: ['voices'],
    response: { status: 200, description: 'The audio (206 for a range).', contentType: 'application/octet-stream' },
    errors: [notFound],
    handler: async (req, res, ctx) => {
      const owner = requireScope(ctx, 'read');
      sendAudio(res, await ctx.services.voices.sample(owner.account.id, String(req.params.id)), 'private, no-cache');
    },
  },
];

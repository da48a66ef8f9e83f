/**
 * Spoken translation: a recording's voice tracks (GraphQL), asking for them, and one sentence's clip (a handler:
 * audio). The whole track is `/audio?kind=voice&lang=` (rest/routes/recordings.ts). Rules: src/recordings/voice-tracks.ts.
 */
import { RecordingVoiceTracksDocument, RenderVoiceTracksDocument } from '../../src/generated/graphql.js';
import { MAX_VOICE_LANGUAGES, parseVoiceRender } from '../../src/recordings/index.js';
import { single } from '../query.js';
import { graphqlRoute, type RouteSpec } from '../types.js';
import { mediaCredentialsOf } from '../recording-media.js';
import { accessTokenParam, mediaParam, notFound } from './recordings.js';

const shareCodeParam = { name: 'shareCode', in: 'query' as const, schema: { type: 'string' }, description: 'Read through a share link, '
  + 'with its permissions: another language than the spoken one needs `allowTranslate`.' };
const listenerTokenParam = { name: 'listenerToken', in: 'query' as const, schema: { type: 'string' },
  description: 'A private broadcast\'s listener; a public broadcast\'s listener sends nothing.' };
const langParam = { name: 'lang', in: 'query' as const, schema: { type: 'string', maxLength: 35 } };

export const voiceTrackRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/recordings/{id}/voice', operationId: 'listRecordingVoiceTracks', tags: ['voice tracks'],
    auth: { mode: 'optional', scopes: ['read'] }, parameters: [shareCodeParam, listenerTokenParam, langParam],
    document: RecordingVoiceTracksDocument,
    variables: ({ params, query }) => ({
      recordingId: params.id!, lang: single(query.lang), shareCode: single(query.shareCode), listenerToken: single(query.listenerToken),
    }),
    response: { status: 200, description: 'One row per language.' },
    errors: [notFound, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/recordings/{id}/voice', operationId: 'renderRecordingVoiceTracks', tags: ['voice tracks'],
    document: RenderVoiceTracksDocument, variables: ({ params, body }) => ({ recordingId: params.id!, ...parseVoiceRender(body) }),
    request: {
      schema: { type: 'object', additionalProperties: false, required: ['languages'], properties: {
        languages: { type: 'array', minItems: 1, maxItems: MAX_VOICE_LANGUAGES, items: { type: 'string' },
          description: `1 to ${MAX_VOICE_LANGUAGES} language codes (\`es\`, \`fr\`, \`pt-BR\` …); repeats count once.` },
        force: { type: 'boolean', default: false, description: 'Render again even when the track is sealed or running.' },
      } },
    },
    response: { status: 202, description: 'The rows of the languages asked for, their jobs queued (or as they were).' },
    errors: [notFound, { status: 400, code: 'invalid_options' }, { status: 409, code: 'invalid_state' }],
  }),
  {
    method: 'get', path: '/v1/recordings/{id}/voice/{sentence}', operationId: 'getRecordingVoiceClip', tags: ['voice tracks'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      { name: 'sentence', in: 'path', required: true, schema: { type: 'string' } }, langParam,
      { name: 'format', in: 'query', schema: { type: 'string', enum: ['ogg', 'caf'], default: 'ogg' } },
      shareCodeParam, listenerTokenParam, mediaParam, accessTokenParam,
    ],
    response: { status: 200, description: 'The clip.', contentType: 'audio/ogg' },
    errors: [{ status: 404, code: 'not_found' }, { status: 403, code: 'forbidden' }, { status: 400, code: 'invalid_options' }],
    handler: async (req, res, ctx) => {
      const clip = await ctx.services.voiceTracks.clip(
        String(req.params.id), String(req.params.sentence), await mediaCredentialsOf(ctx, req.query),
        { lang: single(req.query.lang), format: single(req.query.format) },
      );
      res.type(clip.contentType);
      res.setHeader('Cache-Control', 'private, no-cache');
      res.sendFile(clip.path);
    },
  },
];

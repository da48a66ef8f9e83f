/** Meta routes: liveness, language lists, realtime capabilities. */
import { HealthDocument, LanguagesDocument, RealtimeCapabilitiesDocument } from '../../src/generated/graphql.js';
import { ref } from '../schemas.js';
import { graphqlRoute, type RouteEntry } from '../types.js';

export const metaRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/health', operationId: 'getHealth', tags: ['meta'],
    summary: 'Liveness: 200 while the server is up.',
    auth: { mode: 'public', scopes: [] },
    document: HealthDocument,
    result: (data) => ({ status: 200, body: data.health }),
    response: {
      status: 200, description: 'The server is up.',
      schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] }, version: { type: 'string' }, time: { type: 'string', format: 'date-time' } } },
    },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/languages', operationId: 'listLanguages', tags: ['meta'],
    summary: 'Transcription, translation and voice language lists with picker metadata.',
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: LanguagesDocument,
    result: (data) => ({ status: 200, body: data.languages }),
    response: {
      status: 200, description: 'Language lists.',
      schema: {
        type: 'object', required: ['transcription', 'translation', 'voice'],
        properties: {
          transcription: { type: 'array', items: ref('Language') },
          translation: { type: 'array', items: ref('Language') },
          voice: { type: 'array', items: ref('Language') },
        },
      },
    },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/realtime/capabilities', operationId: 'getRealtimeCapabilities', tags: ['realtime'],
    summary: 'What a realtime session can do: languages, speaker labels, latency modes, audio formats, limits.',
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: RealtimeCapabilitiesDocument,
    result: (data) => ({ status: 200, body: data.realtimeCapabilities }),
    response: { status: 200, description: 'Capabilities record.', schema: ref('Capabilities') },
  }),
];

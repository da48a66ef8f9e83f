/** Meta routes: liveness, readiness (rest/readiness.ts), language lists, realtime capabilities. */
import { HealthDocument, LanguagesDocument, RealtimeCapabilitiesDocument } from '../../src/generated/graphql.js';
import { readiness } from '../readiness.js';
import { ref } from '../schemas.js';
import { resultSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

const checkSchema = {
  type: 'object', required: ['ok', 'ms'],
  properties: { ok: { type: 'boolean' }, ms: { type: 'integer' }, error: { type: 'string', description: 'Why the check failed.' } },
};

export const metaRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/health', operationId: 'getHealth', tags: ['meta'], auth: { mode: 'public', scopes: [] },
    document: HealthDocument, response: { status: 200, description: 'The server is up.' },
  }),
  {
    method: 'get', path: '/v1/health/ready', operationId: 'getReadiness', tags: ['meta'], auth: { mode: 'public', scopes: [] },
    response: {
      status: 200, description: 'Every check passed (503 with the same shape when one failed).',
      schema: {
        type: 'object', required: ['ready', 'checks'],
        properties: {
          ready: { type: 'boolean' },
          checks: {
            type: 'object', required: ['database', 'redis', 'models'],
            properties: {
              database: checkSchema,
              redis: checkSchema,
              models: { ...checkSchema, properties: { ...checkSchema.properties, languages: { type: 'integer' },
                fast: { type: 'string', description: 'The model of live sessions (MODEL_FAST); the check fails when it is not installed.' },
                accurate: { type: 'string', description: 'The model of file jobs and finalization (MODEL_ACCURATE); the check fails when '
                  + 'it is not installed.' },
                loaded: { type: 'boolean', description: 'This process\'s realtime engine (live sessions) has loaded its model; it loads '
                  + 'on first use. File jobs run on the workers\' own engines, which this does not report.' },
                voices: {
                  type: 'object', required: ['present'],
                  description: 'The text-to-speech model (optional: voices answer 503 without it, and this check passes either way). '
                    + '`download` while it is fetched on first use (`percent`), or after a failed fetch (`failure`, `retryInS`).',
                  properties: {
                    present: { type: 'boolean' },
                    download: {
                      type: 'object',
                      properties: {
                        percent: { type: 'integer', nullable: true }, failure: { type: 'string' }, retryInS: { type: 'number' },
                      },
                    },
                  },
                },
                provider: { type: 'string', description: 'Once loaded: the execution provider it runs on (`cpu`, `cuda`); `cpu` when the '
                  + 'one asked for could not load.' },
                requestedProvider: { type: 'string', description: 'Once loaded: the one asked for (ENGINE_PROVIDER).' },
              } },
            },
          },
        },
      },
    },
    handler: async (_req, res, ctx) => {
      const answer = await readiness(ctx);
      res.setHeader('Cache-Control', 'no-store');
      res.status(answer.ready ? 200 : 503).json(answer);
    },
  },
  graphqlRoute({
    method: 'get', path: '/v1/languages', operationId: 'listLanguages', tags: ['meta'], document: LanguagesDocument,
    response: { status: 200, description: 'Language lists.', schema: resultSchema(LanguagesDocument, { LanguageFields: ref('Language') }) },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/realtime/capabilities', operationId: 'getRealtimeCapabilities', tags: ['realtime'],
    document: RealtimeCapabilitiesDocument, response: { status: 200, description: 'Capabilities record.', schema: ref('Capabilities') },
  }),
];

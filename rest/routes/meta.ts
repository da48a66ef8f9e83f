/** Meta routes: liveness, readiness, language lists, realtime capabilities. */
import { HealthDocument, HealthFieldsFragmentDoc, LanguagesDocument, RealtimeCapabilitiesDocument } from '../../src/generated/graphql.js';
import type { Context } from '../../src/core/context.js';
import { requestRedis } from '../../src/core/redis-client.js';
import { ref } from '../schemas.js';
import { fragmentSchema, resultSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

/** Longest one readiness check may take: a probe that hangs is a failed probe. */
const READY_CHECK_TIMEOUT_MS = 2_000;

interface CheckResult {
  ok: boolean;
  ms: number;
  error?: string;
  [detail: string]: unknown;
}

/** Runs one check within READY_CHECK_TIMEOUT_MS: its details when it passes, its error message when it fails. */
async function timedCheck(check: () => Promise<Record<string, unknown>>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${READY_CHECK_TIMEOUT_MS} ms`)), READY_CHECK_TIMEOUT_MS);
  });
  try {
    const details = await Promise.race([check(), timeout]);
    return { ok: true, ms: Math.round(performance.now() - started), ...details };
  } catch (error) {
    return { ok: false, ms: Math.round(performance.now() - started), error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Redis answers PING on a connection of its own (the shared clients queue commands through an outage instead). */
async function pingRedis(redisUrl: string): Promise<Record<string, unknown>> {
  const client = requestRedis(redisUrl, { name: 'readiness', timeoutMs: READY_CHECK_TIMEOUT_MS, lazyConnect: true });
  try {
    await client.ping();
    return {};
  } finally {
    client.disconnect();
  }
}

/**
 * Database, Redis and the speech models, checked at once. The models check reads both configured models' language
 * lists (cached once read), and says whether this process's engine has loaded one or last failed to.
 */
async function readiness(ctx: Context) {
  const [database, redis, models] = await Promise.all([
    timedCheck(async () => {
      await ctx.prisma.$queryRaw`SELECT 1`;
      return {};
    }),
    timedCheck(() => pingRedis(ctx.config.redisUrl)),
    timedCheck(async () => {
      const languages = await ctx.services.capabilities.transcriptionLanguages();
      const engine = ctx.services.realtime.runtime.engine;
      const failure = engine.unavailable();
      if (failure) throw failure;
      const loaded = engine.loadedEngine();
      // The text-to-speech model is optional (voices answer 503 without it): reported, never a failed check.
      const voices = ctx.services.voices.modelStatus();
      return {
        languages: languages.length,
        // Both read above (a missing one fails this check): which they are.
        fast: ctx.config.models.fast,
        accurate: ctx.config.models.accurate,
        loaded: loaded !== null,
        ...(loaded ? { provider: loaded.provider, requestedProvider: loaded.requestedProvider } : {}),
        voices: { present: voices.present, ...(voices.download ? { download: voices.download } : {}) },
      };
    }),
  ]);
  return { ready: database.ok && redis.ok && models.ok, checks: { database, redis, models } };
}

const checkSchema = {
  type: 'object', required: ['ok', 'ms'],
  properties: { ok: { type: 'boolean' }, ms: { type: 'integer' }, error: { type: 'string', description: 'Why the check failed.' } },
};

export const metaRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/health', operationId: 'getHealth', tags: ['meta'],
    auth: { mode: 'public', scopes: [] },
    document: HealthDocument,
    response: { status: 200, description: 'The server is up.', schema: fragmentSchema(HealthFieldsFragmentDoc) },
  }),
  {
    method: 'get', path: '/v1/health/ready', operationId: 'getReadiness', tags: ['meta'],
    auth: { mode: 'public', scopes: [] },
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
    method: 'get', path: '/v1/languages', operationId: 'listLanguages', tags: ['meta'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: LanguagesDocument,
    response: { status: 200, description: 'Language lists.', schema: resultSchema(LanguagesDocument, { LanguageFields: ref('Language') }) },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/realtime/capabilities', operationId: 'getRealtimeCapabilities', tags: ['realtime'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: RealtimeCapabilitiesDocument,
    response: { status: 200, description: 'Capabilities record.', schema: ref('Capabilities') },
  }),
];

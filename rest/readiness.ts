/**
 * Readiness (`GET /v1/health/ready`, rest/routes/meta.ts): the database, Redis and the speech models, each checked now
 * and within a time limit, for a load balancer or orchestrator deciding whether to send traffic here.
 */
import type { Context } from '../src/core/context.js';
import { requestRedis } from '../src/core/redis-client.js';

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
export async function readiness(ctx: Context) {
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

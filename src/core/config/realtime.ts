/**
 * Settings of realtime sessions (REALTIME_*), read by `loadConfig` into `config.realtime`; the realtime module
 * joins them with the shared ones (`realtimeConfig`, src/live/config.ts). docs/realtime.md
 * lists them.
 */
import { availableParallelism } from 'node:os';
import type { ChatSettings } from '../chat-completions.js';
import { envPositive as positive, envString as str, type Env } from './env.js';

/**
 * AI-assisted auto-fix of committed lines (`llmFix`, src/live/llm-fix.ts): an OpenAI-compatible chat API
 * (LLM_FIX_API_URL turns it on). Without one, `llmFix: true` is refused by name.
 */
export interface LlmFixSettings extends ChatSettings {
  /** LLM_FIX_HOLD_MS: how long a committed line waits for its fix before it goes out as heard (default 1500). */
  holdMs: number;
}

export interface RealtimeSettings {
  /** HMAC secret of the stream tokens (`REALTIME_SECRET`); see `realtimeSigningKey` for the fallbacks. */
  secret: string | null;
  /** A server-wide secret the token key is derived from when `REALTIME_SECRET` is unset (`SERVER_SECRET`). */
  serverSecret: string | null;
  /** How long a created session may wait before its socket connects (`REALTIME_TOKEN_TTL_S`). */
  tokenTtlS: number;
  /** Sessions transcribing at once on this gateway (`REALTIME_MAX_SESSIONS`). */
  maxSessions: number;
  /** Sockets that may wait silently for a slot before upgrades are refused with 503 (`REALTIME_MAX_WAITING`). */
  maxWaiting: number;
  /** Engine worker threads (`REALTIME_ENGINE_THREADS`), each with its own loaded model. */
  engineThreads: number;
  /** onnxruntime threads per operator in one engine thread (`REALTIME_INTRA_OP_THREADS`, 0 = its default). */
  intraOpThreads: number;
  /** A client whose unread output passes this many bytes is a slow consumer (`REALTIME_SLOW_CONSUMER_BYTES`). */
  slowConsumerBytes: number;
  /** ... or who leaves a ping unanswered this long (`REALTIME_SLOW_CONSUMER_S`): it has not read what came before. */
  slowConsumerS: number;
  /** Drafts are skipped (commits never) while this many bytes are still unsent to the client. */
  draftDropBytes: number;
  /** Close a socket still waiting for a slot after this long; the client gave up at 30 s anyway. */
  waitTimeoutS: number;
  /** How live passes are paced and when `auto` hands over (the engine's LiveTuning). */
  tuning: { minStepS: number; catchupLagS: number; resumeLagS: number };
  /** Seconds between `session.loading` heartbeats. */
  loadingHeartbeatS: number;
  /** The chat API that fixes committed lines when a session asks (`llmFix`); null: none, `llmFix: true` is refused. */
  llmFix: LlmFixSettings | null;
}

function loadLlmFixSettings(env: Env): LlmFixSettings | null {
  const apiUrl = str(env, 'LLM_FIX_API_URL')?.replace(/\/+$/, '');
  if (!apiUrl) return null;
  if (!/^https?:\/\//i.test(apiUrl)) {
    throw new Error(`LLM_FIX_API_URL must be an http(s) URL (the base of an OpenAI-compatible API), got "${apiUrl}"`);
  }
  return {
    apiUrl,
    apiKey: str(env, 'LLM_FIX_API_KEY'),
    model: str(env, 'LLM_FIX_MODEL') ?? 'gpt-4o-mini',
    timeoutMs: positive(env, 'LLM_FIX_TIMEOUT_MS', 10_000, { integer: true }),
    holdMs: positive(env, 'LLM_FIX_HOLD_MS', 1_500, { integer: true, allowZero: true }),
  };
}

/** Called by `loadConfig(env)`. */
export function loadRealtimeSettings(env: Env): RealtimeSettings {
  const cores = availableParallelism();
  const engineThreads = positive(env, 'REALTIME_ENGINE_THREADS', Math.max(1, Math.floor(cores / 2)), { integer: true });
  return {
    secret: env.REALTIME_SECRET || null,
    serverSecret: env.SERVER_SECRET || null,
    tokenTtlS: positive(env, 'REALTIME_TOKEN_TTL_S', 300, { integer: true }),
    maxSessions: positive(env, 'REALTIME_MAX_SESSIONS', Math.max(2, cores), { integer: true }),
    maxWaiting: positive(env, 'REALTIME_MAX_WAITING', 16, { integer: true, allowZero: true }),
    engineThreads,
    intraOpThreads: positive(env, 'REALTIME_INTRA_OP_THREADS', 0, { integer: true, allowZero: true }),
    slowConsumerBytes: positive(env, 'REALTIME_SLOW_CONSUMER_BYTES', 1024 * 1024, { integer: true }),
    slowConsumerS: positive(env, 'REALTIME_SLOW_CONSUMER_S', 10),
    draftDropBytes: positive(env, 'REALTIME_DRAFT_DROP_BYTES', 64 * 1024, { integer: true }),
    waitTimeoutS: positive(env, 'REALTIME_WAIT_TIMEOUT_S', 35),
    tuning: {
      minStepS: positive(env, 'REALTIME_MIN_STEP_S', 0.3),
      catchupLagS: positive(env, 'REALTIME_CATCHUP_LAG_S', 3),
      resumeLagS: positive(env, 'REALTIME_RESUME_LAG_S', 1),
    },
    loadingHeartbeatS: 1,
    llmFix: loadLlmFixSettings(env),
  };
}

/**
 * Settings of file and link transcriptions, read by `loadConfig` (src/core/config/index.ts) into `config.transcriptions`.
 * Every variable has a row in docs/transcriptions.md.
 */
import { envInt as int, type Env } from './env.js';

export interface TranscriptionSettings {
  /**
   * LINK_FETCH_ALLOW_HOSTS: host names or IP literals (as written in a link) exempt from the refusal of private,
   * loopback, link-local and metadata addresses. For tests and private deployments only.
   */
  linkAllowHosts: string[];
  linkMaxRedirects: number;
  linkIdleTimeoutMs: number;
  /** Signs media URLs and media tokens; every gateway must share it. Unset: one is made once and kept in DATA_DIR. */
  mediaSigningSecret: string | null;
  /** Files one worker process transcribes at once (one engine thread each). */
  workerConcurrency: number;
  /** Bull lock: a killed worker's job is taken over by another worker after about this long. */
  workerLockMs: number;
  workerStalledCheckMs: number;
  /** How often a worker looks for stranded jobs (admitted but not on Bull, queues with free slots). */
  workerSweepMs: number;
}

export function loadTranscriptionSettings(env: Env): TranscriptionSettings {
  return {
    linkAllowHosts: (env.LINK_FETCH_ALLOW_HOSTS ?? '')
      .split(',')
      .map((host) => host.trim().toLowerCase().replace(/^\[|\]$/g, ''))
      .filter(Boolean),
    linkMaxRedirects: int(env, 'LINK_FETCH_MAX_REDIRECTS', 5),
    linkIdleTimeoutMs: int(env, 'LINK_FETCH_IDLE_TIMEOUT_MS', 30_000),
    mediaSigningSecret: env.MEDIA_SIGNING_SECRET || null,
    workerConcurrency: Math.max(1, int(env, 'WORKER_CONCURRENCY', 1)),
    workerLockMs: Math.max(1000, int(env, 'WORKER_LOCK_MS', 30_000)),
    workerStalledCheckMs: Math.max(500, int(env, 'WORKER_STALLED_CHECK_MS', 15_000)),
    workerSweepMs: int(env, 'WORKER_SWEEP_MS', 10_000),
  };
}

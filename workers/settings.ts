/**
 * Worker settings read from the environment (documented in the README's Transcriptions section). Kept beside
 * the workers so a worker-only process needs nothing of the gateway's configuration but the shared parts.
 */
import type { QueueSettings } from './queue.js';

export interface WorkerTuning {
  /** Files one worker process transcribes at once (one engine thread each). */
  concurrency: number;
  /** Bull lock: a killed worker's job is taken over by another worker after about this long. */
  lockDurationMs: number;
  stalledIntervalMs: number;
  sweepIntervalMs: number;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function workerTuningFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerTuning {
  return {
    concurrency: Math.max(1, positive(env, 'WORKER_CONCURRENCY', 1)),
    lockDurationMs: positive(env, 'WORKER_LOCK_MS', 30_000),
    stalledIntervalMs: positive(env, 'WORKER_STALLED_CHECK_MS', 15_000),
    sweepIntervalMs: positive(env, 'WORKER_SWEEP_MS', 10_000),
  };
}

export function queueSettingsOf(redis: { redisUrl: string; redisPrefix: string }, tuning: WorkerTuning): QueueSettings {
  return { redisUrl: redis.redisUrl, redisPrefix: redis.redisPrefix, lockDurationMs: tuning.lockDurationMs, stalledIntervalMs: tuning.stalledIntervalMs };
}

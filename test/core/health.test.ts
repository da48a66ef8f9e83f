/**
 * Liveness and readiness. GET /v1/health answers while the process serves, whatever its dependencies do; GET
 * /v1/health/ready checks the database, Redis and the speech models and names the one that fails (503).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRedis } from '../../src/core/redis-server.js';
import { json } from '../helpers/http.js';
import { freePort } from '../helpers/processes.js';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

interface Readiness {
  ready: boolean;
  checks: Record<'database' | 'redis' | 'models', {
    ok: boolean; ms: number; error?: string; languages?: number; loaded?: boolean; fast?: string; accurate?: string;
    voices?: { present: boolean };
  }>;
}

async function readiness(target: TestServer): Promise<{ status: number; body: Readiness }> {
  const response = await target.request('/v1/health/ready', { auth: null });
  return { status: response.status, body: await json(response) as Readiness };
}

describe('health', () => {
  it('is ready when the database, Redis and both models answer; no credential needed', async () => {
    const { status, body } = await readiness(server);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.ready).toBe(true);
    for (const name of ['database', 'redis', 'models'] as const) {
      expect(body.checks[name].ok, name).toBe(true);
      expect(body.checks[name].ms).toBeGreaterThanOrEqual(0);
      expect(body.checks[name].error).toBeUndefined();
    }
    // whisper-tiny and whisper-base share their 99 languages.
    expect(body.checks.models.languages).toBe(99);
    // Which models: the test server's file jobs run on whisper-tiny (test/helpers/server.ts), live sessions too.
    expect(body.checks.models).toMatchObject({ fast: 'whisper-tiny', accurate: 'whisper-tiny', voices: { present: expect.any(Boolean) } });
  });
});

describe('health when a dependency is missing', () => {
  let noModel: TestServer;
  let redisGone: TestServer;
  let redis: ChildProcess | null = null;
  let redisUrl: string;
  let redisDir: string;
  const startRedis = async () => {
    redis = await ensureRedis({ redisUrl, dataDir: redisDir, allowStart: true, log: () => undefined });
  };
  const stopRedis = async () => {
    const exited = new Promise((resolve) => redis!.once('exit', resolve));
    redis!.kill();
    await exited;
    redis = null;
  };
  beforeAll(async () => {
    // A Redis of this file's own, on a free port, that the test stops: then nothing answers at REDIS_URL.
    redisUrl = `redis://127.0.0.1:${await freePort()}`;
    redisDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-ready-'));
    await startRedis();
    [redisGone, noModel] = await Promise.all([
      startTestServer({ workers: [], env: { REDIS_URL: redisUrl, START_REDIS: 'false' } }),
      startTestServer({ workers: [], env: { MODEL_ACCURATE: 'whisper-not-installed' } }),
    ]);
  });
  afterAll(async () => {
    // Back for the server's own cleanup (its keys are deleted from its Redis).
    if (!redis && redisDir) await startRedis();
    await Promise.all([redisGone?.close(), noModel?.close()]);
    if (redis) await stopRedis();
    if (redisDir) await fs.rm(redisDir, { recursive: true, force: true });
  });

  it('answers 503 naming redis while Redis does not answer, liveness staying 200, and is ready again once it is back', async () => {
    expect((await readiness(redisGone)).status).toBe(200);
    await stopRedis();
    const { status, body } = await readiness(redisGone);
    expect(status, JSON.stringify(body)).toBe(503);
    expect(body.ready).toBe(false);
    expect(body.checks.redis.ok).toBe(false);
    expect(body.checks.redis.error).toMatch(/\S/);
    expect(body.checks.database.ok).toBe(true);
    expect(body.checks.models.ok).toBe(true);
    expect((await redisGone.request('/v1/health', { auth: null })).status).toBe(200);
    await startRedis();
    const again = await readiness(redisGone);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });

  it('answers 503 naming models when a configured model is not installed', async () => {
    const { status, body } = await readiness(noModel);
    expect(status, JSON.stringify(body)).toBe(503);
    expect(body.checks.models).toMatchObject({ ok: false, error: expect.stringMatching(/model/i) });
    expect(body.checks.database.ok).toBe(true);
    expect(body.checks.redis.ok).toBe(true);
  });
});

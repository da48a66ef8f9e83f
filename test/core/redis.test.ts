/** Redis for the start command: a child redis-server when nothing answers, or one clear line saying what to do. */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/core/db/migrate.js';
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { reportOutagesOnce } from '../../src/core/redis-client.js';
import { ensureRedis, redisAnswers, RedisUnavailableError } from '../../src/core/redis-server.js';
import { freePort } from '../helpers/processes.js';

describe('Redis for npm start', () => {
  it('starts redis-server with its files in DATA_DIR when nothing answers', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-redis-'));
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    expect(await redisAnswers(redisUrl)).toBe(false);
    const lines: string[] = [];
    const child = await ensureRedis({ redisUrl, dataDir, allowStart: true, log: (line) => lines.push(line) });
    try {
      expect(child).not.toBeNull();
      expect(await redisAnswers(redisUrl)).toBe(true);
      expect(lines).toEqual([expect.stringContaining('Started redis-server')]);
      expect((await fs.stat(path.join(dataDir, 'redis'))).isDirectory()).toBe(true);
      // Already answering: nothing more is started.
      expect(await ensureRedis({ redisUrl, dataDir, allowStart: true, log: () => undefined })).toBeNull();
    } finally {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child!.kill();
      await exited;
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('otherwise stops with one line saying how to provide Redis', async () => {
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    await expect(ensureRedis({ redisUrl, dataDir: os.tmpdir(), allowStart: false, log: () => undefined })).rejects.toBeInstanceOf(
      RedisUnavailableError,
    );
    const run = promisify(execFile)(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), ['src/entry/main.ts'], {
      cwd: REPO_ROOT, env: {
        ...process.env, REDIS_URL: redisUrl, START_REDIS: 'false', DATABASE_URL: 'postgres://unused@127.0.0.1:1/none',
      },
    });
    const failure = await run.then(() => null, (error: { code: number; stderr: string }) => error);
    expect(failure?.code).toBe(1);
    const lines = failure!.stderr.split('\n').filter((line) => line.trim() && !line.startsWith('npm warn'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Nothing answers at REDIS_URL=${redisUrl}`);
  });
});

describe('Redis outages in the log', () => {
  it('are said once when they begin, and again when the client is connected again', () => {
    const client = new EventEmitter();
    const said: string[] = [];
    reportOutagesOnce(
      client as unknown as Redis, 'rate limits', (error, name) => said.push(`down ${name}: ${error.message}`),
      (name, outageS) => said.push(`up ${name} after ${outageS >= 0 ? 'some' : 'no'} time`),
    );
    client.emit('ready'); // connecting the first time is not a recovery
    client.emit('error', new Error('connect ECONNREFUSED'));
    client.emit('error', new Error('connect ECONNREFUSED')); // retries of the same outage
    client.emit('ready');
    client.emit('ready');
    client.emit('error', new Error('read ECONNRESET'));
    client.emit('ready');
    expect(said).toEqual([
      'down rate limits: connect ECONNREFUSED',
      'up rate limits after some time',
      'down rate limits: read ECONNRESET',
      'up rate limits after some time',
    ]);
  });
});

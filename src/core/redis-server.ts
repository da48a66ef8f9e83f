/**
 * Redis is the one server the product needs. When nothing answers at REDIS_URL and a `redis-server` binary is on
 * the PATH, the start command runs one as a child process with its files in DATA_DIR/redis; otherwise it stops with
 * one line saying how to provide Redis.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';

export function redisAnswers(redisUrl: string, timeoutMs = 1000): Promise<boolean> {
  const url = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379) });
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG') || data.toString().startsWith('-NOAUTH')));
  });
}

function findRedisServer(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || null : null;
}

export class RedisUnavailableError extends Error {}

/** Returns the child process when one was started (stop it on exit), null when Redis already answered. */
export async function ensureRedis(
  options: { redisUrl: string; dataDir: string; allowStart: boolean; log: (line: string) => void },
): Promise<ChildProcess | null> {
  if (await redisAnswers(options.redisUrl)) return null;
  const url = new URL(options.redisUrl);
  const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname);
  const binary = options.allowStart && local ? findRedisServer() : null;
  if (!binary) {
    throw new RedisUnavailableError(`Nothing answers at REDIS_URL=${options.redisUrl}: start Redis there, set REDIS_URL to a running `
      + `Redis, or install redis-server (e.g. apt-get install redis-server) so it can be started for you.`);
  }
  const dir = path.join(options.dataDir, 'redis');
  fs.mkdirSync(dir, { recursive: true });
  const port = url.port || '6379';
  const child = spawn(binary, ['--port', port, '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(options.redisUrl, 200)) {
      options.log(`Started redis-server (pid ${child.pid}) on 127.0.0.1:${port}, files in ${dir}`);
      return child;
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new RedisUnavailableError(`redis-server was started but did not answer at ${options.redisUrl}; check that port ${port} is free.`);
}

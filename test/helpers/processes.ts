/**
 * A process entry point (`src/entry/main.ts`, `src/entry/worker-main.ts`) as its own OS process, for tests and
 * benchmarks that need more than one gateway or worker: resolves once its output matches `ready`, rejects with
 * that output if it exits or does not get there in time (then it is killed). `freePort()` finds a port for a server
 * the test starts itself (a redis-server).
 *
 *   const worker = await startEntryProcess('src/entry/worker-main.ts', env, /worker started/);
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { REPO_ROOT } from '../../src/core/db/migrate.js';

export interface EntryProcess {
  child: ChildProcess;
  /** What it printed so far (stdout and stderr together). */
  output(): string;
  /** The first capture group of `ready`, when it has one (e.g. the URL it listens on). */
  match: string | undefined;
}

export function startEntryProcess(entry: string, env: Record<string, string>, ready: RegExp, timeoutMs = 120_000): Promise<EntryProcess> {
  // `node --import tsx` rather than the tsx CLI: one process, so its pid's memory is the service's memory.
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT, env: { ...process.env, RTMP_PORT: 'off', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    // Not started in time: killed, so a test that gives up on it leaves no process behind.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not start:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve({ child, output: () => output, match: found[1] });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited ${code}:\n${output}`));
    });
  });
}

/** A TCP port nothing listens on right now (127.0.0.1). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

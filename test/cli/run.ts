/**
 * Running `speechgate` as a user would: `node src/cli/speechgate.mjs …` in a child process, with HOME and
 * XDG_CONFIG_HOME in a temporary folder (the user's own config is never read or written) and no SPEECHGATE_*
 * variables from the outer environment unless a test sets them. `runCli` waits for the exit; `startCli` hands
 * back the running child to read its output as it comes (streaming commands) and to interrupt it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../src/cli/speechgate.mjs', import.meta.url));

export interface CliHome {
  home: string;
  configDir: string;
  env: Record<string, string>;
  remove(): Promise<void>;
}

/** A temporary home for the CLI's config. */
export async function cliHome(): Promise<CliHome> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-cli-'));
  const configDir = path.join(home, 'config');
  return { home, configDir, env: { HOME: home, XDG_CONFIG_HOME: configDir }, remove: () => fs.rm(home, { recursive: true, force: true }) };
}

function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('SPEECHGATE_')) env[name] = value;
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** Everything written so far. */
  readonly stdout: string;
  readonly stderr: string;
  /**
   * Resolves once stdout matches (a pattern, or a check of all of it), looked at as output arrives; rejects, with
   * what was written, when the process ends first or after `timeoutMs` (default 90 s: inside the test's own limit).
   */
  waitForStdout(pattern: RegExp | ((stdout: string) => boolean), timeoutMs?: number): Promise<string>;
  /** The exit. */
  readonly exited: Promise<CliResult>;
}

export function startCli(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv(options.env ?? {}), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (data: Buffer) => {
    stdout += data.toString();
    for (const watch of watchers) watch();
  });
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => {
    for (const watch of watchers) watch();
    resolve({ code, signal, stdout, stderr });
  }));
  child.stdin.end(options.input ?? '');
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    waitForStdout(pattern, timeoutMs = 90_000) {
      const matches = typeof pattern === 'function' ? pattern : (text: string) => pattern.test(text);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`timed out waiting for ${pattern} on stdout.\nstdout: ${stdout}\nstderr: ${stderr}`)), timeoutMs,
        );
        const finish = (error?: Error) => {
          clearTimeout(timer);
          watchers.delete(check);
          if (error) reject(error);
          else resolve(stdout);
        };
        const check = () => {
          if (matches(stdout)) finish();
          else if (child.exitCode !== null || child.signalCode !== null) finish(new Error(`the CLI ended `
            + `(${child.exitCode ?? child.signalCode}) before ${pattern} on stdout.\nstdout: ${stdout}\nstderr: ${stderr}`));
        };
        watchers.add(check);
        check();
      });
    },
    exited,
  };
}

export function runCli(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<CliResult> {
  return startCli(args, options).exited;
}

/** The one JSON document a `--json` command printed. */
export function jsonOf(result: CliResult): any {
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${result.code}).\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
}

/** The JSON lines a streaming `--json` command printed. */
export function jsonLines(stdout: string): any[] {
  return stdout.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line));
}

/** Runs a command line in a pseudo-terminal (util-linux `script`), so stdin, stdout and stderr are all a TTY. */
export function runInTerminal(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...childEnv(env), COLUMNS: '120', TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.stdin.end();
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * espeak-ng (GPL-3.0) as a separate process: text in on stdin, IPA out on stdout. It is never linked or loaded
 * into this process, so its licence does not extend to ours; the Debian package `espeak-ng` provides it
 * (`ESPEAK_NG_PATH` names another binary).
 */
import { spawn } from 'node:child_process';

/** espeak-ng cannot be run (not installed, or it failed): a server setup problem, not the caller's. */
export class EspeakError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EspeakError';
  }
}

export function espeakPath(): string {
  return process.env.ESPEAK_NG_PATH || 'espeak-ng';
}

export interface EspeakOptions {
  /** The binary; default ESPEAK_NG_PATH, else `espeak-ng` on the PATH. */
  path?: string;
  /** Killed after this long (default 20 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The IPA of each line of `text` as espeak-ng writes it (`-q --ipa --tie=^`, UTF-8 input): one output line per
 * clause, diphthongs and affricates joined by `^`, stress marks kept, punctuation left out. Empty lines are dropped.
 */
export function espeakIpa(text: string, voice: string, options: EspeakOptions = {}): Promise<string[]> {
  const binary = options.path ?? espeakPath();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-q', '-b', '1', '--ipa', '--tie=^', '-v', voice], {
      stdio: ['pipe', 'pipe', 'pipe'], signal: options.signal,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => void (stdout += chunk));
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new EspeakError(`espeak-ng took longer than ${options.timeoutMs ?? 20_000} ms and was stopped`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOENT') {
        reject(new EspeakError(`espeak-ng is not installed (no '${binary}'): text to speech needs it for phonemes; install the `
          + `Debian/Ubuntu package espeak-ng (apt-get install espeak-ng) or set ESPEAK_NG_PATH`));
      } else reject(error.name === 'AbortError' ? error : new EspeakError(`espeak-ng could not start (${binary}): ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new EspeakError(`espeak-ng -v ${voice} failed (exit ${code}): ${stderr.trim().split('\n').slice(-2).join(' | ')}`));
        return;
      }
      resolve(stdout.split('\n').map((line) => line.trim()).filter(Boolean));
    });
    // A closed stdin (espeak-ng exiting early) surfaces through 'close' above.
    child.stdin.on('error', () => undefined);
    child.stdin.end(text.endsWith('\n') ? text : `${text}\n`);
  });
}

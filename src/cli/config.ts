/**
 * Where the CLI finds its server and key: `--url`/`--key` on the command line win over SPEECHGATE_URL /
 * SPEECHGATE_API_KEY in the environment, which win over what `speechgate login` stored in
 * `$XDG_CONFIG_HOME/speechgate/config.json` (default `~/.config/speechgate/config.json`). The stored file holds a
 * secret: it is written with mode 0600 in a 0700 folder, and rewritten through a temporary file so a reader never
 * sees half of it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What `speechgate login` keeps. */
export interface StoredConfig {
  url: string;
  apiKey: string;
}

/** The server and key a command talks with, and where each came from (said in error messages). */
export interface Credentials {
  url: string;
  apiKey: string | null;
  urlFrom: 'flag' | 'environment' | 'config' | 'default';
}

/** Used when no URL is given anywhere: a server started with `npm start` on this machine. */
export const DEFAULT_URL = 'http://localhost:8080';

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(
    env.HOME || os.homedir(), '.config',
  );
  return path.join(base, 'speechgate', 'config.json');
}

/** The stored config, or null when there is none; a file that is not ours to read is said plainly. */
export async function readConfig(file = configFile()): Promise<StoredConfig | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<StoredConfig>;
    return typeof parsed.url === 'string' && typeof parsed.apiKey === 'string' ? { url: parsed.url, apiKey: parsed.apiKey } : null;
  } catch {
    // A file edited by hand into something unreadable counts as none: `speechgate login` writes a good one again.
    return null;
  }
}

export async function writeConfig(config: StoredConfig, file = configFile()): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only to a file it creates; a leftover temporary file keeps its own mode otherwise.
  await fs.chmod(temporary, 0o600);
  await fs.rename(temporary, file);
}

/** Removes the stored config; answers whether there was one. */
export async function removeConfig(file = configFile()): Promise<boolean> {
  try {
    await fs.unlink(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** A server address as the SDK takes it: http(s) only, no trailing slash. */
export function normaliseUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`${url} is not an http(s) address.`);
  return parsed.toString().replace(/\/+$/, '');
}

export async function resolveCredentials(
  flags: { url?: string; key?: string }, env: NodeJS.ProcessEnv = process.env,
): Promise<Credentials> {
  const stored = await readConfig(configFile(env));
  const [url, urlFrom] = flags.url ? [flags.url, 'flag' as const]
    : env.SPEECHGATE_URL ? [env.SPEECHGATE_URL, 'environment' as const]
      : stored ? [stored.url, 'config' as const] : [DEFAULT_URL, 'default' as const];
  const apiKey = flags.key || env.SPEECHGATE_API_KEY || stored?.apiKey || null;
  return { url: normaliseUrl(url), apiKey, urlFrom };
}

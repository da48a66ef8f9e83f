/**
 * `speechgate login [--url URL] [--key KEY]`: checks a key against the server (`GET /v1/me`) and stores the server
 * and key for the next commands, mode 0600 (config.ts). The key comes from `--key`, else stdin when it is piped,
 * else SPEECHGATE_API_KEY, else a prompt that does not echo it; the address from `--url`, SPEECHGATE_URL, the stored
 * one, or a prompt (default http://localhost:8080).
 */
import { Command } from 'commander';
import { createClient } from '../../sdk/index.js';
import { configFile, DEFAULT_URL, normaliseUrl, readConfig, writeConfig } from '../config.js';
import { action, USER_AGENT, type CommandContext } from '../context.js';
import { usageError } from '../errors.js';
import { ask, readStdin } from '../prompt.js';

async function serverUrl(ctx: CommandContext): Promise<string> {
  const given = ctx.globals.url ?? process.env.SPEECHGATE_URL ?? (await readConfig())?.url;
  const url = given ?? (process.stdin.isTTY && ctx.out.interactive ? await ask('Server', { defaultValue: DEFAULT_URL }) : DEFAULT_URL);
  try {
    return normaliseUrl(url);
  } catch (error) {
    throw usageError(`The server address is not valid: ${(error as Error).message}`);
  }
}

async function apiKey(ctx: CommandContext): Promise<string> {
  if (ctx.globals.key) return ctx.globals.key;
  if (!process.stdin.isTTY) {
    const piped = await readStdin();
    if (piped) return piped.split(/\r?\n/)[0]!.trim();
  }
  if (process.env.SPEECHGATE_API_KEY) return process.env.SPEECHGATE_API_KEY;
  if (process.stdin.isTTY && process.stderr.isTTY) {
    const typed = await ask('API key (not shown)', { hidden: true });
    if (typed) return typed;
  }
  throw usageError('No API key: pass --key, pipe it on stdin (`speechgate login < key.txt`), or type it when asked.');
}

async function login(ctx: CommandContext): Promise<void> {
  const url = await serverUrl(ctx);
  const key = await apiKey(ctx);
  const client = createClient({ baseUrl: url, apiKey: key, headers: { 'user-agent': USER_AGENT } });
  const { data: me } = await client.GET('/v1/me');
  const file = configFile();
  await writeConfig({ url, apiKey: key }, file);
  const who = me!.principal.displayName;
  ctx.out.result(
    { url, configFile: file, account: me!.account, principal: me!.principal, apiKeyId: me!.apiKeyId ?? null, scopes: me!.scopes },
    `Logged in to ${url} as ${who}${me!.account.name ? ` (${me!.account.name})` : ''}, scopes ${me!.scopes.join(', ') || 'none'}; stored `
      + `in ${file}`,
  );
}

export function loginCommand(): Command {
  return new Command('login')
    .description('check an API key against the server and store the server and key for the next commands (file mode 0600)')
    .addHelpText('after', '\nThe key: --key, else stdin when piped (speechgate login --url URL < key.txt), else SPEECHGATE_API_KEY, else '
      + 'asked for.')
    .action(action(login));
}

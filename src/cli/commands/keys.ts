/**
 * `speechgate keys list | create | revoke`: the account's API keys (`/v1/api-keys`). `create` prints the new
 * secret once (the server never shows it again): alone on stdout, so `speechgate keys create > key.txt` keeps it.
 */
import { Command, Option } from 'commander';
import type { components } from '../../sdk/index.js';
import { action, type CommandContext } from '../context.js';
import { usageError } from '../errors.js';
import { shortTime, table } from '../output.js';

type ApiKey = components['schemas']['ApiKey'];
const SCOPES = ['read', 'write', 'recordings:publish', '*'] as const;

function keyState(key: ApiKey): string {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) return 'expired';
  return 'active';
}

async function list(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const { data } = await client.GET('/v1/api-keys');
  const keys = data!.apiKeys;
  ctx.out.result(data, keys.length
    ? table(['ID', 'NAME', 'PREFIX', 'SCOPES', 'STATE', 'CREATED', 'LAST USED'], keys.map((key) => [
      key.id, key.displayName, key.keyPrefix ?? '-', key.scopes.join(','), keyState(key), shortTime(key.createdAt), shortTime(
        key.lastUsedAt,
      ),
    ]))
    : 'No API keys.');
}

interface CreateOptions { name?: string; scope?: string[]; expires?: string }

async function create(ctx: CommandContext, _args: string[], options: CreateOptions): Promise<void> {
  let expiresAt: string | undefined;
  if (options.expires) {
    const at = Date.parse(options.expires);
    if (Number.isNaN(at)) throw usageError(`--expires ${options.expires} is not a date (use e.g. 2027-01-31 or 2027-01-31T12:00:00Z).`);
    expiresAt = new Date(at).toISOString();
  }
  const client = await ctx.client();
  const { data } = await client.POST('/v1/api-keys', {
    body: { name: options.name, scopes: options.scope as (typeof SCOPES)[number][] | undefined, expiresAt },
  });
  ctx.out.result(data, data!.key);
  ctx.out.note(`Created key ${data!.apiKey.id} (${data!.apiKey.displayName}, scopes ${data!.apiKey.scopes.join(', ')}). The secret above `
    + `is shown only now: store it.`);
}

async function revoke(ctx: CommandContext, [id]: string[]): Promise<void> {
  const client = await ctx.client();
  const { data } = await client.DELETE('/v1/api-keys/{id}', { params: { path: { id: id! } } });
  ctx.out.result(data, `Revoked ${data!.id} (${data!.displayName}).`);
}

export function keysCommand(): Command {
  const keys = new Command('keys').description('list, create and revoke the account\'s API keys');
  keys.command('list').alias('ls').description('the keys, newest first (revoked ones too; never their secrets)').action(action(list));
  keys.command('create')
    .description('make a key and print its secret once')
    .option('--name <name>', 'label shown in listings (default: the key prefix)')
    .addOption(new Option('--scope <scope...>', 'scopes (default: this key\'s own; never more)').choices(SCOPES))
    .option('--expires <date>', 'expiry (a date or RFC 3339 time in the future); default never')
    .action(action(create));
  keys.command('revoke').description('revoke a key: it is refused from now on').argument('<id>', 'the key\'s id').action(action(revoke));
  return keys;
}

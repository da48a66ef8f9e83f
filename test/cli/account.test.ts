/**
 * The `speechgate` command line run as a user runs it, against a real server: `login` checks the key and stores it
 * mode 0600 (flags over environment over the stored file), `logout`, `keys` (a secret printed once, a revoked key
 * refused), `transcriptions` (paging, get, the lifecycle moves), `--json` documents on stdout, and the exit codes
 * of refusals: bad key 3, unknown id 4, bad usage 2, no server 8.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { cliHome, jsonOf, runCli, type CliHome } from './run.js';

const server = useTestServer({ workers: [] });
let home: CliHome;

beforeAll(async () => {
  home = await cliHome();
});
afterAll(async () => {
  await home?.remove();
});

const configPath = () => path.join(home.configDir, 'speechgate', 'config.json');
/** The CLI with the test's home (and whatever else a test sets). */
const cli = (args: string[], env: Record<string, string | undefined> = {}, input?: string) => runCli(
  args, { env: { ...home.env, ...env }, input },
);

describe('login and logout', () => {
  it('checks the key, stores server and key mode 0600, and every later command uses them; flags beat the environment, which beats the '
    + 'file', async () => {
    const refused = await cli(['login', '--url', server.url, '--key', 'sg_not_a_key']);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/invalid_token.*speechgate login/);
    await expect(fs.stat(configPath())).rejects.toThrow();

    // The key piped on stdin, never on the command line.
    const login = await cli(['login', '--url', server.url], {}, `${server.apiKey}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/^Logged in to http:\/\/127\.0\.0\.1:\d+ as test key/);
    const stat = await fs.stat(configPath());
    expect(stat.mode & 0o777).toBe(0o600);
    expect(JSON.parse(await fs.readFile(configPath(), 'utf8'))).toEqual({ url: server.url, apiKey: server.apiKey });

    const listed = await cli(['--json', 'keys', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(jsonOf(listed).apiKeys.map((key: { displayName: string }) => key.displayName)).toContain('test key');

    // The environment wins over the file, a flag over both.
    const envKey = await cli(['keys', 'list', '--json'], { SPEECHGATE_API_KEY: 'sg_bad' });
    expect(envKey.code).toBe(3);
    expect(jsonOf(envKey)).toMatchObject({ error: { code: 'invalid_token', status: 401 }, exitCode: 3 });
    expect((await cli(['keys', 'list', '--key', server.apiKey], { SPEECHGATE_API_KEY: 'sg_bad' })).code).toBe(0);
    expect((await cli(['keys', 'list'], { SPEECHGATE_URL: 'http://127.0.0.1:1' })).code).toBe(8);

    const json = await cli(['login', '--json', '--url', server.url, '--key', server.apiKey]);
    expect(jsonOf(json)).toMatchObject({ url: server.url, configFile: configPath(), account: { id: server.accountId }, scopes: ['*'] });

    const logout = await cli(['logout']);
    expect(logout.code).toBe(0);
    await expect(fs.stat(configPath())).rejects.toThrow();
    const after = await cli(['transcriptions', 'list']);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('run `speechgate login`');
    expect(after.stdout).toBe('');
  });
});

describe('keys', () => {
  it('creates a key (its secret alone on stdout), lists it, refuses what its scope does not allow, and revokes it', async () => {
    const created = await cli(['keys', 'create', '--name', 'cli reader', '--scope', 'read'], {
      SPEECHGATE_URL: server.url, SPEECHGATE_API_KEY: server.apiKey,
    });
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).not.toContain('\n');
    expect(created.stderr).toMatch(/shown only now/);

    const listed = jsonOf(await cli(['keys', 'list', '--json', '--key', secret, '--url', server.url]));
    const reader = listed.apiKeys.find((key: { displayName: string }) => key.displayName === 'cli reader');
    expect(reader).toMatchObject({ scopes: ['read'], revokedAt: null });
    const table = await cli(['keys', 'ls', '--key', server.apiKey, '--url', server.url]);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+SCOPES\s+STATE/);
    expect(table.stdout).toMatch(new RegExp(`${reader.id}\\s+cli reader\\s+\\S+\\s+read\\s+active`));

    // A read key may not make keys: 403 forbidden is an authentication failure (3).
    const forbidden = await cli(['keys', 'create', '--key', secret, '--json', '--url', server.url]);
    expect(forbidden.code).toBe(3);
    expect(jsonOf(forbidden).error).toMatchObject({ code: 'forbidden', status: 403 });

    const revoked = await cli(['keys', 'revoke', reader.id, '--json', '--key', server.apiKey, '--url', server.url]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(jsonOf(revoked)).toMatchObject({ id: reader.id, revokedAt: expect.any(String) });
    const refused = await cli(['keys', 'list', '--key', secret, '--url', server.url]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^speechgate: key_revoked: .* — run `speechgate login`/);
    expect((await cli(['keys', 'revoke', 'key_nope', '--key', server.apiKey, '--url', server.url])).code).toBe(4);
  });
});

describe('transcriptions', () => {
  it('lists a page at a time by cursor (or every page), gets one, and archives, restores and purges it; an unknown id is 4', async () => {
    const flags = ['--url', server.url, '--key', server.apiKey];
    const ids: string[] = [];
    for (const name of ['First', 'Second', 'Third']) ids.push((await expectStatus(
      await server.postJson('/v1/transcriptions/live', { name: `CLI ${name}` }), 201,
    )).id);

    const page = jsonOf(await cli(['transcriptions', 'list', '--limit', '2', '--json', ...flags]));
    expect(page.transcriptions.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const next = await cli(['transcriptions', 'list', '--limit', '2', '--cursor', page.nextCursor, ...flags]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(new RegExp(`${ids[0]}\\s+live\\s+idle\\s+\\S+ \\S+\\s+CLI First`));
    const all = jsonOf(await cli(['tr', 'ls', '--all', '--limit', '1', '--json', ...flags]));
    expect(all.transcriptions.map((t: { id: string }) => t.id)).toEqual([...ids].reverse());
    expect(all.nextCursor).toBeUndefined();

    const got = await cli(['transcriptions', 'get', ids[1]!, ...flags]);
    expect(got.stdout).toMatch(new RegExp(`^id:\\s+${ids[1]}\\nname:\\s+CLI Second\\nkind:\\s+live`));

    expect(jsonOf(await cli(['transcriptions', 'archive', ids[1]!, '--json', ...flags]))).toMatchObject({ id: ids[1], state: 'archived' });
    const archived = jsonOf(await cli(['transcriptions', 'list', '--lifecycle', 'archived', '--json', ...flags]));
    expect(archived.transcriptions.map((t: { id: string }) => t.id)).toEqual([ids[1]]);
    expect((await cli(['transcriptions', 'restore', ids[1]!, ...flags])).stdout).toBe(`Restored ${ids[1]}.\n`);
    expect((await cli(['transcriptions', 'archive', ids[1]!, ...flags])).code).toBe(0);
    expect((await cli(['transcriptions', 'purge', ids[1]!, ...flags])).code).toBe(0);

    const gone = await cli(['transcriptions', 'get', ids[1]!, '--json', ...flags]);
    expect(gone.code).toBe(4);
    expect(jsonOf(gone)).toMatchObject({ error: { code: 'not_found', status: 404 }, exitCode: 4 });
    expect(gone.stderr).toMatch(/^speechgate: not_found: /);
    // Purging an active one is a refused move (409 invalid_state): invalid input.
    expect((await cli(['transcriptions', 'purge', ids[0]!, ...flags])).code).toBe(5);
  });
});

describe('usage', () => {
  it('a bad option, a missing argument or a file that is not there is a usage error (2), with nothing on stdout', async () => {
    const flags = ['--url', server.url, '--key', server.apiKey];
    for (const args of [
      ['transcriptions', 'list', '--lifecycle', 'some'], ['transcribe'], ['keys', 'create', '--scope', 'admin'], ['no-such-command'],
      ['transcribe', '/no/such/file.wav', ...flags], ['transcriptions', 'list', '--limit', '0', ...flags],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr.trim(), args.join(' ')).not.toBe('');
    }
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:[\s\S]*3 {2}authentication[\s\S]*8 {2}network/);
  });
});

/** A setting a process cannot start with is said in one line (no stack trace), and the process exits 1. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/core/db/migrate.js';

async function failedStart(entry: string, env: Record<string, string>, args: readonly string[] = []) {
  const run = promisify(execFile)(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), [entry, ...args], {
    cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 60_000,
  });
  const failure = await run.then(() => null, (error: { code: number; stderr: string }) => error);
  expect(failure, 'the process refused to start').not.toBeNull();
  return { code: failure!.code, lines: failure!.stderr.split('\n').filter((line) => line.trim() && !line.startsWith('npm warn')) };
}

describe('a setting a process cannot start with', () => {
  it('npm start: a malformed BOOTSTRAP_API_KEY is one line naming it', async () => {
    const { code, lines } = await failedStart('src/entry/main.ts', { BOOTSTRAP_API_KEY: 'sg_live_not-a-key' });
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^speechgate cannot start: BOOTSTRAP_API_KEY must have the API key format/)]);
  });

  it('npm run worker and the admin command: a bad LOG_LEVEL is one line naming it', async () => {
    for (const [entry, args] of [['src/entry/worker-main.ts', []], ['src/entry/admin.ts', ['create-account', 'x']]] as const) {
      const { code, lines } = await failedStart(entry, { LOG_LEVEL: 'loud' }, args);
      expect(code, entry).toBe(1);
      expect(lines, entry).toEqual([expect.stringContaining('LOG_LEVEL must be')]);
    }
  });
});

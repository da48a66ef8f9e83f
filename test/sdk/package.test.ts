/**
 * The SDK as users get it: `npm pack` builds it (prepack: tsc -p tsconfig.sdk.json) into JavaScript and .d.ts, and a
 * consumer project that imports `speechgate/sdk` from the packed tarball type-checks under Node's types with no DOM
 * library, and under the DOM library alone (a browser bundle), with strict settings and without skipLibCheck (our
 * declarations are checked too). The packed `speechgate` command starts from the compiled CLI.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/core/db/migrate.js';

const run = promisify(execFile);
let work: string;
let packageDir: string;

/** A consumer's code: the typed REST client, errors, the realtime stream's types. */
const CONSUMER = `import { createClient, SpeechgateError, type RealtimeServerFrame } from 'speechgate/sdk';

const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'sg_live_0123456789ab_abcdefghijklmnopqrstuvwxyzABCDEFGH' });
export async function whoAmI(): Promise<string[]> {
  try {
    const { data } = await client.GET('/v1/me');
    return data?.scopes ?? [];
  } catch (error) {
    if (error instanceof SpeechgateError) return [error.code];
    throw error;
  }
}
export function describeFrame(frame: RealtimeServerFrame): string {
  return frame.type;
}
`;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-sdk-pack-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  const tarball = path.join(work, stdout.trim().split('\n').pop()!);
  packageDir = path.join(work, 'consumer', 'node_modules', 'speechgate');
  await fs.mkdir(packageDir, { recursive: true });
  await run('tar', ['xzf', tarball, '-C', packageDir, '--strip-components=1']);
  // The SDK's and the CLI's own dependencies, as an install would bring them (linked from this checkout's).
  for (const dependency of [
    'openapi-fetch', 'openapi-typescript-helpers', '@graphql-typed-document-node', '@types', 'commander', 'ws', '@ffmpeg-installer',
  ]) {
    await fs.symlink(path.join(REPO_ROOT, 'node_modules', dependency), path.join(work, 'consumer', 'node_modules', dependency));
  }
  await fs.writeFile(path.join(work, 'consumer', 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await fs.writeFile(path.join(work, 'consumer', 'index.ts'), CONSUMER);
}, 180_000);

afterAll(async () => {
  if (work) await fs.rm(work, { recursive: true, force: true });
});

async function typeCheck(compilerOptions: Record<string, unknown>): Promise<string> {
  const dir = path.join(work, 'consumer');
  await fs.writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', ...compilerOptions }, files: ['index.ts'] }),
  );
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', dir], { cwd: dir }).then(
    () => 'ok',
    (error: { stdout: string }) => error.stdout,
  );
}

describe('the packed SDK', () => {
  it('holds JavaScript and declarations, not TypeScript sources, and the CLI entry', async () => {
    const files = (await fs.readdir(path.join(packageDir, 'dist', 'sdk'))).sort();
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'client.js', 'upload.d.ts']));
    expect(files.filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(await fs.readFile(path.join(packageDir, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, string>>;
    };
    expect(manifest.exports['./sdk']).toMatchObject({ types: './dist/sdk/index.d.ts', default: './dist/sdk/index.js' });
    await expect(fs.access(path.join(packageDir, 'src', 'sdk'))).rejects.toThrow();
  });

  it('holds every file its install scripts run (an install of the tarball runs them)', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(packageDir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const installScripts = ['preinstall', 'install', 'postinstall'].map((name) => manifest.scripts[name]).filter(
      (script) => script !== undefined,
    );
    expect(installScripts.length).toBeGreaterThan(0);
    for (const script of installScripts) {
      for (const file of script.match(/[\w./-]+\.(?:m?js|cjs|sh)\b/g) ?? []) await fs.access(path.join(packageDir, file));
    }
  });

  it('type-checks a consumer under Node without the DOM library', async () => {
    expect(await typeCheck({ module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022'], types: ['node'] })).toBe('ok');
  });

  it('type-checks a consumer bundled for the browser (DOM library, no Node types)', async () => {
    expect(await typeCheck({ module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [] })).toBe(
      'ok',
    );
  });

  it('runs the compiled CLI: speechgate --version answers the package version', async () => {
    const { stdout } = await run(process.execPath, [path.join(packageDir, 'src', 'cli', 'speechgate.mjs'), '--version'], { cwd: work });
    const { version } = JSON.parse(await fs.readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(stdout.trim()).toBe(version);
  });
});

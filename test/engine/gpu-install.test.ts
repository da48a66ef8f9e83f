/**
 * `npm run gpu:install` on a machine without a GPU (as CI is): the provider tarball's checksum, the runtime
 * version it needs, the placement beside the binding (into a folder of the test's own, never the real binding),
 * the CUDA library search, and `--check` as a user runs it. Tarballs in the registry's layout are made here (system
 * tar); the real one (179 MB) is only fetched on a GPU machine.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findCudaLibraries, installGpuProviders, PROVIDER_LIBRARIES, PROVIDER_RUNTIME_VERSION,
} from '../../workers/engine/tools/gpu-install.js';
import { REPO_ROOT } from '../../src/core/db/migrate.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'gpu-install-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A gzipped tar like the provider package's, holding `libraries` under package/Plugins/Linux/x64/. */
async function makeTarball(name: string, libraries: string[]): Promise<{ file: string; sha: string }> {
  const root = join(scratch, `${name}-src`);
  const dir = join(root, 'package', 'Plugins', 'Linux', 'x64');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, 'package', 'package.json'), '{"name":"com.github.asus4.onnxruntime.linux-x64-gpu"}');
  for (const library of libraries) writeFileSync(join(dir, library), `ELF bytes of ${library}`);
  writeFileSync(join(dir, 'libonnxruntime.so'), 'the runtime: not taken (the binding has its own)');
  const file = join(scratch, `${name}.tgz`);
  await run('tar', ['-czf', file, '-C', root, 'package']);
  return { file, sha: createHash('sha256').update(readFileSync(file)).digest('hex') };
}

function bindingDir(name: string): string {
  const dir = join(scratch, `${name}-binding`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'onnxruntime_binding.node'), 'binding');
  return dir;
}

describe('gpu:install', () => {
  it('refuses a tarball whose sha256 is not the pinned one, and places nothing', async () => {
    const tarball = await makeTarball('altered', PROVIDER_LIBRARIES);
    const dir = bindingDir('altered');
    await expect(installGpuProviders({ tarball: tarball.file, bindingDir: dir, runtimeVersion: PROVIDER_RUNTIME_VERSION, libraryDirs: [] }))
      .rejects.toThrow(/sha256 [0-9a-f]{64} is not the expected 2b459e0c.*refusing it/);
    expect(readdirSync(dir)).toEqual(['onnxruntime_binding.node']);
  });

  it('refuses another onnxruntime-node version before fetching anything: a mismatched provider may abort the process', async () => {
    const tarball = await makeTarball('other-runtime', PROVIDER_LIBRARIES);
    const dir = bindingDir('other-runtime');
    await expect(installGpuProviders({
      tarball: tarball.file, tarballSha256: tarball.sha, bindingDir: dir, runtimeVersion: '1.30.0', libraryDirs: [],
    }))
      .rejects.toThrow(`onnxruntime-node is 1.30.0 here, but the registry's CUDA providers are built for ${PROVIDER_RUNTIME_VERSION}`);
    expect(readdirSync(dir)).toEqual(['onnxruntime_binding.node']);
  });

  it('places the three provider libraries beside the binding (nothing else) once the checksum matches, and reports what CUDA '
    + 'lacks', async () => {
    const tarball = await makeTarball('good', PROVIDER_LIBRARIES);
    const dir = bindingDir('good');
    const report = await installGpuProviders({
      tarball: tarball.file, tarballSha256: tarball.sha, bindingDir: dir, runtimeVersion: PROVIDER_RUNTIME_VERSION, libraryDirs: [],
    });
    expect(readdirSync(dir).sort()).toEqual(['onnxruntime_binding.node', ...PROVIDER_LIBRARIES].sort());
    for (const library of PROVIDER_LIBRARIES) expect(readFileSync(join(dir, library), 'utf8')).toBe(`ELF bytes of ${library}`);
    expect(report).toMatchObject({ runtimeMatches: true, providersPlaced: true });
    // Whatever this machine has, every missing required library is named in plain words.
    for (const library of report.cuda.filter((entry) => entry.required && !entry.foundAt)) {
      expect(report.problems).toContainEqual(expect.stringContaining(`${library.file} (${library.what}) is not found`));
    }
  });

  it('refuses a tarball that lacks a provider library, leaving the binding folder as it was', async () => {
    const tarball = await makeTarball('incomplete', PROVIDER_LIBRARIES.slice(0, 2));
    const dir = bindingDir('incomplete');
    await expect(installGpuProviders({
      tarball: tarball.file, tarballSha256: tarball.sha, bindingDir: dir, runtimeVersion: PROVIDER_RUNTIME_VERSION, libraryDirs: [],
    }))
      .rejects.toThrow(`the tarball has no ${PROVIDER_LIBRARIES[2]}`);
    expect(readdirSync(dir)).toEqual(['onnxruntime_binding.node']);
  });

  it('finds CUDA libraries in the folders given when the linker cache has none', () => {
    const dir = join(scratch, 'cuda-lib64');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'libcudart.so.13'), '');
    const found = findCudaLibraries([dir], new Map([['libcuda.so.1', '/usr/lib/x86_64-linux-gnu/libcuda.so.1']]));
    expect(found.find((entry) => entry.file === 'libcudart.so.13')?.foundAt).toBe(join(dir, 'libcudart.so.13'));
    expect(found.find((entry) => entry.file === 'libcuda.so.1')?.foundAt).toBe('/usr/lib/x86_64-linux-gnu/libcuda.so.1');
    expect(found.find((entry) => entry.file === 'libcublas.so.13')?.foundAt).toBeNull();
  });

  it('--check reports this machine as it is and changes nothing', async () => {
    const failure = await run(
      join(REPO_ROOT, 'node_modules/.bin/tsx'), ['workers/engine/tools/gpu-install.ts', '--check'], { cwd: REPO_ROOT },
    )
      .then(({ stdout }) => ({ code: 0, stdout }), (error: { code: number; stdout: string }) => error);
    expect(failure.stdout).toMatch(/^onnxruntime-node \S+ \(providers built for 1\.29\.0: (same|DIFFERENT)\)$/m);
    expect(failure.stdout).toMatch(/^CUDA providers beside the binding \(.+\): (yes|no)$/m);
    expect(failure.stdout).toMatch(/^ {2}(found|missing) +libcudart\.so\.13 \(the CUDA 13 runtime\)/m);
    // Exit 0 only when nothing is missing; a CI machine has no driver (libcuda.so.1).
    if (/missing libcuda\.so\.1/.test(failure.stdout)) expect(failure.code).not.toBe(0);
    expect(existsSync(join(REPO_ROOT, 'node_modules/onnxruntime-node/package.json'))).toBe(true);
  });
});

/**
 * `npm run gpu:install [-- --tarball URL|FILE] [--check]`: prepares a GPU machine from the npm registry alone.
 *
 * The npm `onnxruntime-node` binds the CUDA execution provider but its own install step fetches the provider
 * libraries from a host outside the registry. The same libraries, built for ONNX Runtime 1.29.0 and CUDA 13, ship
 * on the registry inside `com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9` (MIT; see ../shared/NOTES-gpu.md):
 * this command fetches that tarball (never installed as a dependency: 179 MB that only GPU machines need), refuses
 * it unless its sha256 is the one pinned here, and places the three provider libraries beside the binding
 * (`onnxruntime-node/bin/napi-v6/linux/x64`), where onnxruntime loads them from.
 *
 * Provider libraries work only with the runtime they were built for: with another `onnxruntime-node` version
 * nothing is placed (a mismatched provider may abort the process where a missing one falls back to the CPU).
 * Then it looks for the CUDA libraries the providers link against and says, in plain words, which are missing.
 * `--check` only reports (runtime version, providers placed, CUDA libraries) and changes nothing.
 *
 * Exit status: 0 ready for `ENGINE_PROVIDER=cuda`; 1 refused (checksum, runtime version, platform, download);
 * 2 providers in place but CUDA libraries missing (the engine falls back to the CPU and says so until they are).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createGunzip } from 'node:zlib';
import { commandLineFlags } from './command-line.js';
import { registryTarballUrl, verifiedTarball } from './registry-tarball.js';
import { fileSink, readTar } from '../tts/tar.js';

export const PROVIDER_PACKAGE = 'com.github.asus4.onnxruntime.linux-x64-gpu';
export const PROVIDER_PACKAGE_VERSION = '0.4.9';
/**
 * sha256 of the registry's tarball (its sha512 integrity:
 * FopIhNE/Ng+v2X65wVc9clPCBCvhvA53Hxo2U0Kf5fGdVsC7iCA+mZ0KLWggcQAj7TIZ6pNidR4AC10g74Xo6w==).
 */
export const PROVIDER_TARBALL_SHA256 = '2b459e0c17f340c92970c10ed86de4f37a3009f93c14053e6ad4334cbb6be412';
/** The ONNX Runtime the providers were built for: `onnxruntime-node` must be this version. */
export const PROVIDER_RUNTIME_VERSION = '1.29.0';
const PROVIDER_DIR_IN_TARBALL = 'package/Plugins/Linux/x64/';
export const PROVIDER_LIBRARIES = [
  'libonnxruntime_providers_shared.so', 'libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_tensorrt.so',
];

/** The CUDA 13 libraries the CUDA provider links against; cuDNN only some kernels need. */
export const CUDA_LIBRARIES: Array<{ file: string; what: string; required: boolean }> = [
  { file: 'libcuda.so.1', what: 'the NVIDIA driver', required: true },
  { file: 'libcudart.so.13', what: 'the CUDA 13 runtime', required: true },
  { file: 'libcublas.so.13', what: 'cuBLAS (CUDA 13)', required: true },
  { file: 'libcublasLt.so.13', what: 'cuBLASLt (CUDA 13)', required: true },
  { file: 'libcurand.so.10', what: 'cuRAND (CUDA 13)', required: true },
  { file: 'libcudnn.so.9', what: 'cuDNN 9 (some kernels)', required: false },
];

export interface GpuInstallOptions {
  /** The provider tarball: a URL or a local file. Default the registry's. */
  tarball?: string;
  /** Default PROVIDER_TARBALL_SHA256. */
  tarballSha256?: string;
  /** The folder holding `onnxruntime_binding.node`; default the installed onnxruntime-node's. */
  bindingDir?: string;
  /** The installed onnxruntime-node version; default read from its package.json. */
  runtimeVersion?: string;
  /** Folders searched for the CUDA libraries besides the linker's cache; default LD_LIBRARY_PATH and the CUDA folders under /usr/local. */
  libraryDirs?: string[];
}

export interface CudaLibraryReport {
  file: string;
  what: string;
  required: boolean;
  /** Where it was found, or null. */
  foundAt: string | null;
}

export interface GpuReport {
  runtimeVersion: string;
  runtimeMatches: boolean;
  bindingDir: string;
  /** Provider libraries beside the binding. */
  providersPlaced: boolean;
  cuda: CudaLibraryReport[];
  /** Plain-words lines: what is missing and what to do; empty when ready. */
  problems: string[];
}

const require = createRequire(import.meta.url);

/** The folder of the installed binding for this platform (`…/bin/napi-v6/linux/x64`). */
export function defaultBindingDir(): string {
  const root = dirname(require.resolve('onnxruntime-node/package.json'));
  const bin = join(root, 'bin');
  for (const napi of existsSync(bin) ? readdirSync(bin).sort().reverse() : []) {
    const dir = join(bin, napi, process.platform, process.arch);
    if (existsSync(join(dir, 'onnxruntime_binding.node'))) return dir;
  }
  throw new Error(`no onnxruntime_binding.node for ${process.platform}/${process.arch} under ${bin}`);
}

function installedRuntimeVersion(): string {
  return (require('onnxruntime-node/package.json') as { version: string }).version;
}

/** The dynamic linker's cache (`ldconfig -p`): library file name → path. Empty where ldconfig is missing. */
function linkerCache(): Map<string, string> {
  const found = new Map<string, string>();
  try {
    const listing = execFileSync('ldconfig', ['-p'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    for (const match of listing.matchAll(/^\s*(\S+) \([^)]*\) => (\S+)$/gm)) if (!found.has(match[1]!)) found.set(match[1]!, match[2]!);
  } catch {
    // No ldconfig on the PATH (a minimal container): the folders are still searched.
  }
  return found;
}

function defaultLibraryDirs(): string[] {
  const dirs = (process.env.LD_LIBRARY_PATH ?? '').split(delimiter).filter(Boolean);
  for (const base of ['/usr/local']) {
    for (const name of existsSync(base) ? readdirSync(base) : []) if (/^cuda/.test(name)) dirs.push(
      join(base, name, 'lib64'), join(base, name, 'targets/x86_64-linux/lib'),
    );
  }
  return dirs;
}

/** Where each CUDA library is on this machine (linker cache first, then `libraryDirs`). */
export function findCudaLibraries(libraryDirs = defaultLibraryDirs(), cache = linkerCache()): CudaLibraryReport[] {
  return CUDA_LIBRARIES.map(({ file, what, required }) => {
    const inDir = libraryDirs.map((dir) => join(dir, file)).find((candidate) => existsSync(candidate));
    return { file, what, required, foundAt: cache.get(file) ?? inDir ?? null };
  });
}

/** What this machine has for the CUDA provider, and in plain words what it lacks. */
export function gpuReport(options: GpuInstallOptions = {}): GpuReport {
  const runtimeVersion = options.runtimeVersion ?? installedRuntimeVersion();
  const bindingDir = options.bindingDir ?? defaultBindingDir();
  const runtimeMatches = runtimeVersion === PROVIDER_RUNTIME_VERSION;
  const providersPlaced = PROVIDER_LIBRARIES.every((file) => existsSync(join(bindingDir, file)));
  const cuda = findCudaLibraries(options.libraryDirs);
  const problems: string[] = [];
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    problems.push(`The CUDA providers on the registry are for Linux x64; this machine is ${process.platform}/${process.arch}.`);
  }
  if (!runtimeMatches) {
    problems.push(`onnxruntime-node is ${runtimeVersion} here, but the registry's CUDA providers are built for `
      + `${PROVIDER_RUNTIME_VERSION}: `
      + `run \`npm install --save-exact onnxruntime-node@${PROVIDER_RUNTIME_VERSION}\` so CPU and GPU run the same runtime, then this `
        + `command again.`);
  }
  if (!providersPlaced) problems.push(`The provider libraries are not beside the binding (${bindingDir}): run \`npm run gpu:install\`.`);
  for (const library of cuda.filter((entry) => entry.required && !entry.foundAt)) {
    problems.push(`${library.file} (${library.what}) is not found: install it (NVIDIA's CUDA 13 packages or driver) or add its folder to `
      + `LD_LIBRARY_PATH.`);
  }
  return { runtimeVersion, runtimeMatches, bindingDir, providersPlaced, cuda, problems };
}

/** Writes the provider libraries of the tarball into `dir`; answers the ones written. */
async function extractProviders(tarball: string, dir: string): Promise<string[]> {
  const written: string[] = [];
  await readTar(createReadStream(tarball).pipe(createGunzip()) as AsyncIterable<Buffer>, (entry) => {
    const file = entry.name.startsWith(PROVIDER_DIR_IN_TARBALL) ? entry.name.slice(PROVIDER_DIR_IN_TARBALL.length) : '';
    if (entry.type !== 'file' || !PROVIDER_LIBRARIES.includes(file)) return null;
    written.push(file);
    return fileSink(join(dir, file));
  });
  return written;
}

/**
 * Fetches and checks the provider tarball, then places its libraries beside the binding (each written under a
 * temporary name and renamed, so a failed run never leaves half a library where onnxruntime loads it). Refuses
 * (throws) on another runtime version, another platform or a checksum that differs; answers the report after.
 */
export async function installGpuProviders(options: GpuInstallOptions = {}): Promise<GpuReport> {
  const before = gpuReport(options);
  if (process.platform !== 'linux' || process.arch !== 'x64' || !before.runtimeMatches) throw new Error(before.problems[0]);
  const workDir = await mkdtemp(join(tmpdir(), 'speechgate-gpu-'));
  try {
    const tarball = await verifiedTarball({
      source: options.tarball ?? registryTarballUrl(PROVIDER_PACKAGE, PROVIDER_PACKAGE_VERSION),
      what: `${PROVIDER_PACKAGE}@${PROVIDER_PACKAGE_VERSION} tarball`,
      sha256: options.tarballSha256 ?? PROVIDER_TARBALL_SHA256,
      workDir,
    });
    const staging = join(workDir, 'libraries');
    await mkdir(staging);
    const written = await extractProviders(tarball.file, staging);
    await tarball.discard();
    const missing = PROVIDER_LIBRARIES.filter((file) => !written.includes(file));
    if (missing.length > 0) throw new Error(`the tarball has no ${missing.join(', ')} under ${PROVIDER_DIR_IN_TARBALL}`);
    for (const file of PROVIDER_LIBRARIES) {
      const target = join(before.bindingDir, file);
      // Copied, not renamed: the staging folder is under the OS temp folder, often another file system.
      await copyFile(join(staging, file), `${target}.partial`);
      await chmod(`${target}.partial`, 0o755);
      await rename(`${target}.partial`, target);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return gpuReport(options);
}

function printReport(report: GpuReport): void {
  console.log(`onnxruntime-node ${report.runtimeVersion} (providers built for ${PROVIDER_RUNTIME_VERSION}: `
    + `${report.runtimeMatches ? 'same' : 'DIFFERENT'})`);
  console.log(`CUDA providers beside the binding (${report.bindingDir}): ${report.providersPlaced ? 'yes' : 'no'}`);
  for (const library of report.cuda) console.log(`  ${library.foundAt ? 'found  ' : 'missing'} ${library.file} `
    + `(${library.what}${library.required ? '' : ', optional'})${library.foundAt ? ` at ${library.foundAt}` : ''}`);
  if (report.problems.length === 0) console.log('Ready: start the workers with ENGINE_PROVIDER=cuda.');
  for (const problem of report.problems) console.log(`- ${problem}`);
}

const USAGE = 'usage: npm run gpu:install -- [--tarball URL|FILE] [--check]';

export async function gpuInstallCommand(argv: string[]): Promise<number> {
  const options: GpuInstallOptions = {};
  let checkOnly = false;
  for (const { arg, value } of commandLineFlags(argv, USAGE)) {
    if (arg === '--tarball') options.tarball = value();
    else if (arg === '--check') checkOnly = true;
    else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  const report = checkOnly ? gpuReport(options) : await installGpuProviders(options);
  printReport(report);
  if (report.problems.length === 0) return 0;
  return report.runtimeMatches && report.providersPlaced ? 2 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  gpuInstallCommand(process.argv.slice(2)).then((code) => process.exit(code), (error: unknown) => {
    console.error(`gpu:install: ${(error as Error).message}`);
    process.exit(1);
  });
}

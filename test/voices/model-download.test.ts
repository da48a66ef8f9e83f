/**
 * The text-to-speech model on a fresh install: fetched in the background on first use (KOKORO_DOWNLOAD, default on),
 * every request meanwhile answered 503 `unavailable` saying how far the download is (Retry-After 5), a failed download
 * said with its reason and tried again a minute later; off, a 503 naming the command that installs it. The download
 * itself (the registry's tarball, checksums) is tested in test/engine/tts-download.test.ts; here it is a fake that
 * the test drives, which "downloads" by linking the test model into place.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/core/config/index.js';
import type { ServiceDeps } from '../../src/core/services.js';
import { VoicesService, type KokoroDownloader } from '../../src/voices/service.js';
import type { TarballProgress } from '../../workers/engine/tools/registry-tarball.js';
import { kokoroTestDir } from '../helpers/kokoro.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true }))));
afterEach(() => vi.useRealTimers());

/** A service whose model folder is empty, and a fake downloader whose every call the test settles. */
async function freshService(download: boolean) {
  const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-kokoro-'));
  dirs.push(modelsDir);
  const config = loadConfig({
    DATA_DIR: modelsDir, KOKORO_DIR: path.join(modelsDir, 'kokoro'), KOKORO_DOWNLOAD: String(download), LOG_LEVEL: 'error',
  });
  const calls: {
    modelsDir: string; onProgress: (progress: TarballProgress) => void; finish(): Promise<void>; fail(message: string): void;
  }[] = [];
  const downloader: KokoroDownloader = ({ modelsDir: into, onProgress }) =>
    new Promise((resolve, reject) => {
      calls.push({
        modelsDir: into,
        onProgress,
        finish: async () => {
          await fs.symlink(await kokoroTestDir(), path.join(into, 'kokoro'));
          resolve(undefined);
        },
        fail: (message) => reject(new Error(message)),
      });
    });
  const deps = { config, prisma: null, pubsub: null } as unknown as ServiceDeps;
  return { service: new VoicesService(deps, null as never, undefined, downloader), calls, modelsDir };
}

async function refusal(promise: Promise<unknown>) {
  const error = (await promise.then(() => null, (e: unknown) => e)) as {
    code: string; status: number; message: string; headers?: Record<string, string>;
  } | null;
  expect(error, 'refused').not.toBeNull();
  return error!;
}

describe('the text-to-speech model on first use', () => {
  it('is downloaded once in the background; meanwhile 503 with its progress, then the model loads', async () => {
    const { service, calls, modelsDir } = await freshService(true);
    expect(service.modelStatus()).toEqual({ present: false, download: null });
    const first = await refusal(service.kokoro());
    expect(first).toMatchObject({ code: 'unavailable', status: 503, headers: { 'Retry-After': '5' } });
    expect(first.message).toContain('being downloaded');
    expect(calls.map((call) => call.modelsDir)).toEqual([modelsDir]);

    calls[0]!.onProgress({ stage: 'download', receivedBytes: 42, totalBytes: 100 });
    const during = await refusal(service.kokoro());
    expect(during.message).toContain('(42 %)');
    expect(service.modelStatus()).toEqual({ present: false, download: { percent: 42 } });
    await Promise.all([refusal(service.kokoro()), refusal(service.kokoro())]);
    expect(calls).toHaveLength(1); // concurrent first uses share the one download

    await calls[0]!.finish();
    await vi.waitFor(() => expect(service.modelStatus()).toEqual({ present: true, download: null }));
    const model = await service.kokoro();
    expect(model.modelDir).toBe(path.join(modelsDir, 'kokoro'));
  }, 60_000);

  it('a failed download is said with its reason and tried again a minute later', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { service, calls } = await freshService(true);
    await refusal(service.kokoro());
    calls[0]!.fail('registry.npmjs.org: getaddrinfo ENOTFOUND');
    await vi.waitFor(() => expect(service.modelStatus().download).toMatchObject({ failure: 'registry.npmjs.org: getaddrinfo ENOTFOUND' }));
    const failed = await refusal(service.kokoro());
    expect(failed.message).toContain('could not be downloaded (registry.npmjs.org: getaddrinfo ENOTFOUND); it is tried again in 60 s, '
      + 'or run `npm run models:download -- kokoro`');
    expect(failed.headers).toEqual({ 'Retry-After': '60' });
    expect(calls).toHaveLength(1);
    vi.setSystemTime(Date.now() + 61_000);
    const again = await refusal(service.kokoro());
    expect(again.message).toContain('being downloaded');
    expect(calls).toHaveLength(2);
  });

  it('with KOKORO_DOWNLOAD=false nothing is fetched: 503 naming the command that installs it, and not the folder', async () => {
    const { service, calls, modelsDir } = await freshService(false);
    const refused = await refusal(service.kokoro());
    expect(refused).toMatchObject({ code: 'unavailable', status: 503 });
    expect(refused.message).toBe('The text-to-speech model is not installed on this server (KOKORO_DIR): run '
      + '`npm run models:download -- kokoro`, or set KOKORO_DOWNLOAD=true.');
    expect(refused.message).not.toContain(modelsDir);
    expect(calls).toHaveLength(0);
  });

  it('a failure that quotes a file of the server is answered with its name only', async () => {
    const { service, calls, modelsDir } = await freshService(true);
    await refusal(service.kokoro());
    calls[0]!.fail(`ENOENT: no such file or directory, open '${path.join(modelsDir, 'kokoro', 'model_quantized.onnx')}'`);
    await new Promise((resolve) => setImmediate(resolve));
    const refused = await refusal(service.kokoro());
    expect(refused.message).toContain(`open '…/model_quantized.onnx'`);
    expect(refused.message).not.toContain(modelsDir);
  });
});

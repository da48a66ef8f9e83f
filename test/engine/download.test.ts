/**
 * `models:download` against a fake Hugging Face server on 127.0.0.1 that behaves like the real one where it
 * matters: `/<id>/resolve/<revision>/<file>`, large (LFS) files answered with a 302 to a CDN address,
 * 404 with `x-error-code: EntryNotFound` for files the repo lacks. It serves the whisper-tiny files from
 * node_modules, so the downloaded model must load and transcribe.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadModel } from '../../workers/engine/tools/download.js';
import { resolveModelDir, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { fixture } from '../helpers/fixtures.js';
import { normaliseWords } from './text.js';

const sourceDir = resolveModelDir({ model: 'whisper-tiny' });
const scratch = mkdtempSync(join(tmpdir(), 'engine-download-'));
let server: http.Server;
let baseUrl: string;
const requests: string[] = [];
/** Paths the fake answers with a broken response, to check failures leave nothing half-written. */
const faults = new Map<string, 'error' | 'truncate'>();

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    requests.push(`${request.method} ${url.pathname}`);
    const cdn = url.pathname.match(/^\/cdn\/(.+)$/);
    const resolveMatch = url.pathname.match(/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/);
    const file = cdn
      ? decodeURIComponent(cdn[1])
      : resolveMatch && resolveMatch[1] === 'Xenova/whisper-tiny' && resolveMatch[2] === 'main'
        ? resolveMatch[3]
        : null;
    const path = file ? join(sourceDir, file) : '';
    if (!file || !existsSync(path) || !statSync(path).isFile()) {
      response.writeHead(404, { 'content-type': 'text/plain', 'x-error-code': 'EntryNotFound' });
      response.end('Entry not found');
      return;
    }
    if (!cdn && file.endsWith('.onnx')) {
      // LFS objects live on the CDN: the hub answers with a redirect.
      response.writeHead(302, { location: `/cdn/${encodeURIComponent(file)}` });
      response.end();
      return;
    }
    const size = statSync(path).size;
    const fault = faults.get(file);
    if (fault === 'error') {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('Internal Error');
      return;
    }
    response.writeHead(200, { 'content-length': String(size), 'content-type': 'application/octet-stream', etag: `"${size}"` });
    if (fault === 'truncate') {
      createReadStream(path, { start: 0, end: Math.floor(size / 2) }).on('end', () => response.destroy()).pipe(response, { end: false });
      return;
    }
    createReadStream(path).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const listFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );

describe('models:download', () => {
  it('downloads a Whisper ONNX export that the engine then loads from MODELS_DIR and runs', async () => {
    const modelsDir = join(scratch, 'models');
    const progressFiles = new Set<string>();
    const result = await downloadModel({
      model: 'Xenova/whisper-tiny',
      modelsDir,
      baseUrl,
      onProgress: (event) => event.done && progressFiles.add(event.file),
    });
    expect(result.modelDir).toBe(join(modelsDir, 'Xenova', 'whisper-tiny'));
    const wanted = [
      'config.json', 'generation_config.json', 'tokenizer.json', 'onnx/encoder_model_quantized.onnx',
      'onnx/decoder_model_merged_quantized.onnx',
    ];
    for (const file of wanted) {
      expect(sha256(join(result.modelDir, file)), file).toBe(sha256(join(sourceDir, file)));
      expect(progressFiles.has(file)).toBe(true);
    }
    expect(requests).toContain('GET /cdn/onnx%2Fencoder_model_quantized.onnx'); // followed the redirect
    expect(listFiles(result.modelDir).some((f) => f.endsWith('.partial'))).toBe(false);

    // A second run finds everything in place and fetches nothing.
    const before = requests.length;
    const again = await downloadModel({ model: 'whisper-tiny', modelsDir, baseUrl });
    expect(again.files.every((f) => f.skipped)).toBe(true);
    expect(requests.length).toBe(before);

    // MODELS_DIR + a model name finds it; it is a different directory from the npm package's.
    const dir = resolveModelDir({ modelsDir, model: 'Xenova/whisper-tiny' });
    expect(dir).toBe(result.modelDir);
    expect(resolveModelDir({ modelsDir, model: 'whisper-tiny' })).toBe(result.modelDir);
    const engine = await SpeechEngine.load({ modelsDir, model: 'whisper-tiny' });
    expect(engine.modelDir).toBe(result.modelDir);
    const transcript = await engine.transcribeFile(fixture('goforward.wav'));
    expect(normaliseWords(transcript.segments.map((s) => s.text).join(' '))).toContain('forward');
  });

  it('runs as `npm run models:download -- <model> --dir --base-url`', async () => {
    const modelsDir = join(scratch, 'cli-models');
    const tsx = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname;
    const script = new URL('../../workers/engine/tools/download.ts', import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(tsx, [script, 'whisper-tiny', '--dir', modelsDir, '--base-url', baseUrl]);
    expect(stdout).toContain('Xenova/whisper-tiny');
    const files = listFiles(modelsDir).map((f) => relative(join(modelsDir, 'Xenova', 'whisper-tiny'), f));
    expect(files).toEqual(expect.arrayContaining(['tokenizer.json', 'onnx/decoder_model_merged_quantized.onnx']));
  });

  it('fails on a server error or a cut-off body and leaves no partial file behind', async () => {
    for (const fault of ['error', 'truncate'] as const) {
      const modelsDir = join(scratch, `broken-${fault}`);
      faults.set('onnx/encoder_model_quantized.onnx', fault);
      await expect(downloadModel({ model: 'whisper-tiny', modelsDir, baseUrl })).rejects.toThrow();
      faults.clear();
      const modelDir = join(modelsDir, 'Xenova', 'whisper-tiny');
      expect(existsSync(join(modelDir, 'onnx', 'encoder_model_quantized.onnx'))).toBe(false);
      expect(listFiles(modelDir).some((f) => f.endsWith('.partial'))).toBe(false);
    }
  });

  it('says which file is missing when the repository is not a Whisper export', async () => {
    await expect(downloadModel({ model: 'someone/not-whisper', modelsDir: join(scratch, 'none'), baseUrl })).rejects.toThrow(
      /config\.json/,
    );
  });
});

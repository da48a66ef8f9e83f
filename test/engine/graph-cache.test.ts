/**
 * Rewritten graphs kept between process starts (graph-cache.ts): found again by the export's bytes and the settings,
 * written whole or not at all, pruned, and skipped (with a warning) where the folder cannot be written. The model
 * loads from the cache with the same results, and rewrites again when a cached file is damaged.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import ort from 'onnxruntime-node';
import { cachedGraph, graphCacheDir, KEPT } from '../../workers/engine/graph/graph-cache.js';
import {
  floatInitializer, messageField, nodeField, stringField, tensorValueInfo, varintField, writeMessage,
} from '../../workers/engine/graph/onnx-wire.js';
import { WhisperOnnx } from '../../workers/engine/whisper/model.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';

const root = mkdtempSync(join(tmpdir(), 'graph-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** y = x · W, W a 256 × 256 float weight (256 kB: a file of its own) and b a small one (kept in the graph). */
function matMulModel(weights: Float32Array): Uint8Array {
  const graph = [
    nodeField('MatMul', 'product', ['x', 'w'], ['xw']), nodeField('Add', 'bias', ['xw', 'b'], ['y']),
    floatInitializer('w', [256, 256], weights), floatInitializer('b', [256], weights.subarray(0, 256)),
    tensorValueInfo(11, 'x', 1, 2), tensorValueInfo(12, 'y', 1, 2), stringField(2, 'matmul'),
  ];
  return writeMessage([varintField(1, 8), messageField(8, [stringField(1, ''), varintField(2, 13)]), messageField(7, graph)]);
}

function source(name: string, bytes: string): string {
  const path = join(root, name);
  writeFileSync(path, bytes);
  return path;
}

describe('cachedGraph', () => {
  it('builds once; a later load gets the stored file and flags without building', async () => {
    const dir = join(root, 'once');
    const export1 = source('a.onnx', 'export bytes');
    const build = vi.fn(() => ({ graph: Buffer.from('rewritten'), variableLength: true }));
    const first = await cachedGraph(export1, { graph: 'encoder' }, build, dir);
    const second = await cachedGraph(export1, { graph: 'encoder' }, build, dir);
    expect(build).toHaveBeenCalledTimes(1);
    expect(first.graph).toBe(second.graph);
    expect(first.flags).toEqual(second.flags);
    expect(second.flags).toEqual({ variableLength: true });
    expect(readFileSync(second.graph as string, 'utf8')).toBe('rewritten');
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('other settings or other export bytes make another entry', async () => {
    const dir = join(root, 'keys');
    const path = source('b.onnx', 'one export');
    const build = vi.fn(() => ({ graph: Buffer.from('x'), hoisted: true }));
    await cachedGraph(path, { float: 'none' }, build, dir);
    await cachedGraph(path, { float: 'all' }, build, dir);
    writeFileSync(path, 'another export');
    await cachedGraph(path, { float: 'none' }, build, dir);
    expect(build).toHaveBeenCalledTimes(3);
    expect(readdirSync(dir).filter((name) => name.endsWith('.onnx'))).toHaveLength(3);
  });

  it('remembers a settled export\'s hash by the file\'s identity, and hashes it again once the file changed', async () => {
    const dir = join(root, 'sources');
    const path = source('s.onnx', 'settled export');
    // A file changed in the last 2 s is hashed at every load (its times may not tell two writes apart).
    const fresh = vi.fn(() => ({ graph: Buffer.from('g'), n: 0 }));
    await cachedGraph(path, {}, fresh, dir);
    expect(readdirSync(dir)).not.toContain('sources');
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await cachedGraph(path, {}, fresh, dir);
    expect(fresh).toHaveBeenCalledTimes(1);
    const [memo] = readdirSync(join(dir, 'sources'));
    const remembered = JSON.parse(readFileSync(join(dir, 'sources', memo!), 'utf8')) as { identity: string; hash: string };
    // What is remembered is what is used: another hash under the same identity keys another entry.
    writeFileSync(join(dir, 'sources', memo!), JSON.stringify({ ...remembered, hash: 'f'.repeat(64) }));
    const build = vi.fn(() => ({ graph: Buffer.from('g'), n: 1 }));
    expect((await cachedGraph(path, {}, build, dir)).flags).toEqual({ n: 1 });
    // The same size written again: another identity, so the bytes are hashed again and the first entry found.
    writeFileSync(path, 'settled export');
    expect((await cachedGraph(path, {}, build, dir)).flags).toEqual({ n: 0 });
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('keeps a graph\'s large weights in a file of their own beside it, which onnxruntime reads; forget removes them too', async () => {
    const dir = join(root, 'weights');
    const weights = new Float32Array(256 * 256).map((_, i) => Math.sin(i) / 16);
    const model = matMulModel(weights);
    const entry = await cachedGraph(source('w.onnx', 'weights export'), {}, () => ({ graph: model, n: 1 }), dir);
    const key = (entry.graph as string).slice(dir.length + 1, -'.onnx'.length);
    const files = readdirSync(dir).filter((name) => name !== 'sources').sort();
    expect(files).toHaveLength(3);
    expect(files).toEqual(expect.arrayContaining([`${key}.json`, `${key}.onnx`]));
    expect(files.filter((name) => new RegExp(`^${key}\\.[0-9a-f]{16}\\.data$`).test(name))).toHaveLength(1);
    const data = readFileSync(join(dir, files.find((name) => name.endsWith('.data'))!));
    expect(data.length).toBe(256 * 256 * 4);
    expect(readFileSync(entry.graph as string).length).toBeLessThan(4096);

    const x = new ort.Tensor('float32', new Float32Array(2 * 256).map((_, i) => Math.cos(i)), [2, 256]);
    const run = async (graph: string | Uint8Array) => {
      const session = await ort.InferenceSession.create(graph as string);
      const { y } = await session.run({ x });
      await session.release();
      return Buffer.from((y.data as Float32Array).buffer);
    };
    expect((await run(entry.graph as string)).equals(await run(model))).toBe(true);

    await entry.forget();
    expect(readdirSync(dir).filter((name) => name !== 'sources')).toEqual([]);
  });

  it('without a folder (ENGINE_GRAPH_CACHE=off) builds every time and hands back the bytes', async () => {
    expect(graphCacheDir({ ENGINE_GRAPH_CACHE: 'off' })).toBeNull();
    expect(graphCacheDir({ XDG_CACHE_HOME: '/x' })).toBe(join('/x', 'speechgate', 'graphs'));
    const build = vi.fn(() => ({ graph: Buffer.from('bytes'), hoisted: false }));
    const result = await cachedGraph(source('c.onnx', 'c'), {}, build, null);
    await cachedGraph(source('c.onnx', 'c'), {}, build, null);
    expect(build).toHaveBeenCalledTimes(2);
    expect(Buffer.from(result.graph as Uint8Array).toString()).toBe('bytes');
  });

  it('a folder that cannot be written is said once and the built bytes are used', async () => {
    const blocked = source('not-a-folder', 'a file where the folder would be');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const build = () => ({ graph: Buffer.from('bytes'), hoisted: true });
      const result = await cachedGraph(source('d.onnx', 'd'), {}, build, join(blocked, 'graphs'));
      await cachedGraph(source('d.onnx', 'd'), {}, build, join(blocked, 'graphs'));
      expect(result.flags).toEqual({ hoisted: true });
      expect(Buffer.from(result.graph as Uint8Array).toString()).toBe('bytes');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain('not written');
    } finally {
      warn.mockRestore();
    }
  });

  it(`keeps the ${KEPT} entries used last`, async () => {
    const dir = join(root, 'pruned');
    for (let i = 0; i <= KEPT + 1; i++) {
      const entry = await cachedGraph(source(`e${i}.onnx`, `export ${i}`), {}, () => ({ graph: Buffer.from(`g${i}`), n: i }), dir);
      // Older entries were used longer ago (file times a second apart).
      const when = new Date(Date.now() - (KEPT + 2 - i) * 1000);
      utimesSync(entry.graph as string, when, when);
    }
    const kept = readdirSync(dir).filter((name) => name.endsWith('.onnx'));
    expect(kept).toHaveLength(KEPT);
    const flags = readdirSync(dir).filter((name) => name.endsWith('.json'))
      .map((name) => (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { flags: { n: number } }).flags.n);
    expect(flags.sort((a, b) => a - b)).toEqual(Array.from({ length: KEPT }, (_, i) => i + 2));
  });
});

describe('the model on cached graphs', () => {
  it('loads from the cache with the logits of a rewrite, and rewrites again when a cached graph is damaged', async () => {
    const dir = join(root, 'model');
    const modelDir = resolveModelDir({ model: 'whisper-tiny' });
    const features = new Float32Array(80 * 3000).map((_, i) => Math.sin(i / 7) * 0.5);
    const logits = async (model: WhisperOnnx) => {
      const out = await model.decode([[50258, 50259, 50359]], await model.encode([features]), null);
      await model.release();
      return out.lastLogits;
    };
    const uncached = await logits(await WhisperOnnx.load(modelDir, { intraOpThreads: 1, graphCacheDir: null }));
    const storing = await logits(await WhisperOnnx.load(modelDir, { intraOpThreads: 1, graphCacheDir: dir }));
    const entries = readdirSync(dir).filter((name) => name.endsWith('.onnx'));
    expect(entries).toHaveLength(2);
    // The weights lie in a file of their own beside each graph.
    const weightFiles = readdirSync(dir).filter((name) => name.endsWith('.data'));
    expect(weightFiles.map((name) => name.slice(0, 64)).sort()).toEqual(entries.map((name) => name.slice(0, 64)).sort());
    // On the CPU the entries are onnxruntime's optimised graphs, loaded without optimising again.
    for (const name of entries) {
      const entry = JSON.parse(readFileSync(join(dir, name.replace('.onnx', '.json')), 'utf8')) as { optimized: boolean };
      expect(entry.optimized, name).toBe(true);
    }
    const cached = await logits(await WhisperOnnx.load(modelDir, { intraOpThreads: 1, graphCacheDir: dir }));
    expect(Buffer.from(storing).equals(Buffer.from(uncached))).toBe(true);
    expect(Buffer.from(cached).equals(Buffer.from(uncached))).toBe(true);

    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      // A damaged graph, then weights gone: each time the graphs are rewritten.
      for (const name of entries) writeFileSync(join(dir, name), 'not a graph');
      const rewritten = await logits(await WhisperOnnx.load(modelDir, { intraOpThreads: 1, graphCacheDir: dir }));
      expect(Buffer.from(rewritten).equals(Buffer.from(uncached))).toBe(true);
      expect(warn.mock.calls.map((call) => String(call[0])).join('\n')).toContain('did not load');
      warn.mockClear();
      for (const name of readdirSync(dir).filter((file) => file.endsWith('.data'))) rmSync(join(dir, name));
      const reloaded = await logits(await WhisperOnnx.load(modelDir, { intraOpThreads: 1, graphCacheDir: dir }));
      expect(Buffer.from(reloaded).equals(Buffer.from(uncached))).toBe(true);
      expect(warn.mock.calls.map((call) => String(call[0])).join('\n')).toContain('did not load');
      expect(readdirSync(dir).filter((name) => name.endsWith('.data'))).toHaveLength(2);
    } finally {
      warn.mockRestore();
    }
  });
});

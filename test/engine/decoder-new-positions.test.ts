/**
 * The decoder whose cached steps read the past apart and hand back only their new positions
 * (decoder-new-positions.ts), as CPU sessions load it, and the host side that appends them (model.ts: `reorderCache`
 * with `KvCache.appended`, `RowBuffers`, in place where it can): on the real whisper-tiny export (projection lifted),
 * steps of three rows fed the cache the host assembles give the export's logits within rounding, and the new
 * positions are the export's last positions; refusals.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECODER_SESSION_CONFIG, hoistedDecoder, LOGITS_FROM } from '../../workers/engine/graph/decoder-graph.js';
import { newPositionsOnly } from '../../workers/engine/graph/decoder-new-positions.js';
import { dequantizedGraph } from '../../workers/engine/graph/dequantize.js';
import { ifBranches, nodesOf, readGraph, singleIf } from '../../workers/engine/graph/onnx-wire.js';
import { RowBuffers, WhisperOnnx, type KvCache } from '../../workers/engine/whisper/model.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';

const exportDir = join(resolveModelDir({ model: 'whisper-tiny' }), 'onnx');
/** whisper-tiny's decoder: 4 layers of 6 heads over 384 dimensions. Three rows decode at once, as a beam's. */
const [LAYERS, HEADS, D_MODEL, ROWS] = [4, 6, 384, 3];
const HEAD_DIM = D_MODEL / HEADS;

let hoisted: Uint8Array;
/** The export and its rewrite, with 8-bit products as shipped and with every product float (dequantize.ts). */
const sessions: Record<'8-bit' | 'float', { exported: ort.InferenceSession; rewritten: ort.InferenceSession }> = {} as never;

const int64 = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, rows[0].length]);
const flag = (on: boolean) => new ort.Tensor('bool', Uint8Array.of(on ? 1 : 0), [1]);
const logitsFrom = (n: number) => new ort.Tensor('int64', BigInt64Array.of(BigInt(n)), [1]);
const data = (value: ort.OnnxValue) => (value as ort.Tensor).data as Float32Array;
const argmax = (values: Float32Array) => values.reduce((best, v, i) => (v > values[best] ? i : best), 0);

beforeAll(async () => {
  hoisted = hoistedDecoder(readFileSync(join(exportDir, 'decoder_model_merged_quantized.onnx')));
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: 1, executionProviders: ['cpu'], extra: { session: DECODER_SESSION_CONFIG },
  };
  const float = dequantizedGraph(hoisted, { only: 'all' });
  const [a, b, c, d] = await Promise.all([hoisted, newPositionsOnly(hoisted), float, newPositionsOnly(float)].map(
    (graph) => ort.InferenceSession.create(graph, options),
  ));
  sessions['8-bit'] = { exported: a, rewritten: b };
  sessions.float = { exported: c, rewritten: d };
});

describe('newPositionsOnly', () => {
  // Float products: the logits agree within float rounding. 8-bit products: a difference in the last bits may move a
  // dynamically quantised activation's scale, and a whole row's logits with it (0.21 at most measured, 0.05 on
  // average over that row): the same best token, the logits within half a unit.
  it.each([['float', 1e-3], ['8-bit', 0.5]] as const)('steps on the cache the host appends as the export does on its own (%s products), '
    + 'handing back only the new positions', async (products, bound) => {
    const { exported, rewritten } = sessions[products];
    let seed = 9;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 4;
    const encoder = new ort.Tensor('float32', Float32Array.from({ length: 1500 * D_MODEL }, next), [1, 1500, D_MODEL]);
    const empty = new ort.Tensor('float32', new Float32Array(0), [ROWS, HEADS, 0, HEAD_DIM]);
    const prompt = [50258, 50259, 50359, 50364];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: int64(Array.from({ length: ROWS }, () => prompt)), encoder_hidden_states: encoder, use_cache_branch: flag(false),
      [LOGITS_FROM]: logitsFrom(prompt.length - 2),
    };
    for (let layer = 0; layer < LAYERS; layer++) {
      for (const part of ['key', 'value']) {
        feeds[`past_key_values.${layer}.decoder.${part}`] = empty;
        feeds[`past_key_values.${layer}.encoder.${part}`] = empty;
      }
    }
    // The first call's branch is the export's in both graphs.
    const [first, firstRewritten] = await Promise.all([exported.run(feeds), rewritten.run(feeds)]);
    expect(data(firstRewritten.logits)).toEqual(data(first.logits));
    const encoderCache = Array.from({ length: LAYERS }, (_, layer) => ['key', 'value'].map(
      (part) => first[`present.${layer}.encoder.${part}`] as ort.Tensor,
    )).flat();
    const presents = (out: ort.InferenceSession.OnnxValueMapType) => Array.from({ length: LAYERS }, (_, layer) => ['key', 'value'].map(
      (part) => out[`present.${layer}.decoder.${part}`] as ort.Tensor,
    )).flat();
    let exportCache = presents(first);
    let cache: KvCache = { decoder: presents(first), encoder: encoderCache, pastLength: prompt.length };
    const buffers = new RowBuffers();
    const stepFeeds = (tokens: number[], decoder: ort.Tensor[]) => {
      const step: Record<string, ort.Tensor> = {
        input_ids: int64(tokens.map((t) => [t])), encoder_hidden_states: encoder, use_cache_branch: flag(true),
        [LOGITS_FROM]: logitsFrom(0),
      };
      decoder.forEach((tensor, i) => (step[`past_key_values.${Math.floor(i / 2)}.decoder.${i % 2 ? 'value' : 'key'}`] = tensor));
      encoderCache.forEach((tensor, i) => (step[`past_key_values.${Math.floor(i / 2)}.encoder.${i % 2 ? 'value' : 'key'}`] = tensor));
      return step;
    };
    // A beam's way: each step keeps rows [1, 0, 0] of the last (the export's cache picked the same way).
    const pickRows = (tensors: ort.Tensor[], rows: number[]) => WhisperOnnx.reorderCache(
      { decoder: tensors, encoder: [], pastLength: 0 }, rows, true,
    ).decoder;
    let worst = 0;
    for (let step = 0; step < 5; step++) {
      const tokens = [440 + step, 500 + step, 600 + step];
      const rows = step === 0 ? [0, 1, 2] : [1, 0, 0];
      exportCache = pickRows(exportCache, rows);
      cache = WhisperOnnx.reorderCache(cache, rows, true, buffers);
      expect(cache.appended).toBeUndefined();
      // The host's cache is the export's, position for position.
      cache.decoder.forEach((tensor, i) => {
        expect(tensor.dims).toEqual(exportCache[i].dims);
        expect(Math.max(...data(tensor).map((v, j) => Math.abs(v - data(exportCache[i])[j])))).toBeLessThan(1e-4);
      });
      const [expected, got] = await Promise.all([
        exported.run(stepFeeds(tokens, exportCache)), rewritten.run(stepFeeds(tokens, cache.decoder)),
      ]);
      const a = data(expected.logits);
      const b = data(got.logits);
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
      const vocab = a.length / ROWS;
      const rowOf = (logits: Float32Array, row: number) => logits.subarray(row * vocab, (row + 1) * vocab);
      for (let row = 0; row < ROWS; row++) expect(argmax(rowOf(b, row))).toBe(argmax(rowOf(a, row)));
      const added = presents(got);
      for (const tensor of added) expect(tensor.dims).toEqual([ROWS, HEADS, 1, HEAD_DIM]);
      if (step === 0) {
        // Same inputs: the new positions are the export's last, bit for bit.
        const whole = presents(expected)[0];
        const length = whole.dims[2];
        for (let h = 0; h < HEADS; h++) {
          const last = data(whole).subarray((h * length + length - 1) * HEAD_DIM, (h * length + length) * HEAD_DIM);
          expect(Array.from(data(added[0]).subarray(h * HEAD_DIM, (h + 1) * HEAD_DIM))).toEqual(Array.from(last));
        }
      }
      exportCache = presents(expected);
      cache = { decoder: cache.decoder, appended: added, encoder: encoderCache, pastLength: cache.pastLength + 1 };
    }
    // The context sums in another order (the file's comment): within rounding, not bit for bit.
    expect(worst).toBeLessThan(bound);
  });

  it('refuses a graph it already rewrote, and a graph with no cached branch', () => {
    const once = newPositionsOnly(hoisted);
    expect(() => newPositionsOnly(once)).toThrow(/not Concat\(past, new\)/);
    // The cached branch's nodes are in an order where each follows what it reads (ONNX requires it).
    const { graph } = readGraph(once);
    for (const branch of ifBranches(singleIf(graph).ifNode).branches) {
      const made = new Set<string>();
      const all = new Set(nodesOf(branch.graph).flatMap((n) => n.outputs));
      for (const node of nodesOf(branch.graph)) {
        expect(node.inputs.filter((i) => all.has(i) && !made.has(i))).toEqual([]);
        node.outputs.forEach((o) => made.add(o));
      }
    }
    const encoder = readFileSync(join(exportDir, 'encoder_model_quantized.onnx'));
    expect(() => newPositionsOnly(encoder)).toThrow(/no single If/);
  });
});

describe('reorderCache with appended positions', () => {
  it('appends each picked row’s new position after its heads’ past: into its buffer, then in place there while it has room', () => {
    // [batch 2, heads 2, past 2, headDim 3]: value = row·100 + head·10 + position; new positions at 9.
    const past = new ort.Tensor('float32', Float32Array.from({ length: 24 }, (_, i) => {
      const [row, head, position] = [Math.floor(i / 12), Math.floor(i / 6) % 2, Math.floor(i / 3) % 2];
      return row * 100 + head * 10 + position;
    }), [2, 2, 2, 3]);
    const added = new ort.Tensor(
      'float32', Float32Array.from({ length: 12 }, (_, i) => Math.floor(i / 6) * 100 + (Math.floor(i / 3) % 2) * 10 + 9), [2, 2, 1, 3],
    );
    const buffers = new RowBuffers();
    const cache: KvCache = { decoder: [past], appended: [added], encoder: [], pastLength: 3 };
    const picked = WhisperOnnx.reorderCache(cache, [1, 1, 0], true, buffers).decoder[0];
    expect(picked.dims).toEqual([3, 2, 3, 3]);
    const positions = (row: number, head: number) => Array.from({ length: 3 }, (_, p) => data(picked)[((row * 2 + head) * 3 + p) * 3]);
    expect(positions(0, 0)).toEqual([100, 101, 109]);
    expect(positions(1, 1)).toEqual([110, 111, 119]);
    expect(positions(2, 1)).toEqual([10, 11, 19]);
    // Fewer rows fit the buffer the picked cache lies in: rewritten there.
    const sevens = new ort.Tensor('float32', new Float32Array(18).fill(7), [3, 2, 1, 3]);
    const again = WhisperOnnx.reorderCache({ ...cache, decoder: [picked], appended: [sevens] }, [2, 0], true, buffers).decoder[0];
    expect(data(again).buffer).toBe(data(picked).buffer);
    expect(again.dims).toEqual([2, 2, 4, 3]);
    expect(Array.from({ length: 4 }, (_, p) => data(again)[p * 3])).toEqual([0, 1, 9, 7]);
    expect(Array.from({ length: 4 }, (_, p) => data(again)[(2 * 4 + p) * 3])).toEqual([100, 101, 109, 7]);
    // Without appended positions, the same rows in the same order are the tensor itself.
    expect(WhisperOnnx.reorderCache({ decoder: [past], encoder: [], pastLength: 2 }, [0, 1], true, buffers).decoder[0]).toBe(past);
  });

  it('in place or not, every pick is what a fresh copy makes of the same parents (random beams, rows leaving)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const [heads, headDim] = [3, 4];
    const tensor = (rows: number, length: number) => new ort.Tensor(
      'float32', Float32Array.from({ length: rows * heads * length * headDim }, () => Math.round(random() * 1000)),
      [rows, heads, length, headDim],
    );
    const buffers = new RowBuffers();
    let cache: KvCache = { decoder: [tensor(5, 2)], appended: [tensor(5, 1)], encoder: [], pastLength: 3 };
    let fresh = cache;
    let inPlace = 0;
    for (let step = 0; step < 60; step++) {
      const batch = cache.decoder[0].dims[0];
      const rows = Array.from({ length: 1 + Math.floor(random() * 5) }, () => Math.floor(random() * batch));
      const before = data(cache.decoder[0]).buffer;
      const got = WhisperOnnx.reorderCache(cache, rows, true, buffers).decoder[0];
      const want = WhisperOnnx.reorderCache(fresh, rows, true).decoder[0];
      if (data(got).buffer === before) inPlace += 1;
      expect(got.dims).toEqual(want.dims);
      expect(Array.from(data(got)), `step ${step}, rows ${rows.join(',')}`).toEqual(Array.from(data(want)));
      const next = tensor(rows.length, 1);
      cache = { decoder: [got], appended: [next], encoder: [], pastLength: cache.pastLength + 1 };
      fresh = { decoder: [want], appended: [next], encoder: [], pastLength: cache.pastLength };
    }
    expect(inPlace).toBeGreaterThan(20);
  });
});

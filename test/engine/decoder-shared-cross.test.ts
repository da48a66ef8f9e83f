/**
 * The decoder whose rows share an encoder row (decoder-shared-cross.ts), as CPU sessions load it: on the real
 * whisper-tiny export (projection lifted), the cached step of a beam fed ONE copy of the encoder keys and values gives
 * what the export gives fed one copy per row; fed a copy per row it gives the export's bits.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXACT_DECODER_SESSION_CONFIG, hoistedDecoder, LOGITS_FROM } from '../../workers/engine/graph/decoder-graph.js';
import { rowMasks } from '../../workers/engine/graph/decoder-masks.js';
import { sharedCrossAttention } from '../../workers/engine/graph/decoder-shared-cross.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';

const decoderFile = join(resolveModelDir({ model: 'whisper-tiny' }), 'onnx', 'decoder_model_merged_quantized.onnx');
const LAYERS = 4;
const HEADS = 6;
const D_MODEL = 384;
const HEAD_DIM = D_MODEL / HEADS;
const FRAMES = 1500;

let hoisted: Uint8Array;
let exported: ort.InferenceSession;
let shared: ort.InferenceSession;
let first: ort.InferenceSession.OnnxValueMapType;

const int64 = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, rows[0].length]);
const flag = (on: boolean) => new ort.Tensor('bool', Uint8Array.of(on ? 1 : 0), [1]);

/** `tensor`'s one row repeated `times` (what a beam without sharing sends). */
function repeated(tensor: ort.OnnxValue, times: number): ort.Tensor {
  const t = tensor as ort.Tensor;
  const data = t.data as Float32Array;
  const out = new Float32Array(data.length * times);
  for (let i = 0; i < times; i++) out.set(data, i * data.length);
  return new ort.Tensor('float32', out, [times, ...t.dims.slice(1)]);
}

/** A cached step of ROWS hypotheses after `first`, with the encoder keys and values once (`shareEncoder`) or per row. */
function step(tokens: number[], shareEncoder: boolean): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {
    input_ids: int64(tokens.map((t) => [t])),
    encoder_hidden_states: first.encoder as ort.Tensor,
    use_cache_branch: flag(true),
    [LOGITS_FROM]: new ort.Tensor('int64', BigInt64Array.of(0n), [1]),
  };
  for (let layer = 0; layer < LAYERS; layer++) {
    for (const part of ['key', 'value']) {
      feeds[`past_key_values.${layer}.decoder.${part}`] = repeated(first[`present.${layer}.decoder.${part}`], tokens.length);
      const encoder = first[`present.${layer}.encoder.${part}`] as ort.Tensor;
      feeds[`past_key_values.${layer}.encoder.${part}`] = shareEncoder ? encoder : repeated(encoder, tokens.length);
    }
  }
  return feeds;
}

const worstDifference = (a: ort.OnnxValue, b: ort.OnnxValue) => {
  const x = (a as ort.Tensor).data as Float32Array;
  const y = (b as ort.Tensor).data as Float32Array;
  let worst = 0;
  for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]));
  return worst;
};

beforeAll(async () => {
  hoisted = hoistedDecoder(readFileSync(decoderFile));
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: 1, executionProviders: ['cpu'], extra: { session: EXACT_DECODER_SESSION_CONFIG },
  };
  [exported, shared] = await Promise.all([
    ort.InferenceSession.create(hoisted, options), ort.InferenceSession.create(sharedCrossAttention(hoisted), options),
  ]);
  let seed = 5;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 4;
  const encoder = new ort.Tensor('float32', Float32Array.from({ length: FRAMES * D_MODEL }, next), [1, FRAMES, D_MODEL]);
  const empty = new ort.Tensor('float32', new Float32Array(0), [1, HEADS, 0, HEAD_DIM]);
  const feeds: Record<string, ort.Tensor> = {
    input_ids: int64([[50258, 50259, 50359, 50364]]), encoder_hidden_states: encoder, use_cache_branch: flag(false),
    [LOGITS_FROM]: new ort.Tensor('int64', BigInt64Array.of(2n), [1]),
  };
  for (let layer = 0; layer < LAYERS; layer++) {
    for (const kind of ['decoder', 'encoder']) {
      for (const part of ['key', 'value']) feeds[`past_key_values.${layer}.${kind}.${part}`] = empty;
    }
  }
  first = { ...(await exported.run(feeds)), encoder };
});

describe('sharedCrossAttention', () => {
  it('keeps every input and output name', () => {
    expect(shared.inputNames).toEqual(exported.inputNames);
    expect(shared.outputNames).toEqual(exported.outputNames);
  });

  it('a beam’s rows reading one encoder row get the logits, caches and attention weights of a copy per row', async () => {
    const tokens = [440, 1044, 2068];
    const names = ['logits', 'present.0.decoder.key', `present.${LAYERS - 1}.decoder.value`, 'cross_attentions.1'];
    const expected = await exported.run(step(tokens, false), names);
    const actual = await shared.run(step(tokens, true), names);
    for (const name of names) {
      expect(actual[name].dims, name).toEqual(expected[name].dims);
      // The same sums, one matrix product for the rows instead of one vector product each: the last bits differ.
      expect(worstDifference(actual[name], expected[name]), name).toBeLessThan(1e-3);
    }
    // Each row still reads its own text: the rows' logits differ.
    const logits = actual.logits.data as Float32Array;
    const vocab = actual.logits.dims[2];
    expect(worstDifference(
      new ort.Tensor('float32', logits.subarray(0, vocab)), new ort.Tensor('float32', logits.subarray(vocab, 2 * vocab)),
    )).toBeGreaterThan(0.1);
  });

  it('rows each bringing their own encoder row (windows decoded together) get the export’s bits', async () => {
    const names = ['logits', 'cross_attentions.0'];
    const expected = await exported.run(step([440, 1044], false), names);
    const actual = await shared.run(step([440, 1044], false), names);
    const bytes = (value: ort.OnnxValue) => Buffer.from((value as ort.Tensor).data as Float32Array);
    for (const name of names) expect(bytes(actual[name]).equals(bytes(expected[name])), name).toBe(true);
  });

  it('refuses a decoder with row masks (its rows bring their own encoder states) and one it already rewrote', () => {
    expect(() => sharedCrossAttention(rowMasks(hoisted))).toThrow('row masks');
    expect(() => sharedCrossAttention(sharedCrossAttention(hoisted))).toThrow('decoder cross-attention');
  });
});

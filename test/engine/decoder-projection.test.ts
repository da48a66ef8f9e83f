/**
 * The decoder's output projection as an 8-bit MatMulInteger (decoder-projection.ts), as CPU sessions load it: on the
 * real whisper-tiny export (projection lifted), the same 8-bit table, the hidden state rounded in two 8-bit parts per
 * row at run time: logits close to the float projection's, the same best tokens but for near ties.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { DECODER_SESSION_CONFIG, hoistedDecoder, LOGITS_FROM } from '../../workers/engine/graph/decoder-graph.js';
import { eightBitProjection } from '../../workers/engine/graph/decoder-projection.js';
import { hasVnni } from '../../workers/engine/graph/signed-weights.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';

const decoderFile = join(resolveModelDir({ model: 'whisper-tiny' }), 'onnx', 'decoder_model_merged_quantized.onnx');
const LAYERS = 4;
const HEADS = 6;
const D_MODEL = 384;

let exported: Uint8Array;
let float: ort.InferenceSession;
let eightBit: ort.InferenceSession;
let rewritten: Uint8Array;
let hoisted: Uint8Array;
let options: ort.InferenceSession.SessionOptions;

function feeds(tokens: number[]): Record<string, ort.Tensor> {
  let seed = 3;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 4;
  const result: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]),
    encoder_hidden_states: new ort.Tensor('float32', Float32Array.from({ length: 1500 * D_MODEL }, next), [1, 1500, D_MODEL]),
    use_cache_branch: new ort.Tensor('bool', Uint8Array.of(0), [1]),
    [LOGITS_FROM]: new ort.Tensor('int64', BigInt64Array.of(0n), [1]),
  };
  const none = new ort.Tensor('float32', new Float32Array(0), [1, HEADS, 0, D_MODEL / HEADS]);
  for (let layer = 0; layer < LAYERS; layer++) {
    for (const part of ['decoder.key', 'decoder.value', 'encoder.key', 'encoder.value']) result[`past_key_values.${layer}.${part}`] = none;
  }
  return result;
}

const argmax = (row: Float32Array) => row.reduce((best, v, i) => (v > row[best] ? i : best), 0);

beforeAll(async () => {
  exported = readFileSync(decoderFile);
  hoisted = hoistedDecoder(exported);
  rewritten = eightBitProjection(hoisted, { signed: false });
  options = {
    intraOpNumThreads: 1, executionProviders: ['cpu'], extra: { session: DECODER_SESSION_CONFIG },
  };
  [float, eightBit] = await Promise.all([ort.InferenceSession.create(hoisted, options), ort.InferenceSession.create(rewritten, options)]);
});

describe('eightBitProjection', () => {
  it('gives logits within the hidden state’s 8-bit rounding of the float projection’s, the same best token wherever that is clear',
    async () => {
      const prompt = [50258, 50259, 50359, 50364, 440, 2068, 1029, 286, 264, 1723];
      const names = ['logits', 'present.0.decoder.key'];
      const [a, b] = await Promise.all([float.run(feeds(prompt), names), eightBit.run(feeds(prompt), names)]);
      expect(b.logits.dims).toEqual(a.logits.dims);
      const vocab = a.logits.dims[2];
      const x = a.logits.data as Float32Array;
      const y = b.logits.data as Float32Array;
      let worst = 0;
      let spread = 0;
      for (let i = 0; i < x.length; i++) {
        worst = Math.max(worst, Math.abs(x[i] - y[i]));
        spread = Math.max(spread, Math.abs(x[i]));
      }
      // Rounded, not changed: not identical (the rewrite did run), and within 2e-4 of the logits' range (measured:
      // 0.0028 of a 36.7-wide range, 7.5e-5; MatMulNBits' blocks of 32, which this replaced, 0.36).
      expect(worst).toBeGreaterThan(0);
      expect(worst).toBeLessThan(2e-4 * spread);
      // The best token changes only where the float logits had a runner-up within the rounding's own error.
      let decided = 0;
      for (let position = 0; position < prompt.length; position++) {
        const row = x.subarray(position * vocab, (position + 1) * vocab);
        const best = argmax(row);
        const margin = row[best] - Math.max(...row.filter((_, i) => i !== best));
        if (margin <= 2 * worst) continue;
        decided++;
        expect(argmax(y.subarray(position * vocab, (position + 1) * vocab)), `position ${position}`).toBe(best);
      }
      expect(decided).toBeGreaterThanOrEqual(3);
      // Only the projection changed: the caches are the same bits.
      const cache = (outputs: typeof a) => Buffer.from(outputs['present.0.decoder.key'].data as Float32Array);
      expect(cache(b).equals(cache(a))).toBe(true);
    });

  // Integer sums either way: the signed table (shifted by 128 with its zero point) gives the same logits to the bit,
  // where VNNI sums its products in 32 bits (without VNNI it is not used: 16-bit pair sums could saturate).
  it.runIf(hasVnni())('gives the same logits with the signed table (VNNI)', async () => {
    const signed = await ort.InferenceSession.create(eightBitProjection(hoisted, { signed: true }), options);
    const prompt = [50258, 50259, 50359, 50364, 440, 2068, 1029, 286, 264, 1723];
    const [a, b] = await Promise.all([eightBit.run(feeds(prompt), ['logits']), signed.run(feeds(prompt), ['logits'])]);
    expect(Buffer.from(b.logits.data as Float32Array).equals(Buffer.from(a.logits.data as Float32Array))).toBe(true);
    await signed.release();
  });

  it('refuses the export as shipped (its projection is still inside the If) and a graph it already rewrote', () => {
    expect(() => eightBitProjection(exported, { signed: false })).toThrow('lifted MatMul');
    expect(() => eightBitProjection(rewritten, { signed: false })).toThrow('lifted MatMul');
  });
});

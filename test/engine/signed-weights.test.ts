/**
 * Signed 8-bit weights for VNNI processors (signed-weights.ts), on the real whisper-tiny encoder as the CPU loads it:
 * each unsigned weight and zero point shifted by 128 into int8, nothing else touched, and (where the processor has
 * VNNI, as the engine only rewrites there) the encoder's output bit for bit the export's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { blockedAttention } from '../../workers/engine/graph/encoder-attention.js';
import { variableLengthEncoder } from '../../workers/engine/graph/encoder-context.js';
import { nodesOf, ONNX, readGraph, readMessage, strings, varints } from '../../workers/engine/graph/onnx-wire.js';
import { hasVnni, signedWeights } from '../../workers/engine/graph/signed-weights.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';

const exportDir = join(resolveModelDir({ model: 'whisper-tiny' }), 'onnx');
const encoder = blockedAttention(variableLengthEncoder(readFileSync(join(exportDir, 'encoder_model_quantized.onnx'))));

/** Every initializer's data type, values (8-bit ones as numbers, from raw data or int32_data) and bytes, by name. */
function initializers(model: Uint8Array): Map<string, { type: number; values: Int16Array | Uint8Array | undefined; proto: Uint8Array }> {
  const { graph } = readGraph(model);
  return new Map(graph.filter((f) => f.field === ONNX.graph.initializer).map((f) => {
    const fields = readMessage(f.value);
    const type = varints(fields.find((t) => t.field === ONNX.tensor.dataType)!)[0];
    const raw = fields.find((t) => t.field === ONNX.tensor.rawData)?.value;
    const listed = fields.filter((t) => t.field === ONNX.tensor.int32Data).flatMap(varints);
    const values = type === 3 && raw ? Int16Array.from(new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength))
      : type === 2 ? Int16Array.from(raw ?? listed) : raw;
    return [strings(fields, ONNX.tensor.name)[0], { type, values, proto: f.value }];
  }));
}

describe('signedWeights', () => {
  const rewritten = signedWeights(encoder);

  it('shifts each integer product’s unsigned weights and zero points into int8, and leaves everything else', () => {
    const before = initializers(encoder);
    const after = initializers(rewritten);
    const nodes = nodesOf(readGraph(encoder).graph);
    const products = nodes.filter((n) => n.opType === 'MatMulInteger');
    // The products' weights and zero points that nothing else reads (a zero point the convolutions share stays).
    const readElsewhere = new Set(nodes.flatMap(
      (n) => n.inputs.filter((_, slot) => n.opType !== 'MatMulInteger' || (slot !== 1 && slot !== 3)),
    ));
    const weights = new Set(products.flatMap((n) => [n.inputs[1], n.inputs[3]]).filter((name) => !readElsewhere.has(name)));
    expect(products.length).toBeGreaterThan(20);
    expect(weights.size).toBeGreaterThan(products.length);
    for (const [name, { type, values, proto }] of before) {
      const now = after.get(name)!;
      if (!weights.has(name)) {
        expect(Buffer.from(now.proto).equals(Buffer.from(proto))).toBe(true);
        continue;
      }
      expect([type, now.type]).toEqual([2, 3]);
      const [want, got] = [values as Int16Array, now.values as Int16Array];
      expect(got.length).toBe(want.length);
      let differ = 0;
      for (let i = 0; i < want.length; i++) if (got[i] !== want[i] - 128) differ++;
      expect(differ).toBe(0);
    }
    // The convolutions' weights (ConvInteger) stay unsigned.
    const convolutions = nodesOf(readGraph(encoder).graph).filter((n) => n.opType === 'ConvInteger');
    for (const n of convolutions) expect(after.get(n.inputs[1])!.type).toBe(2);
  });

  it('leaves a graph whose weights are signed already as it is', () => {
    const decoder = readFileSync(join(exportDir, 'decoder_model_merged_quantized.onnx'));
    expect(signedWeights(decoder)).toBe(decoder);
    expect(signedWeights(rewritten)).toBe(rewritten);
  });

  it.runIf(hasVnni())('computes the export’s encoder states bit for bit (on this processor’s VNNI)', async () => {
    const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, executionProviders: ['cpu'] };
    const [a, b] = await Promise.all([encoder, rewritten].map((graph) => ort.InferenceSession.create(graph, options)));
    let seed = 11;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 2;
    const features = new ort.Tensor('float32', Float32Array.from({ length: 80 * 3000 }, next), [1, 80, 3000]);
    const [x, y] = await Promise.all([a.run({ input_features: features }), b.run({ input_features: features })]);
    expect(Buffer.from((y.last_hidden_state.data as Float32Array).buffer).equals(
      Buffer.from((x.last_hidden_state.data as Float32Array).buffer),
    )).toBe(true);
  });
});

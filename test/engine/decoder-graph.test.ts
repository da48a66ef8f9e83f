/**
 * The merged decoder with its output projection lifted out of the If (decoder-graph.ts): the real whisper-tiny
 * export from npm, rewritten, against the export as it is. Same logits and caches, bit for bit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXACT_DECODER_SESSION_CONFIG, hoistedDecoder, LOGITS_FROM } from '../../workers/engine/graph/decoder-graph.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';

const onnxDir = join(resolveModelDir(), 'onnx');
const decoderFile = join(onnxDir, 'decoder_model_merged_quantized.onnx');
const LAYERS = 4;
const HEADS = 6;
const D_MODEL = 384;

let original: ort.InferenceSession;
let hoisted: ort.InferenceSession;
let encoderHidden: ort.Tensor;

beforeAll(async () => {
  const options: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all', intraOpNumThreads: 1, executionProviders: ['cpu'] };
  original = await ort.InferenceSession.create(decoderFile, options);
  hoisted = await ort.InferenceSession.create(hoistedDecoder(readFileSync(decoderFile)), {
    ...options, extra: { session: EXACT_DECODER_SESSION_CONFIG },
  });
  // Deterministic stand-in for an encoder output: the rewrite must not care what the audio was.
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 4;
  encoderHidden = new ort.Tensor('float32', Float32Array.from({ length: 1500 * D_MODEL }, next), [1, 1500, D_MODEL]);
});

type Outputs = ort.InferenceSession.OnnxValueMapType;

/** Feeds for a first call (`past` null) or a cached step, with LOGITS_FROM when `from` is given. */
function feeds(tokens: number[], past: Outputs | null, from?: number): Record<string, ort.Tensor> {
  const result: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]),
    encoder_hidden_states: encoderHidden,
    use_cache_branch: new ort.Tensor('bool', Uint8Array.of(past ? 1 : 0), [1]),
  };
  const none = new ort.Tensor('float32', new Float32Array(0), [1, HEADS, 0, D_MODEL / HEADS]);
  for (let layer = 0; layer < LAYERS; layer++) {
    for (const part of ['decoder.key', 'decoder.value', 'encoder.key', 'encoder.value']) {
      result[`past_key_values.${layer}.${part}`] = (past?.[`present.${layer}.${part}`] as ort.Tensor | undefined) ?? none;
    }
  }
  if (from !== undefined) result[LOGITS_FROM] = new ort.Tensor('int64', BigInt64Array.of(BigInt(from)), [1]);
  return result;
}

const bytes = (value: ort.OnnxValue) => Buffer.from((value as ort.Tensor).data as Float32Array);

describe('decoder with the output projection out of the If', () => {
  it('gives the export’s logits, caches and cross-attentions, bit for bit, on a first call and cached steps', async () => {
    const prompt = [50258, 50259, 50359, 50364, 440, 2068];
    let a = await original.run(feeds(prompt, null));
    let b = await hoisted.run(feeds(prompt, null, 0));
    for (const name of ['logits', 'present.0.encoder.key', 'present.3.decoder.value', 'cross_attentions.2']) expect(
      bytes(b[name]).equals(bytes(a[name])), name,
    ).toBe(true);
    // A cached step's own encoder outputs are placeholders: the first call's keys/values stay.
    const step = ['logits', ...Array.from({ length: LAYERS }, (_, l) => [`present.${l}.decoder.key`, `present.${l}.decoder.value`]).flat()];
    for (const token of [1029, 286, 264]) {
      a = { ...a, ...(await original.run(feeds([token], a), step)) };
      b = { ...b, ...(await hoisted.run(feeds([token], b, 0), step)) };
      expect(bytes(b.logits).equals(bytes(a.logits))).toBe(true);
      expect(bytes(b['present.1.decoder.key']).equals(bytes(a['present.1.decoder.key']))).toBe(true);
    }
  });

  it('computes only the positions from LOGITS_FROM on: the last two rows as the export’s', async () => {
    const prompt = [50258, 50259, 50359, 50364, 440, 2068, 1029, 286];
    const all = (await original.run(feeds(prompt, null))).logits as ort.Tensor;
    const tail = (await hoisted.run(feeds(prompt, null, prompt.length - 2))).logits as ort.Tensor;
    expect(tail.dims).toEqual([1, 2, all.dims[2]]);
    const allData = all.data as Float32Array;
    expect(Buffer.from(tail.data as Float32Array).equals(Buffer.from(allData.subarray(allData.length - 2 * all.dims[2])))).toBe(true);
  });

  it('refuses a graph that is not a merged decoder (the encoder)', () => {
    expect(() => hoistedDecoder(readFileSync(join(onnxDir, 'encoder_model_quantized.onnx')))).toThrow(/If/);
  });
});

/**
 * The decoder that computes the cross-attention keys and values at every step (decoder-cross-kv.ts), as GPU
 * sessions load it: on the real whisper-tiny export (float, as dequantize.ts makes it), a cached step fed the
 * encoder states gives what the export gives when fed the keys and values its first call returned.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { crossKeysPerStep } from '../../workers/engine/graph/decoder-cross-kv.js';
import { EXACT_DECODER_SESSION_CONFIG, hoistedDecoder, LOGITS_FROM } from '../../workers/engine/graph/decoder-graph.js';
import { dequantizedGraph } from '../../workers/engine/graph/dequantize.js';
import { decodeFileToPcm } from '../../workers/engine/audio.js';
import { resolveModelDir, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { editCounts, normaliseText } from '../../workers/engine/tools/wer.js';
import { fixture } from '../helpers/fixtures.js';

const decoderFile = join(resolveModelDir({ model: 'whisper-tiny' }), 'onnx', 'decoder_model_merged_quantized.onnx');
const LAYERS = 4;
const HEADS = 6;
const D_MODEL = 384;
const HEAD_DIM = D_MODEL / HEADS;
const FRAMES = 1500;

let exported: ort.InferenceSession;
let perStep: ort.InferenceSession;
let rewritten: Uint8Array;

/** Deterministic stand-in for encoder states: the rewrite must not care what the audio was. */
function states(rows: number, seed: number): ort.Tensor {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 4;
  return new ort.Tensor('float32', Float32Array.from({ length: rows * FRAMES * D_MODEL }, next), [rows, FRAMES, D_MODEL]);
}

const int64 = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, rows[0].length]);

beforeAll(async () => {
  const float = dequantizedGraph(hoistedDecoder(readFileSync(decoderFile)));
  rewritten = crossKeysPerStep(float);
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: 1, executionProviders: ['cpu'], extra: { session: EXACT_DECODER_SESSION_CONFIG },
  };
  exported = await ort.InferenceSession.create(float, options);
  perStep = await ort.InferenceSession.create(rewritten, options);
});

describe('crossKeysPerStep', () => {
  it('drops the encoder past inputs and keeps every other input and output', () => {
    expect(perStep.inputNames.filter((name) => /encoder\.(key|value)$/.test(name))).toEqual([]);
    expect(perStep.inputNames).toEqual(exported.inputNames.filter((name) => !/^past_key_values\.\d+\.encoder\./.test(name)));
    expect(perStep.outputNames).toEqual(exported.outputNames);
  });

  it('a cached step fed the encoder states gives the logits and decoder cache the export gives fed its first call’s keys and '
    + 'values', async () => {
    const encoder = states(2, 11);
    const empty = new ort.Tensor('float32', new Float32Array(0), [2, HEADS, 0, HEAD_DIM]);
    const firstFeeds: Record<string, ort.Tensor> = {
      input_ids: int64([
        [50258, 50259, 50359],
        [50258, 50261, 50359],
      ]),
      encoder_hidden_states: encoder,
      use_cache_branch: new ort.Tensor('bool', new Uint8Array([0]), [1]),
      [LOGITS_FROM]: new ort.Tensor('int64', BigInt64Array.of(1n), [1]),
    };
    for (let layer = 0; layer < LAYERS; layer++) {
      for (const kind of ['decoder', 'encoder'])
        for (const part of ['key', 'value']) firstFeeds[`past_key_values.${layer}.${kind}.${part}`] = empty;
    }
    const first = await exported.run(firstFeeds);
    const step: Record<string, ort.Tensor> = {
      input_ids: int64([[440], [1044]]),
      encoder_hidden_states: encoder,
      use_cache_branch: new ort.Tensor('bool', new Uint8Array([1]), [1]),
      [LOGITS_FROM]: new ort.Tensor('int64', BigInt64Array.of(0n), [1]),
    };
    for (let layer = 0; layer < LAYERS; layer++) {
      for (const part of ['key', 'value']) step[`past_key_values.${layer}.decoder.${part}`] = first[`present.${layer}.decoder.${part}`];
    }
    const withPast = { ...step };
    for (let layer = 0; layer < LAYERS; layer++) {
      for (const part of ['key', 'value']) withPast[`past_key_values.${layer}.encoder.${part}`] = first[`present.${layer}.encoder.${part}`];
    }
    const expected = await exported.run(withPast);
    const actual = await perStep.run(step);
    for (const name of ['logits', 'present.0.decoder.key', `present.${LAYERS - 1}.decoder.value`, 'cross_attentions.2']) {
      const a = actual[name].data as Float32Array;
      const e = expected[name].data as Float32Array;
      expect(actual[name].dims, name).toEqual(expected[name].dims);
      let worst = 0;
      for (let i = 0; i < e.length; i++) worst = Math.max(worst, Math.abs(a[i] - e[i]));
      // The same operations on the same numbers: equal but for the order a kernel sums in.
      expect(worst, name).toBeLessThan(1e-3);
    }
    // The logits do depend on the encoder states the step reads: other states give other logits.
    const other = await perStep.run({ ...step, encoder_hidden_states: states(2, 12) });
    expect(
      Math.max(...(other.logits.data as Float32Array).map((v, i) => Math.abs(v - (actual.logits.data as Float32Array)[i]))),
    ).toBeGreaterThan(0.1);
  });

  it('refuses a graph that is not a merged decoder (the caller keeps it as it is)', () => {
    expect(() => crossKeysPerStep(rewritten)).toThrow('decoder If branches are not the merged export’s');
  });
});

describe('the engine on the per-step decoder (the graphs GPU sessions load, run here on the CPU)', () => {
  it('beam search and batched windows carry each row’s encoder states in the cache, and say what the 8-bit graphs say', async () => {
    const pcm = await decodeFileToPcm(fixture('political-philosophy-60s.wav'), { endS: 45 });
    const text = async (options: { gpuGraphs: boolean; batchSize: number; beamSize: number }) => {
      const engine = await SpeechEngine.load({
        model: 'whisper-tiny', gpuGraphs: options.gpuGraphs, batchSize: options.batchSize, intraOpThreads: 1,
      });
      return (await engine.transcribePcm(pcm, { beamSize: options.beamSize })).segments.map((s) => s.text).join(' ');
    };
    const reference = normaliseText(await text({ gpuGraphs: false, batchSize: 1, beamSize: 1 }));
    expect(reference.length).toBeGreaterThan(60);
    for (const options of [
      { gpuGraphs: true, batchSize: 1, beamSize: 3 },
      { gpuGraphs: true, batchSize: 2, beamSize: 1 },
    ]) {
      const hypothesis = await text(options);
      const counts = editCounts(reference, normaliseText(hypothesis));
      expect(counts.errors / reference.length, `${JSON.stringify(options)}: ${hypothesis}`).toBeLessThanOrEqual(0.15);
    }
  });
});

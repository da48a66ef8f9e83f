/**
 * The 8-bit exports made float for a GPU (dequantize.ts), checked on the CPU since CI has no GPU: the weights'
 * arithmetic, the rewritten graphs of the real whisper-tiny export (no integer product left, same outputs within
 * what 8-bit activations cost), the engine running the GPU's graphs, and the fallback when CUDA cannot load.
 * Also the CPU's float products (model.ts FloatProducts, ENGINE_FLOAT): the encoder's GELU readers made float,
 * whisper-tiny's default, and the words the 8-bit activations cost it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeFileToPcm } from '../../workers/engine/audio.js';
import { dequantizedGraph, dequantizeWeight } from '../../workers/engine/graph/dequantize.js';
import { resolveModelDir, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { defaultFloatProducts } from '../../workers/engine/whisper/model.js';
import { logMelSpectrogram } from '../../workers/engine/whisper/mel.js';
import { ONNX, readMessage, strings, type WireField } from '../../workers/engine/graph/onnx-wire.js';
import { sileroModelPath } from '../../workers/engine/vad.js';
import { editCounts, normaliseText, wordErrorRate } from '../../workers/engine/tools/wer.js';
import { fixture } from '../helpers/fixtures.js';

const onnxDir = join(resolveModelDir({ model: 'whisper-tiny' }), 'onnx');
const encoderFile = join(onnxDir, 'encoder_model_quantized.onnx');
const decoderFile = join(onnxDir, 'decoder_model_merged_quantized.onnx');

/** Op type → count over the graph and every graph nested in it (the decoder's If branches). */
function opCounts(model: Uint8Array): Map<string, number> {
  const counts = new Map<string, number>();
  const walk = (graph: WireField[]) => {
    for (const field of graph) {
      if (field.field !== ONNX.graph.node) continue;
      const node = readMessage(field.value);
      const op = strings(node, ONNX.node.opType)[0];
      counts.set(op, (counts.get(op) ?? 0) + 1);
      for (const attribute of node.filter((f) => f.field === ONNX.node.attribute)) {
        for (const nested of readMessage(attribute.value).filter((f) => f.field === ONNX.attribute.graph)) walk(readMessage(nested.value));
      }
    }
  };
  walk(readMessage(readMessage(model).find((f) => f.field === ONNX.modelGraph)!.value));
  return counts;
}

const tensor = (dataType: number, dims: number[], values: ArrayLike<number>) => {
  const raw =
    dataType === 1
      ? new Uint8Array(Float32Array.from(values).buffer)
      : dataType === 3
        ? new Uint8Array(Int8Array.from(values).buffer)
        : Uint8Array.from(values);
  return { dataType, dims, raw };
};

describe('dequantizeWeight', () => {
  it('gives (q − zero) × scale, with one scale or one per output channel (a MatMul’s columns, a Conv’s first axis)', () => {
    const uint8 = tensor(2, [2, 3], [0, 128, 255, 10, 20, 30]);
    expect([...dequantizeWeight(uint8, tensor(2, [], [128]), tensor(1, [], [0.5]), 'MatMul')]).toEqual([-64, 0, 63.5, -59, -54, -49]);
    expect([...dequantizeWeight(uint8, tensor(2, [], [128]), tensor(1, [3], [1, 2, 4]), 'MatMul')]).toEqual([
      -128, 0, 508, -118, -216, -392,
    ]);
    const int8 = tensor(3, [2, 1, 2], [-3, 5, 7, -1]);
    expect([...dequantizeWeight(int8, tensor(3, [], [1]), tensor(1, [2], [2, 10]), 'Conv')]).toEqual([-8, 8, 60, -20]);
  });

  it('refuses per-channel zero points and a scale count that matches no axis', () => {
    const weight = tensor(2, [2, 2], [1, 2, 3, 4]);
    expect(() => dequantizeWeight(weight, tensor(2, [2], [0, 1]), tensor(1, [], [1]), 'MatMul')).toThrow('per-channel zero points');
    expect(() => dequantizeWeight(weight, tensor(2, [], [0]), tensor(1, [3], [1, 1, 1]), 'MatMul')).toThrow('3 scales for 2 channels');
  });
});

describe('dequantizedGraph on the whisper-tiny export', () => {
  let features: Float32Array;
  beforeAll(async () => {
    features = logMelSpectrogram(await decodeFileToPcm(fixture('goforward.wav')));
  });

  it('leaves no integer product or quantiser: each MatMulInteger is a MatMul, each ConvInteger a Conv', () => {
    for (const file of [encoderFile, decoderFile]) {
      const before = opCounts(readFileSync(file));
      const after = opCounts(dequantizedGraph(readFileSync(file)));
      for (const op of ['MatMulInteger', 'ConvInteger', 'DynamicQuantizeLinear']) expect(after.get(op) ?? 0, `${op} in ${file}`).toBe(0);
      expect(before.get('MatMulInteger')).toBeGreaterThan(0);
      expect(after.get('MatMul')).toBe((before.get('MatMul') ?? 0) + (before.get('MatMulInteger') ?? 0));
      expect(after.get('Conv') ?? 0).toBe((before.get('Conv') ?? 0) + (before.get('ConvInteger') ?? 0));
      // The embedding table stays 8-bit (DequantizeLinear, which the CUDA provider has).
      expect(after.get('DequantizeLinear') ?? 0).toBe(before.get('DequantizeLinear') ?? 0);
    }
  });

  /** Encoder states of the goforward features through `graph`. */
  const encoderStates = async (graph: string | Uint8Array): Promise<Float32Array> => {
    const session = await ort.InferenceSession.create(graph as Uint8Array, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
    const feeds = { input_features: new ort.Tensor('float32', features, [1, 80, 3000]) };
    const states = (await session.run(feeds)).last_hidden_state.data as Float32Array;
    await session.release();
    return states;
  };
  /** ‖a − b‖ / ‖b‖ */
  const relativeDifference = (a: Float32Array, b: Float32Array) => {
    let difference = 0;
    let norm = 0;
    for (let i = 0; i < a.length; i++) {
      difference += (a[i] - b[i]) ** 2;
      norm += b[i] ** 2;
    }
    return Math.sqrt(difference / norm);
  };

  it('the float encoder computes what the 8-bit one approximates (same states within 8-bit rounding)', async () => {
    const relative = relativeDifference(await encoderStates(encoderFile), await encoderStates(dequantizedGraph(readFileSync(encoderFile))));
    // Not equal: the 8-bit graph rounds every activation to 8 bits, and Whisper's activations have outliers that
    // make that rounding coarse (measured 0.25 here). A wrong weight layout or scale puts the states off by ~1.
    expect(relative).toBeGreaterThan(0);
    expect(relative).toBeLessThan(0.4);
  });

  it("only: 'gelu' makes float the products that read a GELU (conv2, each layer's fc2) and leaves the rest 8-bit", () => {
    const before = opCounts(readFileSync(encoderFile));
    const after = opCounts(dequantizedGraph(readFileSync(encoderFile), { only: 'gelu' }));
    const layers = 4; // whisper-tiny's encoder layers
    expect(after.get('MatMulInteger')).toBe(before.get('MatMulInteger')! - layers);
    expect(after.get('MatMul')).toBe((before.get('MatMul') ?? 0) + layers);
    // conv2 reads gelu(conv1(x)); conv1 reads the log-mel features and stays 8-bit.
    expect(before.get('ConvInteger')).toBe(2);
    expect(after.get('ConvInteger')).toBe(1);
    expect(after.get('Conv') ?? 0).toBe((before.get('Conv') ?? 0) + 1);
    expect(after.get('DynamicQuantizeLinear')).toBe(before.get('DynamicQuantizeLinear')! - layers - 1);
  });

  it('most of what 8-bit activations cost the encoder is in the GELU readers', async () => {
    const float = await encoderStates(dequantizedGraph(readFileSync(encoderFile)));
    const quantized = relativeDifference(await encoderStates(encoderFile), float);
    const gelu = relativeDifference(await encoderStates(dequantizedGraph(readFileSync(encoderFile), { only: 'gelu' })), float);
    // Measured 0.25 with every product 8-bit, 0.08 with the five GELU readers float.
    expect(gelu).toBeGreaterThan(0);
    expect(gelu).toBeLessThan(quantized / 2);
  });

  it('refuses a graph with no 8-bit product (the caller then keeps it as it is)', () => {
    expect(() => dequantizedGraph(readFileSync(sileroModelPath()))).toThrow('no 8-bit products to make float');
    expect(() => dequantizedGraph(readFileSync(sileroModelPath()), { only: 'gelu' })).toThrow('no 8-bit product reads a GELU');
  });
});

describe('float products on the CPU', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("whisper-tiny's default makes its GELU readers float; larger models stay 8-bit", async () => {
    expect(defaultFloatProducts({ dModel: 384 })).toBe('gelu');
    expect(defaultFloatProducts({ dModel: 512 })).toBe('none');
    const engine = await SpeechEngine.load({ model: 'whisper-tiny', intraOpThreads: 1 });
    expect(engine.model.floatProducts).toBe('gelu');
    vi.stubEnv('ENGINE_FLOAT', 'encoder');
    expect((await SpeechEngine.load({ model: 'whisper-tiny', intraOpThreads: 1 })).model.floatProducts).toBe('encoder');
  });

  it('an ENGINE_FLOAT that names no choice is an error, not a silent default', () => {
    vi.stubEnv('ENGINE_FLOAT', 'fp32');
    expect(() => SpeechEngine.load({ model: 'whisper-tiny' })).toThrow('ENGINE_FLOAT=fp32: one of none, gelu, encoder, all');
  });

  it('whisper-tiny greedy on the default float products hears the words 8-bit activations cost it', async () => {
    // With every product 8-bit (onnxruntime 1.29): "… is to be able to suppose", "… been made capable himself".
    const clips = [
      { id: 'sense_and_sensibility_01_austen_64kb-0890', reference: 'unless to be rather cold hearted and rather selfish is to be ill '
        + 'disposed' },
      { id: 'sense_and_sensibility_01_austen_64kb-0930', reference: 'he might even have been made amiable himself' },
    ];
    const engine = await SpeechEngine.load({ model: 'whisper-tiny', intraOpThreads: 1 });
    const pairs = [];
    for (const clip of clips) {
      const result = await engine.transcribeFile(fixture(`librivox/${clip.id}.wav`), { language: 'en', beamSize: 1 });
      pairs.push({ reference: clip.reference, hypothesis: result.segments.map((s) => s.text).join(' ') });
    }
    expect(wordErrorRate(pairs).errors, JSON.stringify(pairs)).toBe(0);
  });
});

describe('the graphs a GPU runs, on the CPU', () => {
  afterEach(() => vi.restoreAllMocks());

  it('transcribe what the 8-bit graphs do', async () => {
    const pcm = await decodeFileToPcm(fixture('political-philosophy-60s.wav'), { endS: 20 });
    const text = async (gpuGraphs: boolean) => {
      const engine = await SpeechEngine.load({ model: 'whisper-tiny', gpuGraphs, intraOpThreads: 1 });
      return (await engine.transcribePcm(pcm, { beamSize: 1 })).segments.map((s) => s.text).join(' ');
    };
    const [quantized, float] = [await text(false), await text(true)];
    const reference = normaliseText(quantized);
    const counts = editCounts(reference, normaliseText(float));
    expect(reference.length).toBeGreaterThan(30);
    expect((counts.substitutions + counts.deletions + counts.insertions) / reference.length, `${quantized} / ${float}`).toBeLessThanOrEqual(
      0.1,
    );
  });

  it('asking for CUDA where its libraries are missing: one warning line saying why, and the CPU’s graphs', async () => {
    const warnings: string[] = [];
    vi.spyOn(console, 'warn').mockImplementation((line: string) => void warnings.push(line));
    // Options no other test loads with, so that this load is not one cached before.
    const engine = await SpeechEngine.load({ model: 'whisper-tiny', provider: 'cuda', intraOpThreads: 1, decoderThreads: 1 });
    expect(engine.provider).toBe('cpu');
    const engineWarnings = warnings.filter((line) => line.startsWith('[engine]'));
    expect(engineWarnings).toHaveLength(1);
    expect(engineWarnings[0]).toMatch(/^\[engine\] execution provider 'cuda' unavailable \(.+\); using cpu$/);
  });
});

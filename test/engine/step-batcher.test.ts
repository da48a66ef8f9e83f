/**
 * Continuous batching of decoder steps (step-batcher.ts) on the masked decoder (decoder-masks.ts), as GPU sessions
 * load them, run here on the CPU: decodes of different windows, prompts, text lengths, encoder contexts and searches,
 * run at the same time, step together and each says what it says alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeFileToPcm } from '../../workers/engine/audio.js';
import { crossKeysPerStep } from '../../workers/engine/graph/decoder-cross-kv.js';
import { hoistedDecoder } from '../../workers/engine/graph/decoder-graph.js';
import { CROSS_BIAS, POSITIONS, rowMasks, SELF_BIAS } from '../../workers/engine/graph/decoder-masks.js';
import { decodeWindow, WindowDecoder, type DecodeResult } from '../../workers/engine/whisper/decoding.js';
import { dequantizedGraph } from '../../workers/engine/graph/dequantize.js';
import { resolveModelDir } from '../../workers/engine/speech-engine.js';
import { logMelSpectrogram, SAMPLE_RATE } from '../../workers/engine/whisper/mel.js';
import { WhisperOnnx } from '../../workers/engine/whisper/model.js';
import { nodesOf, ONNX, readGraph, readMessage } from '../../workers/engine/graph/onnx-wire.js';
import { WhisperTokenizer } from '../../workers/engine/whisper/tokenizer.js';
import { fixture } from '../helpers/fixtures.js';

const modelDir = resolveModelDir({ model: 'whisper-tiny' });
const tokenizer = new WhisperTokenizer(modelDir);
let lecture: Float32Array;

beforeAll(async () => {
  lecture = await decodeFileToPcm(fixture('political-philosophy-60s.wav'), { endS: 40 });
});

/**
 * Five short windows of the lecture (short so the test stays cheap on a loaded machine): different lengths (encoder
 * contexts), prompts, timestamp modes
 * and forced text (a live pass's committed words: its first call returns the logits from <|startoftranscript|> on).
 */
function windows(): { audio: Float32Array; frames: number; previous: number[]; withoutTimestamps: boolean; prefix?: number[] }[] {
  const at = (fromS: number, toS: number) => lecture.subarray(fromS * SAMPLE_RATE, toS * SAMPLE_RATE);
  const frames = (audio: Float32Array) => Math.max(500, Math.ceil(audio.length / SAMPLE_RATE + 2) * 100);
  const prompts = [
    [], [286, 370, 322, 264, 2487, 949, 341, 13], [], [3768, 3071, 390, 848, 510, 11, 257, 2854, 12391, 813, 264, 1472, 295, 552, 13],
    [286, 370],
  ];
  const prefixes = [undefined, undefined, [440, 1185], undefined, [286, 370, 322, 264, 2487]];
  return [at(0, 5), at(10, 17), at(26, 30), at(33, 40), at(12, 18)].map((audio, i) => ({
    audio,
    frames: frames(audio),
    previous: prompts[i],
    withoutTimestamps: i % 2 === 0,
    prefix: prefixes[i],
  }));
}

async function decodeAll(model: WhisperOnnx, beamSize: number): Promise<DecodeResult[]> {
  return Promise.all(
    windows().map(async (w) => {
      const window = new WindowDecoder(model, await model.encode([logMelSpectrogram(w.audio)], w.frames));
      return decodeWindow(tokenizer, window, 0, {
        language: 'en',
        beamSize,
        bestOf: 1,
        previousTokens: w.previous,
        prefix: w.prefix,
        maxInitialTimestampS: 1,
        withoutTimestamps: w.withoutTimestamps,
      });
    }),
  );
}

describe('rowMasks', () => {
  it('adds positions and both attention biases to the cached branch only, and refuses a graph it already rewrote', () => {
    const float = dequantizedGraph(hoistedDecoder(readFileSync(join(modelDir, 'onnx', 'decoder_model_merged_quantized.onnx'))));
    const masked = rowMasks(float);
    const { graph } = readGraph(masked);
    const inputs = graph.filter((f) => f.field === ONNX.graph.input).map((f) => new TextDecoder().decode(
      readMessage(f.value).find((x) => x.field === 1)!.value,
    ));
    expect(inputs).toEqual(expect.arrayContaining([POSITIONS, SELF_BIAS, CROSS_BIAS]));
    const branches = readMessage(nodesOf(graph).find((n) => n.opType === 'If')!.field.value)
      .filter((f) => f.field === ONNX.node.attribute)
      .map((f) => nodesOf(readMessage(readMessage(f.value).find((a) => a.field === ONNX.attribute.graph)!.value)));
    const reads = (nodes: ReturnType<typeof nodesOf>, name: string) => nodes.filter((n) => n.inputs.includes(name)).length;
    const [cached, first] = reads(branches[0], SELF_BIAS) > 0 ? branches : [branches[1], branches[0]];
    // whisper-tiny: 4 layers, a self- and a cross-attention each; one position gather.
    expect([reads(cached, SELF_BIAS), reads(cached, CROSS_BIAS), reads(cached, POSITIONS)]).toEqual([4, 4, 1]);
    expect([reads(first, SELF_BIAS), reads(first, CROSS_BIAS), reads(first, POSITIONS)]).toEqual([0, 0, 0]);
    expect(() => rowMasks(masked)).toThrow('already takes row masks');
    // The per-step rewrite still fits after it, and the step copies only the encoder keys' and values' nodes in.
    const perStep = nodesOf(readMessage(readMessage(readMessage(
      nodesOf(readGraph(crossKeysPerStep(masked)).graph).find((n) => n.opType === 'If')!.field.value,
    ).find((f) => f.field === ONNX.node.attribute)!.value).find((a) => a.field === ONNX.attribute.graph)!.value));
    expect(perStep.filter((n) => n.opType === 'MatMul').length).toBeLessThanOrEqual(
      cached.filter((n) => n.opType === 'MatMul').length + 2 * 4,
    );
  });
});

describe('StepBatcher', () => {
  it('steps concurrent decodes together, and each gets what it gets alone (greedy and beam search)', async () => {
    const alone = await WhisperOnnx.load(modelDir, { gpuGraphs: true, stepRows: 0, intraOpThreads: 1 });
    const batched = await WhisperOnnx.load(modelDir, { gpuGraphs: true, stepRows: 64, intraOpThreads: 1 });
    expect(alone.steps).toBeNull();
    expect(batched.steps).not.toBeNull();
    for (const beamSize of [1, 3]) {
      const expected = await decodeAll(alone, beamSize);
      const before = { ...batched.steps!.stats };
      const actual = await decodeAll(batched, beamSize);
      actual.forEach((result, i) => {
        expect(result.text, `window ${i}, beam ${beamSize}`).toBe(expected[i].text);
        expect(result.tokens).toEqual(expected[i].tokens);
        expect(Math.abs(result.avgLogprob - expected[i].avgLogprob)).toBeLessThan(1e-3);
        expect(Math.abs(result.noSpeechProb - expected[i].noSpeechProb)).toBeLessThan(1e-4);
      });
      expect(expected.every((r) => r.tokens.length > 5)).toBe(true);
      // They did share calls: more than one decode's rows a call on average (alone: exactly one), fewer first calls than prompts.
      const stats = batched.steps!.stats;
      expect(stats.calls - before.calls).toBeGreaterThan(0);
      expect((stats.rows - before.rows) / (stats.calls - before.calls)).toBeGreaterThan(1.25 * beamSize);
      expect(stats.firstRows - before.firstRows).toBe(5);
      expect(stats.firstCalls - before.firstCalls).toBeLessThan(5);
    }
    await Promise.all([alone.release(), batched.release()]);
  }, 400_000); // ~35 s on a quiet 2-core machine; several times that on a loaded one

  it('keeps a call to maxRows rows without splitting a decode, and refuses a step whose tokens do not match its cache', async () => {
    const model = await WhisperOnnx.load(modelDir, { gpuGraphs: true, stepRows: 4, intraOpThreads: 1 });
    const calls = model.steps!.stats.calls;
    const results = await decodeAll(model, 3);
    expect(results.every((r) => r.tokens.length > 5)).toBe(true);
    expect(model.steps!.stats.rows / (model.steps!.stats.calls - calls)).toBeLessThanOrEqual(4);
    // A step whose cache does not match its tokens is refused; the batcher goes on serving the others.
    const window = new WindowDecoder(model, await model.encode([logMelSpectrogram(lecture.subarray(0, 5 * SAMPLE_RATE))], 700));
    const first = await window.prefix([tokenizer.special.startOfTranscript]);
    await expect(model.decode([[440], [441]], window.encoderHidden, first.cache)).rejects.toThrow('2 tokens for a cache of 1 rows');
    const again = await decodeAll(model, 1);
    expect(again.every((r) => r.tokens.length > 5)).toBe(true);
    await model.release();
  }, 300_000);
});

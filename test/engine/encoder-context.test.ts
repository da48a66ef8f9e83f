/**
 * The encoder rewritten to take less than 30 s (encoder-context.ts), its attention in blocks of query rows
 * (encoder-attention.ts), and the protobuf editing under both.
 * The real model from npm is rewritten; nothing here is a fixture made to fit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { blockedAttention } from '../../workers/engine/graph/encoder-attention.js';
import { variableLengthEncoder } from '../../workers/engine/graph/encoder-context.js';
import { decodeFileToPcm, resolveModelDir, SpeechEngine } from '../../workers/engine/speech-engine.js';
import { logMelSpectrogram } from '../../workers/engine/whisper/mel.js';
import { readMessage, writeMessage } from '../../workers/engine/graph/onnx-wire.js';
import { fixture } from '../helpers/fixtures.js';
import { normaliseWords, wordErrors } from './text.js';

const onnxDir = join(resolveModelDir(), 'onnx');
const encoderFile = join(onnxDir, 'encoder_model_quantized.onnx');
const options: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all', intraOpNumThreads: 1, executionProviders: ['cpu'] };

let features: Float32Array;
beforeAll(async () => {
  features = logMelSpectrogram(await decodeFileToPcm(fixture('goforward.wav')));
});

/** The first `frames` columns of [80 × 3000] features, as an input tensor. */
function input(frames: number): ort.Tensor {
  const data = new Float32Array(80 * frames);
  for (let mel = 0; mel < 80; mel++) data.set(features.subarray(mel * 3000, mel * 3000 + frames), mel * frames);
  return new ort.Tensor('float32', data, [1, 80, frames]);
}

describe('protobuf wire editing', () => {
  it('reads a model into fields and writes the same bytes back', () => {
    const model = readFileSync(encoderFile);
    const fields = readMessage(model);
    expect(fields.length).toBeGreaterThan(3);
    expect(Buffer.from(writeMessage(fields)).equals(model)).toBe(true);
    const graph = readMessage(fields.find((f) => f.field === 7)!.value);
    expect(Buffer.from(writeMessage(graph)).equals(Buffer.from(fields.find((f) => f.field === 7)!.value))).toBe(true);
  });

  it('refuses truncated input', () => {
    const model = readFileSync(encoderFile);
    expect(() => readMessage(model.subarray(0, 1000))).toThrow(/protobuf/);
  });
});

describe('variable-length encoder', () => {
  it('gives the original encoder output, bit for bit, on a full 30 s window', async () => {
    const original = await ort.InferenceSession.create(encoderFile, options);
    const edited = await ort.InferenceSession.create(variableLengthEncoder(readFileSync(encoderFile)), options);
    const feeds = { input_features: input(3000) };
    const a = (await original.run(feeds, ['last_hidden_state'])).last_hidden_state;
    const b = (await edited.run(feeds, ['last_hidden_state'])).last_hidden_state;
    expect(b.dims).toEqual(a.dims);
    expect(Buffer.from((b.data as Float32Array).buffer).equals(Buffer.from((a.data as Float32Array).buffer))).toBe(true);
    await Promise.all([original.release(), edited.release()]);
  });

  it('encodes a 5 s context to 250 frames, which the original refuses', async () => {
    const original = await ort.InferenceSession.create(encoderFile, options);
    await expect(original.run({ input_features: input(500) })).rejects.toThrow();
    const edited = await ort.InferenceSession.create(variableLengthEncoder(readFileSync(encoderFile)), options);
    expect(edited.outputNames).toEqual(['last_hidden_state']);
    const out = (await edited.run({ input_features: input(500) })).last_hidden_state;
    expect(out.dims).toEqual([1, 250, 384]);
    expect((out.data as Float32Array).every(Number.isFinite)).toBe(true);
    await Promise.all([original.release(), edited.release()]);
  });

  it('refuses a graph that is not a Whisper encoder (the decoder)', () => {
    expect(() => variableLengthEncoder(readFileSync(join(onnxDir, 'decoder_model_merged_quantized.onnx')))).toThrow(/positional-embedding/);
  });

  it('transcribes goforward.wav from a 5 s context as from the full window', async () => {
    const engine = await SpeechEngine.load();
    expect(engine.model.variableLength).toBe(true);
    const { decodeWithFallback, WindowDecoder } = await import('../../workers/engine/whisper/decoding.js');
    const texts: string[] = [];
    for (const frames of [3000, 500]) {
      const window = new WindowDecoder(engine.model, await engine.model.encode([features], frames));
      expect(window.encoderHidden.dims[1]).toBe(frames / 2);
      const decoded = await decodeWithFallback(engine.tokenizer, window, {
        language: 'en', beamSize: 1, bestOf: 1, previousTokens: [], maxInitialTimestampS: 1,
      });
      texts.push(decoded.text);
    }
    for (const text of texts) expect(wordErrors(['go', 'forward', 'ten', 'meters'], normaliseWords(text)), text).toBeLessThanOrEqual(1);
    await expect(engine.model.encode([features], 501)).rejects.toThrow(/not available/);
  });
});

describe('attention in blocks of query rows', () => {
  it('gives the variable-length encoder’s output, bit for bit, on 30 s and on a 5 s context (empty blocks)', async () => {
    const whole = variableLengthEncoder(readFileSync(encoderFile));
    const sessions = await Promise.all([whole, blockedAttention(whole)].map((graph) => ort.InferenceSession.create(graph, options)));
    for (const frames of [3000, 500]) {
      const [a, b] = await Promise.all(sessions.map(
        async (s) => (await s.run({ input_features: input(frames) }, ['last_hidden_state'])).last_hidden_state,
      ));
      expect(b.dims).toEqual([1, frames / 2, 384]);
      expect(Buffer.from(b.data as Float32Array).equals(Buffer.from(a.data as Float32Array)), `${frames} frames`).toBe(true);
    }
    await Promise.all(sessions.map((s) => s.release()));
  });

  it('refuses a graph without MatMul → Softmax → MatMul attention', () => {
    expect(() => blockedAttention(readFileSync(join(onnxDir, 'decoder_model_merged_quantized.onnx')))).toThrow(/attention/);
  });
});

describe('forced prefix and text-only decoding', () => {
  it('continues after a forced prefix and decodes only what follows it, with no timestamp tokens', async () => {
    const engine = await SpeechEngine.load();
    const { decodeWithFallback, WindowDecoder } = await import('../../workers/engine/whisper/decoding.js');
    const window = new WindowDecoder(engine.model, await engine.model.encode([features]));
    const base = { language: 'en', beamSize: 1, bestOf: 1, previousTokens: [], maxInitialTimestampS: 1, withoutTimestamps: true };
    const whole = await decodeWithFallback(engine.tokenizer, window, base);
    expect(whole.tokens.every((t) => !engine.tokenizer.isTimestamp(t))).toBe(true);
    expect(normaliseWords(whole.text).slice(0, 2)).toEqual(['go', 'forward']);
    // Force the first two tokens (" Go", " forward"): the result is the rest of the sentence only.
    const prefix = whole.tokens.slice(0, 2);
    expect(engine.tokenizer.decode(prefix).trim().toLowerCase()).toBe('go forward');
    const rest = await decodeWithFallback(engine.tokenizer, window, { ...base, prefix });
    // The same words as the free decoding's tail. Not always the same tokens: the forced prefix goes through the
    // uncached first call, whose float sums differ in the last bits, and a near-tie (" ten" / " 10") can flip
    // with the CPU's instruction set.
    expect(rest.tokens.every((t) => !engine.tokenizer.isTimestamp(t))).toBe(true);
    expect(normaliseWords(engine.tokenizer.decode(rest.tokens))).toEqual(normaliseWords(engine.tokenizer.decode(whole.tokens.slice(2))));
    // maxNewTokens caps what is decoded after the prefix.
    const capped = await decodeWithFallback(engine.tokenizer, window, { ...base, maxNewTokens: 2 });
    expect(capped.tokens).toEqual(whole.tokens.slice(0, 2));
  });
});

/**
 * Diarization with an operator's speaker-embedding network: the Kaldi filterbank it reads (fbank.ts), the model's
 * loading and contract checks (speaker-embedding.ts), the cosine clustering (diarize-embeddings.ts), and the whole
 * path on the two-speaker fixture. No real embedding network can be downloaded here: the models are small real
 * ONNX graphs written by test/helpers/onnx-model.ts and run by onnxruntime-node.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { clusterEmbeddings, unitLength } from '../../workers/engine/speakers/diarize-embeddings.js';
import { cmn, FbankStream, fbankFrameCount, FBANK_BINS, FBANK_LOG_FLOOR, htkMel, kaldiFbank } from '../../workers/engine/speakers/fbank.js';
import { SpeechEngine } from '../../workers/engine/speech-engine.js';
import {
  findSpeakerEmbedding, SPEAKER_EMBEDDING_PATH, speakerEmbeddingFile, SpeakerEmbeddingModel,
} from '../../workers/engine/speakers/speaker-embedding.js';
import { dctProjection, toySpeakerEmbedding, type ToyEmbeddingOptions } from '../helpers/onnx-model.js';
import { measureDiarization, TWO_SPEAKERS } from '../helpers/speakers.js';

const tone = (hz: number, samples: number, amplitude = 0.3) => Float32Array.from(
  { length: samples }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / 16_000),
);

/** A deterministic uniform sampler in [-0.5, 0.5). */
function uniforms(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5;
}

describe('Kaldi filterbank (fbank.ts)', () => {
  it('has 1 + ⌊(N − 400) / 160⌋ frames of N samples (whole frames only)', () => {
    for (const [samples, frames] of [[0, 0], [399, 0], [400, 1], [559, 1], [560, 2], [16_000, 98], [16_123, 99]]) {
      expect(fbankFrameCount(samples)).toBe(frames);
      expect(kaldiFbank(new Float32Array(samples)).frames).toBe(frames);
    }
  });

  it("matches a NumPy transcription of torchaudio's kaldi.fbank (Povey and Hamming windows)", () => {
    // Reference values from NumPy (rfft, float64) following torchaudio.compliance.kaldi.fbank step by step, on this
    // signal; bins 0, 10, 27, 50, 79 of frames 0 and 5.
    const audio = Float32Array.from({ length: 1200 }, (_, i) => 0.3 * Math.sin(0.2 * i) + 0.1 * Math.sin(1.3 * i + 0.001 * i * i) + 0.05);
    const expected = {
      povey: [[12.1802, 10.2533, 8.7735, 9.1065, 3.2111], [12.3911, 10.2765, 8.783, 1.7791, 26.2885]],
      hamming: [[12.547, 12.8053, 13.394, 13.8271, 14.1885], [13.0156, 10.6042, 13.9034, 12.8968, 26.2827]],
    };
    for (const window of ['povey', 'hamming'] as const) {
      const { data, frames } = kaldiFbank(audio, { window });
      expect(frames).toBe(6);
      [0, 5].forEach((t, row) => [0, 10, 27, 50, 79].forEach(
        (bin, col) => expect(data[t * FBANK_BINS + bin]).toBeCloseTo(expected[window][row][col], 3),
      ));
    }
  });

  it("puts a pure tone's energy in the mel bin centred nearest it", () => {
    const low = htkMel(20);
    const delta = (htkMel(8000) - low) / 81;
    for (const hz of [300, 1000, 2500, 6000]) {
      // Bin b is centred at mel(20) + (b + 1)·Δ on the HTK scale.
      const nearest = Math.round((htkMel(hz) - low) / delta) - 1;
      const { data, frames } = kaldiFbank(tone(hz, 4000));
      for (let t = 0; t < frames; t++) {
        const row = Array.from(data.subarray(t * FBANK_BINS, (t + 1) * FBANK_BINS));
        expect(row.indexOf(Math.max(...row))).toBe(nearest);
        // Far from the tone, the energy is orders of magnitude lower (natural log: 9 ≈ ×8000).
        expect(row[nearest] - row[(nearest + 20) % FBANK_BINS]).toBeGreaterThan(9);
      }
    }
  });

  it('removes a DC offset per frame, floors silence at log(float32 epsilon), and streams in pieces as it computes whole', () => {
    // White noise: every bin holds energy far above the float32 rounding of the shifted samples.
    const next = uniforms(1);
    const audio = Float32Array.from({ length: 8000 }, () => 0.4 * next());
    const shifted = audio.map((x) => x + 0.25);
    const [plain, offset] = [kaldiFbank(audio).data, kaldiFbank(shifted).data];
    let worst = 0;
    for (let i = 0; i < plain.length; i++) worst = Math.max(worst, Math.abs(plain[i] - offset[i]));
    expect(worst).toBeLessThan(1e-3);

    const silence = kaldiFbank(new Float32Array(1600));
    expect(silence.data.every((v) => v === Math.fround(Math.log(FBANK_LOG_FLOOR)))).toBe(true);

    const noise = Float32Array.from({ length: 16_000 + 77 }, () => 0.4 * next());
    const stream = new FbankStream();
    for (let i = 0; i < noise.length; i += 333) stream.push(noise.subarray(i, i + 333));
    const streamed = stream.finish();
    const whole = kaldiFbank(noise);
    expect(streamed.frames).toBe(whole.frames);
    expect(Array.from(streamed.data)).toEqual(Array.from(whole.data));
  });

  it('mean-normalises over time per bin (cmn), which cancels the loudness of the audio', () => {
    const audio = Float32Array.from({ length: 16_000 }, (_, i) => 0.2 * Math.sin(i * 0.05) * Math.sin(i * 0.9 + Math.sin(i * 0.001)));
    const quiet = kaldiFbank(audio);
    const loud = kaldiFbank(audio.map((x) => x * 4));
    const a = cmn(quiet, 10, 60);
    const b = cmn(loud, 10, 60);
    expect(a.length).toBe(50 * FBANK_BINS);
    for (let bin = 0; bin < FBANK_BINS; bin++) {
      let sum = 0;
      for (let t = 0; t < 50; t++) sum += a[t * FBANK_BINS + bin];
      expect(Math.abs(sum / 50)).toBeLessThan(1e-4);
    }
    // ×4 adds log 16 to every value before normalisation, nothing after.
    expect(quiet.data[20 * FBANK_BINS + 30] - loud.data[20 * FBANK_BINS + 30]).toBeCloseTo(-Math.log(16), 4);
    for (let i = 0; i < a.length; i++) expect(a[i]).toBeCloseTo(b[i], 3);
  });
});

/** A MODELS_DIR holding `model` as speaker-embedding/model.onnx (and `config` as its config.json). */
const dirs: string[] = [];
function modelsDir(model?: Uint8Array, config?: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'speechgate-speakers-'));
  dirs.push(dir);
  if (model) {
    mkdirSync(join(dir, 'speaker-embedding'));
    writeFileSync(join(dir, SPEAKER_EMBEDDING_PATH), model);
  }
  if (config) writeFileSync(join(dir, 'speaker-embedding', 'config.json'), JSON.stringify(config));
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Keeps the log-variance profile's shape (DCT coefficients 2–8): it tells the fixture's two speakers apart. */
const SEPARATING: ToyEmbeddingOptions = { projection: dctProjection(2, 8) };
/** Answers the same embedding for any audio: everything is one speaker. */
const CONSTANT: ToyEmbeddingOptions = { projection: new Float32Array(80 * 3), bias: [1, 0, 0] };

const loadToy = (options: ToyEmbeddingOptions, config?: object) => SpeakerEmbeddingModel.load(join(
  modelsDir(toySpeakerEmbedding(options), config), SPEAKER_EMBEDDING_PATH,
));

describe('the speaker-embedding model (speaker-embedding.ts)', () => {
  it('is found in MODELS_DIR/speaker-embedding/model.onnx, and is null without one', async () => {
    const empty = modelsDir();
    expect(speakerEmbeddingFile(empty)).toBeNull();
    expect(speakerEmbeddingFile(undefined)).toBeNull();
    await expect(findSpeakerEmbedding(empty)).resolves.toBeNull();
    const dir = modelsDir(toySpeakerEmbedding(SEPARATING));
    expect(speakerEmbeddingFile(dir)).toBe(join(dir, 'speaker-embedding', 'model.onnx'));
    const found = await findSpeakerEmbedding(dir);
    expect(found?.dimension).toBe(7);
    // Loaded once per thread.
    expect(await findSpeakerEmbedding(dir)).toBe(found);
  });

  it('reads the names and D from the session and runs [1, T, 80] → [1, D] through onnxruntime', async () => {
    const model = await loadToy(SEPARATING);
    expect([model.inputName, model.outputName, model.dimension]).toEqual(['feats', 'embedding', 7]);
    const frames = 120;
    const features = Float32Array.from({ length: frames * FBANK_BINS }, (_, i) => Math.sin(i * 0.37) * (1 + (i % FBANK_BINS) / 40));
    const embedding = await model.embed(features, frames);
    // What the graph computes, in JavaScript: DCT 2–8 of log(mean over time of x² + 1e-6).
    const profile = Array.from({ length: FBANK_BINS }, (_, b) => {
      let sum = 0;
      for (let t = 0; t < frames; t++) sum += features[t * FBANK_BINS + b] ** 2;
      return Math.log(sum / frames + 1e-6);
    });
    const projection = dctProjection(2, 8);
    const expected = Array.from({ length: 7 }, (_, k) => profile.reduce((s, v, b) => s + v * projection[b * 7 + k], 0));
    expect(embedding.length).toBe(7);
    embedding.forEach((v, k) => expect(v).toBeCloseTo(expected[k], 3));
    await model.release();
  });

  it('refuses, saying why, a model whose input is not [1, T, 80] or that onnxruntime cannot read', async () => {
    await expect(loadToy({ projection: dctProjection(2, 8, 64), inputShape: [1, 'T', 64] })).rejects.toThrow(
      /speaker-embedding\/model\.onnx: its first input 'feats' is \[1, T, 64\]; expected \[1, T, 80\]/,
    );
    await expect(loadToy({ ...SEPARATING, inputShape: [1, 80, 'T'] })).rejects.toThrow(/'feats' is \[1, 80, T\]; expected \[1, T, 80\]/);
    await expect(loadToy({ ...SEPARATING, inputShape: [1, 300, 80] })).rejects.toThrow(/is \[1, 300, 80\]; expected .*T dynamic/);
    await expect(SpeakerEmbeddingModel.load(join(modelsDir(Buffer.from('not a model')), SPEAKER_EMBEDDING_PATH))).rejects.toThrow(
      /onnxruntime cannot load it/,
    );
    await expect(loadToy(SEPARATING, { window: 'hann' })).rejects.toThrow(/"window" must be "povey" or "hamming"/);
  });

  it("takes the filterbank window and the stopping threshold from the model's config.json", async () => {
    const model = await loadToy(SEPARATING, { window: 'hamming', threshold: 0.35 });
    expect(model.fbank).toEqual({ window: 'hamming' });
    expect(model.distanceThreshold).toBe(0.35);
  });
});

describe('clusterEmbeddings (average linkage, cosine distance)', () => {
  /** `count` unit vectors around each of `speakers` random directions in 16 dimensions, speakers interleaved. */
  function embeddings(speakers: number, count: number, spread: number, seed: number): { vectors: Float64Array[]; truth: number[] } {
    const next = uniforms(seed);
    const centres = Array.from({ length: speakers }, () => unitLength(Array.from({ length: 16 }, next)));
    const truth = Array.from({ length: speakers * count }, (_, i) => (i * 7) % speakers);
    return { vectors: truth.map((s) => unitLength(Array.from(centres[s], (v) => v + spread * next()))), truth };
  }

  it.each([1, 2, 3, 5])('finds %i speaker(s) with the default threshold (0.5)', (speakers) => {
    const { vectors, truth } = embeddings(speakers, 6, 0.15, speakers);
    const labels = clusterEmbeddings(vectors);
    expect(new Set(labels).size).toBe(speakers);
    truth.forEach((s, i) => expect(labels[i]).toBe(labels[truth.indexOf(s)]));
    expect(labels[0]).toBe(0);
  });

  it('merges nothing with a threshold of 0, and merges past the threshold down to maxSpeakers', () => {
    const { vectors } = embeddings(4, 3, 0.15, 9);
    expect(new Set(clusterEmbeddings(vectors, { distanceThreshold: 0 })).size).toBe(12);
    expect(new Set(clusterEmbeddings(vectors, { maxSpeakers: 2 })).size).toBe(2);
    expect(new Set(clusterEmbeddings(vectors, { distanceThreshold: 2.1 })).size).toBe(1);
  });
});

describe('diarization with a speaker-embedding model (two-speakers fixture)', () => {
  it('labels by the embeddings: a model that keeps the speakers apart finds both', async () => {
    const embedding = await loadToy(SEPARATING);
    const { turns, speakers, error } = await measureDiarization(TWO_SPEAKERS.audio, TWO_SPEAKERS.rttm, { embedding });
    // Measured: 2 speakers, 4.7% DER (missed speech only, as the classical path), no confusion.
    expect(speakers).toBe(2);
    expect(error!.der).toBeLessThan(0.1);
    expect(error!.confusionS).toBeLessThan(1);
    expect(turns[0].speaker).toBe(0);
    for (const turn of turns) expect(turn.confidence).toBeGreaterThan(0.5);
  }, 60_000);

  it('labels by the embeddings: a model that answers one embedding for everything gives one speaker', async () => {
    // The classical diarizer finds two speakers here (diarize.test.ts): one means the model decided.
    const embedding = await loadToy(CONSTANT);
    const { turns, speakers } = await measureDiarization(TWO_SPEAKERS.audio, TWO_SPEAKERS.rttm, { embedding });
    expect(speakers).toBe(1);
    expect(turns.length).toBeGreaterThan(5);
    expect(turns.every((t) => t.confidence === 1)).toBe(true);
  }, 60_000);

  it("is what a file job's diarizeFile uses when MODELS_DIR has the model; without one, or with a broken one, it is "
    + "classical", async () => {
    const withModel = await SpeechEngine.load({ modelsDir: modelsDir(toySpeakerEmbedding(CONSTANT)) });
    expect((await withModel.speakerEmbedding())?.dimension).toBe(3);
    expect(new Set((await withModel.diarizeFile(TWO_SPEAKERS.audio)).map((t) => t.speaker)).size).toBe(1);

    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const broken = await SpeechEngine.load({ modelsDir: modelsDir(toySpeakerEmbedding({ ...SEPARATING, inputShape: [1, 80, 'T'] })) });
    expect(await broken.speakerEmbedding()).toBeNull();
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/expected \[1, T, 80\].*classical diarizer/));
    warn.mockRestore();
    expect(new Set((await broken.diarizeFile(TWO_SPEAKERS.audio)).map((t) => t.speaker)).size).toBe(2);
  }, 120_000);
});

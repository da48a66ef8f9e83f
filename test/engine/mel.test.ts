/**
 * The log-mel features against values computed here from the definition, independently of the engine's
 * code path: a direct O(N²) DFT per frame (no FFT), the mel filters built from the Slaney formulas written
 * out again, and Whisper's normalisation. Plus two anchors that do not depend on any implementation.
 */
import { describe, expect, it } from 'vitest';
import { decodeFileToPcm } from '../../workers/engine/audio.js';
import { LiveLogMel, logMelSpectrogram, MixedRadixFft, N_FRAMES, N_MELS } from '../../workers/engine/whisper/mel.js';
import { fixture } from '../helpers/fixtures.js';

const SR = 16000;
const NFFT = 400;
const HOP = 160;

// Slaney mel scale (Auditory Toolbox; librosa htk=False): 200/3 Hz per mel below 1 kHz, log above.
const toMel = (f: number) => (f < 1000 ? (3 * f) / 200 : 15 + (27 * Math.log(f / 1000)) / Math.log(6.4));
const fromMel = (m: number) => (m < 15 ? (200 * m) / 3 : 1000 * Math.pow(6.4, (m - 15) / 27));

function referenceFilter(bin: number): number[] {
  const edges = [0, 1, 2].map((i) => fromMel((toMel(8000) * (bin + i)) / (N_MELS + 1)));
  return Array.from({ length: NFFT / 2 + 1 }, (_, k) => {
    const f = (k * SR) / NFFT;
    let weight = 0;
    if (f > edges[0] && f <= edges[1]) weight = (f - edges[0]) / (edges[1] - edges[0]);
    else if (f > edges[1] && f < edges[2]) weight = (edges[2] - f) / (edges[2] - edges[1]);
    return (weight * 2) / (edges[2] - edges[0]);
  });
}

/** log10 mel energy of frame t, bin m, straight from the definition. */
function referenceLogMel(audio: Float32Array, t: number, filters: number[][]): number[] {
  const padded = (i: number) => {
    // reflect 200 samples at the start (torch.stft center=True); at the end, whisper's 30 s of zero padding
    let j = i - NFFT / 2;
    if (j < 0) j = -j;
    return j < audio.length ? audio[j] : 0;
  };
  const frame = Array.from({ length: NFFT }, (_, n) => padded(t * HOP + n) * (0.5 - 0.5 * Math.cos((2 * Math.PI * n) / NFFT)));
  const power = Array.from({ length: NFFT / 2 + 1 }, (_, k) => {
    let re = 0;
    let im = 0;
    for (let n = 0; n < NFFT; n++) {
      re += frame[n] * Math.cos((2 * Math.PI * k * n) / NFFT);
      im -= frame[n] * Math.sin((2 * Math.PI * k * n) / NFFT);
    }
    return re * re + im * im;
  });
  return filters.map((row) => Math.log10(Math.max(1e-10, row.reduce((sum, w, k) => sum + w * power[k], 0))));
}

describe('MixedRadixFft', () => {
  it('equals a direct DFT for sizes made of 2, 3, 4 and 5 (mel: 200, fbank: 512), and refuses other primes', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
    for (const size of [1, 2, 3, 5, 12, 45, 200, 512]) {
      const inRe = Float64Array.from({ length: size }, random);
      const inIm = Float64Array.from({ length: size }, random);
      const outRe = new Float64Array(size);
      const outIm = new Float64Array(size);
      new MixedRadixFft(size).transform(inRe, inIm, outRe, outIm);
      for (let k = 0; k < size; k++) {
        let re = 0;
        let im = 0;
        for (let n = 0; n < size; n++) {
          const angle = (-2 * Math.PI * k * n) / size;
          re += inRe[n] * Math.cos(angle) - inIm[n] * Math.sin(angle);
          im += inRe[n] * Math.sin(angle) + inIm[n] * Math.cos(angle);
        }
        expect(Math.abs(outRe[k] - re) + Math.abs(outIm[k] - im), `size ${size} bin ${k}`).toBeLessThan(1e-10);
      }
    }
    expect(() => new MixedRadixFft(14)).toThrow('prime factor above 5');
  });
});

describe('log-mel features', () => {
  it('match a direct DFT of the same definition on real speech', async () => {
    const audio = await decodeFileToPcm(fixture('goforward.wav'));
    const features = logMelSpectrogram(audio);
    expect(features.length).toBe(N_MELS * N_FRAMES);
    const filters = Array.from({ length: N_MELS }, (_, m) => referenceFilter(m));
    // The clamp needs the global maximum: every frame that touches audio, the rest is log10(1e-10).
    const framesWithAudio = Math.ceil((audio.length + NFFT / 2) / HOP) + 1;
    const reference: number[][] = [];
    let max = -10;
    for (let t = 0; t < framesWithAudio; t++) {
      reference.push(referenceLogMel(audio, t, filters));
      max = Math.max(max, ...reference[t]);
    }
    const normalised = (value: number) => (Math.max(value, max - 8) + 4) / 4;
    const frames = [0, 1, 37, 120, 200, framesWithAudio - 2, framesWithAudio - 1];
    const bins = [0, 1, 13, 40, 66, 79];
    for (const t of frames) {
      for (const m of bins) {
        expect(features[m * N_FRAMES + t], `frame ${t} bin ${m}`).toBeCloseTo(normalised(reference[t][m]), 4);
      }
    }
    // Beyond the audio only padding: the floor value everywhere.
    for (const m of bins) expect(features[m * N_FRAMES + 2500]).toBeCloseTo(normalised(-10), 5);
  });

  it("end a full 30 s window on whisper's zero padding: its last frame sees zeros after the audio, not the audio reflected", () => {
    // 30 s of a 440 Hz tone whose last 100 ms are silent but for a 3 kHz burst in the last 5 ms: reflected, the
    // burst would be counted twice in the last frame; zero-padded (whisper pads 30 s of zeros before its STFT), once.
    const audio = new Float32Array(SR * 30);
    for (let i = 0; i < audio.length - SR / 10; i++) audio[i] = 0.3 * Math.sin((2 * Math.PI * 440 * i) / SR);
    for (let i = audio.length - 80; i < audio.length; i++) audio[i] = 0.5 * Math.sin((2 * Math.PI * 3000 * i) / SR);
    const features = logMelSpectrogram(audio);
    const filters = Array.from({ length: N_MELS }, (_, m) => referenceFilter(m));
    const last = referenceLogMel(audio, N_FRAMES - 1, filters);
    const band = last.indexOf(Math.max(...last));
    // The clamp's maximum, read back from the features: the loudest value is (max + 4) / 4.
    const maxLog = 4 * features.reduce((a, b) => Math.max(a, b), -Infinity) - 4;
    expect(last[band]).toBeGreaterThan(maxLog - 8);
    expect(features[band * N_FRAMES + N_FRAMES - 1]).toBeCloseTo((last[band] + 4) / 4, 4);
    // What a reflection would have given instead (its mirror meets the Hann window's tail: 0.024 in log10, far
    // more than the 4 decimals checked above).
    const reflected = Float32Array.from(
      { length: audio.length + NFFT / 2 }, (_, i) => (i < audio.length ? audio[i] : audio[2 * (audio.length - 1) - i]),
    );
    const mirrored = referenceLogMel(reflected, N_FRAMES - 1, filters)[band];
    expect(Math.abs(mirrored - last[band]) / 4).toBeGreaterThan(1e-3);
  });

  it('puts a 1 kHz tone in the mel band centred on 1 kHz (mel 15)', () => {
    const tone = Float32Array.from({ length: SR }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 1000 * i) / SR));
    const features = logMelSpectrogram(tone);
    const frame = 50;
    let best = 0;
    for (let m = 1; m < N_MELS; m++) if (features[m * N_FRAMES + frame] > features[best * N_FRAMES + frame]) best = m;
    // Band m peaks at mel (m + 1) · mel(8000) / 81 ≈ 0.5586 (m + 1): 1 kHz falls between bands 25 and 26.
    expect([25, 26]).toContain(best);
  });

  it('scales as Whisper does: the loudest value is (max + 4) / 4 and nothing is below (max − 8 + 4) / 4', async () => {
    const audio = await decodeFileToPcm(fixture('goforward.wav'));
    const features = logMelSpectrogram(audio);
    let hi = -Infinity;
    let lo = Infinity;
    for (const value of features) {
      hi = Math.max(hi, value);
      lo = Math.min(lo, value);
    }
    expect(lo).toBeCloseTo(hi - 2, 5); // 8 decades below the top, divided by 4; silence padding sits there
  });
});

describe('live log-mel features', () => {
  it('equal the whole computation bit for bit while the buffer grows and is cut', async () => {
    const speech = await decodeFileToPcm(fixture('political-philosophy-60s.wav'));
    const live = new LiveLogMel();
    let start = 0;
    let end = 0;
    // Grow by live-sized pieces (some not whole hops), cut by whole hops and once by a part of a hop.
    const steps: [grow: number, cut: number][] = [
      [4800, 0], [3200, 0], [3333, 0], [6400, 0], [1600, 3200], [4000, 0], [2500, 160 * 37], [8000, 0], [3200, 1234], [4800, 0], [
        16000 * 12, 0,
      ], [100, 0],
    ];
    for (const [grow, cut] of steps) {
      if (cut) {
        live.cut(cut);
        start += cut;
      }
      end += grow;
      const audio = speech.slice(start, end);
      const expected = logMelSpectrogram(audio);
      const actual = live.features(audio);
      expect(Buffer.from(actual.buffer).equals(Buffer.from(expected.buffer)), `after growing by ${grow} and cutting ${cut}`).toBe(true);
    }
    expect(() => live.features(new Float32Array(16000 * 31))).toThrow(/at most/);
  });
});

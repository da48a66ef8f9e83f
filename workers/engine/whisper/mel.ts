/**
 * Whisper's log-mel spectrogram, with the reference implementation's constants (openai/whisper audio.py):
 * 16 kHz, n_fft 400, hop 160, periodic Hann window, centred STFT (reflect padding at the start; at the end the
 * zeros of Whisper's 30 s padding), power spectrum,
 * 80 Slaney-normalised mel filters over 0–8000 Hz, log10 of max(x, 1e-10), floor at (max − 8), then
 * (x + 4) / 4. Input is padded with zeros to 30 s and gives 3000 frames (the STFT's last frame is dropped).
 */
export const SAMPLE_RATE = 16_000;
export const N_FFT = 400;
export const HOP_LENGTH = 160;
export const N_MELS = 80;
export const CHUNK_SECONDS = 30;
export const N_SAMPLES = CHUNK_SECONDS * SAMPLE_RATE; // 480 000
export const N_FRAMES = N_SAMPLES / HOP_LENGTH; // 3000
const N_BINS = N_FFT / 2 + 1; // 201

/** Slaney mel scale (librosa's default `htk=False`): linear below 1 kHz, logarithmic above. */
function hzToMel(hz: number): number {
  const fSp = 200 / 3;
  const minLogHz = 1000;
  const minLogMel = minLogHz / fSp;
  const logStep = Math.log(6.4) / 27;
  return hz >= minLogHz ? minLogMel + Math.log(hz / minLogHz) / logStep : hz / fSp;
}

function melToHz(mel: number): number {
  const fSp = 200 / 3;
  const minLogHz = 1000;
  const minLogMel = minLogHz / fSp;
  const logStep = Math.log(6.4) / 27;
  return mel >= minLogMel ? minLogHz * Math.exp(logStep * (mel - minLogMel)) : fSp * mel;
}

/** librosa.filters.mel(sr=16000, n_fft=400, n_mels=80, norm='slaney'): [80][201] triangle weights. */
export function melFilterBank(nMels = N_MELS): Float32Array[] {
  const fftFreqs = Array.from({ length: N_BINS }, (_, i) => (i * SAMPLE_RATE) / N_FFT);
  const minMel = hzToMel(0);
  const maxMel = hzToMel(SAMPLE_RATE / 2);
  const melPoints = Array.from({ length: nMels + 2 }, (_, i) => melToHz(minMel + ((maxMel - minMel) * i) / (nMels + 1)));
  const filters: Float32Array[] = [];
  for (let m = 0; m < nMels; m++) {
    const row = new Float32Array(N_BINS);
    const lowerWidth = melPoints[m + 1] - melPoints[m];
    const upperWidth = melPoints[m + 2] - melPoints[m + 1];
    const areaNorm = 2 / (melPoints[m + 2] - melPoints[m]);
    for (let k = 0; k < N_BINS; k++) {
      const rising = (fftFreqs[k] - melPoints[m]) / lowerWidth;
      const falling = (melPoints[m + 2] - fftFreqs[k]) / upperWidth;
      row[k] = Math.max(0, Math.min(rising, falling)) * areaNorm;
    }
    filters.push(row);
  }
  return filters;
}

/**
 * A mixed-radix complex FFT (sizes with factors 2, 3, 5), used at 200 points for the 400-point real STFT (and at
 * 512 by fbank.ts):
 * n_fft is not a power of two, and a plain DFT costs ~50× more. Recursive decimation in time; each stage combines its p
 * sub-transforms with a direct p-point
 * DFT, using one shared table of the 400 roots of unity.
 */
export class MixedRadixFft {
  private readonly factors: number[] = [];
  private readonly rootRe: Float64Array;
  private readonly rootIm: Float64Array;
  private readonly sumRe = new Float64Array(8);
  private readonly sumIm = new Float64Array(8);

  constructor(readonly size: number) {
    let rest = size;
    for (const p of [4, 2, 3, 5]) {
      while (rest % p === 0) {
        this.factors.push(p);
        rest /= p;
      }
    }
    if (rest !== 1) throw new Error(`FFT size ${size} has a prime factor above 5`);
    this.rootRe = new Float64Array(size);
    this.rootIm = new Float64Array(size);
    for (let j = 0; j < size; j++) {
      this.rootRe[j] = Math.cos((2 * Math.PI * j) / size);
      this.rootIm[j] = -Math.sin((2 * Math.PI * j) / size);
    }
  }

  /** Complex spectrum of a complex signal: outRe/outIm get all `size` bins. */
  transform(inRe: Float64Array, inIm: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
    this.recurse(inRe, inIm, 0, 1, this.size, outRe, outIm, 0, 0);
  }

  private recurse(
    inRe: Float64Array, inIm: Float64Array, inOffset: number, stride: number, n: number, outRe: Float64Array, outIm: Float64Array,
    outOffset: number, level: number,
  ): void {
    if (n === 1) {
      outRe[outOffset] = inRe[inOffset];
      outIm[outOffset] = inIm[inOffset];
      return;
    }
    const p = this.factors[level];
    const m = n / p;
    for (let q = 0; q < p; q++) this.recurse(inRe, inIm, inOffset + q * stride, stride * p, m, outRe, outIm, outOffset + q * m, level + 1);
    const rootStep = this.size / n; // W_n^j = W_size^(j·size/n)
    const { rootRe, rootIm, sumRe, sumIm } = this;
    for (let k = 0; k < m; k++) {
      for (let s = 0; s < p; s++) {
        sumRe[s] = 0;
        sumIm[s] = 0;
      }
      for (let q = 0; q < p; q++) {
        // y_q[k] · W_n^(q·k), then spread over the p outputs k + s·m with W_n^(q·s·m)
        const index = outOffset + q * m + k;
        const t = q * k * rootStep; // < size: q < p and k < m
        const yRe = outRe[index] * rootRe[t] - outIm[index] * rootIm[t];
        const yIm = outRe[index] * rootIm[t] + outIm[index] * rootRe[t];
        const pointStep = (this.size / p) * q; // W_p^(q·s) = W_size^(s·q·size/p)
        for (let s = 0, u = 0; s < p; s++, u = (u + pointStep) % this.size) {
          sumRe[s] += yRe * rootRe[u] - yIm * rootIm[u];
          sumIm[s] += yRe * rootIm[u] + yIm * rootRe[u];
        }
      }
      for (let s = 0; s < p; s++) {
        outRe[outOffset + k + s * m] = sumRe[s];
        outIm[outOffset + k + s * m] = sumIm[s];
      }
    }
  }
}

/** Precomputed tables shared by every call in this thread (pure data, safe per worker). */
interface MelTables {
  window: Float64Array;
  /** Half-size complex FFT: a real 400-point frame is transformed as 200 complex points (even + i·odd). */
  fft: MixedRadixFft;
  /** e^(−2πik/400) for k = 0..200, to unpack the half-size transform. */
  unpackRe: Float64Array;
  unpackIm: Float64Array;
  filters: Float32Array[];
  /** Per mel row: first and one-past-last non-zero FFT bin, so the filter product skips zeros. */
  filterRange: [number, number][];
}
let tables: MelTables | undefined;

function melTables(): MelTables {
  if (tables) return tables;
  const window = new Float64Array(N_FFT);
  for (let i = 0; i < N_FFT; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT); // periodic Hann
  const filters = melFilterBank();
  const filterRange = filters.map((row): [number, number] => {
    let first = 0;
    while (first < N_BINS && row[first] === 0) first++;
    let last = N_BINS;
    while (last > first && row[last - 1] === 0) last--;
    return [first, last];
  });
  const unpackRe = new Float64Array(N_BINS);
  const unpackIm = new Float64Array(N_BINS);
  for (let k = 0; k < N_BINS; k++) {
    unpackRe[k] = Math.cos((2 * Math.PI * k) / N_FFT);
    unpackIm[k] = -Math.sin((2 * Math.PI * k) / N_FFT);
  }
  tables = { window, fft: new MixedRadixFft(N_FFT / 2), unpackRe, unpackIm, filters, filterRange };
  return tables;
}

/**
 * log10 mel energies of frames [from, to) of `audio` (≤ 30 s) into `raw`, laid out [80][3000]; returns the
 * largest value written. Frame t sees samples t·160 − 200 … t·160 + 199 (reflected before the start, zeros
 * after the end, also past 30 s: Whisper pads the audio with 30 s of zeros before its STFT, so the last frame of
 * a full window sees zeros, not the window's audio reflected).
 */
function logMelFrames(audio: Float32Array, from: number, to: number, raw: Float32Array, frameMax?: Float64Array): number {
  const { window, fft, unpackRe, unpackIm, filters, filterRange } = melTables();
  const pad = N_FFT / 2;
  // Sample i of the signal reflected at its start and zero-extended at its end.
  const paddedSample = (i: number): number => {
    let j = i - pad;
    if (j < 0) j = -j; // reflect: x[-1] = x[1]
    return j < audio.length ? audio[j] : 0;
  };
  const frame = new Float64Array(N_FFT);
  const power = new Float64Array(N_BINS);
  const half = N_FFT / 2;
  const evenOdd = [new Float64Array(half), new Float64Array(half)];
  const zRe = new Float64Array(half);
  const zIm = new Float64Array(half);
  let maxLog = -Infinity;
  for (let t = from; t < to; t++) {
    let frameLogMax = -Infinity;
    const begin = t * HOP_LENGTH;
    for (let n = 0; n < N_FFT; n++) frame[n] = paddedSample(begin + n) * window[n];
    // z[n] = x[2n] + i·x[2n+1]; Z = FFT200(z); then X[k] = E[k] + W^k·O[k] with
    // E[k] = (Z[k] + conj Z[200−k]) / 2 and O[k] = (Z[k] − conj Z[200−k]) / 2i.
    for (let n = 0; n < half; n++) {
      evenOdd[0][n] = frame[2 * n];
      evenOdd[1][n] = frame[2 * n + 1];
    }
    fft.transform(evenOdd[0], evenOdd[1], zRe, zIm);
    for (let k = 0; k < N_BINS; k++) {
      const a = k % half;
      const b = (half - k + half) % half;
      const eRe = (zRe[a] + zRe[b]) / 2;
      const eIm = (zIm[a] - zIm[b]) / 2;
      const oRe = (zIm[a] + zIm[b]) / 2;
      const oIm = -(zRe[a] - zRe[b]) / 2;
      const re = eRe + unpackRe[k] * oRe - unpackIm[k] * oIm;
      const im = eIm + unpackRe[k] * oIm + unpackIm[k] * oRe;
      power[k] = re * re + im * im;
    }
    for (let m = 0; m < N_MELS; m++) {
      const row = filters[m];
      const [first, last] = filterRange[m];
      let energy = 0;
      for (let k = first; k < last; k++) energy += row[k] * power[k];
      const value = Math.log10(Math.max(energy, 1e-10));
      raw[m * N_FRAMES + t] = value;
      if (value > frameLogMax) frameLogMax = value;
    }
    if (frameMax) frameMax[t] = frameLogMax;
    if (frameLogMax > maxLog) maxLog = frameLogMax;
  }
  return maxLog;
}

/** Frames that start past the audio (plus the window reach) see only zeros: power 0, log floor −10. */
const framesWithAudio = (samples: number) => Math.min(N_FRAMES, Math.ceil((samples + N_FFT / 2) / HOP_LENGTH) + 1);

/** Whisper's normalisation of raw log energies (the first `frames` hold audio) into `out`: floor at max − 8, (x + 4) / 4. */
function normalise(raw: Float32Array, frames: number, maxLog: number, out: Float32Array): Float32Array {
  if (frames < N_FRAMES && maxLog < -10) maxLog = -10;
  const floor = maxLog - 8;
  for (let m = 0; m < N_MELS; m++) {
    const rowOffset = m * N_FRAMES;
    for (let t = 0; t < N_FRAMES; t++) {
      const value = t < frames ? raw[rowOffset + t] : -10;
      out[rowOffset + t] = (Math.max(value, floor) + 4) / 4;
    }
  }
  return out;
}

/**
 * Log-mel features of up to 30 s of 16 kHz audio, laid out [80][3000] (row-major, mel bin first) as the
 * encoder's `input_features` wants. Audio longer than 30 s is an error: the caller windows it.
 */
export function logMelSpectrogram(audio: Float32Array, out = new Float32Array(N_MELS * N_FRAMES)): Float32Array {
  if (audio.length > N_SAMPLES) throw new Error(`logMelSpectrogram takes at most ${N_SAMPLES} samples, got ${audio.length}`);
  const frames = framesWithAudio(audio.length);
  return normalise(out, frames, logMelFrames(audio, 0, frames, out), out);
}

/**
 * Raw log10 mel energies (no Whisper normalisation) of up to 30 s of audio, laid out [80][3000] with the
 * number of frames that hold audio: the speaker features of diarize.ts start from these.
 */
export function rawLogMel(audio: Float32Array): { data: Float32Array; frames: number } {
  if (audio.length > N_SAMPLES) throw new Error(`rawLogMel takes at most ${N_SAMPLES} samples, got ${audio.length}`);
  const data = new Float32Array(N_MELS * N_FRAMES);
  const frames = Math.floor(audio.length / HOP_LENGTH);
  logMelFrames(audio, 0, frames, data);
  return { data, frames };
}

/**
 * Log-mel features of a live buffer that grows at its end and is cut at its start, recomputing only the
 * frames that changed: a frame is final once every sample it sees has arrived, and a cut by whole hops
 * shifts the final frames (but the first two, which reflect the new start). The features equal
 * `logMelSpectrogram` of the same audio, bit for bit.
 */
export class LiveLogMel {
  private readonly raw = new Float32Array(N_MELS * N_FRAMES);
  /** Per-frame maximum before rounding to float32 (as the whole computation takes it), for the global maximum. */
  private readonly frameMax = new Float64Array(N_FRAMES);
  /** Frames [0, final) of `raw` hold the final values for the audio given last. */
  private final = 0;
  /** The start was cut: frames 0 and 1, which reflect it, are stale. */
  private startMoved = false;

  /** Forget everything: the next audio is not the last one grown or cut. */
  reset(): void {
    this.final = 0;
  }

  /** The buffer lost its first `samples` samples since the last call (whole hops keep the frames; else a reset). */
  cut(samples: number): void {
    const frames = samples / HOP_LENGTH;
    if (!Number.isInteger(frames) || frames >= this.final) {
      this.reset();
      return;
    }
    for (let m = 0; m < N_MELS; m++) this.raw.copyWithin(m * N_FRAMES, m * N_FRAMES + frames, m * N_FRAMES + this.final);
    this.frameMax.copyWithin(0, frames, this.final);
    this.final -= frames;
    this.startMoved = true;
  }

  /** Features of `audio`: the audio of the last call, cut as reported and grown at the end. */
  features(audio: Float32Array, out = new Float32Array(N_MELS * N_FRAMES)): Float32Array {
    if (audio.length > N_SAMPLES) throw new Error(`LiveLogMel takes at most ${N_SAMPLES} samples, got ${audio.length}`);
    const frames = framesWithAudio(audio.length);
    const reused = Math.min(this.final, frames);
    if (this.startMoved) logMelFrames(audio, 0, Math.min(2, reused), this.raw, this.frameMax);
    this.startMoved = false;
    logMelFrames(audio, reused, frames, this.raw, this.frameMax);
    // Frame t is final once samples up to t·160 + 199 have arrived.
    this.final = Math.max(0, Math.min(frames, Math.floor((audio.length - N_FFT / 2) / HOP_LENGTH) + 1));
    let maxLog = -Infinity;
    for (let t = 0; t < frames; t++) if (this.frameMax[t] > maxLog) maxLog = this.frameMax[t];
    out.set(this.raw.subarray(0, out.length));
    return normalise(out, frames, maxLog, out);
  }
}

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
 * A mixed-radix complex FFT (sizes with factors 2, 3, 4, 5), used at 200 points for the 400-point real STFT (and at
 * 512 by fbank.ts): n_fft is not a power of two, and a plain DFT costs ~50× more. Decimation in time, iterative: the
 * input is read in mixed-radix digit-reversed order, then each stage, smallest first, combines p sub-transforms of
 * size m into one of size p·m in place (each sub-transform's value k times its twiddle W_pm^(q·k), from a table per
 * stage, then a p-point butterfly written out for each radix).
 */
export class MixedRadixFft {
  /** The input index each output position starts from (digit reversal). */
  private readonly order: Int32Array;
  /** Innermost stage first: radix p, sub-transform size m, and the twiddles W_pm^(q·k) for q = 1..p−1, k = 0..m−1. */
  private readonly stages: { p: number; m: number; twRe: Float64Array; twIm: Float64Array }[] = [];

  constructor(readonly size: number) {
    const factors: number[] = [];
    let rest = size;
    for (const p of [4, 2, 3, 5]) {
      while (rest % p === 0) {
        factors.push(p);
        rest /= p;
      }
    }
    if (rest !== 1) throw new Error(`FFT size ${size} has a prime factor above 5`);
    // Output position i of the recursion's leaves reads input i's digits reversed: the outermost factor splits the
    // input by index modulo p (decimation in time) and places sub-transform q at q·(size/p).
    this.order = new Int32Array(size);
    const fill = (inOffset: number, stride: number, n: number, outOffset: number, level: number): void => {
      if (n === 1) {
        this.order[outOffset] = inOffset;
        return;
      }
      const p = factors[level];
      for (let q = 0; q < p; q++) fill(inOffset + q * stride, stride * p, n / p, outOffset + q * (n / p), level + 1);
    };
    fill(0, 1, size, 0, 0);
    let m = 1;
    for (let level = factors.length - 1; level >= 0; level--) {
      const p = factors[level];
      const n = p * m;
      const twRe = new Float64Array((p - 1) * m);
      const twIm = new Float64Array((p - 1) * m);
      for (let q = 1; q < p; q++) {
        for (let k = 0; k < m; k++) {
          twRe[(q - 1) * m + k] = Math.cos((2 * Math.PI * q * k) / n);
          twIm[(q - 1) * m + k] = -Math.sin((2 * Math.PI * q * k) / n);
        }
      }
      this.stages.push({ p, m, twRe, twIm });
      m = n;
    }
  }

  /** Complex spectrum of a complex signal: outRe/outIm get all `size` bins. */
  transform(inRe: Float64Array, inIm: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
    const { size, order } = this;
    for (let i = 0; i < size; i++) {
      outRe[i] = inRe[order[i]];
      outIm[i] = inIm[order[i]];
    }
    for (const { p, m, twRe, twIm } of this.stages) {
      const n = p * m;
      for (let block = 0; block < size; block += n) {
        if (p === 2) radix2(outRe, outIm, block, m, twRe, twIm);
        else if (p === 4) radix4(outRe, outIm, block, m, twRe, twIm);
        else if (p === 3) radix3(outRe, outIm, block, m, twRe, twIm);
        else radix5(outRe, outIm, block, m, twRe, twIm);
      }
    }
  }
}

// The butterflies: for k < m, a_q = x[block + q·m + k] · W^(q·k) (the stage's twiddle), then
// x[block + s·m + k] = Σ_q a_q · W_p^(q·s), with W_p = e^(−2πi/p).

/** a_q of the butterfly at i0 (sub-transform 0 untwiddled), for q < p. */
const aRe = new Float64Array(5);
const aIm = new Float64Array(5);
function twiddled(
  re: Float64Array, im: Float64Array, i0: number, m: number, p: number, k: number, twRe: Float64Array, twIm: Float64Array,
): void {
  aRe[0] = re[i0];
  aIm[0] = im[i0];
  for (let q = 1; q < p; q++) {
    const i = i0 + q * m;
    const t = (q - 1) * m + k;
    aRe[q] = re[i] * twRe[t] - im[i] * twIm[t];
    aIm[q] = re[i] * twIm[t] + im[i] * twRe[t];
  }
}

function radix2(re: Float64Array, im: Float64Array, block: number, m: number, twRe: Float64Array, twIm: Float64Array): void {
  for (let k = 0; k < m; k++) {
    const i0 = block + k;
    twiddled(re, im, i0, m, 2, k, twRe, twIm);
    re[i0] = aRe[0] + aRe[1];
    im[i0] = aIm[0] + aIm[1];
    re[i0 + m] = aRe[0] - aRe[1];
    im[i0 + m] = aIm[0] - aIm[1];
  }
}

function radix3(re: Float64Array, im: Float64Array, block: number, m: number, twRe: Float64Array, twIm: Float64Array): void {
  const c = -0.5;
  const s = Math.sqrt(3) / 2;
  for (let k = 0; k < m; k++) {
    const i0 = block + k;
    twiddled(re, im, i0, m, 3, k, twRe, twIm);
    const t = aRe[1] + aRe[2];
    const ti = aIm[1] + aIm[2];
    // −i·s·(a1 − a2)
    const dRe = s * (aIm[1] - aIm[2]);
    const dIm = -s * (aRe[1] - aRe[2]);
    re[i0] = aRe[0] + t;
    im[i0] = aIm[0] + ti;
    re[i0 + m] = aRe[0] + c * t + dRe;
    im[i0 + m] = aIm[0] + c * ti + dIm;
    re[i0 + 2 * m] = aRe[0] + c * t - dRe;
    im[i0 + 2 * m] = aIm[0] + c * ti - dIm;
  }
}

function radix4(re: Float64Array, im: Float64Array, block: number, m: number, twRe: Float64Array, twIm: Float64Array): void {
  for (let k = 0; k < m; k++) {
    const i0 = block + k;
    twiddled(re, im, i0, m, 4, k, twRe, twIm);
    const s02 = aRe[0] + aRe[2];
    const s02i = aIm[0] + aIm[2];
    const d02 = aRe[0] - aRe[2];
    const d02i = aIm[0] - aIm[2];
    const s13 = aRe[1] + aRe[3];
    const s13i = aIm[1] + aIm[3];
    // −i·(a1 − a3)
    const r13 = aIm[1] - aIm[3];
    const r13i = -(aRe[1] - aRe[3]);
    re[i0] = s02 + s13;
    im[i0] = s02i + s13i;
    re[i0 + m] = d02 + r13;
    im[i0 + m] = d02i + r13i;
    re[i0 + 2 * m] = s02 - s13;
    im[i0 + 2 * m] = s02i - s13i;
    re[i0 + 3 * m] = d02 - r13;
    im[i0 + 3 * m] = d02i - r13i;
  }
}

const C1 = Math.cos((2 * Math.PI) / 5);
const C2 = Math.cos((4 * Math.PI) / 5);
const S1 = Math.sin((2 * Math.PI) / 5);
const S2 = Math.sin((4 * Math.PI) / 5);

function radix5(re: Float64Array, im: Float64Array, block: number, m: number, twRe: Float64Array, twIm: Float64Array): void {
  for (let k = 0; k < m; k++) {
    const i0 = block + k;
    twiddled(re, im, i0, m, 5, k, twRe, twIm);
    const t1 = aRe[1] + aRe[4];
    const t1i = aIm[1] + aIm[4];
    const t2 = aRe[2] + aRe[3];
    const t2i = aIm[2] + aIm[3];
    const d1 = aRe[1] - aRe[4];
    const d1i = aIm[1] - aIm[4];
    const d2 = aRe[2] - aRe[3];
    const d2i = aIm[2] - aIm[3];
    const b1 = aRe[0] + C1 * t1 + C2 * t2;
    const b1i = aIm[0] + C1 * t1i + C2 * t2i;
    const b2 = aRe[0] + C2 * t1 + C1 * t2;
    const b2i = aIm[0] + C2 * t1i + C1 * t2i;
    // y1, y4 = b1 ∓ i·(S1·d1 + S2·d2); y2, y3 = b2 ∓ i·(S2·d1 − S1·d2); −i·(x + i·y) = y − i·x
    const e1 = S1 * d1 + S2 * d2;
    const e1i = S1 * d1i + S2 * d2i;
    const e2 = S2 * d1 - S1 * d2;
    const e2i = S2 * d1i - S1 * d2i;
    re[i0] = aRe[0] + t1 + t2;
    im[i0] = aIm[0] + t1i + t2i;
    re[i0 + m] = b1 + e1i;
    im[i0 + m] = b1i - e1;
    re[i0 + 4 * m] = b1 - e1i;
    im[i0 + 4 * m] = b1i + e1;
    re[i0 + 2 * m] = b2 + e2i;
    im[i0 + 2 * m] = b2i - e2;
    re[i0 + 3 * m] = b2 - e2i;
    im[i0 + 3 * m] = b2i + e2;
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
  const power = new Float64Array(N_BINS);
  const half = N_FFT / 2;
  const even = new Float64Array(half);
  const odd = new Float64Array(half);
  const zRe = new Float64Array(half);
  const zIm = new Float64Array(half);
  let maxLog = -Infinity;
  for (let t = from; t < to; t++) {
    let frameLogMax = -Infinity;
    const begin = t * HOP_LENGTH;
    // z[n] = x[2n] + i·x[2n+1]; Z = FFT200(z); then X[k] = E[k] + W^k·O[k] with
    // E[k] = (Z[k] + conj Z[200−k]) / 2 and O[k] = (Z[k] − conj Z[200−k]) / 2i.
    const first = begin - pad;
    if (first >= 0 && first + N_FFT <= audio.length) {
      for (let n = 0; n < half; n++) {
        even[n] = audio[first + 2 * n] * window[2 * n];
        odd[n] = audio[first + 2 * n + 1] * window[2 * n + 1];
      }
    } else {
      for (let n = 0; n < half; n++) {
        even[n] = paddedSample(begin + 2 * n) * window[2 * n];
        odd[n] = paddedSample(begin + 2 * n + 1) * window[2 * n + 1];
      }
    }
    fft.transform(even, odd, zRe, zIm);
    for (let k = 0; k < N_BINS; k++) {
      const a = k === half ? 0 : k;
      const b = k === 0 ? 0 : half - k;
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

/**
 * Whisper's log-mel spectrogram, with the reference implementation's constants (openai/whisper audio.py):
 * 16 kHz, n_fft 400, hop 160, periodic Hann window, centred STFT with reflect padding, power spectrum,
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

/** Precomputed tables shared by every call in this thread (pure data, safe per worker). */
interface MelTables {
  window: Float64Array;
  cos: Float64Array; // [N_BINS][N_FFT]
  sin: Float64Array;
  filters: Float32Array[];
  /** Per mel row: first and one-past-last non-zero FFT bin, so the filter product skips zeros. */
  filterRange: [number, number][];
}
let tables: MelTables | undefined;

function melTables(): MelTables {
  if (tables) return tables;
  const window = new Float64Array(N_FFT);
  for (let i = 0; i < N_FFT; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT); // periodic Hann
  // n_fft = 400 is not a power of two; a real DFT against precomputed cos/sin rows is exact and, at
  // ~80 k multiply-adds per frame, costs well under 1 % of the encoder's time per window.
  const cos = new Float64Array(N_BINS * N_FFT);
  const sin = new Float64Array(N_BINS * N_FFT);
  for (let k = 0; k < N_BINS; k++) {
    for (let n = 0; n < N_FFT; n++) {
      const angle = (2 * Math.PI * ((k * n) % N_FFT)) / N_FFT;
      cos[k * N_FFT + n] = Math.cos(angle);
      sin[k * N_FFT + n] = Math.sin(angle);
    }
  }
  const filters = melFilterBank();
  const filterRange = filters.map((row): [number, number] => {
    let first = 0;
    while (first < N_BINS && row[first] === 0) first++;
    let last = N_BINS;
    while (last > first && row[last - 1] === 0) last--;
    return [first, last];
  });
  tables = { window, cos, sin, filters, filterRange };
  return tables;
}

/**
 * Log-mel features of up to 30 s of 16 kHz audio, laid out [80][3000] (row-major, mel bin first) as the
 * encoder's `input_features` wants. Audio longer than 30 s is an error: the caller windows it.
 */
export function logMelSpectrogram(audio: Float32Array, out = new Float32Array(N_MELS * N_FRAMES)): Float32Array {
  if (audio.length > N_SAMPLES) throw new Error(`logMelSpectrogram takes at most ${N_SAMPLES} samples, got ${audio.length}`);
  const { window, cos, sin, filters, filterRange } = melTables();
  const pad = N_FFT / 2;
  // Sample i of the reflect-padded, zero-extended signal (index into the 30 s padded audio, then reflected).
  const paddedSample = (i: number): number => {
    let j = i - pad;
    if (j < 0) j = -j; // reflect: x[-1] = x[1]
    else if (j >= N_SAMPLES) j = 2 * (N_SAMPLES - 1) - j;
    return j < audio.length ? audio[j] : 0;
  };
  // Frames that start past the audio (plus the window reach) see only zeros: power 0, log floor −10.
  const framesWithAudio = Math.min(N_FRAMES, Math.ceil((audio.length + pad) / HOP_LENGTH) + 1);
  const frame = new Float64Array(N_FFT);
  const power = new Float64Array(N_BINS);
  let maxLog = -Infinity;
  for (let t = 0; t < framesWithAudio; t++) {
    const begin = t * HOP_LENGTH;
    for (let n = 0; n < N_FFT; n++) frame[n] = paddedSample(begin + n) * window[n];
    for (let k = 0; k < N_BINS; k++) {
      let re = 0;
      let im = 0;
      const rowOffset = k * N_FFT;
      for (let n = 0; n < N_FFT; n++) {
        re += frame[n] * cos[rowOffset + n];
        im -= frame[n] * sin[rowOffset + n];
      }
      power[k] = re * re + im * im;
    }
    for (let m = 0; m < N_MELS; m++) {
      const row = filters[m];
      const [first, last] = filterRange[m];
      let energy = 0;
      for (let k = first; k < last; k++) energy += row[k] * power[k];
      const value = Math.log10(Math.max(energy, 1e-10));
      out[m * N_FRAMES + t] = value;
      if (value > maxLog) maxLog = value;
    }
  }
  if (framesWithAudio < N_FRAMES && maxLog < -10) maxLog = -10;
  const floor = maxLog - 8;
  for (let m = 0; m < N_MELS; m++) {
    const rowOffset = m * N_FRAMES;
    for (let t = 0; t < N_FRAMES; t++) {
      const value = t < framesWithAudio ? out[rowOffset + t] : -10;
      out[rowOffset + t] = (Math.max(value, floor) + 4) / 4;
    }
  }
  return out;
}

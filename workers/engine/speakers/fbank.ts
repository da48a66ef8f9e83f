/**
 * Kaldi's log-mel filterbank (`compute-fbank`, as `torchaudio.compliance.kaldi.fbank` computes it), the input of
 * the common open speaker-embedding networks (WeSpeaker ResNet, 3D-Speaker CAM++, ECAPA exports):
 *
 * 16 kHz, frames of 25 ms (400 samples) every 10 ms (160), only whole frames (`snip_edges`: 1 + ⌊(N − 400) / 160⌋
 * of them), no dither; per frame: the mean removed (DC), pre-emphasis 0.97 (the first sample against itself), the
 * Povey window ((Hann, not periodic)^0.85; Hamming as an option), zero-padded to 512 points, power spectrum, 80
 * triangular filters evenly spaced on the HTK mel scale (1127·ln(1 + f/700)) from 20 Hz to 8 kHz, peak 1, not
 * area-normalised (the Nyquist bin takes no part), natural log of max(energy, float32 epsilon). Samples are scaled
 * to 16-bit range first, as Kaldi reads them (float audio × 32768).
 *
 * `cmn` mean-normalises a stretch of frames over time, per bin, as the embedding networks expect per utterance.
 */
import { MixedRadixFft, SAMPLE_RATE } from '../whisper/mel.js';

export const FBANK_BINS = 80;
/** 25 ms. */
export const FBANK_FRAME_LENGTH = 400;
/** 10 ms. */
export const FBANK_FRAME_SHIFT = 160;
const PADDED = 512;
/** float32 epsilon: Kaldi's floor before the log. */
export const FBANK_LOG_FLOOR = 1.1920928955078125e-7;

export interface FbankOptions {
  /** 'povey' (Kaldi's default, 3D-Speaker) or 'hamming' (WeSpeaker's training recipe). */
  window: 'povey' | 'hamming';
  /** Multiplies the samples first: 32768 = Kaldi's 16-bit range. After `cmn` only the log floor sees it. */
  scale: number;
  preemphasis: number;
  lowHz: number;
  highHz: number;
}

export const DEFAULT_FBANK_OPTIONS: FbankOptions = { window: 'povey', scale: 32768, preemphasis: 0.97, lowHz: 20, highHz: SAMPLE_RATE / 2 };

/** Filterbank frames of `samples` samples (Kaldi's snip_edges: whole frames only). */
export const fbankFrameCount = (samples: number): number => (samples < FBANK_FRAME_LENGTH ? 0 : 1 + Math.floor(
  (samples - FBANK_FRAME_LENGTH) / FBANK_FRAME_SHIFT,
));

/** The HTK mel scale Kaldi uses. */
export const htkMel = (hz: number): number => 1127 * Math.log(1 + hz / 700);

/** One triangular filter: weights of FFT bins [first, first + weights.length). */
export interface MelFilter {
  first: number;
  weights: Float64Array;
  /** Centre frequency in Hz. */
  centreHz: number;
}

/** Kaldi's `MelBanks`: `bins` triangles evenly spaced in mel between lowHz and highHz, over a 512-point FFT. */
export function kaldiMelBanks(bins = FBANK_BINS, lowHz = DEFAULT_FBANK_OPTIONS.lowHz, highHz = DEFAULT_FBANK_OPTIONS.highHz): MelFilter[] {
  const binHz = SAMPLE_RATE / PADDED;
  const low = htkMel(lowHz);
  const delta = (htkMel(highHz) - low) / (bins + 1);
  return Array.from({ length: bins }, (_, b) => {
    const left = low + b * delta;
    const centre = left + delta;
    const right = centre + delta;
    const weights: number[] = [];
    let first = -1;
    for (let k = 0; k < PADDED / 2; k++) {
      const mel = htkMel(k * binHz);
      const weight = Math.max(0, Math.min((mel - left) / (centre - left), (right - mel) / (right - centre)));
      if (weight > 0 && first < 0) first = k;
      if (first >= 0 && weight > 0) weights[k - first] = weight;
    }
    return { first: Math.max(first, 0), weights: Float64Array.from(weights, (w) => w ?? 0), centreHz: 700 * (Math.exp(centre / 1127) - 1) };
  });
}

/** Kaldi's analysis windows (symmetric: N − 1 in the denominator). */
export function fbankWindow(kind: FbankOptions['window'], length = FBANK_FRAME_LENGTH): Float64Array {
  return Float64Array.from({ length }, (_, n) => {
    const cos = Math.cos((2 * Math.PI * n) / (length - 1));
    return kind === 'povey' ? Math.pow(0.5 - 0.5 * cos, 0.85) : 0.54 - 0.46 * cos;
  });
}

/** Filterbank frames, [frames × 80] row-major (frame t: samples 160·t … 160·t + 399). */
export interface Fbank {
  data: Float32Array;
  frames: number;
}

/** Computes frames one at a time with its own buffers and tables. */
class FbankComputer {
  private readonly window: Float64Array;
  private readonly filters = kaldiMelBanks();
  private readonly fft = new MixedRadixFft(PADDED);
  private readonly re = new Float64Array(PADDED);
  private readonly im = new Float64Array(PADDED);
  private readonly outRe = new Float64Array(PADDED);
  private readonly outIm = new Float64Array(PADDED);
  private readonly power = new Float64Array(PADDED / 2);

  constructor(private readonly options: FbankOptions) {
    this.window = fbankWindow(options.window);
  }

  /** The frame starting at `audio[start]` into `out[at … at + 80)`. */
  frame(audio: Float32Array, start: number, out: Float32Array, at: number): void {
    const { re, im, window, power } = this;
    const { scale, preemphasis } = this.options;
    let mean = 0;
    for (let n = 0; n < FBANK_FRAME_LENGTH; n++) mean += audio[start + n];
    mean = (mean * scale) / FBANK_FRAME_LENGTH;
    // Pre-emphasis after the DC removal, backwards so each sample still sees its unmodified predecessor.
    for (let n = 0; n < FBANK_FRAME_LENGTH; n++) re[n] = audio[start + n] * scale - mean;
    for (let n = FBANK_FRAME_LENGTH - 1; n > 0; n--) re[n] -= preemphasis * re[n - 1];
    re[0] -= preemphasis * re[0];
    for (let n = 0; n < FBANK_FRAME_LENGTH; n++) re[n] *= window[n];
    re.fill(0, FBANK_FRAME_LENGTH);
    im.fill(0);
    this.fft.transform(re, im, this.outRe, this.outIm);
    for (let k = 0; k < PADDED / 2; k++) power[k] = this.outRe[k] * this.outRe[k] + this.outIm[k] * this.outIm[k];
    for (let b = 0; b < FBANK_BINS; b++) {
      const { first, weights } = this.filters[b];
      let energy = 0;
      for (let k = 0; k < weights.length; k++) energy += weights[k] * power[first + k];
      out[at + b] = Math.log(Math.max(energy, FBANK_LOG_FLOOR));
    }
  }
}

/** Kaldi filterbank of 16 kHz mono audio in [-1, 1]. */
export function kaldiFbank(audio: Float32Array, options: Partial<FbankOptions> = {}): Fbank {
  const computer = new FbankComputer({ ...DEFAULT_FBANK_OPTIONS, ...options });
  const frames = fbankFrameCount(audio.length);
  const data = new Float32Array(frames * FBANK_BINS);
  for (let t = 0; t < frames; t++) computer.frame(audio, t * FBANK_FRAME_SHIFT, data, t * FBANK_BINS);
  return { data, frames };
}

/** The filterbank of a stream pushed in pieces of any size; equals `kaldiFbank` of the whole audio. 32 kB per second kept. */
export class FbankStream {
  private readonly computer: FbankComputer;
  /** Samples not yet consumed: the start of the next frame onwards. */
  private pending = new Float32Array(0);
  private readonly parts: Float32Array[] = [];
  private frames = 0;

  constructor(options: Partial<FbankOptions> = {}) {
    this.computer = new FbankComputer({ ...DEFAULT_FBANK_OPTIONS, ...options });
  }

  push(samples: Float32Array): void {
    const audio = new Float32Array(this.pending.length + samples.length);
    audio.set(this.pending);
    audio.set(samples, this.pending.length);
    const count = fbankFrameCount(audio.length);
    if (count > 0) {
      const data = new Float32Array(count * FBANK_BINS);
      for (let t = 0; t < count; t++) this.computer.frame(audio, t * FBANK_FRAME_SHIFT, data, t * FBANK_BINS);
      this.parts.push(data);
      this.frames += count;
    }
    this.pending = audio.slice(count * FBANK_FRAME_SHIFT);
  }

  finish(): Fbank {
    const data = new Float32Array(this.frames * FBANK_BINS);
    let at = 0;
    for (const part of this.parts) {
      data.set(part, at);
      at += part.length;
    }
    return { data, frames: this.frames };
  }
}

/** Frames [from, to) of `fbank`, each bin's mean over those frames subtracted (cepstral mean normalisation). */
export function cmn(fbank: Fbank, from: number, to: number): Float32Array {
  const frames = to - from;
  const out = fbank.data.slice(from * FBANK_BINS, to * FBANK_BINS);
  const mean = new Float64Array(FBANK_BINS);
  for (let t = 0; t < frames; t++) for (let b = 0; b < FBANK_BINS; b++) mean[b] += out[t * FBANK_BINS + b];
  for (let b = 0; b < FBANK_BINS; b++) mean[b] /= Math.max(frames, 1);
  for (let t = 0; t < frames; t++) for (let b = 0; b < FBANK_BINS; b++) out[t * FBANK_BINS + b] -= mean[b];
  return out;
}

/**
 * What a voice sounds like, measured from 16 kHz mono audio: how much of it is speech (Silero VAD, the engine's
 * workers/engine/vad.ts), its pitch (the median F0 of voiced frames, YIN) and its spectral envelope (the mean of
 * the 19 MFCCs of workers/engine/speakers/diarize.ts `speakerFrames` over its loud frames: timbre, and the level-free
 * shape of the spectrum). The same measurements are taken of a sample and of Kokoro speaking, so the two compare.
 */
import {
  concatSamples, N_CEPS, speakerFrames, SAMPLE_RATE, DEFAULT_VAD_OPTIONS, SileroVad, SpeechDetector,
} from '../../workers/engine/index.js';

export interface VoiceMeasure {
  /** Seconds of speech the VAD found. */
  speechS: number;
  /** Median F0 of voiced frames in Hz; null when no frame was voiced. */
  f0Hz: number | null;
  /** Mean MFCC vector (19) of the speech's loud frames. */
  envelope: number[];
}

let vad: Promise<SileroVad> | null = null;

/** The speech of `audio` (16 kHz mono), its regions joined; pauses of 0.3 s or more are left out. */
export async function speechOf(audio: Float32Array): Promise<{ speech: Float32Array; speechS: number }> {
  vad ??= SileroVad.load();
  vad.catch(() => (vad = null));
  const stream = (await vad).createStream();
  const detector = new SpeechDetector({ ...DEFAULT_VAD_OPTIONS, minSilenceMs: 300, speechPadMs: 30 });
  const regions = detector.push(await stream.push(audio));
  regions.push(...detector.finish(audio.length));
  const speech = concatSamples(regions.map((region) => audio.subarray(region.start, region.end)));
  return { speech, speechS: speech.length / SAMPLE_RATE };
}

const YIN_WINDOW = 512;
const YIN_HOP = 320;
const MIN_F0 = 60;
const MAX_F0 = 400;
const YIN_THRESHOLD = 0.15;

/** YIN (de Cheveigné & Kawahara 2002) per 20 ms hop: the F0 of each frame whose aperiodicity dip is clear. */
export async function pitchTrack(audio: Float32Array): Promise<number[]> {
  const minLag = Math.floor(SAMPLE_RATE / MAX_F0);
  const maxLag = Math.ceil(SAMPLE_RATE / MIN_F0);
  const diff = new Float64Array(maxLag + 2);
  const out: number[] = [];
  let peak = 0;
  for (const sample of audio) peak = Math.max(peak, Math.abs(sample));
  let frame = 0;
  for (let start = 0; start + YIN_WINDOW + maxLag + 1 < audio.length; start += YIN_HOP) {
    // Other requests are answered between batches of frames (a minute of speech is a few hundred ms of work).
    if (++frame % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    let energy = 0;
    for (let j = 0; j < YIN_WINDOW; j++) energy += audio[start + j]! ** 2;
    // Quiet frames (30 dB below the loudest sample) carry no reliable pitch.
    if (Math.sqrt(energy / YIN_WINDOW) < peak * 0.03) continue;
    for (let lag = 1; lag <= maxLag + 1; lag++) {
      let sum = 0;
      for (let j = 0; j < YIN_WINDOW; j++) {
        const d = audio[start + j]! - audio[start + j + lag]!;
        sum += d * d;
      }
      diff[lag] = sum;
    }
    // Cumulative mean normalised difference, then the first dip below the threshold (its local minimum).
    let running = 0;
    let found = -1;
    const cmnd = new Float64Array(maxLag + 2);
    for (let lag = 1; lag <= maxLag + 1; lag++) {
      running += diff[lag]!;
      cmnd[lag] = running > 0 ? (diff[lag]! * lag) / running : 1;
    }
    for (let lag = minLag; lag <= maxLag; lag++) {
      if (cmnd[lag]! < YIN_THRESHOLD) {
        while (lag + 1 <= maxLag && cmnd[lag + 1]! < cmnd[lag]!) lag++;
        found = lag;
        break;
      }
    }
    if (found < 0) continue;
    // Parabolic interpolation around the dip.
    const [a, b, c] = [cmnd[found - 1]!, cmnd[found]!, cmnd[found + 1]!];
    const shift = a + c - 2 * b !== 0 ? (a - c) / (2 * (a + c - 2 * b)) : 0;
    out.push(SAMPLE_RATE / (found + Math.max(-1, Math.min(1, shift))));
  }
  return out;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Pitch and envelope of speech audio (already cut to its speech). */
export async function measureSpeech(speech: Float32Array): Promise<Omit<VoiceMeasure, 'speechS'>> {
  const frames = speakerFrames(speech);
  let loudest = -Infinity;
  for (let t = 0; t < frames.frames; t++) loudest = Math.max(loudest, frames.energy[t]!);
  const envelope = new Array<number>(N_CEPS).fill(0);
  let counted = 0;
  for (let t = 0; t < frames.frames; t++) {
    // Frames within 3 (log10 units, 30 dB) of the loudest: the voice, not the pauses between words.
    if (frames.energy[t]! < loudest - 3) continue;
    for (let c = 0; c < N_CEPS; c++) envelope[c]! += frames.ceps[t * N_CEPS + c]!;
    counted++;
  }
  return { f0Hz: median(await pitchTrack(speech)), envelope: envelope.map((sum) => (counted ? sum / counted : 0)) };
}

/**
 * How far apart two voices sound: four times the pitch difference in octaves (a semitone weighs 0.33) plus the distance
 * of the envelopes (RMS over
 * the 19 coefficients, log10 units). A missing pitch counts as an octave away.
 */
export function voiceDistance(a: Omit<VoiceMeasure, 'speechS'>, b: Omit<VoiceMeasure, 'speechS'>): number {
  const pitch = a.f0Hz && b.f0Hz ? Math.abs(Math.log2(a.f0Hz / b.f0Hz)) : 1;
  let sum = 0;
  for (let c = 0; c < N_CEPS; c++) sum += (a.envelope[c]! - b.envelope[c]!) ** 2;
  return 4 * pitch + Math.sqrt(sum / N_CEPS);
}

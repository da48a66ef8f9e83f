/**
 * Cloning a voice from a sample, in this build: no network that turns a sample into a voice can be installed here,
 * so the `styleFit` cloner picks, among Kokoro's own styles, the one whose speech sounds nearest to the sample.
 *
 *   1. the sample's speech (Silero VAD); less than `minSpeechS` seconds of it is refused (`CloneRefusal`);
 *   2. its pitch (median F0, YIN) and spectral envelope (mean MFCCs), src/voices/measure.ts;
 *   3. candidates: catalogue voices of the sample's gender (given, else guessed from its pitch: below 165 Hz male),
 *      best-rated first, each speaking a fixed sentence, measured the same way;
 *   4. blends of the two nearest style tables (¼, ½, ¾), spoken and measured too;
 *   5. the nearest of all is the voice: its 510×256 float32 style table is what Kokoro speaks with.
 *
 * A real cloning model would replace all of this behind the same `VoiceCloner` interface (docs/voices.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE_RATE, Kokoro, KOKORO_SAMPLE_RATE, resample, STYLE_DIM, STYLE_ROWS } from '../../workers/engine/index.js';
import { measureSpeech, speechOf, voiceDistance, type VoiceMeasure } from './measure.js';
import { rankedCatalogue } from './catalogue.js';

export interface CloneOptions {
  /** `female` or `male` when the owner said so. */
  gender?: string | null;
  /** 0..1 as candidates are tried. */
  onProgress?: (fraction: number) => Promise<void> | void;
  signal?: AbortSignal;
}

export interface ClonedVoice {
  /** The style table Kokoro speaks with: STYLE_ROWS × STYLE_DIM float32. */
  style: Float32Array;
  /** What was measured and chosen, kept with the voice (`fit`). */
  report: Record<string, unknown>;
}

/** A sample that cannot make a voice (too little speech): the voice ends `failed` with this message. */
export class CloneRefusal extends Error {}

/**
 * Makes a voice from a sample. `sample` is 16 kHz mono float32, as recorded; `cloneVoice` throws CloneRefusal for a
 * sample that cannot make a voice, anything else for a fault of the server.
 */
export interface VoiceCloner {
  readonly name: string;
  clone(sample: Float32Array, options: CloneOptions): Promise<ClonedVoice>;
}

export interface StyleFitOptions {
  kokoro: () => Promise<Kokoro>;
  /** Seconds of speech a sample needs (default 5). */
  minSpeechS: number;
  /** Catalogue voices tried (default 4), then three blends of the nearest two. */
  candidates: number;
}

/** What every candidate says: short (about 2.5 s), voiced throughout, every vowel. */
export const FIT_TEXT = 'We were away a year ago, in the morning.';
/** Samples longer than this much speech are measured on their first this-many seconds. */
const MAX_MEASURED_SPEECH_S = 30;
const BLENDS = [0.25, 0.5, 0.75];
/** Below this median F0 a sample is matched against male voices. */
const MALE_BELOW_HZ = 165;

function table(bytes: Buffer): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

export function blendStyles(a: Float32Array, b: Float32Array, weight: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (1 - weight) * a[i]! + weight * b[i]!;
  return out;
}

export function styleFitCloner(options: StyleFitOptions): VoiceCloner {
  /** Catalogue voices measured once per process: they never change. */
  const measured = new Map<string, Promise<Omit<VoiceMeasure, 'speechS'>>>();

  async function speak(kokoro: Kokoro, style: Float32Array, signal?: AbortSignal) {
    const audio = await kokoro.synthesize(FIT_TEXT, { language: 'en-US', style, signal });
    return measureSpeech(await resample(audio, KOKORO_SAMPLE_RATE, SAMPLE_RATE, signal));
  }

  function catalogueStyle(kokoro: Kokoro, voice: string): Float32Array {
    const file = join(kokoro.modelDir, 'voices', `${voice}.bin`);
    if (!existsSync(file)) throw new Error(`Voice '${voice}' is not installed in ${kokoro.modelDir}.`);
    return table(readFileSync(file));
  }

  return {
    name: 'style-fit',
    async clone(sample, { gender, onProgress, signal }) {
      const { speech, speechS } = await speechOf(sample);
      if (speechS < options.minSpeechS) {
        throw new CloneRefusal(`The sample has ${speechS.toFixed(1)} s of speech; a voice needs at least ${options.minSpeechS} s of `
          + `someone speaking (music, tones, noise and silence do not count).`);
      }
      const target = await measureSpeech(speech.subarray(0, MAX_MEASURED_SPEECH_S * SAMPLE_RATE));
      if (target.f0Hz === null) throw new CloneRefusal('The sample has no voiced speech (no pitch could be measured in it).');
      const kokoro = await options.kokoro();
      const sex = gender === 'male' || gender === 'female' ? gender : target.f0Hz < MALE_BELOW_HZ ? 'male' : 'female';
      const ids = rankedCatalogue().filter((voice) => voice.gender === sex).slice(0, options.candidates).map((voice) => voice.id);
      const steps = ids.length + BLENDS.length;
      let done = 0;
      const step = async () => onProgress?.(++done / steps);

      const tried: Array<{ id: string; distance: number; style: Float32Array; f0Hz: number | null }> = [];
      for (const id of ids) {
        signal?.throwIfAborted();
        const style = catalogueStyle(kokoro, id);
        let measure = measured.get(id);
        if (!measure) {
          measure = speak(kokoro, style, signal);
          measured.set(id, measure);
          measure.catch(() => measured.delete(id));
        }
        const m = await measure;
        tried.push({ id, distance: voiceDistance(target, m), style, f0Hz: m.f0Hz });
        await step();
      }
      tried.sort((a, b) => a.distance - b.distance);
      const [first, second] = tried as [typeof tried[number], typeof tried[number]];
      let best = { id: first.id, distance: first.distance, style: first.style, f0Hz: first.f0Hz, blend: 0 };
      for (const weight of BLENDS) {
        signal?.throwIfAborted();
        const style = blendStyles(first.style, second.style, weight);
        const m = await speak(kokoro, style, signal);
        const distance = voiceDistance(target, m);
        if (distance < best.distance) best = { id: `${first.id}+${second.id}`, distance, style, f0Hz: m.f0Hz, blend: weight };
        await step();
      }
      if (best.style.length !== STYLE_ROWS * STYLE_DIM) throw new Error('the fitted style table has the wrong size');
      return {
        style: best.style,
        report: {
          cloner: 'style-fit',
          speechS: Math.round(speechS * 10) / 10,
          pitchHz: Math.round(target.f0Hz),
          gender: sex,
          basedOn: best.blend ? [first.id, second.id] : [best.id],
          blend: best.blend,
          voicePitchHz: best.f0Hz === null ? null : Math.round(best.f0Hz),
          distance: Math.round(best.distance * 1000) / 1000,
          candidates: tried.map((c) => ({ voice: c.id, distance: Math.round(c.distance * 1000) / 1000 })),
        },
      };
    },
  };
}

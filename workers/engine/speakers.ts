/**
 * Diarization of a whole source (diarize.ts on audio): voice activity with diarization's own settings (short
 * pauses end a region: a change of speaker often comes with one) and speaker features, both streamed, so only
 * the features (~8 kB per second) are kept, never the audio.
 */
import { diarize, SpeakerFeatureStream, type DiarizeOptions, type SpeakerTurn } from './diarize.js';
import { SAMPLE_RATE } from './mel.js';
import { DEFAULT_VAD_OPTIONS, SpeechDetector, type SileroVad, type SpeechRegion, type VadOptions } from './vad.js';

/** Voice activity for speaker turns: a 300 ms pause ends a region, 100 ms of padding. */
export const DIARIZATION_VAD_OPTIONS: VadOptions = { ...DEFAULT_VAD_OPTIONS, minSilenceMs: 300, speechPadMs: 100 };

export async function diarizeSource(vad: SileroVad, source: AsyncIterable<Float32Array>, options: Partial<DiarizeOptions> & { signal?: AbortSignal } = {}): Promise<SpeakerTurn[]> {
  const detector = new SpeechDetector(DIARIZATION_VAD_OPTIONS);
  const stream = vad.createStream();
  const features = new SpeakerFeatureStream();
  const regions: SpeechRegion[] = [];
  let total = 0;
  for await (const chunk of source) {
    options.signal?.throwIfAborted();
    features.push(chunk);
    total += chunk.length;
    regions.push(...detector.push(await stream.push(chunk)));
  }
  regions.push(...detector.finish(total));
  const pad = (DIARIZATION_VAD_OPTIONS.speechPadMs / 1000) * SAMPLE_RATE;
  const padded = regions.map((r, i) => ({
    start: Math.max(r.start - pad, i > 0 ? (regions[i - 1].end + r.start) / 2 : 0) / SAMPLE_RATE,
    end: Math.min(r.end + pad, i + 1 < regions.length ? (r.end + regions[i + 1].start) / 2 : total) / SAMPLE_RATE,
  }));
  return diarize(features.finish(), padded, options);
}

/**
 * Diarization of a whole source (diarize.ts on audio): voice activity with diarization's own settings (short
 * pauses end a region: a change of speaker often comes with one) and speaker features, both streamed, so only
 * the features (~8 kB per second) are kept, never the audio. Given a speaker-embedding network (`embedding`), the
 * turns are labelled by its embeddings instead (diarize-embeddings.ts), and the Kaldi filterbank it reads is kept
 * as well (32 kB per second more).
 */
import { diarizeWithEmbeddings, type EmbeddingDiarizeOptions, type SpeakerEmbedder } from './diarize-embeddings.js';
import { diarize, SpeakerFeatureStream, type DiarizeOptions, type SpeakerTurn } from './diarize.js';
import { FbankStream } from './fbank.js';
import { SAMPLE_RATE } from '../whisper/mel.js';
import { DEFAULT_VAD_OPTIONS, SpeechDetector, type SileroVad, type SpeechRegion, type VadOptions } from '../vad.js';

/** Voice activity for speaker turns: a 300 ms pause ends a region, 100 ms of padding. */
export const DIARIZATION_VAD_OPTIONS: VadOptions = { ...DEFAULT_VAD_OPTIONS, minSilenceMs: 300, speechPadMs: 100 };

export interface DiarizeSourceOptions extends Partial<DiarizeOptions>, Partial<EmbeddingDiarizeOptions> {
  signal?: AbortSignal;
  /** A speaker-embedding network (speaker-embedding.ts): with one, turns are clustered on its embeddings; without, classically. */
  embedding?: SpeakerEmbedder | null;
}

export async function diarizeSource(
  vad: SileroVad, source: AsyncIterable<Float32Array>, options: DiarizeSourceOptions = {},
): Promise<SpeakerTurn[]> {
  const detector = new SpeechDetector(DIARIZATION_VAD_OPTIONS);
  const stream = vad.createStream();
  const features = new SpeakerFeatureStream();
  const fbank = options.embedding ? new FbankStream(options.embedding.fbank) : null;
  const regions: SpeechRegion[] = [];
  let total = 0;
  for await (const chunk of source) {
    options.signal?.throwIfAborted();
    features.push(chunk);
    fbank?.push(chunk);
    total += chunk.length;
    regions.push(...detector.push(await stream.push(chunk)));
  }
  regions.push(...detector.finish(total));
  const pad = (DIARIZATION_VAD_OPTIONS.speechPadMs / 1000) * SAMPLE_RATE;
  const padded = regions.map((r, i) => ({
    start: Math.max(r.start - pad, i > 0 ? (regions[i - 1].end + r.start) / 2 : 0) / SAMPLE_RATE,
    end: Math.min(r.end + pad, i + 1 < regions.length ? (r.end + regions[i + 1].start) / 2 : total) / SAMPLE_RATE,
  }));
  if (options.embedding && fbank) return diarizeWithEmbeddings(features.finish(), fbank.finish(), padded, options.embedding, options);
  return diarize(features.finish(), padded, options);
}

/**
 * The one shape of transcribed text across the codebase. `Word` and `Segment` are the engine's (a segment as
 * decoded, times in seconds on its audio); a `CommittedSegment` is one as stored and served: the engine's
 * segment with its place in the recording (`seq`), its speaker and how it was decoded. Exports, sentences, the
 * durable log, the realtime socket and its client all speak these.
 */
import type { Segment, Word } from '../../workers/engine/index.js';

export type { Segment, Word };

export interface CommittedSegment extends Omit<Segment, 'confidence' | 'language' | 'speaker' | 'speakerConfidence'> {
  seq: number;
  /** -1 when speaker labels were off. */
  speaker: number;
  /** 0..1 diarization confidence of `speaker`; absent or null when labels were off. */
  speakerConfidence?: number | null;
  /** Live capture: true while `speaker` is the online guess; a `transcript.speaker` frame settles it. */
  speakerProvisional?: boolean | null;
  confidence?: number | null;
  language?: string | null;
  /** Which decoding path produced it: `accuracy` (beam search) or `fast` (greedy). */
  decoder?: 'fast' | 'accuracy' | null;
  /** Realtime only: seconds from the end of its audio to its commit. */
  latencyS?: number | null;
  /** Realtime only: decoded by the fast path while `auto` caught up. */
  catchup?: boolean | null;
  /** Realtime only: seconds of audio lost before it (a capture gap). */
  gapBefore?: number | null;
}

/** A committed segment's speaker label, settled: the body of a `transcript.speaker` frame that names a `seq`. */
export interface SpeakerSettled {
  seq: number;
  speaker: number;
  speakerConfidence: number;
  speakerProvisional: false;
}

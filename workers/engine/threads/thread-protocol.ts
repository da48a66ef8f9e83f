/**
 * The one message protocol between an engine host (threads.ts) and its engine threads (thread.ts), for file
 * transcriptions and live transcriptions alike. Everything is structured-cloneable; PCM travels as a transferred
 * ArrayBuffer (no copy). Every task has an id of the host's choosing; messages about one task keep their order.
 */
import type { LatencyMode, LiveSettings, LiveTuning, LiveUpdate } from '../live.js';
import type { Progress, Segment, UncoveredSpeech } from '../pipeline.js';
import type { TranslationResult } from '../whisper/translate.js';

export interface FileTaskOptions {
  language?: string;
  startS?: number;
  /** Beam width (1 = greedy); the temperature fallback applies either way. */
  beamSize?: number;
  /** Label each segment's speaker (classical diarization of the whole file first: diarize.ts). */
  speakerLabels?: boolean;
}

/** What a thread reports at the end of a file, including what actually decoded it (model and beam width). */
export interface FileTranscriptionResult {
  language: string;
  durationS: number;
  processingS: number;
  segments: number;
  /** The loaded model's name ('whisper-base'). */
  model: string;
  beamSize: number;
  /** Speech no word covers after the engine decoded it again (pipeline.ts TranscribeResult), seconds and where. */
  uncoveredSpeechS: number;
  uncoveredSpeech: UncoveredSpeech[];
  redecodedGaps: number;
}

/** A translation to English of a file's stretch of audio (translate.ts): answered once, with all its segments. */
export interface TranslateTaskOptions {
  /** The spoken language; absent: detected. */
  language?: string;
  startS?: number;
  endS?: number;
  beamSize?: number;
}

/** What a thread answers a translation with, including what decoded it. */
export interface SpeechTranslation extends TranslationResult {
  model: string;
  beamSize: number;
}

/** A failure crossing the thread boundary: the engine's own refusals keep their code and details. */
export interface ThreadFailure {
  code: string | null;
  message: string;
  details: Record<string, unknown>;
}

export type HostToThread =
  | { type: 'file'; id: string; path: string; options: FileTaskOptions }
  | { type: 'translate'; id: string; path: string; options: TranslateTaskOptions }
  | { type: 'live'; id: string; settings: LiveSettings; tuning: LiveTuning }
  | { type: 'audio'; id: string; pcm: ArrayBuffer }
  | { type: 'clock'; id: string; pcm: number; wall: number }
  | { type: 'update'; id: string; language?: string | null; latencyMode?: LatencyMode; speakerLabels?: boolean }
  | { type: 'flush'; id: string }
  | { type: 'eof'; id: string }
  | { type: 'cancel'; id: string };

export type ThreadToHost =
  | { type: 'loading'; stage: 'download' | 'model' }
  | { type: 'ready'; modelName: string; languages: string[]; provider: string; requestedProvider: string }
  | { type: 'load_failed'; message: string }
  | { type: 'segment'; id: string; segment: Segment; progress: Progress }
  | { type: 'live_update'; id: string; update: LiveUpdate }
  | { type: 'file_done'; id: string; result: FileTranscriptionResult }
  | { type: 'translate_done'; id: string; result: SpeechTranslation }
  | { type: 'live_done'; id: string; reason: 'eof' | 'cancelled' }
  | { type: 'failed'; id: string; failure: ThreadFailure };

/**
 * Messages between the gateway thread (engine-host.ts) and an engine worker thread (engine-worker.ts).
 * Everything here is structured-cloneable; PCM travels as a transferred ArrayBuffer (no copy).
 */
import type { Segment } from '../core/segments.js';

export type EngineMode = 'fast' | 'accuracy';
export type LatencyMode = 'auto' | EngineMode;

/** A committed segment as the worker reports it: times on the session's audio timeline, plus which pass decoded it. */
export interface WorkerSegment extends Segment {
  decoder: EngineMode;
}

export interface WorkerDraftSegment { start: number; text: string }

/** What a worker needs to load its engine (passed to `SpeechEngine.load`). */
export interface EngineLoadOptions {
  modelsDir: string;
  model: string;
  /** onnxruntime threads per operator inside one worker (absent: ENGINE_THREADS, else onnxruntime's default). */
  intraOpThreads?: number;
}

export interface SessionTuning {
  /** Smallest amount of new audio worth another pass. */
  minStepS: number;
  /** In `auto`: how far (seconds) the accurate pass may fall behind the audio before the fast pass takes over. */
  catchupLagS: number;
  /** In `auto`: the accurate pass resumes once the backlog is under this. */
  resumeLagS: number;
}

export type HostToWorker =
  | { type: 'open'; sessionId: string; language: string | null; latencyMode: LatencyMode; tuning: SessionTuning }
  | { type: 'audio'; sessionId: string; pcm: ArrayBuffer }
  | { type: 'update'; sessionId: string; language?: string | null; latencyMode?: LatencyMode }
  | { type: 'eof'; sessionId: string }
  | { type: 'cancel'; sessionId: string };

export type WorkerToHost =
  | { type: 'loading'; stage: 'download' | 'model' }
  | { type: 'ready'; modelName: string; languages: string[] }
  | { type: 'load_failed'; message: string }
  | {
      type: 'update';
      sessionId: string;
      committed: WorkerSegment[];
      draft: WorkerDraftSegment[];
      /** Seconds of session audio the pass that produced this update had seen. */
      coveredS: number;
      /** Wall seconds the pass took. */
      processingS: number;
      /** The decoder of the pass (drafts of a catch-up pass come from the fast one). */
      decoder: EngineMode;
    }
  | { type: 'done'; sessionId: string; reason: 'eof' | 'cancelled' }
  | { type: 'session_failed'; sessionId: string; message: string };

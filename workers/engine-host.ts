/**
 * A small pool of engine threads for file jobs, one job per thread at a time. Threads start on first use and
 * keep their loaded model between jobs. A thread that dies fails its job (the processor marks it failed or
 * Bull retries it) and is replaced on the next job.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../src/core/errors.js';
import type { EngineOptions, Progress, Segment } from './engine/index.js';

export type EngineHostToThread =
  | { type: 'transcribe'; id: string; path: string; options: { language?: string; startS?: number; beamSize?: number } }
  | { type: 'cancel'; id: string };
export type EngineThreadToHost =
  | { type: 'segment'; id: string; segment: Segment; progress: Progress }
  | { type: 'done'; id: string; result: FileTranscriptionResult }
  | { type: 'error'; id: string; error: { code: string | null; status: number | null; message: string; details: Record<string, unknown> } };

/** What a thread reports at the end of a file, including what actually decoded it (model and beam width). */
export interface FileTranscriptionResult {
  language: string;
  durationS: number;
  processingS: number;
  segments: number;
  /** The loaded model's name ('whisper-base'). */
  model: string;
  /** Beam width used (1 = greedy); the temperature fallback applies either way. */
  beamSize: number;
}

export interface FileTranscription {
  path: string;
  language?: string;
  startS?: number;
  /** Beam width (default 1, greedy). */
  beamSize?: number;
  /** Awaited in order: the next segment is handed over only once the previous one is stored. */
  onSegment: (segment: Segment, progress: Progress) => Promise<void>;
}

interface Slot { worker: Worker; busy: boolean }

export class EngineHost {
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<(slot: Slot) => void> = [];
  private closed = false;

  constructor(private readonly options: { threads: number; engine: EngineOptions }) {}

  private spawn(): Slot {
    const worker = new Worker(new URL('./engine/thread-boot.mjs', import.meta.url), {
      workerData: { entry: new URL('./engine-thread.ts', import.meta.url).href, engine: this.options.engine },
    });
    worker.unref();
    const slot: Slot = { worker, busy: false };
    worker.on('exit', () => {
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
    });
    this.slots.push(slot);
    return slot;
  }

  private acquire(): Promise<Slot> {
    const free = this.slots.find((slot) => !slot.busy);
    if (free) return Promise.resolve(free);
    if (this.slots.length < this.options.threads) return Promise.resolve(this.spawn());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot): void {
    slot.busy = false;
    const next = this.waiting.shift();
    if (next && this.slots.includes(slot)) next(slot);
    else if (next) this.acquire().then(next);
  }

  async transcribe(job: FileTranscription): Promise<FileTranscriptionResult> {
    if (this.closed) throw new ApiError('unavailable', 503, 'The worker is shutting down.');
    const slot = await this.acquire();
    slot.busy = true;
    const id = randomUUID();
    try {
      return await new Promise((resolve, reject) => {
        // Segments are stored one after another even though the thread posts them as fast as it decodes.
        let chain = Promise.resolve();
        const onMessage = (message: EngineThreadToHost) => {
          if (message.id !== id) return;
          if (message.type === 'segment') chain = chain.then(() => job.onSegment(message.segment, message.progress));
          else if (message.type === 'done') chain.then(() => resolve(message.result), reject).finally(cleanup);
          else if (message.type === 'error') {
            const { code, status, message: text, details } = message.error;
            chain
              .then(() => reject(code && status ? new ApiError(code, status, text, { details }) : new Error(text)), reject)
              .finally(cleanup);
          }
          chain = chain.catch((error) => {
            slot.worker.postMessage({ type: 'cancel', id } satisfies EngineHostToThread);
            reject(error);
          });
        };
        const onExit = (code: number) => {
          cleanup();
          reject(new Error(`The engine thread stopped (exit code ${code}).`));
        };
        const cleanup = () => {
          slot.worker.off('message', onMessage);
          slot.worker.off('exit', onExit);
        };
        slot.worker.on('message', onMessage);
        slot.worker.on('exit', onExit);
        slot.worker.postMessage({ type: 'transcribe', id, path: job.path, options: { language: job.language, startS: job.startS, beamSize: job.beamSize } } satisfies EngineHostToThread);
      });
    } finally {
      this.release(slot);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}


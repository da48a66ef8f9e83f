/**
 * The engine host: inference off the calling process's event loop, for file jobs and live sessions alike.
 *
 * It keeps up to `threads` engine threads (thread.ts), each holding one loaded `SpeechEngine`, all speaking one
 * protocol (thread-protocol.ts). A file takes a thread to itself (a file keeps a thread busy; more files wait, in
 * order); live transcriptions share threads, each going to the least busy ready one. Threads start on first use
 * (or `warm()`) and keep their model between tasks; a thread that dies fails its tasks and is replaced on the next
 * use, except during `retryAfterS` after a model that failed to load, when the host says it is unavailable.
 *
 * Who may run how many sessions (slots, wait lines) is the caller's policy, not the host's.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { EngineError, engineErrors } from '../errors.js';
import type { EngineOptions } from '../speech-engine.js';
import type { LiveSettings, LiveTranscription, LiveTuning, LiveUpdate } from '../live.js';
import type { Progress, Segment } from '../pipeline.js';
import type {
  FileTaskOptions,
  FileTranscriptionResult,
  HostToThread,
  SpeechTranslation,
  ThreadFailure,
  ThreadToHost,
  TranslateTaskOptions,
} from './thread-protocol.js';
import { checkWindow } from '../whisper/translate.js';

export type { FileTranscriptionResult, SpeechTranslation } from './thread-protocol.js';
export type LoadingStage = 'download' | 'model';

export interface EngineThreadsOptions {
  engine: EngineOptions;
  /** Engine threads, each with its own loaded model. */
  threads: number;
  /** After a failed model load: seconds before the next attempt (default 30). */
  retryAfterS?: number;
  /** Each thread that loads its model (the provider it runs on is in `info`: metrics say which). */
  onReady?(info: EngineInfo): void;
}

export interface FileTranscription extends FileTaskOptions {
  path: string;
  /** Awaited in order: the next segment is handed over only once the previous one is stored. */
  onSegment: (segment: Segment, progress: Progress) => Promise<void>;
}

/** A stretch of a file to translate to English (translate.ts); `signal` cancels it on its thread. */
export interface SpeechTranslationRequest extends TranslateTaskOptions {
  path: string;
  signal?: AbortSignal;
}

/** What a live transcription's owner hears: loading stages, ready, every pass's update, and the end. */
export interface LiveListener {
  loading(stage: LoadingStage): void;
  ready(): void;
  update(update: LiveUpdate): void;
  done(reason: 'eof' | 'cancelled'): void;
  failed(message: string): void;
}

export interface LiveHandle {
  push(pcm: Float32Array): void;
  clock(pcm: number, wall: number): void;
  update(change: Parameters<LiveTranscription['update']>[0]): void;
  /** Commits what was said so far and goes on (a pause). */
  flush(): void;
  endOfAudio(): void;
  cancel(): void;
}

export interface EngineInfo {
  modelName: string;
  languages: string[];
  /** The execution provider its sessions run on ('cpu' when the one asked for could not load). */
  provider: string;
  /** The one asked for (ENGINE_PROVIDER). */
  requestedProvider: string;
}

/** What the host does with a thread's messages about one task. */
interface Task {
  kind: 'file' | 'live';
  receive(message: ThreadToHost): void;
  /** The thread is gone or could not load its model. */
  lost(message: string): void;
}

const THREAD_BOOT = new URL('./thread-boot.mjs', import.meta.url);
const THREAD_ENTRY = new URL('./thread.ts', import.meta.url).href;

class EngineThread {
  readonly worker: Worker;
  readonly tasks = new Map<string, Task>();
  state: 'loading' | 'ready' | 'failed' | 'exited' = 'loading';
  stage: LoadingStage = 'model';
  info: EngineInfo | null = null;
  failure: string | null = null;
  readonly settled: Promise<void>;
  private settle!: () => void;

  constructor(engine: EngineOptions, private readonly onGone: (thread: EngineThread) => void) {
    this.settled = new Promise((resolve) => (this.settle = resolve));
    this.worker = new Worker(THREAD_BOOT, { workerData: { entry: THREAD_ENTRY, engine }, name: 'speechgate-engine' });
    // The process decides when to exit; idle engine threads must not keep it alive on their own.
    this.worker.unref();
    this.worker.on('message', (message: ThreadToHost) => this.receive(message));
    this.worker.on('error', (error) => this.gone(`engine thread crashed: ${error.message}`));
    this.worker.on('exit', (code) => this.gone(`engine thread exited (code ${code})`));
  }

  get fileBusy(): boolean {
    for (const task of this.tasks.values()) if (task.kind === 'file') return true;
    return false;
  }

  get usable(): boolean {
    return this.state === 'loading' || this.state === 'ready';
  }

  send(message: HostToThread, transfer?: ArrayBuffer[]): void {
    if (this.state === 'exited') return;
    this.worker.postMessage(message, transfer);
  }

  /**
   * Cancels every task on the thread and waits (at most `graceMs`) until the thread has ended them: each task's
   * owner hears how it ended (a file task fails, a live one ends). Terminating a thread inside an onnxruntime call
   * aborts the whole process, so a thread is only terminated once drained.
   */
  async drain(graceMs: number): Promise<void> {
    for (const id of this.tasks.keys()) this.send({ type: 'cancel', id });
    const deadline = Date.now() + graceMs;
    while (this.tasks.size > 0 && this.state !== 'exited' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  private receive(message: ThreadToHost): void {
    switch (message.type) {
      case 'loading':
        this.stage = message.stage;
        for (const task of this.tasks.values()) task.receive(message);
        return;
      case 'ready':
        this.state = 'ready';
        this.info = {
          modelName: message.modelName, languages: message.languages, provider: message.provider,
          requestedProvider: message.requestedProvider,
        };
        this.settle();
        for (const task of this.tasks.values()) task.receive(message);
        return;
      case 'load_failed':
        this.state = 'failed';
        this.failure = message.message;
        this.settle();
        this.loseTasks(`The speech model could not be loaded: ${message.message}`);
        void this.worker.terminate();
        return;
      default: {
        const task = this.tasks.get(message.id);
        const ends =
          message.type === 'file_done' || message.type === 'translate_done' || message.type === 'live_done' || message.type === 'failed';
        if (ends) this.tasks.delete(message.id);
        task?.receive(message);
      }
    }
  }

  private loseTasks(reason: string): void {
    const tasks = [...this.tasks.values()];
    this.tasks.clear();
    for (const task of tasks) task.lost(reason);
  }

  private gone(reason: string): void {
    if (this.state === 'exited') return;
    if (this.state !== 'failed') this.failure = reason;
    this.state = 'exited';
    this.settle();
    this.loseTasks(reason);
    this.onGone(this);
  }
}

/** A thread's failure as the error it stands for: the engine's own refusals keep their code. */
function errorOf(failure: ThreadFailure): Error {
  if (failure.code === 'invalid_audio' || failure.code === 'invalid_options' || failure.code === 'unavailable') {
    return new EngineError(failure.code, failure.message, failure.details);
  }
  return new Error(failure.message);
}

export class EngineThreads {
  private threads: EngineThread[] = [];
  private readonly fileWaiting: Array<() => void> = [];
  private failedAt = 0;
  private lastFailure: string | null = null;
  private info: EngineInfo | null = null;
  private closing = false;
  private readonly retryAfterS: number;

  constructor(private readonly options: EngineThreadsOptions) {
    if (options.threads < 1) throw new Error('An engine host needs at least one thread.');
    this.retryAfterS = options.retryAfterS ?? 30;
  }

  /** Starts every thread (models load in parallel) and resolves once one is ready; rejects if none can load. */
  async warm(): Promise<EngineInfo> {
    this.fillThreads();
    if (this.info) return this.info;
    await Promise.all(this.threads.map((thread) => thread.settled));
    if (this.info) return this.info;
    throw engineErrors.unavailable(`The speech engine could not start: ${this.lastFailure ?? 'unknown failure'}`, this.retryAfterS);
  }

  /** The loaded engine's model and languages, or null while none has loaded. */
  loadedEngine(): EngineInfo | null {
    return this.info;
  }

  /** Null while the host can take work; otherwise why not, and when to ask again. */
  unavailable(): EngineError | null {
    if (this.closing) return engineErrors.unavailable('This server is shutting down; connect again to reach another one.', 1);
    const sinceFailureS = (Date.now() - this.failedAt) / 1000;
    if (this.lastFailure && this.threads.every((thread) => thread.state !== 'ready') && sinceFailureS < this.retryAfterS) {
      return engineErrors.unavailable(`The speech engine is not available (${this.lastFailure}).`, this.retryAfterS - sinceFailureS);
    }
    return null;
  }

  /** Transcribes a file on a thread of its own, handing each committed segment to `onSegment` in order. */
  async transcribeFile(job: FileTranscription): Promise<FileTranscriptionResult> {
    const thread = await this.threadForFile();
    const id = randomUUID();
    try {
      return await new Promise<FileTranscriptionResult>((resolve, reject) => {
        // Segments are stored one after another even though the thread posts them as fast as it decodes.
        let chain = Promise.resolve();
        const fail = (error: unknown) => {
          thread.tasks.delete(id);
          thread.send({ type: 'cancel', id });
          reject(error);
        };
        thread.tasks.set(id, {
          kind: 'file',
          receive: (message) => {
            if (message.type === 'segment') chain = chain.then(() => job.onSegment(message.segment, message.progress));
            else if (message.type === 'file_done') chain = chain.then(() => resolve(message.result));
            else if (message.type === 'failed') chain = chain.then(() => reject(errorOf(message.failure)));
            chain = chain.catch(fail);
          },
          lost: (reason) => chain.then(() => reject(new Error(`The engine thread stopped: ${reason}.`)), reject),
        });
        const { path, language, startS, beamSize, speakerLabels } = job;
        thread.send({ type: 'file', id, path, options: { language, startS, beamSize, speakerLabels } });
      });
    } finally {
      this.fileWaiting.shift()?.();
    }
  }

  /**
   * Translates `startS`..`endS` of a file to English on a thread of its own (files wait in line for one, as
   * transcriptions do). A window with no audio is refused before it takes a thread, and past the file's end by the
   * thread (`invalid_options`); an abort cancels the task there and rejects with the signal's reason.
   */
  async translateSpeech(request: SpeechTranslationRequest): Promise<SpeechTranslation> {
    const { path, signal, language, startS, endS, beamSize } = request;
    checkWindow(startS, endS);
    signal?.throwIfAborted();
    const thread = await this.threadForFile();
    const id = randomUUID();
    let onAbort = () => {};
    try {
      return await new Promise<SpeechTranslation>((resolve, reject) => {
        onAbort = () => {
          thread.tasks.delete(id);
          thread.send({ type: 'cancel', id });
          reject(signal!.reason);
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        thread.tasks.set(id, {
          kind: 'file',
          receive: (message) => {
            if (message.type === 'translate_done') resolve(message.result);
            else if (message.type === 'failed') reject(errorOf(message.failure));
          },
          lost: (reason) => reject(new Error(`The engine thread stopped: ${reason}.`)),
        });
        thread.send({ type: 'translate', id, path, options: { language, startS, endS, beamSize } });
      });
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.fileWaiting.shift()?.();
    }
  }

  /** Starts a live transcription on the least busy thread; `listener` hears loading, ready, updates and the end. */
  openLive(settings: LiveSettings, tuning: LiveTuning, listener: LiveListener): LiveHandle {
    const refusal = this.unavailable();
    if (refusal) throw refusal;
    this.fillThreads();
    const thread = this.pickLiveThread();
    const id = randomUUID();
    thread.tasks.set(id, {
      kind: 'live',
      receive: (message) => {
        if (message.type === 'loading') listener.loading(message.stage);
        else if (message.type === 'ready') listener.ready();
        else if (message.type === 'live_update') listener.update(message.update);
        else if (message.type === 'live_done') listener.done(message.reason);
        else if (message.type === 'failed') listener.failed(message.failure.message);
      },
      lost: (reason) => listener.failed(reason),
    });
    thread.send({ type: 'live', id, settings, tuning });
    const stage = thread.stage;
    queueMicrotask(() => thread.tasks.has(id) && (thread.state === 'ready' ? listener.ready() : listener.loading(stage)));
    return {
      push: (pcm) => {
        // A Buffer slice may share (and misalign) its ArrayBuffer: transfer an exact copy.
        const owned = pcm.byteOffset === 0 && pcm.byteLength === pcm.buffer.byteLength ? pcm : pcm.slice();
        thread.send({ type: 'audio', id, pcm: owned.buffer as ArrayBuffer }, [owned.buffer as ArrayBuffer]);
      },
      clock: (pcm, wall) => thread.send({ type: 'clock', id, pcm, wall }),
      update: (change) => thread.send({ type: 'update', id, ...change }),
      flush: () => thread.send({ type: 'flush', id }),
      endOfAudio: () => thread.send({ type: 'eof', id }),
      cancel: () => thread.send({ type: 'cancel', id }),
    };
  }

  /** Stops every thread: running tasks are cancelled (files fail, live sessions end), waiting files are refused. */
  async close(graceMs = 10_000): Promise<void> {
    this.closing = true;
    for (const wake of this.fileWaiting.splice(0)) wake();
    await Promise.all(this.threads.map((thread) => thread.drain(graceMs)));
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
    this.threads = [];
  }

  /** A thread with no file on it, started if there is room, else the first one to finish its file (in order). */
  private async threadForFile(): Promise<EngineThread> {
    for (;;) {
      const refusal = this.closing ? this.unavailable() : null;
      if (refusal) throw refusal;
      this.fillThreads();
      const free = this.threads.find((thread) => thread.usable && !thread.fileBusy);
      if (free) return free;
      if (this.threads.length === 0) throw this.unavailable() ?? engineErrors.unavailable('No speech engine thread is running.', 5);
      await new Promise<void>((resolve) => this.fileWaiting.push(resolve));
    }
  }

  /** Keeps `threads` engine threads alive, except while a failed load is inside its retry pause. */
  private fillThreads(): void {
    if (this.closing) return;
    const retryPaused = this.lastFailure !== null && (Date.now() - this.failedAt) / 1000 < this.retryAfterS;
    while (this.threads.length < this.options.threads) {
      if (retryPaused && this.threads.length > 0) break;
      const thread = new EngineThread(this.options.engine, (gone) => this.threadGone(gone));
      void thread.settled.then(() => {
        if (thread.state === 'ready') {
          this.info = thread.info;
          this.lastFailure = null;
          if (thread.info) this.options.onReady?.(thread.info);
        }
      });
      this.threads.push(thread);
    }
  }

  private threadGone(thread: EngineThread): void {
    this.threads = this.threads.filter((candidate) => candidate !== thread);
    if (!this.closing && thread.failure) {
      this.lastFailure = thread.failure;
      this.failedAt = Date.now();
    }
    // A file waiting for a thread tries again (a new thread, or the refusal).
    this.fileWaiting.shift()?.();
  }

  private pickLiveThread(): EngineThread {
    const live = this.threads.filter((thread) => thread.usable);
    const pool = live.length > 0 ? live : this.threads;
    if (pool.length === 0) throw engineErrors.unavailable('No speech engine thread is running.', 5);
    // Prefer a ready thread; among equals, the one running the fewest tasks.
    const rank = (thread: EngineThread) => (thread.state === 'ready' ? 0 : 1000) + thread.tasks.size;
    return pool.reduce((best, thread) => (rank(thread) < rank(best) ? thread : best));
  }
}

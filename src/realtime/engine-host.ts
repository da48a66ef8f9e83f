/**
 * The engine host: realtime inference off the gateway's event loop.
 *
 * It owns a few worker threads (engine-worker.ts), each holding one loaded `SpeechEngine` and running the
 * transcribers of the sessions assigned to it, and a fixed number of session slots (`maxSessions`). A
 * socket first takes a slot (waiting in FIFO order while all are busy: the socket stays silent, as the spec
 * wants), then opens its session on the least busy thread. The gateway thread only moves PCM buffers
 * (transferred, not copied) and small JSON updates.
 *
 * What the socket layer learns from here: `loading` stages while a thread warms, `ready`, every pass's
 * update, `done`, or a failure. When the model cannot load, new sockets are refused with 503 `unavailable`
 * and a `Retry-After` until the next attempt.
 */
import { Worker } from 'node:worker_threads';
import { ApiError } from '../core/errors.js';
import type { EngineLoadOptions, HostToWorker, LatencyMode, SessionTuning, WorkerToHost } from './engine-messages.js';

export type LoadingStage = 'download' | 'model';
export type SessionUpdate = Extract<WorkerToHost, { type: 'update' }>;

export interface EngineHostOptions {
  engine: EngineLoadOptions;
  /** Worker threads, each with its own loaded engine. */
  threads: number;
  /** Sessions transcribing at once across all threads (REALTIME_MAX_SESSIONS). */
  maxSessions: number;
  /** Sockets allowed to wait silently for a slot; beyond it the upgrade is refused with 503. */
  maxWaiting: number;
  tuning: SessionTuning;
  /** After a failed model load: seconds new sockets are told to wait (`Retry-After`) before the next attempt. */
  retryAfterS: number;
}

export interface SessionListener {
  loading(stage: LoadingStage): void;
  ready(): void;
  update(update: SessionUpdate): void;
  done(reason: 'eof' | 'cancelled'): void;
  failed(message: string): void;
}

export interface HostedSession {
  push(pcm: Float32Array): void;
  update(change: { language?: string | null; latencyMode?: LatencyMode }): void;
  endOfAudio(): void;
  cancel(): void;
}

export interface SlotLease {
  release(): void;
}

export interface EngineInfo {
  modelName: string;
  languages: string[];
}

const WORKER_BOOT = new URL('../../workers/engine/thread-boot.mjs', import.meta.url);
const WORKER_ENTRY = new URL('./engine-worker.ts', import.meta.url).href;

/** One worker thread and the sessions it runs. */
class EngineThread {
  readonly worker: Worker;
  readonly sessions = new Map<string, SessionListener>();
  state: 'loading' | 'ready' | 'failed' | 'exited' = 'loading';
  stage: LoadingStage = 'model';
  info: EngineInfo | null = null;
  failure: string | null = null;
  readonly settled: Promise<void>;
  private settle!: () => void;

  constructor(engine: EngineLoadOptions, private readonly onGone: (thread: EngineThread) => void) {
    this.settled = new Promise((resolve) => (this.settle = resolve));
    this.worker = new Worker(WORKER_BOOT, { workerData: { entry: WORKER_ENTRY, engine }, name: 'speechgate-engine' });
    // The gateway decides when to exit; idle engine threads must not keep the process alive on their own.
    this.worker.unref();
    this.worker.on('message', (message: WorkerToHost) => this.receive(message));
    this.worker.on('error', (error) => this.gone(`engine thread crashed: ${error.message}`));
    this.worker.on('exit', (code) => this.gone(`engine thread exited (code ${code})`));
  }

  send(message: HostToWorker, transfer?: ArrayBuffer[]): void {
    if (this.state === 'exited') return;
    this.worker.postMessage(message, transfer);
  }

  private receive(message: WorkerToHost): void {
    switch (message.type) {
      case 'loading':
        this.stage = message.stage;
        for (const listener of this.sessions.values()) listener.loading(message.stage);
        break;
      case 'ready':
        this.state = 'ready';
        this.info = { modelName: message.modelName, languages: message.languages };
        this.settle();
        for (const listener of this.sessions.values()) listener.ready();
        break;
      case 'load_failed':
        this.state = 'failed';
        this.failure = message.message;
        this.settle();
        for (const listener of this.sessions.values()) listener.failed(`The speech model could not be loaded: ${message.message}`);
        this.sessions.clear();
        void this.worker.terminate();
        break;
      case 'update':
        this.sessions.get(message.sessionId)?.update(message);
        break;
      case 'done': {
        const listener = this.sessions.get(message.sessionId);
        this.sessions.delete(message.sessionId);
        listener?.done(message.reason);
        break;
      }
      case 'session_failed': {
        const listener = this.sessions.get(message.sessionId);
        this.sessions.delete(message.sessionId);
        listener?.failed(message.message);
        break;
      }
    }
  }

  private gone(reason: string): void {
    if (this.state === 'exited') return;
    const wasFailed = this.state === 'failed';
    this.state = 'exited';
    if (!wasFailed) this.failure = reason;
    this.settle();
    for (const listener of this.sessions.values()) listener.failed(reason);
    this.sessions.clear();
    this.onGone(this);
  }
}

export class EngineHost {
  private threads: EngineThread[] = [];
  private active = 0;
  private readonly waiting: { grant: (lease: SlotLease) => void; signal: AbortSignal; onAbort: () => void }[] = [];
  private failedAt = 0;
  private lastFailure: string | null = null;
  private info: EngineInfo | null = null;
  private closing = false;

  constructor(readonly options: EngineHostOptions) {
    if (options.maxSessions < 1) throw new Error('REALTIME_MAX_SESSIONS must be at least 1');
  }

  /** Starts every thread (model loads in parallel) and resolves once one is ready; rejects if none can load. */
  async warm(): Promise<EngineInfo> {
    this.fillThreads();
    if (this.info) return this.info;
    await Promise.all(this.threads.map((thread) => thread.settled));
    if (this.info) return this.info;
    throw new ApiError('unavailable', 503, `The speech engine could not start: ${this.lastFailure ?? 'unknown failure'}`, {
      headers: { 'Retry-After': String(this.options.retryAfterS) },
    });
  }

  /** The loaded engine's model and languages, or null while none has loaded. */
  loadedEngine(): EngineInfo | null {
    return this.info;
  }

  /** Null when a new socket may wait for a slot; otherwise the 503 to refuse the upgrade with. */
  refusal(): ApiError | null {
    const unavailable = (message: string, retryAfterS: number) =>
      new ApiError('unavailable', 503, message, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) } });
    if (this.closing) return unavailable('This gateway is shutting down; connect again to reach another one.', 1);
    const sinceFailureS = (Date.now() - this.failedAt) / 1000;
    if (this.lastFailure && this.threads.every((thread) => thread.state !== 'ready') && sinceFailureS < this.options.retryAfterS) {
      return unavailable(`The speech engine is not available (${this.lastFailure}).`, this.options.retryAfterS - sinceFailureS);
    }
    if (this.active >= this.options.maxSessions && this.waiting.length >= this.options.maxWaiting) {
      return unavailable('Every realtime engine slot is busy and the wait line is full.', 5);
    }
    return null;
  }

  /** Waits (FIFO) for a session slot. Rejects with the abort reason when `signal` fires first. */
  acquire(signal: AbortSignal): Promise<SlotLease> {
    if (this.active < this.options.maxSessions && this.waiting.length === 0) return Promise.resolve(this.lease());
    return new Promise((resolve, reject) => {
      const entry = {
        grant: resolve,
        signal,
        onAbort: () => {
          const index = this.waiting.indexOf(entry);
          if (index !== -1) this.waiting.splice(index, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Starts a session on the least busy thread; `listener` hears loading, ready, updates and the end. */
  open(sessionId: string, settings: { language: string | null; latencyMode: LatencyMode }, listener: SessionListener): HostedSession {
    this.fillThreads();
    const thread = this.pickThread();
    thread.sessions.set(sessionId, listener);
    thread.send({ type: 'open', sessionId, language: settings.language, latencyMode: settings.latencyMode, tuning: this.options.tuning });
    if (thread.state === 'ready') queueMicrotask(() => thread.sessions.has(sessionId) && listener.ready());
    else queueMicrotask(() => thread.sessions.has(sessionId) && listener.loading(thread.stage));
    return {
      push: (pcm) => {
        // A Buffer slice may share (and misalign) its ArrayBuffer: transfer an exact copy.
        const owned = pcm.byteOffset === 0 && pcm.byteLength === pcm.buffer.byteLength ? pcm : pcm.slice();
        thread.send({ type: 'audio', sessionId, pcm: owned.buffer as ArrayBuffer }, [owned.buffer as ArrayBuffer]);
      },
      update: (change) => thread.send({ type: 'update', sessionId, ...change }),
      endOfAudio: () => thread.send({ type: 'eof', sessionId }),
      cancel: () => thread.send({ type: 'cancel', sessionId }),
    };
  }

  load(): { active: number; waiting: number; maxSessions: number } {
    return { active: this.active, waiting: this.waiting.length, maxSessions: this.options.maxSessions };
  }

  /** Refuses new sockets, drops the wait line and stops the threads (running sessions fail). */
  async close(): Promise<void> {
    this.closing = true;
    for (const entry of this.waiting.splice(0)) entry.onAbort();
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
    this.threads = [];
  }

  private lease(): SlotLease {
    this.active += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.active -= 1;
        this.grantNext();
      },
    };
  }

  private grantNext(): void {
    while (this.active < this.options.maxSessions && this.waiting.length > 0) {
      const entry = this.waiting.shift()!;
      entry.signal.removeEventListener('abort', entry.onAbort);
      entry.grant(this.lease());
    }
  }

  /** Keeps `threads` engine threads alive, except while a failed load is inside its retry pause. */
  private fillThreads(): void {
    if (this.closing) return;
    const retryPaused = this.lastFailure !== null && (Date.now() - this.failedAt) / 1000 < this.options.retryAfterS;
    while (this.threads.length < this.options.threads) {
      if (retryPaused && this.threads.length > 0) break;
      const thread = new EngineThread(this.options.engine, (gone) => this.threadGone(gone));
      void thread.settled.then(() => {
        if (thread.state === 'ready') {
          this.info = thread.info;
          this.lastFailure = null;
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
  }

  private pickThread(): EngineThread {
    if (this.threads.length === 0) throw new ApiError('unavailable', 503, 'No speech engine thread is running.', { headers: { 'Retry-After': '5' } });
    const live = this.threads.filter((thread) => thread.state === 'ready' || thread.state === 'loading');
    const pool = live.length > 0 ? live : this.threads;
    // Prefer a ready thread; among equals, the one running the fewest sessions.
    return pool.reduce((best, thread) => {
      const rank = (candidate: EngineThread) => (candidate.state === 'ready' ? 0 : 1000) + candidate.sessions.size;
      return rank(thread) < rank(best) ? thread : best;
    });
  }
}

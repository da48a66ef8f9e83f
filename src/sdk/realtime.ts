/**
 * A realtime session from the SDK (spec: "Realtime"): `connectRealtime(streamUrl)` opens the session's socket,
 * waits for `session.ready` under the spec's ready deadline, and answers a `RealtimeStream` that sends audio with
 * backpressure and hands out the server's frames, typed from the OpenAPI document (frames.ts).
 *
 * Ready deadline (spec: Events): 30 s (`readyTimeoutMs`) of silence fails: with no frame at all the server is
 * holding the socket for a free engine slot (`capacity_exceeded`), after `session.loading` frames the machine did
 * not finish warming (`engine_unavailable`); every frame restarts the wait. An `error` frame before `session.ready`
 * fails with its code, and a socket that cannot be opened with `network_error` (with `ws`, a refused upgrade with
 * its envelope's code: `invalid_token`, `session_expired`, `unavailable`).
 *
 * There is no resume (spec): a dropped socket ends the session; `done` rejects and a new session is needed.
 */
import { SpeechgateError } from './errors.js';
import {
  frameError, OPEN, openSocket, parseFrame, socketLost, webSocketConstructor,
  type CommittedSegment, type RealtimeServerFrame, type RealtimeSessionOptions, type SessionDoneFrame, type SessionReadyFrame,
  type SocketErrorFrame, type WebSocketConstructor, type WebSocketLike,
} from './frames.js';

export const DEFAULT_READY_TIMEOUT_MS = 30_000;
/** Unsent bytes past which `sendAudio` waits for the socket to drain. */
export const DEFAULT_HIGH_WATER_MARK_BYTES = 1 << 20;
/** The spec's largest chunk: 250 ms of 16 kHz mono float32 (16,000 bytes); longer audio goes in several frames. */
export const MAX_CHUNK_SAMPLES = 4_000;
/** A WebSocket has no drain event: a waiting `sendAudio` looks at `bufferedAmount` this often. */
const DRAIN_POLL_MS = 20;

export type RealtimeListener = (frame: RealtimeServerFrame) => void;

export interface RealtimeConnectOptions {
  /** Default `globalThis.WebSocket`; in Node 20 pass `ws`'s (`import { WebSocket } from 'ws'`). */
  WebSocket?: WebSocketConstructor;
  /** Silence before `session.ready` that fails the connect (default 30 000 ms, the spec's deadline). */
  readyTimeoutMs?: number;
  /** `sendAudio` waits while the socket holds more unsent bytes than this (default 1 MiB). */
  highWaterMarkBytes?: number;
  /** Every frame, those before `session.ready` too (`session.loading` heartbeats). */
  onFrame?: RealtimeListener;
}

export interface RealtimeStream {
  readonly sessionId: string;
  /** The `session.ready` frame (its `audio` format). */
  readonly readyFrame: SessionReadyFrame;
  /** The committed segments so far, in `seq` order (gapless from 0). */
  readonly commits: readonly CommittedSegment[];
  /** Every frame from here on; answers how to stop listening. */
  on(listener: RealtimeListener): () => void;
  /**
   * Sends pcm_f32le 16 kHz mono audio, split into the spec's chunk size; resolves once it is handed to the socket,
   * after waiting while the socket holds more than `highWaterMarkBytes` unsent. Calls are sent in call order.
   */
  sendAudio(pcm: Float32Array): Promise<void>;
  /** `session.update`: the fields given change, the rest stay (the server answers `session.updated`). */
  update(fields: RealtimeSessionOptions): void;
  /** `clock`: samples captured so far (16 kHz) and monotonic seconds since capture started, so lost capture shows. */
  clock(capturedSamples: number, wallS: number): void;
  /** `eof`: the last commits, then `session.done` (resolved with it). */
  finish(): Promise<SessionDoneFrame>;
  /** `cancel`: stop at once and drop the rest; resolves with `session.done` (`reason: cancelled`). */
  cancel(): Promise<SessionDoneFrame>;
  /** Closes the socket without ending the session first (`done` then rejects). */
  close(): void;
  /** `session.done`; rejects when the socket closes without it (the `error` frame's code, else `network_error`). */
  readonly done: Promise<SessionDoneFrame>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Stream implements RealtimeStream {
  sessionId = '';
  readyFrame!: SessionReadyFrame;
  readonly commits: CommittedSegment[] = [];
  readonly done: Promise<SessionDoneFrame>;
  private readonly listeners = new Set<RealtimeListener>();
  private settleDone!: { resolve: (frame: SessionDoneFrame) => void; reject: (error: SpeechgateError) => void };
  /** How the session ended, once it did. */
  private outcome: SessionDoneFrame | SpeechgateError | null = null;
  private lastError: SocketErrorFrame | null = null;
  /** False once `eof`, `cancel` or `close` was asked for: new audio and frames are refused. */
  private accepting = true;
  private cancelled = false;
  private closedByCaller = false;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly socket: WebSocketLike, private readonly highWaterMarkBytes: number) {
    this.done = new Promise((resolve, reject) => (this.settleDone = { resolve, reject }));
    // A caller that only awaits finish() must not see `done`'s rejection reported as unhandled.
    this.done.catch(() => undefined);
  }

  on(listener: RealtimeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  receive(frame: RealtimeServerFrame): void {
    if (frame.type === 'transcript.committed') this.commits.push(frame.segment);
    else if (frame.type === 'error') this.lastError = frame;
    else if (frame.type === 'session.done') this.end(frame);
    for (const listener of this.listeners) listener(frame);
  }

  /** The socket closed: without `session.done` the session failed (no resume). */
  socketClosed(code: number): void {
    if (this.lastError) this.end(frameError(this.lastError));
    else if (this.closedByCaller) this.end(new SpeechgateError({ code: 'closed', status: 0, message: 'The stream was closed before '
      + 'session.done.', retryable: false }));
    else this.end(socketLost('The realtime socket closed before session.done', code));
  }

  private end(outcome: SessionDoneFrame | SpeechgateError): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.accepting = false;
    if (outcome instanceof SpeechgateError) this.settleDone.reject(outcome);
    else this.settleDone.resolve(outcome);
  }

  sendAudio(pcm: Float32Array): Promise<void> {
    if (!this.accepting) return Promise.reject(this.notAccepting());
    const send = this.sending.then(async () => {
      for (let start = 0; start < pcm.length; start += MAX_CHUNK_SAMPLES) {
        // Not while the socket is full: the caller's loop waits here instead of filling memory.
        while (this.socket.readyState === OPEN && this.socket.bufferedAmount > this.highWaterMarkBytes && !this.cancelled) await sleep(
          DRAIN_POLL_MS,
        );
        if (this.cancelled || this.outcome || this.socket.readyState !== OPEN) throw this.notAccepting();
        this.socket.send(pcm.subarray(start, start + MAX_CHUNK_SAMPLES));
      }
    });
    // One failed call does not hold the next ones back; the caller gets its own failure.
    this.sending = send.catch(() => undefined);
    return send;
  }

  update(fields: RealtimeSessionOptions): void {
    this.sendText({ ...fields, type: 'session.update' });
  }

  clock(capturedSamples: number, wallS: number): void {
    this.sendText({ type: 'clock', pcm: capturedSamples, wall: wallS });
  }

  finish(): Promise<SessionDoneFrame> {
    if (this.accepting && this.socket.readyState === OPEN) {
      this.accepting = false;
      // Behind the audio already queued: `eof` flushes what was sent.
      void this.sending.then(() => this.sendIfOpen({ type: 'eof' }));
    }
    return this.done;
  }

  cancel(): Promise<SessionDoneFrame> {
    if (!this.cancelled && !this.outcome) {
      this.accepting = false;
      // At once, ahead of queued audio, which is dropped (its sendAudio calls reject).
      this.cancelled = true;
      this.sendIfOpen({ type: 'cancel' });
    }
    return this.done;
  }

  close(): void {
    this.accepting = false;
    this.closedByCaller = true;
    this.socket.close(1000, 'closed by the client');
  }

  private sendIfOpen(frame: Record<string, unknown>): void {
    if (this.socket.readyState === OPEN) this.socket.send(JSON.stringify(frame));
  }

  private sendText(frame: Record<string, unknown>): void {
    if (!this.accepting || this.socket.readyState !== OPEN) throw this.notAccepting();
    this.socket.send(JSON.stringify(frame));
  }

  /** Why nothing more can be sent: how the session ended, or that it is ending. */
  private notAccepting(): SpeechgateError {
    if (this.outcome instanceof SpeechgateError) return this.outcome;
    return new SpeechgateError({
      code: 'invalid_state', status: 0, message: 'The session is ending or over: nothing more can be sent.', retryable: false,
    });
  }
}

/** Opens a session's `streamUrl` and resolves at `session.ready` (see the header for the ways it fails). */
export function connectRealtime(streamUrl: string, options: RealtimeConnectOptions = {}): Promise<RealtimeStream> {
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let refusal: SpeechgateError | null = null;
    // No WebSocket at all is the caller's mistake: a TypeError that says what to pass, not a network error.
    const Constructor = webSocketConstructor(options.WebSocket);
    let socket: WebSocketLike;
    try {
      socket = openSocket(Constructor, streamUrl, {}, (error) => (refusal = error));
    } catch (error) {
      // A malformed URL: the constructor throws at once.
      reject(error instanceof SpeechgateError ? error : socketLost(`The realtime socket could not be opened `
        + `(${error instanceof Error ? error.message : String(error)})`));
      return;
    }
    const stream = new Stream(socket, options.highWaterMarkBytes ?? DEFAULT_HIGH_WATER_MARK_BYTES);
    let opened = false;
    let sawFrame = false;
    let ready = false;
    let failed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (error: SpeechgateError) => {
      if (failed || ready) return;
      failed = true;
      clearTimeout(timer);
      reject(error);
      socket.close();
    };
    const armDeadline = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const seconds = readyTimeoutMs / 1000;
        if (!opened) fail(socketLost(`The realtime socket did not open in ${seconds} s`));
        else if (sawFrame) fail(new SpeechgateError({ code: 'engine_unavailable', status: 0, message: `No session.ready after ${seconds} `
          + `s of silence while the engine was loading.`, retryable: true }));
        else fail(new SpeechgateError({ code: 'capacity_exceeded', status: 0, message: `No frame at all in ${seconds} s: every engine `
          + `slot is busy.`, retryable: true }));
      }, readyTimeoutMs);
    };
    armDeadline();

    socket.onopen = () => {
      opened = true;
    };
    socket.onmessage = (event: { data: unknown }) => {
      const frame = parseFrame<RealtimeServerFrame>(event.data);
      if (!frame || failed) return;
      options.onFrame?.(frame);
      if (ready) {
        stream.receive(frame);
        return;
      }
      sawFrame = true;
      if (frame.type === 'session.ready') {
        ready = true;
        clearTimeout(timer);
        stream.sessionId = frame.sessionId;
        stream.readyFrame = frame;
        resolve(stream);
      } else if (frame.type === 'error') {
        fail(frameError(frame));
      } else {
        armDeadline();
      }
    };
    // The close that follows an error says it all (a browser's error event carries nothing).
    socket.onerror = () => undefined;
    socket.onclose = (event: { code?: number }) => {
      if (ready) stream.socketClosed(event.code ?? 0);
      else fail(refusal ?? socketLost(
        opened ? 'The realtime socket closed before session.ready' : 'The realtime socket could not be opened', event.code,
      ));
    };
  });
}

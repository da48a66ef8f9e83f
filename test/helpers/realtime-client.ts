/**
 * The tests' and benchmarks' realtime harness, over the SDK's client (src/sdk/realtime.ts: the one Node realtime
 * client): `connectRealtime` opens the socket and owns the ready deadline, upgrade refusals (as `SpeechgateError`s)
 * and frame parsing. This adds what a test needs around it: every frame recorded with its arrival time, the raw
 * socket for the protocol's edges (odd byte counts, a reader that stops reading, frames sent as they are), and
 * `streamFile`, which plays a file like a microphone (real-time pacing, keep-up holds, simulated capture loss).
 */
import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import { connectRealtime, type RealtimeStream } from '../../src/sdk/realtime.js';
import type { CommittedSegment, RealtimeServerFrame, SessionDoneFrame, WebSocketConstructor } from '../../src/sdk/frames.js';
import { ffmpegPath, SAMPLE_RATE } from '../../workers/engine/index.js';

export { SAMPLE_RATE };

export type { CommittedSegment };

/** A frame as the SDK types it, or any other (a test reads fields the union does not name). */
export type ServerFrame = RealtimeServerFrame | { type: string; [field: string]: unknown };

export interface SessionResult {
  commits: CommittedSegment[];
  done: SessionDoneFrame | null;
  errors: { code: string; message: string; retryable: boolean }[];
  closeCode: number;
  /** Every frame in arrival order, with its arrival time (performance.now() ms). */
  frames: { frame: ServerFrame; atMs: number }[];
}

export interface ConnectionOptions {
  /** Silence before `session.ready` that fails `ready()` (default 30 s, the spec's deadline). */
  readyTimeoutS?: number;
  onFrame?: (frame: ServerFrame, atMs: number) => void;
}

/** One realtime socket, opened by the SDK. Frames are recorded as they arrive; `onFrame` sees each one too. */
export class RealtimeConnection {
  readonly ws: WebSocket;
  readonly result: SessionResult = { commits: [], done: null, errors: [], closeCode: 0, frames: [] };
  /** Resolves when the socket closes, however the session went. */
  readonly closed: Promise<SessionResult>;
  private readonly stream: Promise<RealtimeStream>;
  /** How far into the audio the server has transcribed: its drafts' `audioS`, its commits' ends. */
  private heardS = 0;
  private frameWaiters: (() => void)[] = [];

  constructor(streamUrl: string, private readonly options: ConnectionOptions = {}) {
    let opened: WebSocket | undefined;
    // The SDK opens the socket; this subclass hands the same socket to the harness for its raw sends.
    class KeptSocket extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        opened = this;
      }
    }
    this.stream = connectRealtime(streamUrl, {
      WebSocket: KeptSocket as unknown as WebSocketConstructor,
      readyTimeoutMs: (options.readyTimeoutS ?? 30) * 1000,
      onFrame: (frame) => this.record(frame),
    });
    // A refusal is reported through ready(); a test that never asks still sees the socket close.
    this.stream.catch(() => undefined);
    if (!opened) throw new Error(`the SDK did not open a socket for ${streamUrl}`);
    this.ws = opened;
    this.closed = new Promise((resolve) => {
      this.ws.on('close', (code) => {
        this.result.closeCode = code;
        for (const wake of this.frameWaiters.splice(0)) wake();
        resolve(this.result);
      });
    });
  }

  private record(frame: ServerFrame): void {
    const atMs = performance.now();
    this.result.frames.push({ frame, atMs });
    if (frame.type === 'transcript.committed') {
      const segment = (frame as { segment: CommittedSegment }).segment;
      this.result.commits.push(segment);
      this.heardS = Math.max(this.heardS, segment.end);
    } else if (frame.type === 'transcript.draft' && typeof frame.audioS === 'number') {
      this.heardS = Math.max(this.heardS, frame.audioS);
    } else if (frame.type === 'session.done') this.result.done = frame as SessionDoneFrame;
    else if (frame.type === 'error') this.result.errors.push(frame as SessionResult['errors'][number]);
    this.options.onFrame?.(frame, atMs);
    for (const wake of this.frameWaiters.splice(0)) wake();
  }

  /** Resolves at `session.ready`; rejects with the SDK's `SpeechgateError` (a refused upgrade, the ready deadline). */
  async ready(): Promise<void> {
    await this.stream;
  }

  /**
   * Resolves once the server has transcribed up to `seconds` of audio, or when no frame came for `quietMs` (it sends
   * no draft while nothing changes, in a pause), or the socket closed.
   */
  async heard(seconds: number, quietMs = 5000): Promise<void> {
    while (this.heardS < seconds && this.ws.readyState === WebSocket.OPEN) {
      const frameCame = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), quietMs);
        this.frameWaiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!frameCame) return;
    }
  }

  /** Raw: exactly these samples in one binary frame (the SDK would split and pace them). */
  sendPcm(pcm: Float32Array): void {
    this.ws.send(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), { binary: true });
  }

  /** Raw: a text frame as given, valid or not. */
  sendJson(frame: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(frame));
  }

  clock(capturedSamples: number, wallS: number): void {
    this.sendJson({ type: 'clock', pcm: capturedSamples, wall: wallS });
  }

  update(fields: Record<string, unknown>): void {
    this.sendJson({ type: 'session.update', ...fields });
  }

  eof(): void {
    this.sendJson({ type: 'eof' });
  }

  cancel(): void {
    this.sendJson({ type: 'cancel' });
  }

  close(): void {
    this.ws.close();
  }
}

/** Decodes any audio or video file to 16 kHz mono float32, yielding chunks of exactly `chunkSamples` (the last may be shorter). */
export async function* decodeToChunks(path: string, chunkSamples: number): AsyncGenerator<Float32Array> {
  const args = [
    '-nostdin', '-loglevel', 'error', '-i', path, '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 'f32le', '-acodec', 'pcm_f32le', '-',
  ];
  const ffmpeg = spawn(ffmpegPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  ffmpeg.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number>((resolve) => ffmpeg.on('close', (code) => resolve(code ?? 1)));
  const chunkBytes = chunkSamples * 4;
  let pending: Buffer = Buffer.alloc(0);
  for await (const data of ffmpeg.stdout as AsyncIterable<Buffer>) {
    pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
    while (pending.length >= chunkBytes) {
      yield toFloat32(pending.subarray(0, chunkBytes));
      pending = pending.subarray(chunkBytes);
    }
  }
  if ((await exited) !== 0) throw new Error(`ffmpeg could not decode ${path}: ${stderr.trim()}`);
  if (pending.length >= 4) yield toFloat32(pending.subarray(0, pending.length - (pending.length % 4)));
}

function toFloat32(bytes: Buffer): Float32Array {
  const pcm = new Float32Array(bytes.length / 4);
  new Uint8Array(pcm.buffer).set(bytes);
  return pcm;
}

export interface StreamFileOptions {
  /** Chunk length in seconds (the spec asks for about 0.1 to 0.25). */
  chunkS?: number;
  /** Pace chunks at real time (default), or send as fast as the socket takes them. */
  realtime?: boolean;
  /** With `realtime`: play the file this many times faster than real time (default 1). */
  speed?: number;
  /**
   * Hold each chunk until the server has transcribed to within this many seconds of its start: a microphone on a
   * machine that keeps up, so the server's passes stay small however busy this machine is (the tests use it where
   * the size of a pass matters, as for speaker labels).
   */
  keepUpS?: number;
  /** Send a `clock` frame after every chunk (captured samples, wall seconds). */
  clock?: boolean;
  /** Simulated capture loss: these stretches of the file are counted as captured but never sent. */
  lose?: { startS: number; endS: number }[];
  /** Called after each chunk is sent, with the seconds of file audio sent so far (the tests use it). */
  afterChunk?: (connection: RealtimeConnection, sentS: number) => void;
  /** Stop after this many seconds of the file. */
  durationS?: number;
  /** Skip `eof` (the caller ends the session itself, e.g. with `cancel`). */
  noEof?: boolean;
  onFrame?: (frame: ServerFrame, atMs: number) => void;
  /** Called with the wall time (performance.now() ms) each chunk left, and the file seconds it completes. */
  onSent?: (fileEndS: number, atMs: number) => void;
}

/** Streams a file through a session's `streamUrl` and resolves with everything the server sent. */
export async function streamFile(streamUrl: string, path: string, options: StreamFileOptions = {}): Promise<SessionResult> {
  const chunkS = options.chunkS ?? 0.2;
  const chunkSamples = Math.round(chunkS * SAMPLE_RATE);
  const connection = new RealtimeConnection(streamUrl, { onFrame: options.onFrame });
  await connection.ready();
  let started = performance.now();
  let capturedSamples = 0;
  let sentChunks = 0;
  for await (const chunk of decodeToChunks(path, chunkSamples)) {
    if (connection.ws.readyState !== WebSocket.OPEN) break;
    if (options.durationS !== undefined && capturedSamples >= options.durationS * SAMPLE_RATE) break;
    sentChunks += 1;
    if (options.keepUpS !== undefined) {
      // Time held waiting for the server moves the schedule on (no burst of chunks afterwards).
      const holdStarted = performance.now();
      await connection.heard(capturedSamples / SAMPLE_RATE - options.keepUpS);
      started += performance.now() - holdStarted;
    }
    if (options.realtime !== false) {
      // A microphone has chunk n once n × chunkS of audio was captured; an absolute schedule keeps timer
      // jitter from accumulating.
      const due = started + (sentChunks * chunkS * 1000) / (options.speed ?? 1);
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const chunkStartS = capturedSamples / SAMPLE_RATE;
    capturedSamples += chunk.length;
    const chunkEndS = capturedSamples / SAMPLE_RATE;
    const lost = options.lose?.some((range) => chunkStartS < range.endS && chunkEndS > range.startS);
    if (!lost) {
      connection.sendPcm(chunk);
      options.onSent?.(chunkEndS, performance.now());
    }
    if (options.clock) connection.clock(capturedSamples, options.realtime === false ? chunkEndS : (performance.now() - started) / 1000);
    options.afterChunk?.(connection, chunkEndS);
  }
  if (!options.noEof && connection.ws.readyState === WebSocket.OPEN) connection.eof();
  return connection.closed;
}

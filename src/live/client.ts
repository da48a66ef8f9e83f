/**
 * A small Node client for realtime sessions: create a session with an API key, connect to its `streamUrl`,
 * stream 16 kHz mono float32 audio in real time, and collect drafts and commits. The tests, the benchmark
 * and `npm run stream -- <file>` use it; it is also docs/realtime.md's example of the protocol.
 *
 * Ready deadline (spec): 30 s without `session.ready` fails; with no frame at all the error is
 * `capacity_exceeded` (every engine slot busy), after loading frames `engine_unavailable`.
 */
import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import { ffmpegPath } from '../../workers/engine/index.js';
import type { CommittedSegment } from '../transcript/index.js';

export const SAMPLE_RATE = 16_000;

export type { CommittedSegment };

export interface DraftSegment { start: number; text: string; speaker: number; tentative: boolean }

export type ServerFrame =
  | { type: 'session.loading'; stage: 'download' | 'model' }
  | { type: 'session.ready'; sessionId: string }
  | { type: 'transcript.draft'; segments: DraftSegment[]; audioS?: number }
  | { type: 'transcript.committed'; segment: CommittedSegment }
  | { type: 'transcript.words'; seq: number; words: CommittedSegment['words'] }
  | { type: 'session.done'; reason: 'eof' | 'max_duration' | 'cancelled'; stats: { audioS: number; processingS: number; realtimeFactor: number } }
  | { type: 'error'; code: string; message: string; retryable: boolean }
  | { type: string; [field: string]: unknown };

export interface CreateSessionResponse { sessionId: string; streamUrl: string; expiresAt: string }

export class RealtimeClientError extends Error {
  constructor(readonly code: string, message: string, readonly status?: number, readonly body?: unknown) {
    super(message);
  }
}

/** `POST /v1/realtime/sessions` with an API key (servers only: a browser gets the `streamUrl` from its server). */
export async function createSession(baseUrl: string, apiKey: string, options: Record<string, unknown> = {}): Promise<CreateSessionResponse> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/v1/realtime/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(options),
  });
  const body = (await response.json().catch(() => null)) as { code?: string; message?: string } | null;
  if (!response.ok) throw new RealtimeClientError(body?.code ?? 'http_error', body?.message ?? `HTTP ${response.status}`, response.status, body);
  return body as unknown as CreateSessionResponse;
}

export interface SessionResult {
  commits: CommittedSegment[];
  done: Extract<ServerFrame, { type: 'session.done' }> | null;
  errors: { code: string; message: string; retryable: boolean }[];
  closeCode: number;
  /** Every frame in arrival order, with its arrival time (performance.now() ms). */
  frames: { frame: ServerFrame; atMs: number }[];
}

/** One realtime socket. Frames are recorded as they arrive; `onFrame` sees each one too. */
export class RealtimeConnection {
  readonly ws: WebSocket;
  readonly result: SessionResult = { commits: [], done: null, errors: [], closeCode: 0, frames: [] };
  readonly closed: Promise<SessionResult>;
  private sawAnyFrame = false;
  private readyWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private isReady = false;
  /** How far into the audio the server has transcribed: its drafts' `audioS`, its commits' ends. */
  private heardS = 0;
  private frameWaiters: (() => void)[] = [];

  constructor(streamUrl: string, private readonly onFrame?: (frame: ServerFrame, atMs: number) => void) {
    this.ws = new WebSocket(streamUrl);
    this.closed = new Promise((resolve, reject) => {
      this.ws.on('close', (code) => {
        this.result.closeCode = code;
        for (const waiter of this.readyWaiters.splice(0)) waiter.reject(new RealtimeClientError('closed', `socket closed (${code}) before session.ready`));
        resolve(this.result);
      });
      this.ws.on('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          const body = safeJson(text) as { code?: string; message?: string } | null;
          const error = new RealtimeClientError(body?.code ?? 'http_error', body?.message ?? `upgrade refused with ${response.statusCode}`, response.statusCode, body);
          Object.assign(error, { headers: response.headers });
          for (const waiter of this.readyWaiters.splice(0)) waiter.reject(error);
          reject(error);
        });
      });
      this.ws.on('error', (error) => {
        for (const waiter of this.readyWaiters.splice(0)) waiter.reject(error);
      });
    });
    this.closed.catch(() => undefined); // the refusal is reported through ready() as well
    this.ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const frame = JSON.parse(data.toString()) as ServerFrame;
      const atMs = performance.now();
      this.sawAnyFrame = true;
      this.result.frames.push({ frame, atMs });
      if (frame.type === 'transcript.committed') {
        const segment = (frame as { segment: CommittedSegment }).segment;
        this.result.commits.push(segment);
        this.heardS = Math.max(this.heardS, segment.end);
      } else if (frame.type === 'transcript.draft' && typeof frame.audioS === 'number') this.heardS = Math.max(this.heardS, frame.audioS);
      else if (frame.type === 'session.done') this.result.done = frame as SessionResult['done'];
      else if (frame.type === 'error') this.result.errors.push(frame as SessionResult['errors'][number]);
      else if (frame.type === 'session.ready') {
        this.isReady = true;
        for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
      }
      this.onFrame?.(frame, atMs);
      for (const wake of this.frameWaiters.splice(0)) wake();
    });
    this.ws.on('close', () => {
      for (const wake of this.frameWaiters.splice(0)) wake();
    });
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

  /** Resolves at `session.ready`; the spec's deadline: `deadlineS` of silence fails. */
  ready(deadlineS = 30): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout;
      let framesAtArm = -1;
      const arm = () => {
        framesAtArm = this.result.frames.length;
        timer = setTimeout(() => {
          if (this.result.frames.length !== framesAtArm) return arm(); // a heartbeat came: silence restarts
          const error = this.sawAnyFrame
            ? new RealtimeClientError('engine_unavailable', `no session.ready after ${deadlineS} s of loading`)
            : new RealtimeClientError('capacity_exceeded', `no frame at all in ${deadlineS} s: every engine slot is busy`);
          reject(error);
        }, deadlineS * 1000);
      };
      arm();
      this.readyWaiters.push({
        resolve: () => { clearTimeout(timer); resolve(); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
    });
  }

  sendPcm(pcm: Float32Array): void {
    this.ws.send(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), { binary: true });
  }

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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Decodes any audio or video file to 16 kHz mono float32, yielding chunks of exactly `chunkSamples` (the last may be shorter). */
export async function* decodeToChunks(path: string, chunkSamples: number): AsyncGenerator<Float32Array> {
  const ffmpeg = spawn(ffmpegPath(), ['-nostdin', '-loglevel', 'error', '-i', path, '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 'f32le', '-acodec', 'pcm_f32le', '-'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  const connection = new RealtimeConnection(streamUrl, options.onFrame);
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

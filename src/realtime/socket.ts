/**
 * `WS /v1/realtime/sessions/{token}/socket`: the realtime socket protocol (spec: "Realtime", "Realtime socket,
 * server to client").
 *
 * Upgrade: the token is checked before the upgrade (401 `invalid_token`, 410 `session_expired`), then the
 * engine host's admission (503 `unavailable` with `Retry-After`); refusals are plain HTTP answers carrying the
 * error envelope. After the upgrade the socket waits silently for an engine slot, sends `session.loading`
 * heartbeats while the engine warms, then `session.ready`.
 *
 * Ordering and backpressure: every frame goes out in the order produced. Commits are never dropped; drafts
 * are skipped while the client is behind (unsent bytes past `draftDropBytes`, or a ping it has not answered
 * for two seconds). A client that is too far behind (`slowConsumerBytes` unsent, or a ping unanswered for
 * `slowConsumerS`: WebSocket clients answer pings as they read, so an old ping means unread frames) gets
 * `error slow_consumer` and is closed.
 */
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { ApiError, errors, rawHttpAnswer, toApiError } from '../core/errors.js';
import type { RealtimeConfig } from './config.js';
import type { EngineHost, HostedSession, SessionListener, SessionUpdate, SlotLease } from './engine-host.js';
import { SAMPLE_RATE } from '../../workers/engine/mel.js';
import type { WorkerSegment } from './engine-messages.js';
import { applySessionUpdate, type OptionRules, type RealtimeSessionOptions } from './options.js';
import type { SessionClaims, SessionTokenSigner } from './session-token.js';

const BYTES_PER_SAMPLE = 4;
/** Largest binary frame accepted: 2 s of audio, well above the spec's 250 ms chunks. */
const MAX_CHUNK_BYTES = 2 * SAMPLE_RATE * BYTES_PER_SAMPLE;
/** The socket's frame limit: an audio frame over MAX_CHUNK_BYTES is refused with an error frame, one over twice that closes the socket. */
export const REALTIME_MAX_PAYLOAD = MAX_CHUNK_BYTES * 2;
/** Capture loss smaller than this is jitter (a chunk in flight, clock drift), not a gap. */
const MIN_GAP_S = 0.25;
/** A ping unanswered this long means the client is behind: drafts wait. */
const DRAFT_PING_LAG_S = 2;
const PING_INTERVAL_MS = 1000;
/** After the close frame, how long a client gets to finish the closing handshake before the socket is cut. */
const CLOSE_GRACE_MS = 5000;

export const SOCKET_PATH = /^\/v1\/realtime\/sessions\/([^/?#]+)\/socket(?:\?.*)?$/;

export interface RealtimeSocketDeps {
  host: EngineHost;
  signer: SessionTokenSigner;
  config: RealtimeConfig;
  /** Languages and speaker label modes, for `session.update` validation. */
  optionRules: () => Promise<OptionRules>;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

type EndReason = 'eof' | 'max_duration' | 'cancelled';

/** Writes an upgrade refusal as an HTTP answer with the error envelope, then closes the TCP socket. */
export function refuseUpgrade(socket: Duplex, error: ApiError, requestId: string): void {
  socket.end(rawHttpAnswer(error, requestId));
}

export class RealtimeSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: REALTIME_MAX_PAYLOAD, perMessageDeflate: false });
  private readonly sessions = new Set<RealtimeSession>();

  constructor(private readonly deps: RealtimeSocketDeps) {}

  /** True when this upgrade request is for a realtime socket (the caller then hands it over). */
  matches(req: IncomingMessage): boolean {
    return SOCKET_PATH.test(req.url ?? '');
  }

  /**
   * Before the upgrade: the token (401 `invalid_token`, 410 `session_expired`) and admission (503
   * `unavailable` with `Retry-After`). Throws the ApiError to refuse with.
   */
  authorize(token: string): SessionClaims {
    const claims = this.deps.signer.verify(token);
    const refusal = this.deps.host.refusal();
    if (refusal) throw refusal;
    return claims;
  }

  /** After the upgrade: runs the session on this socket. */
  accept(ws: WebSocket, claims: SessionClaims): void {
    const session = new RealtimeSession(ws, claims, this.deps);
    this.sessions.add(session);
    ws.once('close', () => this.sessions.delete(session));
    void session.start();
  }

  /** Serves an upgrade request on its own (the benchmark's bare HTTP server; the gateway uses its route table). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const requestId = headerValue(req.headers['x-request-id']) ?? `req_${randomUUID().replaceAll('-', '')}`;
    let claims: SessionClaims;
    try {
      const token = SOCKET_PATH.exec(req.url ?? '')?.[1];
      if (!token) throw errors.notFound('This socket');
      claims = this.authorize(decodeURIComponent(token));
    } catch (error) {
      refuseUpgrade(socket, toApiError(error), requestId);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, claims));
  }

  /** Sessions with an open socket (waiting, loading or streaming). */
  get openSessions(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.shutdown();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return first && /^[\w.-]{1,128}$/.test(first) ? first : null;
}

class RealtimeSession implements SessionListener {
  private state: 'waiting' | 'loading' | 'ready' | 'ending' | 'closed' = 'waiting';
  private options: RealtimeSessionOptions;
  private readonly waitAbort = new AbortController();
  private lease: SlotLease | null = null;
  private hosted: HostedSession | null = null;
  private endReason: EndReason | null = null;

  private seq = 0;
  private receivedSamples = 0;
  /** Wall time at which each received chunk's last sample arrived: a commit's latency is measured from here. */
  private arrivals: { endSample: number; wallMs: number }[] = [];
  private processingS = 0;
  private lastDraftJson = '[]';

  /** Capture loss the client's `clock` frames revealed, not yet attached to a committed segment. */
  private pendingGaps: { atS: number; lostS: number }[] = [];
  private lostReportedS = 0;

  private heartbeat: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private waitTimer: NodeJS.Timeout | null = null;
  private readonly unansweredPings: number[] = [];

  constructor(
    private readonly ws: WebSocket,
    private readonly claims: SessionClaims,
    private readonly deps: RealtimeSocketDeps,
  ) {
    this.options = claims.options;
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    ws.on('pong', () => this.unansweredPings.shift());
    ws.on('close', () => this.socketClosed());
    ws.on('error', () => ws.terminate());
  }

  async start(): Promise<void> {
    // Silence while every slot is busy: the client's 30-second deadline reports `capacity_exceeded`.
    this.waitTimer = setTimeout(() => this.waitAbort.abort(new Error('no engine slot in time')), this.deps.config.waitTimeoutS * 1000);
    try {
      this.lease = await this.deps.host.acquire(this.waitAbort.signal);
    } catch {
      if (this.state === 'waiting' && this.ws.readyState === WebSocket.OPEN) this.ws.close(1013, 'no engine slot free');
      return;
    } finally {
      clearTimeout(this.waitTimer);
    }
    if (this.state !== 'waiting') {
      // The client left (or ended) while waiting.
      this.lease.release();
      return;
    }
    this.state = 'loading';
    try {
      this.hosted = this.deps.host.open(this.claims.sessionId, { language: this.options.spokenLanguage, latencyMode: this.options.latencyMode }, this);
    } catch (error) {
      this.failed(toApiError(error).message);
    }
  }

  /** Gateway shutdown: the session ends the way a lost engine ends it. */
  shutdown(): void {
    this.hosted?.cancel();
    this.failed('This gateway is shutting down; create a new session.');
  }

  // ---- engine host events -------------------------------------------------------------------------------

  loading(stage: 'download' | 'model'): void {
    if (this.state !== 'loading') return;
    this.send({ type: 'session.loading', stage });
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => this.send({ type: 'session.loading', stage }), this.deps.config.loadingHeartbeatS * 1000);
  }

  ready(): void {
    if (this.state !== 'loading') return;
    this.stopHeartbeat();
    this.state = 'ready';
    this.send({ type: 'session.ready', sessionId: this.claims.sessionId, audio: { encoding: 'pcm_f32le', sampleRate: SAMPLE_RATE, channels: 1 } });
    this.pingTimer = setInterval(() => this.checkConsumer(), PING_INTERVAL_MS);
  }

  update(update: SessionUpdate): void {
    if (this.state !== 'ready' && this.state !== 'ending') return;
    if (this.endReason === 'cancelled') return; // cancel drops the rest
    this.processingS += update.processingS;
    const now = Date.now();
    for (const segment of update.committed.flatMap((committed) => this.splitAtGaps(committed))) {
      const latencyS = Math.max(0.001, (now - this.arrivalWallMs(segment.end)) / 1000);
      const gapBefore = this.takeGapsBefore(segment.end);
      const committed: Record<string, unknown> = {
        seq: this.seq++,
        speaker: this.speakerLabel(),
        start: round(segment.start),
        end: round(segment.end),
        text: segment.text,
        words: segment.words.map((word) => ({ start: round(word.start), end: round(word.end), text: word.text, prob: round(word.prob) })),
        confidence: round(segment.confidence),
        language: segment.language,
        latencyS: round(latencyS),
        decoder: segment.decoder,
      };
      if (segment.decoder === 'fast') committed.catchup = true;
      if (gapBefore > 0) committed.gapBefore = round(gapBefore);
      if (!this.send({ type: 'transcript.committed', segment: committed })) return;
      if (segment.words.length > 0) {
        this.send({ type: 'transcript.words', seq: committed.seq, words: committed.words });
      }
    }
    if (update.committed.length > 0) this.forgetArrivalsBefore(update.committed[update.committed.length - 1]!.end);

    const draft = update.draft.map((item) => ({ start: round(item.start), text: item.text, speaker: this.speakerLabel(), tentative: true }));
    const draftJson = JSON.stringify(draft);
    if (draftJson !== this.lastDraftJson && !this.clientBehind()) {
      this.lastDraftJson = draftJson;
      this.send({ type: 'transcript.draft', segments: draft, audioS: round(update.coveredS) });
    }
  }

  done(reason: 'eof' | 'cancelled'): void {
    this.lease?.release();
    this.lease = null;
    if (this.state === 'closed') return;
    const audioS = this.receivedSamples / SAMPLE_RATE;
    this.send({
      type: 'session.done',
      reason: this.endReason ?? reason,
      stats: { audioS: round(audioS), processingS: round(this.processingS), realtimeFactor: audioS > 0 ? round(this.processingS / audioS) : 0 },
    });
    this.close(1000, 'session done');
  }

  failed(message: string): void {
    this.lease?.release();
    this.lease = null;
    if (this.state === 'closed') return;
    this.send({ type: 'error', code: 'engine_unavailable', message, retryable: true });
    this.close(1011, 'engine unavailable');
  }

  // ---- client frames ------------------------------------------------------------------------------------

  private receive(data: RawData, isBinary: boolean): void {
    if (this.state === 'closed') return;
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) {
      this.audio(buffer);
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(buffer.toString('utf8'));
    } catch {
      this.sendError('invalid_body', 'A text frame must be a JSON object with a "type".');
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame) || typeof (frame as { type?: unknown }).type !== 'string') {
      this.sendError('invalid_body', 'A text frame must be a JSON object with a "type".');
      return;
    }
    const typed = frame as Record<string, unknown> & { type: string };
    switch (typed.type) {
      case 'eof':
        this.end('eof');
        break;
      case 'cancel':
        this.end('cancelled');
        break;
      case 'session.update':
        void this.sessionUpdate(typed);
        break;
      case 'clock':
        this.clock(typed);
        break;
      default:
        this.sendError('invalid_body', `Unknown frame type "${typed.type}" (expected eof, cancel, session.update or clock).`);
    }
  }

  private audio(buffer: Buffer): void {
    // Audio before `session.ready` is not expected (the spec) and is dropped without a word, so a socket
    // waiting for a slot stays silent; after the end it has nowhere to go.
    if (this.state !== 'ready' || !this.hosted) return;
    if (buffer.byteLength > MAX_CHUNK_BYTES) {
      this.sendError('invalid_audio', `A binary frame carries at most ${MAX_CHUNK_BYTES} bytes (2 s); send 100 to 250 ms chunks.`);
      return;
    }
    if (buffer.byteLength % BYTES_PER_SAMPLE !== 0) {
      this.sendError('invalid_audio', `Binary frames are pcm_f32le: ${buffer.byteLength} bytes is not a whole number of 4-byte samples.`);
      return;
    }
    let samples = buffer.byteLength / BYTES_PER_SAMPLE;
    const maxSamples = Math.floor(this.deps.config.maxDurationS * SAMPLE_RATE);
    const room = maxSamples - this.receivedSamples;
    const overLimit = samples >= room;
    if (overLimit) samples = Math.max(0, room);
    if (samples > 0) {
      // Copy into an aligned buffer of its own: it is transferred to the engine thread.
      const pcm = new Float32Array(samples);
      new Uint8Array(pcm.buffer).set(buffer.subarray(0, samples * BYTES_PER_SAMPLE));
      this.receivedSamples += samples;
      this.arrivals.push({ endSample: this.receivedSamples, wallMs: Date.now() });
      this.hosted.push(pcm);
    }
    if (overLimit) this.end('max_duration');
  }

  /** `eof` and `max_duration` flush and commit what is left; `cancel` stops at once and drops it. */
  private end(reason: EndReason): void {
    if (this.state === 'closed' || this.endReason === 'cancelled') return;
    if (this.state === 'ending' && reason !== 'cancelled') return;
    this.endReason = reason;
    if (this.state === 'waiting') {
      // Nothing was transcribed: stop waiting for a slot and report the end at once.
      this.waitAbort.abort(new Error('ended while waiting'));
      this.done(reason === 'cancelled' ? 'cancelled' : 'eof');
      return;
    }
    this.state = 'ending';
    this.stopHeartbeat();
    if (reason === 'cancelled') this.hosted?.cancel();
    else this.hosted?.endOfAudio();
  }

  private async sessionUpdate(frame: Record<string, unknown>): Promise<void> {
    let result;
    try {
      result = applySessionUpdate(this.options, frame, await this.deps.optionRules());
    } catch (error) {
      const apiError = toApiError(error);
      this.sendError(apiError.code, apiError.message, apiError.retryable);
      return;
    }
    this.options = result.options;
    const change: { language?: string | null; latencyMode?: RealtimeSessionOptions['latencyMode'] } = {};
    if (result.changed.includes('spokenLanguage')) change.language = result.options.spokenLanguage;
    if (result.changed.includes('latencyMode')) change.latencyMode = result.options.latencyMode;
    if (Object.keys(change).length > 0) this.hosted?.update(change);
    this.deps.log?.('info', 'realtime session updated', { sessionId: this.claims.sessionId, changed: result.changed });
    // Not a spec frame (clients ignore unknown types): tells the client what took effect and what was ignored.
    this.send({ type: 'session.updated', options: result.options, changed: result.changed, ignored: result.ignored });
  }

  /**
   * `clock`: `pcm` samples the client captured so far, `wall` seconds since capture started. Captured audio
   * that never arrived (`pcm` ahead of what we received) and capture that stalled while time went on (`wall`
   * ahead of `pcm`) are both lost audio; it is reported as `gapBefore` on the segment that follows the loss.
   */
  private clock(frame: Record<string, unknown>): void {
    const { pcm, wall } = frame;
    if (typeof pcm !== 'number' || !Number.isInteger(pcm) || pcm < 0 || typeof wall !== 'number' || !Number.isFinite(wall) || wall < 0) {
      this.sendError('invalid_body', 'clock: "pcm" must be a whole number of samples and "wall" a number of seconds, both ≥ 0.');
      return;
    }
    const capturedS = pcm / SAMPLE_RATE;
    const undeliveredS = Math.max(0, capturedS - this.receivedSamples / SAMPLE_RATE);
    const stalledS = Math.max(0, wall - capturedS);
    const lostS = undeliveredS + stalledS;
    if (lostS - this.lostReportedS >= MIN_GAP_S) {
      this.pendingGaps.push({ atS: this.receivedSamples / SAMPLE_RATE, lostS: lostS - this.lostReportedS });
      this.lostReportedS = lostS;
    }
  }

  // ---- helpers ------------------------------------------------------------------------------------------

  /**
   * A commit that spans a reported capture loss is cut there (at the first word that ends after it: the audio
   * on either side of a loss is not continuous, so a word reaching past it belongs to what came after, wherever
   * the alignment put its start), so the loss sits between two segments and `gapBefore` is true to its word:
   * lost just before this segment.
   */
  private splitAtGaps(segment: WorkerSegment): WorkerSegment[] {
    const cutAt = this.pendingGaps.find((gap) => gap.atS > segment.start && gap.atS < segment.end)?.atS;
    if (cutAt === undefined) return [segment];
    const index = segment.words.findIndex((word) => word.end > cutAt);
    if (index <= 0) return [segment];
    const part = (words: WorkerSegment['words']): WorkerSegment => ({
      ...segment,
      start: words[0]!.start,
      end: words[words.length - 1]!.end,
      text: words.map((word) => word.text).join(' '),
      words,
      confidence: words.reduce((sum, word) => sum + word.prob, 0) / words.length,
    });
    return [part(segment.words.slice(0, index)), ...this.splitAtGaps(part(segment.words.slice(index)))];
  }

  /** Gaps reported at or before the end of this segment belong to it (the loss happened before its audio ended). */
  private takeGapsBefore(endS: number): number {
    let total = 0;
    while (this.pendingGaps.length > 0 && this.pendingGaps[0]!.atS < endS) total += this.pendingGaps.shift()!.lostS;
    return total;
  }

  /**
   * -1 while labels are off (the spec). The engine has no diarization model yet, so capabilities offer no
   * speaker label modes and a session can only ask for `auto` (labels where offered) or `off`: -1 either way.
   */
  private speakerLabel(): number {
    return -1;
  }

  private arrivalWallMs(endS: number): number {
    const endSample = Math.ceil(endS * SAMPLE_RATE);
    const entry = this.arrivals.find((candidate) => candidate.endSample >= endSample) ?? this.arrivals[this.arrivals.length - 1];
    return entry?.wallMs ?? Date.now();
  }

  private forgetArrivalsBefore(endS: number): void {
    const endSample = Math.floor(endS * SAMPLE_RATE);
    while (this.arrivals.length > 1 && this.arrivals[0]!.endSample < endSample) this.arrivals.shift();
  }

  private clientBehind(): boolean {
    const oldestPing = this.unansweredPings[0];
    return this.ws.bufferedAmount > this.deps.config.draftDropBytes || (oldestPing !== undefined && Date.now() - oldestPing > DRAFT_PING_LAG_S * 1000);
  }

  /** Every second: is the client still reading? Then ping again (its pong comes once it read what is queued). */
  private checkConsumer(): void {
    if (this.state === 'closed') return;
    const oldestPing = this.unansweredPings[0];
    if (
      this.ws.bufferedAmount > this.deps.config.slowConsumerBytes ||
      (oldestPing !== undefined && Date.now() - oldestPing > this.deps.config.slowConsumerS * 1000)
    ) {
      this.slowConsumer();
      return;
    }
    this.unansweredPings.push(Date.now());
    this.ws.ping();
  }

  private slowConsumer(): void {
    this.send({ type: 'error', code: 'slow_consumer', message: 'The client read the transcript too slowly and was disconnected; create a new session.', retryable: false }, true);
    if (this.endReason !== 'cancelled') this.hosted?.cancel();
    this.endReason = 'cancelled';
    this.close(1008, 'slow_consumer');
  }

  private sendError(code: string, message: string, retryable = false): void {
    this.send({ type: 'error', code, message, retryable });
  }

  /** Returns false once the socket is closed or the client turned out to be a slow consumer. */
  private send(frame: Record<string, unknown>, force = false): boolean {
    if (this.state === 'closed' || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    if (!force && this.ws.bufferedAmount > this.deps.config.slowConsumerBytes) {
      this.slowConsumer();
      return false;
    }
    return true;
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private close(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.stopHeartbeat();
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.close(code, reason);
      setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
    }
  }

  private socketClosed(): void {
    const wasOpen = this.state !== 'closed';
    this.state = 'closed';
    this.stopHeartbeat();
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.waitAbort.abort(new Error('client left'));
    // A dropped connection ends the session (no resume): stop the engine; its `done` frees the slot.
    if (wasOpen && this.hosted) this.hosted.cancel();
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

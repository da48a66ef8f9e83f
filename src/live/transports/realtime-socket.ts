/**
 * `WS /v1/realtime/sessions/{token}/socket`: the WebSocket adapter around a `LiveSession` (session.ts), which
 * holds the protocol itself (spec: "Realtime", "Realtime socket, server to client").
 *
 * Upgrade: the token is checked before the upgrade (401 `invalid_token`, 410 `session_expired`), then the engine
 * and the admission (503 `unavailable` with `Retry-After`); refusals are plain HTTP answers carrying the error
 * envelope. After the upgrade, text frames are parsed and handed to the session, binary frames are its audio.
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
import { ApiError, errors, rawHttpAnswer, toApiError } from '../../core/errors.js';
import {
  LiveSession, MAX_CHUNK_BYTES, type LiveEvent, type LiveOutcome, type LiveOutput, type LiveRecordingHooks,
  type LiveSessionDeps,
} from '../session.js';
import type { SessionClaims, SessionTokenSigner } from '../session-token.js';

/** The socket's frame limit: an audio frame over MAX_CHUNK_BYTES is refused with an error frame, one over twice that closes the socket. */
export const REALTIME_MAX_PAYLOAD = MAX_CHUNK_BYTES * 2;
/** A ping unanswered this long means the client is behind: drafts wait. */
const DRAFT_PING_LAG_S = 2;
const PING_INTERVAL_MS = 1000;
/** After the close frame, how long a client gets to finish the closing handshake before the socket is cut. */
const CLOSE_GRACE_MS = 5000;

export const SOCKET_PATH = /^\/v1\/realtime\/sessions\/([^/?#]+)\/socket(?:\?.*)?$/;

export interface RealtimeSocketDeps extends LiveSessionDeps {
  signer: SessionTokenSigner;
}

/** What a live recording's publisher socket adds to a realtime session: commits stored, audio kept, a close hook. */
export interface SocketAttachment extends LiveRecordingHooks {
  closed?(): void;
}

/** Writes an upgrade refusal as an HTTP answer with the error envelope, then closes the TCP socket. */
export function refuseUpgrade(socket: Duplex, error: ApiError, requestId: string): void {
  socket.end(rawHttpAnswer(error, requestId));
}

export class RealtimeSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: REALTIME_MAX_PAYLOAD, perMessageDeflate: false });
  private readonly sockets = new Set<RealtimeSocket>();

  constructor(private readonly deps: RealtimeSocketDeps) {}

  /** True when this upgrade request is for a realtime socket (the caller then hands it over). */
  matches(req: IncomingMessage): boolean {
    return SOCKET_PATH.test(req.url ?? '');
  }

  /**
   * Before the upgrade: the token (401 `invalid_token`, 410 `session_expired`), the engine and the admission
   * (503 `unavailable` with `Retry-After`). Throws what to refuse with (`toApiError` makes it the envelope).
   */
  authorize(token: string, recordingId: string | null = null): SessionClaims {
    const claims = this.deps.signer.verify(token);
    // A recording's publish token opens that recording's socket only, and a realtime token no recording's.
    if ((claims.recording?.id ?? null) !== recordingId) {
      throw errors.invalidToken(recordingId ? 'This stream URL is not this recording\'s publish grant; start a recording or ask for a '
        + 'publish token.' : 'This stream URL belongs to a live recording; connect to it as it was given.');
    }
    const engineRefusal = this.deps.engine.unavailable();
    if (engineRefusal) throw engineRefusal;
    if (this.deps.admission.full) {
      throw new ApiError(
        'unavailable', 503, 'Every realtime engine slot is busy and the wait line is full.', { headers: { 'Retry-After': '5' } },
      );
    }
    return claims;
  }

  /** After the upgrade: runs the session on this socket (a live recording's publisher adds its attachment). */
  accept(ws: WebSocket, claims: SessionClaims, attachment: SocketAttachment = {}): LiveSession {
    const socket = new RealtimeSocket(ws, claims, this.deps, attachment);
    this.sockets.add(socket);
    ws.once('close', () => this.sockets.delete(socket));
    void socket.session.start();
    return socket.session;
  }

  /**
   * A session with no socket: the server is its client (a live recording's pulled stream). `output` receives the
   * frames a socket would have sent; the session starts at once.
   */
  open(claims: SessionClaims, output: LiveOutput, hooks: LiveRecordingHooks = {}): LiveSession {
    const session = new LiveSession(claims, this.deps, output, hooks);
    void session.start();
    return session;
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
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.session.shutdown();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return first && /^[\w.-]{1,128}$/.test(first) ? first : null;
}

/** The WebSocket side of one live session: frames in and out, pings, backpressure and closing. */
class RealtimeSocket implements LiveOutput {
  readonly session: LiveSession;
  private closed = false;
  private pingTimer: NodeJS.Timeout | null = null;
  private readonly unansweredPings: number[] = [];

  constructor(
    private readonly ws: WebSocket,
    claims: SessionClaims,
    private readonly deps: RealtimeSocketDeps,
    private readonly attachment: SocketAttachment,
  ) {
    this.session = new LiveSession(claims, deps, this, attachment);
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    ws.on('pong', () => this.unansweredPings.shift());
    ws.on('close', () => this.socketClosed());
    ws.on('error', () => ws.terminate());
  }

  send(event: LiveEvent, force = false): boolean {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(event));
    if (event.type === 'session.ready') this.pingTimer = setInterval(() => this.checkConsumer(), PING_INTERVAL_MS);
    if (!force && this.ws.bufferedAmount > this.deps.config.slowConsumerBytes) {
      this.slowConsumer();
      return false;
    }
    return true;
  }

  behind(): boolean {
    const oldestPing = this.unansweredPings[0];
    return (
      this.ws.bufferedAmount > this.deps.config.draftDropBytes ||
      (oldestPing !== undefined && Date.now() - oldestPing > DRAFT_PING_LAG_S * 1000)
    );
  }

  finished(outcome: LiveOutcome): void {
    if (outcome === 'done') this.close(1000, 'session done');
    else if (outcome === 'failed') this.close(1011, 'engine unavailable');
    else this.close(1013, 'no engine slot free');
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) {
      this.session.audio(buffer);
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(buffer.toString('utf8'));
    } catch {
      frame = null; // the session answers invalid_body
    }
    this.session.frame(frame);
  }

  /** Every second: is the client still reading? Then ping again (its pong comes once it read what is queued). */
  private checkConsumer(): void {
    if (this.closed) return;
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
    this.send({ type: 'error', code: 'slow_consumer', message: 'The client read the transcript too slowly and was disconnected; create a '
      + 'new session.', retryable: false }, true);
    this.session.abandon();
    this.close(1008, 'slow_consumer');
  }

  private stopPings(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stopPings();
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.close(code, reason);
      setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
    }
  }

  private socketClosed(): void {
    this.closed = true;
    this.stopPings();
    this.session.clientLeft();
    this.attachment.closed?.();
  }
}

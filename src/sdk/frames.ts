/**
 * The sockets' frames: their types, generated (never written twice: rest/frame-schemas.ts describes each frame in
 * the OpenAPI document's components, openapi-typescript turns them into `components['schemas']`, and this module
 * only names them; `RealtimeServerFrame` and `SubscribeFrame` are unions told apart by `type`), and how the SDK
 * opens a WebSocket and reads frames off it, the same in Node and in a browser.
 *
 * The WebSocket is the caller's constructor (default `globalThis.WebSocket`; Node 20 has none, so Node programs
 * pass the `ws` package's). Only the standard interface is used (`onopen`, `onmessage`, `bufferedAmount`, ...),
 * plus two things a Node constructor may offer and a browser's does not: request headers (the owner's credential
 * on the subscribe socket) and the refused upgrade's answer (its error envelope, instead of a bare failure).
 */
import type { components, paths } from '../generated/openapi.js';
import { envelopeOf, NETWORK_ERROR, retryAfterValueMs, SpeechgateError } from './errors.js';

type Schemas = components['schemas'];

export type CommittedSegment = Schemas['CommittedSegment'];
export type Word = Schemas['Word'];
export type DraftSegment = Schemas['DraftSegment'];
export type SocketErrorFrame = Schemas['SocketErrorFrame'];

/** A text frame of the realtime socket (spec: "Realtime socket, server to client"). */
export type RealtimeServerFrame = Schemas['RealtimeServerFrame'];
/** A text frame of the subscribe socket (spec: "Subscribe socket"). */
export type SubscribeFrame = Schemas['SubscribeFrame'];

/** The member of a frame union with this `type`: `FrameOf<RealtimeServerFrame, 'session.done'>`. */
export type FrameOf<Frame extends { type: string }, Type extends Frame['type']> = Extract<Frame, { type: Type }>;

export type SessionReadyFrame = FrameOf<RealtimeServerFrame, 'session.ready'>;
export type SessionDoneFrame = FrameOf<RealtimeServerFrame, 'session.done'>;
export type SubscribeReadyFrame = FrameOf<SubscribeFrame, 'subscribe.ready'>;

/** `POST /v1/realtime/sessions`: its body (the session options, also what `session.update` takes) and its answer. */
export type RealtimeSessionOptions = NonNullable<paths['/v1/realtime/sessions']['post']['requestBody']>['content']['application/json'];
export type CreateSessionResponse = paths['/v1/realtime/sessions']['post']['responses'][201]['content']['application/json'];

/** `GET /v1/recordings/{id}/transcript`: the snapshot a subscriber starts from. */
export type TranscriptSnapshot = paths['/v1/recordings/{id}/transcript']['get']['responses'][200]['content']['application/json'];
export type SnapshotSegment = TranscriptSnapshot['segments'][number];

// ---- WebSocket ------------------------------------------------------------------------------------------------

/** A socket event handler slot; the event is typed loosely so both the DOM's and `ws`'s event types fit. */
type Handler = ((event: any) => void) | null;

/** The standard WebSocket interface, as much of it as the SDK uses. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  binaryType: string;
  onopen: Handler;
  onmessage: Handler;
  onerror: Handler;
  onclose: Handler;
  send(data: string | ArrayBuffer | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
}

/**
 * A WebSocket constructor: the browser's, or Node's `ws` (`import { WebSocket } from 'ws'`), whose third argument
 * carries request headers. A browser's WebSocket ignores that argument: it cannot send headers.
 */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: { headers?: Record<string, string> },
) => WebSocketLike;

export const OPEN = 1;

/** The constructor to use: the caller's, else the global one; none at all is the caller's mistake, said plainly. */
export function webSocketConstructor(given: WebSocketConstructor | undefined): WebSocketConstructor {
  const found = given ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!found) throw new TypeError('No WebSocket here: pass the `WebSocket` option (in Node 20: `import { WebSocket } from \'ws\'`).');
  return found;
}

/** `ws`'s EventEmitter side, when the constructor was `ws`'s: it reports a refused upgrade with the answer. */
interface UpgradeAnswer {
  on(
    event: 'unexpected-response',
    listener: (
      request: { destroy(): void }, response: AsyncIterable<Uint8Array> & { statusCode?: number; headers: Record<string, unknown> },
    ) => void,
  ): void;
}

/**
 * Opens a socket. `onRefused` gets the refused upgrade's error envelope as a SpeechgateError where the constructor
 * can tell it (`ws`); elsewhere a refusal is a failure to open like any other (`network_error`, from the caller).
 */
export function openSocket(
  Constructor: WebSocketConstructor, url: string, headers: Record<string, string>, onRefused: (error: SpeechgateError) => void,
): WebSocketLike {
  const socket = Object.keys(headers).length ? new Constructor(url, undefined, { headers }) : new Constructor(url);
  socket.binaryType = 'arraybuffer';
  const emitter = socket as unknown as Partial<UpgradeAnswer>;
  if (typeof emitter.on === 'function') {
    emitter.on('unexpected-response', (_request, response) => {
      void readRefusal(response).then((error) => {
        onRefused(error);
        // A handled refusal is the listener's to end: closing a connecting `ws` aborts it (then `error`, `close`).
        socket.close();
      });
    });
  }
  return socket;
}

async function readRefusal(
  response: AsyncIterable<Uint8Array> & { statusCode?: number; headers: Record<string, unknown> },
): Promise<SpeechgateError> {
  const status = response.statusCode ?? 0;
  let text = '';
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response) text += decoder.decode(chunk, { stream: true });
  } catch {
    // The body did not arrive whole: the status alone says what happened.
  }
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not the envelope: something in front of the server answered.
  }
  const envelope = envelopeOf(body);
  const requestId = typeof response.headers['x-request-id'] === 'string' ? response.headers['x-request-id'] : null;
  const retryAfter = response.headers['retry-after'];
  const retryAfterMs = retryAfterValueMs(typeof retryAfter === 'string' ? retryAfter : null);
  if (!envelope) {
    return new SpeechgateError({
      code: status === 503 ? 'unavailable' : `http_${status}`, status, message: `The socket upgrade was refused with HTTP ${status}.`,
      retryable: status === 503 || status === 429, requestId, retryAfterMs, body,
    });
  }
  return new SpeechgateError({
    code: envelope.code, status: envelope.status ?? status, message: envelope.message, retryable: envelope.data?.retryable === true,
    details: envelope.data?.details ?? {}, requestId: envelope.requestId ?? requestId, retryAfterMs, body,
  });
}

/** A socket that could not be opened, or dropped: no answer to read (spec: `network_error`). */
export function socketLost(what: string, code?: number): SpeechgateError {
  return new SpeechgateError(
    { code: NETWORK_ERROR, status: 0, message: `${what}${code ? ` (close code ${code})` : ''}.`, retryable: true },
  );
}

/** An `error` frame as the SDK's error. */
export function frameError(frame: SocketErrorFrame): SpeechgateError {
  return new SpeechgateError({
    code: frame.code, status: 0, message: frame.message, retryable: frame.retryable, details: frame.details ?? {}, body: frame,
  });
}

/** A text frame parsed; null for one that is not a JSON object with a `type` (ignored, as unknown frames are). */
export function parseFrame<Frame extends { type: string }>(data: unknown): Frame | null {
  if (typeof data !== 'string') return null;
  try {
    const frame = JSON.parse(data) as unknown;
    return typeof frame === 'object' && frame !== null && typeof (frame as { type?: unknown }).type === 'string' ? (frame as Frame) : null;
  } catch {
    return null;
  }
}

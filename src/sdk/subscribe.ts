/**
 * Following a recording (spec: "Subscribe socket"): `subscribeRecording` runs the whole procedure, the same in Node
 * and in a browser (the listener page imports this module as it is, bundled):
 *   1. open `WS /v1/recordings/{id}/subscribe` and take `subscribe.ready`;
 *   2. read `GET /v1/recordings/{id}/transcript` with the same `lang` and credential (frames wait meanwhile);
 *   3. discard frames whose `cursor` is at or below the snapshot's `lastSeq`, apply the rest in cursor order;
 *   4. `subscribe.gap` (the server could not replay that far back): read the snapshot again with `after=`; so too
 *      when a line read in `lang` gets new text with no translation of it (the server translates on read);
 *   5. a dropped socket reconnects with backoff and resumes with `after=<last cursor applied>`;
 *   6. at `finalized` the recording changes no more: the subscription closes itself.
 *
 * Credentials: a listener's `listenerToken` or `shareCode` travel in the query, on the socket and the snapshot
 * alike. The owner's key (or a person's access token) travels only in the Authorization header, never in a URL
 * (spec: Authentication): a Node WebSocket (`ws`) sends it; a browser's WebSocket cannot send headers, so in a
 * browser follow a recording with a share code or listener token (a public broadcast's listener needs nothing).
 */
import { SpeechgateError } from './errors.js';
import {
  frameError, OPEN, openSocket, parseFrame, socketLost, webSocketConstructor,
  type CommittedSegment, type FrameOf, type SubscribeFrame, type TranscriptSnapshot, type WebSocketConstructor, type WebSocketLike,
} from './frames.js';
import { sendWithRetries, type RetryOptions } from './retry.js';

/**
 * A line as this subscriber shows it: the segment's fields as the frames and snapshots gave them, `unclear` for a
 * line withheld as unclear (its text '' and no words), translations merged by language as they arrive.
 */
export type SubscribedSegment = Partial<Omit<CommittedSegment, 'seq' | 'text' | 'decoder' | 'translations' | 'translationSources'>> & {
  seq: number;
  text: string;
  unclear: boolean;
  decoder?: string | null;
  translations?: Record<string, string>;
  translationSources?: Record<string, string>;
};

export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** What a subscription reports, in order. */
export type SubscriptionEvent =
  /** Every text frame as it arrived, before any filtering (to log it, or to check it). */
  | { type: 'received'; frame: SubscribeFrame }
  /** A durable frame applied: after the snapshot, in cursor order, each cursor once. */
  | { type: 'frame'; frame: SubscribeFrame }
  /** A snapshot applied: the whole transcript (`full`), or what changed after a cursor (a gap). */
  | { type: 'snapshot'; snapshot: TranscriptSnapshot; full: boolean }
  /** A line added or changed by a frame. */
  | { type: 'segment'; segment: SubscribedSegment }
  /** The recording's state (`live`, `paused`, `ended`, `finalized`). */
  | { type: 'state'; state: string }
  /**
   * Audio: the live audio (asked for with `audio`) or one spoken sentence per frame (`voice`), signed 16-bit
   * little-endian PCM, 16 kHz, mono.
   */
  | { type: 'audio'; data: ArrayBuffer }
  /**
   * A whole sentence (`transcript.sentence`): replaces the sentence of its `id`; sentences whose id falls after it
   * and at or before its `lastWordId` were merged into it. `complete` once it can no longer grow.
   */
  | { type: 'sentence'; sentence: FrameOf<SubscribeFrame, 'transcript.sentence'>['sentence'] }
  | { type: 'connection'; status: ConnectionStatus; reconnects: number }
  /** A failure: an `error` frame (a refused `subscribe.update`, `slow_consumer`), a refused socket or snapshot. */
  | { type: 'error'; error: SpeechgateError };

export type SubscriptionListener = (event: SubscriptionEvent) => void;

export interface ReconnectContext {
  /** Reconnects so far, this one included. */
  reconnects: number;
  /** Whether the socket that dropped had reached `subscribe.ready` (false: refused or never opened). */
  wasReady: boolean;
  /** Why it dropped, where known (with `ws`, a refused upgrade's envelope). */
  error: SpeechgateError | null;
}

export interface SubscribeOptions {
  /** The server, e.g. `https://speech.example.org`. */
  baseUrl: string;
  recordingId: string;
  /** The owner's credential, sent as the Authorization header (Node's `ws` only: see the header comment). */
  apiKey?: string;
  accessToken?: string;
  /** A private broadcast's listener token (`POST /v1/listen/{code}/token`). */
  listenerToken?: string | null;
  /** A share link's code. */
  shareCode?: string | null;
  /** Read in this language (a translation); absent or null: as spoken. */
  lang?: string | null;
  /** Binary frames of the live audio from the start. */
  audio?: boolean;
  /**
   * Binary frames of each finished sentence spoken in `lang` instead: `auto` (the recording's voice) or a catalogue
   * voice that speaks the language (not together with `audio`).
   */
  voice?: string | null;
  /** More query parameters for the socket (e.g. `presence`). */
  query?: Record<string, string>;
  /** Sent with the snapshot reads (and the socket, where the WebSocket can send headers). */
  headers?: Record<string, string>;
  /** Default `globalThis.WebSocket`; in Node 20 pass `ws`'s (`import { WebSocket } from 'ws'`). */
  WebSocket?: WebSocketConstructor;
  /** Default globalThis.fetch (snapshot reads). */
  fetch?: (request: Request) => Promise<Response>;
  /** The retry rules of snapshot reads (retry.ts). */
  retry?: RetryOptions;
  /** Wait before reconnect number `attempt` (from 0); default 0.5 s doubling to 15 s, with jitter. */
  reconnectDelayMs?: (attempt: number) => number;
  /** Asked before each reconnect: false ends the subscription (a page may check its listener may still listen). */
  shouldReconnect?: (context: ReconnectContext) => boolean | Promise<boolean>;
  /** Close once the recording is `finalized` (default true: nothing changes after it). */
  closeWhenFinalized?: boolean;
  /** Listens from the start (the first events come before `subscribeRecording` returns to an `on` call). */
  onEvent?: SubscriptionListener;
}

export interface RecordingSubscription {
  readonly recordingId: string;
  /** seq → the line as now shown. */
  readonly segments: ReadonlyMap<number, SubscribedSegment>;
  /** The last cursor applied (-1 before any). */
  readonly lastCursor: number;
  /** The recording's state, once known. */
  readonly state: string | null;
  readonly lang: string | null;
  readonly status: ConnectionStatus;
  readonly reconnects: number;
  /** Resolves once the first snapshot is applied; rejects if the subscription ends before. */
  readonly ready: Promise<void>;
  /** Resolves when the subscription is closed (by `close()`, at `finalized`, or a failure it cannot get past). */
  readonly closed: Promise<void>;
  /** The lines in seq order as text: in `lang` where the segment has that translation; '' for an unclear line. */
  texts(): string[];
  on(listener: SubscriptionListener): () => void;
  /** `subscribe.update`: a new `lang` (the snapshot is read again in it) and/or live audio on or off. */
  update(change: { lang?: string | null; audio?: boolean }): void;
  close(): void;
  /** Drops the socket as a network would (tests, a page's test hook): the subscription reconnects with `after=`. */
  cut(): void;
}

/** 0.5 s, 1 s, 2 s, … up to 15 s, with jitter so a room of listeners does not come back at once. */
export function defaultReconnectDelayMs(attempt: number): number {
  return Math.min(15_000, 500 * 2 ** Math.min(attempt, 5)) * (0.8 + Math.random() * 0.4);
}

const SEGMENT_FRAMES = new Set(['transcript.committed', 'transcript.amended', 'transcript.corrected']);

type Durable = SubscribeFrame & { cursor: number };

class Subscription implements RecordingSubscription {
  readonly recordingId: string;
  readonly segments = new Map<number, SubscribedSegment>();
  lastCursor = -1;
  state: string | null = null;
  lang: string | null;
  status: ConnectionStatus = 'connecting';
  reconnects = 0;
  readonly ready: Promise<void>;
  readonly closed: Promise<void>;
  private readonly listeners = new Set<SubscriptionListener>();
  private settleReady!: { resolve: () => void; reject: (error: SpeechgateError) => void };
  private resolveClosed!: () => void;
  private socket: WebSocketLike | null = null;
  private audio: boolean;
  /** A snapshot was applied: a reconnect resumes with `after=`. */
  private synced = false;
  /** Frames waiting while a snapshot is read, in arrival order. */
  private pending: Durable[] = [];
  /** A snapshot read (or a language change's answer) is under way: frames wait. */
  private busy = false;
  /** Bumped by each snapshot read: an older read that answers late is dropped. */
  private generation = 0;
  /** A language asked for with `subscribe.update`, until the server's answer (then the snapshot is read in it). */
  private langAsked: { previous: string | null } | null = null;
  /** The cursor a skip was last read past (so a skip the snapshot cannot fill is not read forever). */
  private skipReadAt = -2;
  private attempt = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  /** No WebSocket at all is the caller's mistake: `subscribeRecording` throws a TypeError that says what to pass. */
  private readonly Constructor: WebSocketConstructor;

  constructor(private readonly options: SubscribeOptions) {
    this.Constructor = webSocketConstructor(options.WebSocket);
    this.recordingId = options.recordingId;
    this.lang = options.lang ?? null;
    this.audio = options.audio ?? false;
    this.ready = new Promise((resolve, reject) => (this.settleReady = { resolve, reject }));
    this.ready.catch(() => undefined);
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    if (options.onEvent) this.listeners.add(options.onEvent);
  }

  on(listener: SubscriptionListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private emit(event: SubscriptionEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  texts(): string[] {
    return [...this.segments.values()].sort((a, b) => a.seq - b.seq).map((segment) => this.textOf(segment));
  }

  private textOf(segment: SubscribedSegment): string {
    if (segment.unclear) return '';
    return (this.lang ? segment.translations?.[this.lang] : undefined) || segment.text;
  }

  // ---- the socket ---------------------------------------------------------------------------------------------

  private credentialQuery(): Record<string, string> {
    const { listenerToken, shareCode } = this.options;
    return listenerToken ? { listenerToken } : shareCode ? { shareCode } : {};
  }

  private headers(): Record<string, string> {
    const token = this.options.apiKey ?? this.options.accessToken;
    return { ...this.options.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  }

  private url(path: string, query: Record<string, string | number | null | undefined>): URL {
    const url = new URL(`${this.options.baseUrl.replace(/\/+$/, '')}/v1/recordings/${encodeURIComponent(this.recordingId)}/${path}`);
    for (const [name, value] of Object.entries(query)) if (value !== null && value !== undefined && value !== '') url.searchParams.set(
      name, String(value),
    );
    return url;
  }

  connect(): void {
    if (this.stopped) return;
    const url = this.url('subscribe', {
      ...this.options.query, ...this.credentialQuery(), lang: this.lang, audio: this.audio ? 'true' : undefined,
      voice: this.options.voice ?? undefined, after: this.synced ? this.lastCursor : undefined,
    });
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    let refusal: SpeechgateError | null = null;
    let wasReady = false;
    let socket: WebSocketLike;
    try {
      socket = openSocket(this.Constructor, url.toString(), this.headers(), (error) => (refusal = error));
    } catch (error) {
      this.fail(error instanceof SpeechgateError ? error : socketLost(`The subscribe socket could not be opened `
        + `(${error instanceof Error ? error.message : String(error)})`));
      return;
    }
    this.socket = socket;
    socket.onmessage = (event: { data: unknown }) => {
      if (socket !== this.socket) return;
      if (typeof event.data !== 'string') {
        if (event.data instanceof ArrayBuffer) this.emit({ type: 'audio', data: event.data });
        return;
      }
      const frame = parseFrame<SubscribeFrame>(event.data);
      if (!frame) return;
      this.emit({ type: 'received', frame });
      if (frame.type === 'subscribe.ready') {
        wasReady = true;
        this.onReady(frame);
      } else this.receive(frame);
    };
    socket.onerror = () => undefined;
    socket.onclose = (event: { code?: number }) => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (this.langAsked) {
        // The change was not answered: the next socket opens in the new language and reads all of it again.
        this.langAsked = null;
        this.synced = false;
      }
      void this.reconnect(wasReady, refusal ?? socketLost(wasReady ? 'The subscribe socket dropped' : 'The subscribe socket could not be '
        + 'opened', event.code));
    };
  }

  private async reconnect(wasReady: boolean, error: SpeechgateError): Promise<void> {
    // A refusal that says retrying cannot help (a dead link, a language not allowed): stop, and say why.
    if (!wasReady && error.status >= 400 && error.status < 500 && error.status !== 429) {
      this.fail(error);
      return;
    }
    this.reconnects += 1;
    this.setStatus('reconnecting');
    const attempt = this.attempt++;
    if (this.options.shouldReconnect && !(await this.options.shouldReconnect({ reconnects: this.reconnects, wasReady, error }))) {
      this.close();
      return;
    }
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), (this.options.reconnectDelayMs ?? defaultReconnectDelayMs)(attempt));
  }

  private onReady(frame: FrameOf<SubscribeFrame, 'subscribe.ready'>): void {
    this.attempt = 0;
    // Its state is the recording's as of its lastSeq. Resuming, frames before that are still to be replayed (a state
    // taken now could say `finalized` and end the subscription before them): the replay brings the state instead.
    if (!this.synced || frame.lastSeq <= this.lastCursor) this.setState(frame.state);
    this.setStatus('open');
    // Resumed with after=: the server replays what followed the cursor. Otherwise the snapshot comes first.
    if (this.synced) this.pump();
    else void this.readSnapshot(undefined);
  }

  private receive(frame: SubscribeFrame): void {
    if (frame.type === 'error') {
      const error = frameError(frame);
      // A refused language change: the language stays what it was, and the lines are read again in it (a read
      // under way when the change was asked for was dropped).
      if (this.langAsked) {
        this.lang = this.langAsked.previous;
        this.langAsked = null;
        void this.readSnapshot(undefined);
      }
      this.emit({ type: 'error', error });
    } else if (frame.type === 'subscribe.updated') {
      if (this.langAsked) {
        // The server reads in the new language from here: the snapshot in it, then the frames after it.
        this.langAsked = null;
        void this.readSnapshot(undefined);
      }
    } else if (typeof (frame as { cursor?: unknown }).cursor === 'number') {
      this.pending.push(frame as Durable);
      this.pump();
    }
  }

  /** Applies waiting frames in order, unless a snapshot read holds them. */
  private pump(): void {
    while (!this.busy && this.pending.length > 0) {
      const frame = this.pending.shift()!;
      if (frame.type === 'subscribe.gap') {
        // The server could not replay everything after our cursor: what changed since it comes from the snapshot.
        void this.readSnapshot(this.lastCursor);
        continue;
      }
      if (frame.cursor <= this.lastCursor) continue;
      if (frame.cursor > this.lastCursor + 1 && this.skipReadAt !== this.lastCursor) {
        // A cursor skipped (never expected from the server): read what changed after ours before going on, once.
        this.skipReadAt = this.lastCursor;
        this.pending.unshift(frame);
        void this.readSnapshot(this.lastCursor);
        continue;
      }
      this.lastCursor = frame.cursor;
      const stale = this.apply(frame);
      this.emit({ type: 'frame', frame });
      // A line read in `lang` whose text changed with no translation of the new text: the snapshot after the cursor
      // before it has the line translated (the server translates on read); the frames after it wait meanwhile.
      if (stale) void this.readSnapshot(frame.cursor - 1);
    }
    this.finishIfFinal();
  }

  /** Applies one frame to the lines; true when a line read in `lang` lost its translation (its text changed). */
  private apply(frame: Durable): boolean {
    if (SEGMENT_FRAMES.has(frame.type) && 'segment' in frame) {
      const { translations, translationSources, ...segment } = frame.segment;
      const known = this.segments.get(segment.seq);
      if (known && !known.unclear && known.text !== segment.text) {
        // New text: the translations of the old one no longer stand (the server drops them too).
        this.segments.set(segment.seq, { ...known, translations: {}, translationSources: {} });
      }
      // A null `translations` in a frame says nothing new: the merge keeps what is known.
      this.upsert({
        ...segment, ...(translations ? { translations } : {}), ...(translationSources ? { translationSources } : {}), unclear: false,
      });
      return this.lang !== null && known !== undefined && known.text !== segment.text && !translations?.[this.lang];
    } else if (frame.type === 'noop') {
      if (frame.reason === 'unclear' && typeof frame.seq === 'number') this.upsert({ seq: frame.seq, text: '', words: [], unclear: true });
    } else if (frame.type === 'transcript.translated') {
      if (this.segments.has(frame.seq)) {
        this.upsert({ seq: frame.seq, translations: frame.translations, translationSources: frame.translationSources });
      }
    } else if (frame.type === 'transcript.speaker') {
      // A settled label names its segment; a speaker's name (`name`) names none.
      if (frame.speakerProvisional === false && !('name' in frame) && this.segments.has(frame.seq)) {
        this.upsert({ seq: frame.seq, speaker: frame.speaker, speakerConfidence: frame.speakerConfidence, speakerProvisional: false });
      }
    } else if (frame.type === 'transcript.sentence') {
      this.emit({ type: 'sentence', sentence: frame.sentence });
    } else if (frame.type === 'recording.state') {
      this.setState(frame.state);
    }
    return false;
  }

  /** Merges what is known of a line; translations merge by language (a translation may arrive alone). */
  private upsert(change: Partial<SubscribedSegment> & { seq: number }, notify = true): void {
    const known = this.segments.get(change.seq);
    const merged: SubscribedSegment = {
      text: '', unclear: false, ...known, ...change,
      translations: { ...known?.translations, ...change.translations },
      translationSources: { ...known?.translationSources, ...change.translationSources },
    };
    this.segments.set(change.seq, merged);
    if (notify) this.emit({ type: 'segment', segment: merged });
  }

  // ---- the snapshot -------------------------------------------------------------------------------------------

  /** Reads the snapshot (all of it, or what changed after `after`) while frames wait, then applies those past it. */
  private async readSnapshot(after: number | undefined): Promise<void> {
    const generation = ++this.generation;
    this.busy = true;
    const full = after === undefined;
    const url = this.url('transcript', { ...this.credentialQuery(), lang: this.lang, after });
    const baseFetch = this.options.fetch ?? ((request: Request) => globalThis.fetch(request));
    for (let attempt = 0; ; attempt += 1) {
      try {
        const response = await sendWithRetries(
          { send: () => baseFetch(new Request(url, { headers: { ...this.headers(), accept: 'application/json' } })), safeToRepeat: true },
          this.options.retry,
        );
        const snapshot = (await response.json()) as TranscriptSnapshot;
        if (generation !== this.generation || this.stopped) return;
        this.applySnapshot(snapshot, full);
        break;
      } catch (caught) {
        if (generation !== this.generation || this.stopped) return;
        const error = caught instanceof SpeechgateError ? caught : socketLost(`The transcript could not be read (${String(caught)})`);
        if (!error.retryable) {
          this.fail(error);
          return;
        }
        this.emit({ type: 'error', error });
        await new Promise((resolve) => setTimeout(resolve, (this.options.reconnectDelayMs ?? defaultReconnectDelayMs)(attempt)));
        if (generation !== this.generation || this.stopped) return;
      }
    }
    this.busy = false;
    this.pump();
  }

  private applySnapshot(snapshot: TranscriptSnapshot, full: boolean): void {
    if (full) this.segments.clear();
    for (const segment of [...snapshot.segments].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))) {
      if (typeof segment.seq !== 'number') continue;
      // A snapshot's segment is a committed one as this reader may see it (its fields typed looser by the schema).
      const fields = segment as Partial<SubscribedSegment>;
      this.upsert(
        { ...fields, seq: segment.seq, text: segment.suppressed ? '' : (segment.text ?? ''), unclear: !!segment.suppressed }, false,
      );
    }
    // Its state is the recording's as of its lastSeq: news unless a frame already applied is newer (frames it
    // covers, a `recording.state` among them, are now skipped).
    if (snapshot.state && snapshot.lastSeq >= this.lastCursor) this.setState(snapshot.state);
    this.lastCursor = Math.max(this.lastCursor, snapshot.lastSeq);
    this.synced = true;
    this.emit({ type: 'snapshot', snapshot, full });
    this.settleReady.resolve();
  }

  // ---- state and the end --------------------------------------------------------------------------------------

  private setState(state: string): void {
    if (state === this.state) return;
    this.state = state;
    this.emit({ type: 'state', state });
  }

  private setStatus(status: ConnectionStatus): void {
    this.status = status;
    this.emit({ type: 'connection', status, reconnects: this.reconnects });
  }

  /** Finalized and everything applied: nothing will change any more. */
  private finishIfFinal(): void {
    if (this.state === 'finalized' && this.synced && !this.busy && this.pending.length === 0 && (this.options.closeWhenFinalized ?? true)) {
      this.close();
    }
  }

  update(change: { lang?: string | null; audio?: boolean }): void {
    if (this.stopped) return;
    const frame: Record<string, unknown> = { type: 'subscribe.update' };
    if (change.audio !== undefined) {
      this.audio = change.audio;
      frame.audio = change.audio;
    }
    const newLang = change.lang !== undefined && (change.lang || null) !== this.lang;
    if (change.lang !== undefined) frame.lang = change.lang || null;
    const open = this.socket?.readyState === OPEN;
    if (newLang) {
      const previous = this.lang;
      this.lang = change.lang || null;
      if (open) {
        // Frames wait until the server answers; then the snapshot is read in the new language (a read under way,
        // in the old one, is dropped).
        this.busy = true;
        this.generation += 1;
        this.langAsked = { previous };
      } else {
        // The next socket opens in the new language and reads the whole snapshot in it.
        this.synced = false;
      }
    }
    if (open && (newLang || change.audio !== undefined)) this.socket!.send(JSON.stringify(frame));
  }

  cut(): void {
    const socket = this.socket as (WebSocketLike & { terminate?: () => void }) | null;
    if (!socket) return;
    // `ws` can drop the connection without a closing handshake, as a network does; a browser's socket can only close.
    if (typeof socket.terminate === 'function') socket.terminate();
    else socket.close(4000, 'cut by the client');
  }

  private fail(error: SpeechgateError): void {
    this.emit({ type: 'error', error });
    this.settleReady.reject(error);
    this.close();
  }

  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, 'closed by the client');
    this.settleReady.reject(new SpeechgateError({ code: 'closed', status: 0, message: 'The subscription was closed before its snapshot '
      + 'was read.', retryable: false }));
    this.setStatus('closed');
    this.resolveClosed();
  }
}

/** Follows a recording (see the header); listen with `onEvent` or `on`, await `ready` for the first snapshot. */
export function subscribeRecording(options: SubscribeOptions): RecordingSubscription {
  const subscription = new Subscription(options);
  subscription.connect();
  return subscription;
}

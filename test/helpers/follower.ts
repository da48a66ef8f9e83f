/**
 * A subscriber that follows a recording exactly as the spec's procedure says (the listener page does the same in the
 * browser): open `WS /v1/recordings/{id}/subscribe`, take `subscribe.ready`, read the transcript snapshot with the same
 * credential, drop frames at or below its `lastSeq`, apply the rest in cursor order. `resume()` reopens with
 * `after=<last cursor applied>` after a cut. Lines are kept by segment seq, so a frame applied twice would show.
 */
import WebSocket from 'ws';

export interface FollowerOptions {
  /** Base URL of the gateway (http://…). */
  baseUrl: string;
  recordingId: string;
  /** Query credential: `listenerToken=…` or `shareCode=…`; nothing for a public broadcast's listener. */
  query?: Record<string, string>;
  /** Authorization header (the owner's key). */
  authorization?: string;
}

type Frame = Record<string, unknown> & { type: string };

export class Follower {
  /** Segment seq → text as this follower shows it ("" with `unclear` for a line withheld as unclear). */
  readonly lines = new Map<number, { text: string; unclear: boolean }>();
  /** Sentence id → text, from the snapshot's `sentences` and `transcript.sentence` frames. */
  readonly sentences = new Map<string, string>();
  /** Every frame received, in order (all sockets). */
  readonly frames: Frame[] = [];
  /** Cursors applied, in order: gapless if nothing was lost or doubled. */
  readonly applied: number[] = [];
  lastCursor = -1;
  state: string | null = null;
  ready: Frame | null = null;
  binaryBytes = 0;
  /** Binary frames received, in order. */
  readonly binary: Buffer[] = [];
  private socket: WebSocket | null = null;
  private pending: Frame[] = [];
  private snapshotTaken = false;
  private waiters: Array<() => void> = [];

  constructor(private readonly options: FollowerOptions) {}

  private url(extra: Record<string, string> = {}): string {
    const url = new URL(`/v1/recordings/${this.options.recordingId}/subscribe`, this.options.baseUrl.replace(/^http/, 'ws'));
    for (const [key, value] of Object.entries({ ...this.options.query, ...extra })) url.searchParams.set(key, value);
    return url.toString();
  }

  /** Opens the socket and applies the snapshot: resolves once the snapshot is applied. */
  async start(): Promise<void> {
    await this.open({});
    const snapshot = await this.snapshot(-1);
    this.lastCursor = snapshot.lastSeq;
    for (const segment of snapshot.segments) this.lines.set(segment.seq, { text: segment.text, unclear: !!segment.suppressed });
    for (const sentence of snapshot.sentences) this.sentences.set(sentence.id, sentence.text);
    this.snapshotTaken = true;
    const buffered = this.pending;
    this.pending = [];
    for (const frame of buffered) this.apply(frame);
  }

  /** Reopens after a cut, replaying from the last cursor applied. */
  async resume(): Promise<void> {
    await this.open({ after: String(this.lastCursor) });
  }

  /** Cuts the socket as a network would (no close handshake). */
  cut(): void {
    this.socket?.terminate();
    this.socket = null;
  }

  close(): void {
    this.socket?.close();
    this.socket = null;
  }

  get isOpen(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  send(frame: Record<string, unknown>): void {
    this.socket?.send(JSON.stringify(frame));
  }

  private async snapshot(after: number): Promise<{
    lastSeq: number; segments: Array<{ seq: number; text: string; suppressed?: boolean | null }>;
    sentences: Array<{ id: string; text: string }>;
  }> {
    const url = new URL(`/v1/recordings/${this.options.recordingId}/transcript`, this.options.baseUrl);
    // The procedure's snapshot: the same `lang` and credential as the socket (not its own parameters: presence, audio).
    for (const [key, value] of Object.entries(this.options.query ?? {}))
      if (['lang', 'shareCode', 'listenerToken'].includes(key)) url.searchParams.set(key, value);
    if (after >= 0) url.searchParams.set('after', String(after));
    const response = await fetch(url, { headers: this.options.authorization ? { Authorization: this.options.authorization } : {} });
    if (response.status !== 200) throw new Error(`transcript: ${response.status} ${await response.text()}`);
    return response.json() as never;
  }

  private open(extra: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url(extra), {
        headers: this.options.authorization ? { Authorization: this.options.authorization } : {},
      });
      this.socket = socket;
      socket.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on(
          'end', () => reject(Object.assign(new Error(`subscribe refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })),
        );
      });
      socket.on('error', reject);
      socket.on('message', (data, isBinary) => {
        if (isBinary) {
          this.binaryBytes += (data as Buffer).length;
          this.binary.push(data as Buffer);
          for (const wake of this.waiters.splice(0)) wake();
          return;
        }
        const frame = JSON.parse(data.toString()) as Frame;
        this.frames.push(frame);
        if (frame.type === 'subscribe.ready') {
          this.ready = frame;
          this.state = frame.state as string;
          resolve();
        } else if (!this.snapshotTaken) this.pending.push(frame);
        else this.apply(frame);
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  private apply(frame: Frame): void {
    const cursor = frame.cursor;
    if (frame.type === 'subscribe.gap') throw new Error(`unexpected subscribe.gap ${JSON.stringify(frame)}`);
    if (typeof cursor !== 'number' || cursor <= this.lastCursor) return;
    if (cursor !== this.lastCursor + 1) throw new Error(`cursor jumped from ${this.lastCursor} to ${cursor}`);
    this.lastCursor = cursor;
    this.applied.push(cursor);
    const segment = frame.segment as { seq: number; text: string } | undefined;
    if (
      (frame.type === 'transcript.committed' || frame.type === 'transcript.amended' || frame.type === 'transcript.corrected') &&
      segment
    ) {
      this.lines.set(segment.seq, { text: segment.text, unclear: false });
    } else if (frame.type === 'noop' && frame.reason === 'unclear' && typeof frame.seq === 'number') {
      this.lines.set(frame.seq, { text: '', unclear: true });
    } else if (frame.type === 'transcript.sentence') {
      // The frame's rule: sentences starting after its id, at or before its last word, were merged into it.
      const sentence = frame.sentence as { id: string; text: string; lastWordId: string };
      const position = (id: string) => id.split('.').map(Number) as [number, number];
      const after = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
      for (const id of [...this.sentences.keys()]) {
        if (after(position(id), position(sentence.id)) && !after(position(id), position(sentence.lastWordId))) this.sentences.delete(id);
      }
      this.sentences.set(sentence.id, sentence.text);
    } else if (frame.type === 'recording.state') this.state = frame.state as string;
  }

  /** The sentences in order, as text. */
  sentenceTexts(): string[] {
    const position = (id: string) => id.split('.').map(Number) as [number, number];
    return [...this.sentences.entries()].sort(([a], [b]) => position(a)[0] - position(b)[0] || position(a)[1] - position(b)[1]).map(
      ([, text]) => text,
    );
  }

  /**
   * Resolves when `check` holds (checked on every frame), or fails after `timeoutMs` with the follower's state, the
   * socket's, the frame types it got and `context()` (the gateways' output, say).
   */
  async until(what: string, check: () => boolean, timeoutMs = 120_000, context: () => string | Promise<string> = () => ''): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) {
        const types = [...new Set(this.frames.map((frame) => frame.type))].join(', ');
        const extra = await context();
        throw new Error(`follower: timed out waiting for ${what} (state ${this.state}, cursor ${this.lastCursor}, ${this.lines.size} `
          + `lines, socket ${this.isOpen ? 'open' : 'closed'}, ${this.frames.length} frames: ${types})${extra ? `\n${extra}` : ''}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
  }

  /** The lines in seq order, as text. */
  texts(): string[] {
    return [...this.lines.entries()].sort(([a], [b]) => a - b).map(([, line]) => line.text);
  }
}

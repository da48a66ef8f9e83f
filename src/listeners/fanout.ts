/**
 * One gateway process fanning recordings out to their subscribers (`WS /v1/recordings/{id}/subscribe`).
 *
 * Per recording with subscribers in this process there is one hub. The hub hears the recording's durable frames once
 * (`recording:<id>:log` on Redis, published after each commit by events.ts), keeps them in cursor order, and hands
 * each to every subscriber; the JSON of a frame is made once per view (full, listener), not once per subscriber, and
 * nothing is read from the database per subscriber. A frame Redis did not bring (Redis restarting, a frame lost on
 * the way) shows as a jump in `cursor`: the hub reads the missing stretch from the durable log before going on, and a
 * poll of the recording's cursor every POLL_MS catches what no later frame reveals. So every subscriber sees every
 * cursor once, in order, whatever happened to Redis.
 *
 * A subscriber whose socket does not drain (more than SLOW_CONSUMER_BYTES queued) is dropped with `slow_consumer`
 * instead of holding frames for it: the others never wait.
 */
import type { PrismaClient } from '../generated/prisma/client.js';
import { errors, toApiError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Frame, PubSub } from '../core/pubsub.js';
import {
  recordingLogTopic, audioOf, AUDIO_REQUEST_MS, liveAudioTopic, requestLiveAudio, recordingConfidencePolicy,
  confidencePolicyOf, isUnclear, isUnclearSegment, type ConfidencePolicy,
} from '../transcript/index.js';

/** Who a subscriber is decides what it sees: `listener` frames withhold unclear lines (as `noop`). */
export type SubscriberView = 'full' | 'listener';

/** A subscribe socket as the hub sees it; the transport (ws) stays outside. */
export interface Subscriber {
  readonly view: SubscriberView;
  /** The translation it reads (`lang`; null: the spoken language): a listener's `transcript.translated` frames carry only it. */
  lang: string | null;
  /** Binary frames of live audio wanted. */
  audio: boolean;
  /** Who speaks its finished sentences as binary frames (`voice`: `auto` or a catalogue voice); null: none. */
  voice: string | null;
  sendText(text: string): void;
  sendBinary(data: Buffer): void;
  /** Bytes written to the socket and not yet sent. */
  buffered(): number;
  /** Closes the socket after an `error` frame (a slow consumer). */
  drop(code: string, message: string): void;
}

export interface FanoutOptions {
  /** How often a hub with subscribers reads its recording's cursor, to catch frames Redis lost. */
  pollMs?: number;
  slowConsumerBytes?: number;
  /** Frames kept for subscribers resuming with `after`. */
  ringSize?: number;
  /** How long a hub with no subscribers lingers (a reconnect finds it warm). */
  idleMs?: number;
  /** The most frames replayed to one resuming subscriber; further back is `subscribe.gap`. */
  maxReplay?: number;
}

export const POLL_MS = 2_000;
export const SLOW_CONSUMER_BYTES = 1 << 20;
const DEFAULTS: Required<FanoutOptions> = {
  pollMs: POLL_MS, slowConsumerBytes: SLOW_CONSUMER_BYTES, ringSize: 1_024, idleMs: 15_000, maxReplay: 5_000,
};

/** The frame types a subscriber receives as they are; every other durable frame reaches it as `noop`. */
const SUBSCRIBER_FRAMES = new Set([
  'transcript.committed', 'transcript.sentence', 'transcript.translated', 'transcript.amended', 'transcript.corrected',
  'transcript.speaker', 'recording.state',
]);
const SEGMENT_FRAMES = new Set(['transcript.committed', 'transcript.amended', 'transcript.corrected']);
/** Stored fields a subscriber is not shown: the text a rewrite replaced (it may be a hidden line's), a failure's internals. */
const WITHHELD_FIELDS = ['previousText', 'error', 'audience'];

/**
 * A durable frame as one view sees it. `noop` keeps the cursor moving for a frame withheld: `seq` names the segment
 * when it was a line hidden as unclear (`reason: unclear`) or a translation into languages a listener does not read
 * (`reason: other_language`), and is null for a frame subscribers never get. A listener's `transcript.translated`
 * carries its `lang` alone; the owner and share-link readers get every language.
 */
export function subscriberFrame(frame: Frame, view: SubscriberView, policy: ConfidencePolicy, lang: string | null = null): Frame {
  const cursor = frame.cursor as number;
  if (!SUBSCRIBER_FRAMES.has(frame.type)) return { type: 'noop', cursor, seq: null, reason: 'not_for_subscribers' };
  if (view === 'listener' && frame.type === 'transcript.translated') {
    const translations = (frame.translations ?? {}) as Record<string, string>;
    const sources = (frame.translationSources ?? {}) as Record<string, string>;
    if (!lang || !(lang in translations)) return { type: 'noop', cursor, seq: frame.seq as number, reason: 'other_language' };
    return { ...frame, translations: { [lang]: translations[lang] }, translationSources: lang in sources ? { [lang]: sources[lang] } : {} };
  }
  const segment = frame.segment as { words?: unknown; confidence?: number | null } | undefined;
  if (view === 'listener' && SEGMENT_FRAMES.has(frame.type) && segment && isUnclearSegment(
    { words: segment.words, confidence: segment.confidence ?? null }, policy,
  )) {
    return { type: 'noop', cursor, seq: frame.seq as number, reason: 'unclear' };
  }
  const shown: Frame = { ...frame };
  for (const field of WITHHELD_FIELDS) delete shown[field];
  // A sentence under the policy reads as the snapshot has it: blank and `suppressed` for a listener, `unclear` else.
  const sentence = frame.type === 'transcript.sentence' ? (frame.sentence as {
    text: string; confidence: number | null;
  } | undefined) : undefined;
  if (sentence && isUnclear(sentence, policy)) {
    shown.sentence = view === 'listener' ? { ...sentence, text: '', suppressed: true } : { ...sentence, unclear: true };
  }
  return shown;
}

/** One finished sentence spoken in `lang` by `voice`: 16-bit PCM, 16 kHz, mono; null when there is nothing to speak. */
export type SpeakSentence = (
  recordingId: string, sentence: { id: string; seqs: number[] }, lang: string | null, voice: string,
) => Promise<Buffer | null>;

interface HubDeps {
  prisma: PrismaClient;
  pubsub: PubSub;
  instance: string;
  logger?: Logger;
  /** Speaks sentences for `voice` subscribers (src/recordings/voice-tracks.ts); absent: `voice` is not served. */
  speak?: SpeakSentence;
}

/**
 * Sentences waiting to be spoken for one language and voice: past this a sentence is skipped, not queued (audio, like
 * drafts, may drop).
 */
export const MAX_PENDING_SENTENCES = 8;

const voiceKey = (subscriber: Subscriber) => `${subscriber.lang ?? ''}|${subscriber.voice}`;

class RecordingHub {
  private delivered = -1;
  private state = 'live';
  private policy: ConfidencePolicy = confidencePolicyOf({});
  private readonly ring: Frame[] = [];
  readonly subscribers = new Set<Subscriber>();
  private chain: Promise<unknown> = Promise.resolve();
  private log?: AsyncIterableIterator<Frame>;
  private audio?: AsyncIterableIterator<Frame>;
  private audioAsk?: NodeJS.Timeout;
  private poll?: NodeJS.Timeout;
  private idle?: NodeJS.Timeout;
  private closed = false;
  /** Per language and voice of `voice` subscribers: renderings in sentence order, one each, and the ids spoken. */
  private readonly voices = new Map<string, { chain: Promise<void>; pending: number; spoken: Set<string> }>();
  readonly ready: Promise<void>;

  constructor(
    readonly recordingId: string,
    private readonly deps: HubDeps,
    private readonly options: Required<FanoutOptions>,
    private readonly onIdle: () => void,
  ) {
    this.ready = this.start();
    // A failed start is answered to each joiner (who awaits `ready`); here it must not go unhandled.
    this.ready.catch(() => undefined);
  }

  private async start(): Promise<void> {
    this.log = this.deps.pubsub.subscribe(recordingLogTopic(this.recordingId));
    // Asking for the first frame starts the subscription, before the cursor is read: nothing falls between the two.
    const first = this.log.next();
    const row = await this.deps.prisma.recording.findUnique({
      where: { id: this.recordingId },
      select: { lastEventSeq: true, state: true, settings: true, transcription: { select: { settings: true, broadcastIds: true } } },
    });
    if (!row) {
      this.close();
      throw errors.notFound('The recording');
    }
    this.delivered = row.lastEventSeq;
    this.state = row.state;
    // The recording's policy over its transcription's over its broadcasts' (src/transcript/confidence.ts).
    this.policy = await recordingConfidencePolicy(this.deps.prisma, row);
    void this.pump(first);
    // The poll also reads the confidence policy again: a change at any level reaches subscribers within a poll.
    this.poll = setInterval(
      () => void this.enqueue(async () => { await this.refreshPolicy(); await this.catchUp(); }), this.options.pollMs,
    );
    this.poll.unref();
  }

  /** The recording's policy as it stands (src/transcript/confidence.ts); kept as it was when it cannot be read. */
  private async refreshPolicy(): Promise<void> {
    const row = await this.deps.prisma.recording.findUnique({
      where: { id: this.recordingId }, select: { settings: true, transcription: { select: { settings: true, broadcastIds: true } } },
    });
    if (row) this.policy = await recordingConfidencePolicy(this.deps.prisma, row);
  }

  private async pump(next: Promise<IteratorResult<Frame>>): Promise<void> {
    for (;;) {
      const { value, done } = await next;
      if (done || this.closed) return;
      void this.enqueue(() => this.receive(value));
      next = this.log!.next();
    }
  }

  /** Everything that moves the cursor runs one at a time, in arrival order. */
  private enqueue<T>(task: () => Promise<T> | T): Promise<T> {
    const run = this.chain.then(task);
    this.chain = run.catch(
      (error: unknown) => this.deps.logger?.warn({ err: error, recordingId: this.recordingId }, 'subscriber fan-out step failed'),
    );
    return run;
  }

  private async receive(frame: Frame): Promise<void> {
    const cursor = frame.cursor;
    if (typeof cursor !== 'number' || cursor <= this.delivered) return;
    if (cursor > this.delivered + 1) await this.catchUp(cursor - 1);
    if (cursor === this.delivered + 1) this.deliver(frame);
  }

  /** Reads the durable log past what was delivered (up to `upTo`, else to its end) and delivers it in order. */
  private async catchUp(upTo?: number): Promise<void> {
    if (this.closed) return;
    for (;;) {
      const rows = await this.deps.prisma.recordingEvent.findMany({
        where: { recordingId: this.recordingId, seq: { gt: this.delivered, ...(upTo !== undefined ? { lte: upTo } : {}) } },
        orderBy: { seq: 'asc' },
        take: 500,
      });
      for (const row of rows) {
        if (row.seq !== this.delivered + 1) return;
        this.deliver({ ...(row.payload as Frame), cursor: row.seq });
      }
      if (rows.length < 500) return;
    }
  }

  private deliver(frame: Frame): void {
    this.delivered = frame.cursor as number;
    this.ring.push(frame);
    if (this.ring.length > this.options.ringSize) this.ring.shift();
    if (frame.type === 'recording.state' && typeof frame.state === 'string') this.state = frame.state;
    // Made once per view (and, for a listener's translation, per language), not once per subscriber.
    const texts = new Map<string, string>();
    for (const subscriber of this.subscribers) {
      if (!this.roomFor(subscriber)) continue;
      const key =
        subscriber.view === 'listener' && frame.type === 'transcript.translated' ? `listener:${subscriber.lang}` : subscriber.view;
      let text = texts.get(key);
      if (text === undefined) {
        texts.set(key, (text = JSON.stringify(subscriberFrame(frame, subscriber.view, this.policy, subscriber.lang))));
      }
      subscriber.sendText(text);
    }
    if (frame.type === 'transcript.sentence') this.speak(frame);
  }

  /**
   * A finished sentence spoken for the `voice` subscribers, once per language and voice (not once per subscriber),
   * in sentence order. A sentence is spoken once: a later rewrite of it is not spoken again. A failure reaches those
   * subscribers as an `error` frame (the socket stays open).
   */
  private speak(frame: Frame): void {
    const sentence = frame.sentence as { id: string; seqs: number[]; complete?: boolean } | undefined;
    const speak = this.deps.speak;
    if (!speak || !sentence?.complete) return;
    const wanted = new Map<string, { lang: string | null; voice: string }>();
    for (const subscriber of this.subscribers) if (subscriber.voice) wanted.set(voiceKey(subscriber), {
      lang: subscriber.lang, voice: subscriber.voice,
    });
    for (const [key, { lang, voice }] of wanted) {
      let line = this.voices.get(key);
      if (!line) this.voices.set(key, (line = { chain: Promise.resolve(), pending: 0, spoken: new Set() }));
      if (line.spoken.has(sentence.id)) continue;
      line.spoken.add(sentence.id);
      if (line.pending >= MAX_PENDING_SENTENCES) {
        this.deps.logger?.warn({ recordingId: this.recordingId, sentenceId: sentence.id, lang, voice }, 'voice subscribers: speech falls '
          + 'behind; sentence skipped');
        continue;
      }
      const current = line;
      current.pending++;
      const listeners = () => [...this.subscribers].filter((subscriber) => subscriber.voice && voiceKey(subscriber) === key);
      current.chain = current.chain
        .then(() => speak(this.recordingId, sentence, lang, voice))
        .then(
          (pcm) => {
            if (pcm) for (const subscriber of listeners()) if (this.roomFor(subscriber)) subscriber.sendBinary(pcm);
          },
          (error: unknown) => {
            const failure = toApiError(error);
            this.deps.logger?.warn(
              { err: error, recordingId: this.recordingId, sentenceId: sentence.id, lang, voice },
              'voice subscribers: a sentence could not be spoken',
            );
            const text = JSON.stringify({ type: 'error', code: failure.code, message: `Sentence ${sentence.id} could not be spoken: `
              + `${failure.message}`, retryable: failure.retryable });
            for (const subscriber of listeners()) subscriber.sendText(text);
          },
        )
        .finally(() => current.pending--);
    }
  }

  /** False (and the subscriber dropped) when its socket has not drained: it is not waited for. */
  private roomFor(subscriber: Subscriber): boolean {
    if (subscriber.buffered() <= this.options.slowConsumerBytes) return true;
    this.leave(subscriber);
    subscriber.drop('slow_consumer', 'This socket read too slowly and was closed; reconnect with after=<last cursor> to resume.');
    return false;
  }

  /**
   * Sends `subscribe.ready` and, with `after`, the frames since that cursor (from memory, else the log; past
   * `maxReplay` frames a `subscribe.gap` instead), then adds the subscriber: in the hub's order, so nothing is
   * missed or doubled between the two.
   */
  join(subscriber: Subscriber, after: number | null): Promise<void> {
    return this.enqueue(async () => {
      clearTimeout(this.idle);
      // A joiner reads under the policy as it stands now, not as it was when the hub started.
      await this.refreshPolicy();
      subscriber.sendText(JSON.stringify({
        type: 'subscribe.ready', recordingId: this.recordingId, lastSeq: this.delivered, state: this.state, instance: this.deps.instance,
      }));
      if (after !== null && after < this.delivered) {
        const replay = await this.since(after);
        if (replay === 'gap') subscriber.sendText(JSON.stringify({ type: 'subscribe.gap', cursor: this.delivered, after }));
        else for (const frame of replay) subscriber.sendText(JSON.stringify(subscriberFrame(
          frame, subscriber.view, this.policy, subscriber.lang,
        )));
      }
      this.subscribers.add(subscriber);
      if (subscriber.audio) this.audioChanged();
    });
  }

  /** The frames after `after` up to what was delivered, or `gap` when that is more than a replay may be. */
  private async since(after: number): Promise<Frame[] | 'gap'> {
    const oldest = this.ring[0]?.cursor as number | undefined;
    if (oldest !== undefined && oldest <= after + 1) return this.ring.filter((frame) => (frame.cursor as number) > after);
    if (this.delivered - after > this.options.maxReplay) return 'gap';
    const rows = await this.deps.prisma.recordingEvent.findMany({
      where: { recordingId: this.recordingId, seq: { gt: after, lte: this.delivered } }, orderBy: { seq: 'asc' },
    });
    return rows.map((row) => ({ ...(row.payload as Frame), cursor: row.seq }));
  }

  leave(subscriber: Subscriber): void {
    if (!this.subscribers.delete(subscriber)) return;
    if (subscriber.audio) this.audioChanged();
    if (this.subscribers.size === 0) {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => this.subscribers.size === 0 && this.onIdle(), this.options.idleMs);
      this.idle.unref();
    }
  }

  /** Starts or stops hearing the recording's live audio as the first audio subscriber comes or the last goes. */
  audioChanged(): void {
    const wanted = [...this.subscribers].some((subscriber) => subscriber.audio);
    if (wanted && !this.audio) {
      const frames = (this.audio = this.deps.pubsub.subscribe(liveAudioTopic(this.recordingId)));
      void (async () => {
        for await (const frame of frames) {
          const pcm = audioOf(frame);
          if (!pcm) continue;
          for (const subscriber of this.subscribers) if (subscriber.audio && this.roomFor(subscriber)) subscriber.sendBinary(pcm);
        }
      })().catch(() => undefined);
      requestLiveAudio(this.deps.pubsub, this.recordingId);
      this.audioAsk = setInterval(() => requestLiveAudio(this.deps.pubsub, this.recordingId), AUDIO_REQUEST_MS);
      this.audioAsk.unref();
    } else if (!wanted && this.audio) {
      clearInterval(this.audioAsk);
      void this.audio.return?.();
      this.audio = undefined;
    }
  }

  close(): void {
    this.closed = true;
    clearInterval(this.poll);
    clearInterval(this.audioAsk);
    clearTimeout(this.idle);
    void this.log?.return?.();
    void this.audio?.return?.();
  }
}

/** The hubs of one process, one per recording that has subscribers here. */
export class RecordingFanout {
  private readonly hubs = new Map<string, RecordingHub>();
  private readonly options: Required<FanoutOptions>;

  constructor(private readonly deps: HubDeps, options: FanoutOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Adds a subscriber to its recording's hub (made on first use); answers how to leave. */
  async join(recordingId: string, subscriber: Subscriber, after: number | null): Promise<() => void> {
    let hub = this.hubs.get(recordingId);
    if (!hub) {
      const made = new RecordingHub(recordingId, this.deps, this.options, () => {
        made.close();
        if (this.hubs.get(recordingId) === made) this.hubs.delete(recordingId);
      });
      hub = made;
      this.hubs.set(recordingId, hub);
      hub.ready.catch(() => this.hubs.get(recordingId) === made && this.hubs.delete(recordingId));
    }
    await hub.ready;
    await hub.join(subscriber, after);
    const joined = hub;
    return () => joined.leave(subscriber);
  }

  /** Turns a subscriber's live audio on or off. */
  setAudio(recordingId: string, subscriber: Subscriber, on: boolean): void {
    if (subscriber.audio === on) return;
    subscriber.audio = on;
    const hub = this.hubs.get(recordingId);
    if (hub?.subscribers.has(subscriber)) hub.audioChanged();
  }

  /** Subscribers in this process (all recordings). */
  get size(): number {
    let count = 0;
    for (const hub of this.hubs.values()) count += hub.subscribers.size;
    return count;
  }

  close(): void {
    for (const hub of this.hubs.values()) hub.close();
    this.hubs.clear();
  }
}

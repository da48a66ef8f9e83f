/**
 * A live session as the spec's realtime protocol describes it, knowing no transport: client frames and audio
 * in, the spec's server events out (spec: "Realtime socket, server to client"). The realtime WebSocket is a thin
 * adapter around it, and so are the live paths to come (a recording's publisher socket, pulled streams, RTMP).
 *
 * Life: wait silently for a slot (admission.ts), `session.loading` heartbeats while the engine warms, then
 * `session.ready`; drafts and commits (gapless `seq`, words, latency) as the engine's passes answer; `eof` and
 * `max_duration` flush what is left, `cancel` drops it; `session.done` with stats, or `error` when the engine is
 * lost. The streaming policy itself (agreement, decoder hand-over, capture loss) is the engine's (live.ts).
 */
import {
  SAMPLE_RATE, type LiveSegment, type LiveUpdate, type EngineThreads, type LiveHandle, type LiveListener,
  type LoadingStage,
} from '../../workers/engine/index.js';
import { errors, toApiError } from '../core/errors.js';
import type { Translate } from '../translation/service.js';
import { acceptedFix, CONTEXT_LINES, retimedWords, type FixLine } from './llm-fix.js';
import type { SlotLease, Admission } from './admission.js';
import type { RealtimeConfig } from './config.js';
import { applySessionUpdate, type OptionRules, type RealtimeSessionOptions } from './options.js';
import type { SessionClaims } from './session-token.js';
import { commitLatency, ledgerErrors, realtimeFactor } from '../core/metrics.js';
import type { SpeakerSettled } from '../transcript/index.js';

const BYTES_PER_SAMPLE = 4;
/** Largest audio chunk accepted: 2 s, well above the spec's 250 ms chunks. */
export const MAX_CHUNK_BYTES = 2 * SAMPLE_RATE * BYTES_PER_SAMPLE;

/** A server event of the spec (`session.ready`, `transcript.committed`, `error`, …). */
export type LiveEvent = { type: string } & Record<string, unknown>;

/** How the session ended, for the transport to close accordingly. */
export type LiveOutcome = 'done' | 'failed' | 'no_slot';

/** A committed segment as the session sends it, before it has a `seq`. */
export type CommittedBody = Record<string, unknown> & {
  start: number; end: number; text: string; words: Array<{ start: number; end: number; text: string; prob: number }>;
};

/**
 * Where commits go before their frame does (a live recording's store): it gives each its `seq` (and may move its
 * times onto the recording's time line); the frame goes out only once it resolved. Without one, `seq` counts
 * from 0 in the session (a realtime session stores nothing).
 */
export interface CommitStore {
  commit(segment: CommittedBody): Promise<CommittedBody & { seq: number }>;
  /** Translates a stored commit into `targets` and stores that (with its durable `transcript.translated` event). */
  translate(seq: number, targets: string[]): Promise<SegmentTranslated | null>;
  /** Stores settled speaker labels of committed segments (each with its durable `transcript.speaker` event). */
  settleSpeakers(labels: SpeakerSettled[]): Promise<void>;
  /**
   * Stores the fixed text of a commit that went out before its fix came (`llmFix`), with its durable
   * `transcript.amended` event; answers the segment as stored, or null when it is no longer amended (a finalized
   * recording, a segment following the script).
   */
  amend?(seq: number, text: string, previousText: string): Promise<CommittedBody | null>;
}

/** How a line's `llmFix` pass ended: the body of a `transcript.latency` frame besides `seq`. */
interface FixOutcome {
  /** `changed`: the model's fix was taken; `unchanged`: nothing to fix; `rejected`: its answer rewrote the line; `failed`: no answer. */
  fix: 'changed' | 'unchanged' | 'rejected' | 'failed';
  /** The fixed text (changed only). */
  text?: string;
  /** Why the pass failed (failed only). */
  problem?: string;
}

/** A committed segment's translations: the body of a `transcript.translated` frame (besides `seq`). */
export interface SegmentTranslated {
  translations: Record<string, string>;
  translationSources: Record<string, string>;
}


/** What a live recording adds to a session: its commits stored, its audio kept. */
export interface LiveRecordingHooks {
  store?: CommitStore;
  /** The audio taken for transcription, in order, as a copy of its own (paused audio is not handed over). */
  keep?(pcm: Float32Array): void;
}

/** What the session needs from its transport. */
export interface LiveOutput {
  /** Delivers one event, in order. False once the client can take no more (the session then stops sending). */
  send(event: LiveEvent): boolean;
  /** True while the client is behind: drafts are skipped, commits never are. */
  behind(): boolean;
  /** The session is over; nothing more will be sent. */
  finished(outcome: LiveOutcome): void;
}

/**
 * Billing of a realtime session (src/billing/metering.ts), told of its audio as it arrives; a live recording's
 * publisher session is not told (the recording's capture is metered instead).
 */
export interface SessionMeter {
  /** Audio received so far (0 when the engine takes the session: its minimum is billed); true: out of credit, stop. */
  audio(sessionId: string, receivedS: number): Promise<boolean>;
  /** The session is over: settled at what it received (`ran`: the engine took it). */
  ended(sessionId: string, receivedS: number, ran: boolean): Promise<void>;
}

export interface LiveSessionDeps {
  engine: EngineThreads;
  admission: Admission;
  config: RealtimeConfig;
  /** Languages and speaker label modes, for `session.update` validation. */
  optionRules: () => Promise<OptionRules>;
  /** Translates commits into the session's `translate` targets (none configured: `translate` gets an error frame). */
  translate?: Translate;
  /** Fixes committed lines with a language model when a session asks (`llmFix`; none configured: refused at the options). */
  fixLine?: FixLine;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
  meter?: SessionMeter;
}

type EndReason = 'eof' | 'max_duration' | 'cancelled';

export class LiveSession implements LiveListener {
  private state: 'waiting' | 'loading' | 'ready' | 'ending' | 'closed' = 'waiting';
  private options: RealtimeSessionOptions;
  private readonly waitAbort = new AbortController();
  private lease: SlotLease | null = null;
  private live: LiveHandle | null = null;
  private endReason: EndReason | null = null;

  private seq = 0;
  private receivedSamples = 0;
  /** Wall time at which each received chunk's last sample arrived: a commit's latency is measured from here. */
  private arrivals: { endSample: number; wallMs: number }[] = [];
  private processingS = 0;
  private lastDraftJson = '[]';
  private heartbeat: NodeJS.Timeout | null = null;
  /** While paused, audio is neither transcribed nor kept (a live recording's pause). */
  private paused = false;
  /** Flushes asked of the engine (pauses) and those whose commits are stored; a pause's caller waits for its own. */
  private flushesAsked = 0;
  private flushesStored = 0;
  private flushWaiters: { upTo: number; resolve: () => void }[] = [];
  /** Frames in the order produced; a stored commit holds back what follows it until it is stored. */
  private outbox: Promise<void> = Promise.resolve();
  /** The seq each labelled commit got, by the engine's turn number (settlements name turns). */
  private readonly turnSeqs = new Map<number, number>();
  /**
   * Translations and late line fixes under way: they do not hold commits back, but `session.done` waits for them
   * (TRANSLATION_DRAIN_MS at most).
   */
  private readonly translating = new Set<Promise<void>>();
  /** The last lines committed, as context for the next line's fix. */
  private recentLines: string[] = [];
  /** Billing steps in order (each waits for the one before); the end's settlement comes last. */
  private metering: Promise<void> = Promise.resolve();
  /** Whole minutes of audio told to billing so far (-1: not yet started). */
  private meteredMinutes = -1;
  private meterEnded = false;

  constructor(
    private readonly claims: SessionClaims,
    private readonly deps: LiveSessionDeps,
    private readonly output: LiveOutput,
    private readonly hooks: LiveRecordingHooks = {},
  ) {
    this.options = claims.options;
  }

  async start(): Promise<void> {
    // Silence while every slot is busy: the client's 30-second deadline reports `capacity_exceeded`.
    const waitTimer = setTimeout(() => this.waitAbort.abort(new Error('no engine slot in time')), this.deps.config.waitTimeoutS * 1000);
    try {
      this.lease = await this.deps.admission.acquire(this.waitAbort.signal);
    } catch {
      if (this.state === 'waiting') this.close('no_slot');
      return;
    } finally {
      clearTimeout(waitTimer);
    }
    if (this.state !== 'waiting') {
      // The client left (or ended) while waiting.
      this.releaseSlot();
      return;
    }
    this.state = 'loading';
    try {
      const settings = {
        language: this.options.spokenLanguage, latencyMode: this.options.latencyMode, speakerLabels: labelsOn(this.options),
      };
      this.live = this.deps.engine.openLive(settings, this.deps.config.tuning, this);
    } catch (error) {
      this.failed(toApiError(error).message);
    }
  }

  // ---- client input -----------------------------------------------------------------------------------------

  /** A client's text frame, parsed: `eof`, `cancel`, `session.update` or `clock`. */
  frame(frame: unknown): void {
    if (this.state === 'closed') return;
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

  /** A chunk of pcm_f32le audio. */
  audio(bytes: Uint8Array): void {
    // Audio before `session.ready` is not expected (the spec) and is dropped without a word, so a socket
    // waiting for a slot stays silent; after the end it has nowhere to go; while paused it is not taken.
    if (this.state !== 'ready' || !this.live || this.paused) return;
    if (bytes.byteLength > MAX_CHUNK_BYTES) {
      this.sendError('invalid_audio', `A binary frame carries at most ${MAX_CHUNK_BYTES} bytes (2 s); send 100 to 250 ms chunks.`);
      return;
    }
    if (bytes.byteLength % BYTES_PER_SAMPLE !== 0) {
      this.sendError('invalid_audio', `Binary frames are pcm_f32le: ${bytes.byteLength} bytes is not a whole number of 4-byte samples.`);
      return;
    }
    let samples = bytes.byteLength / BYTES_PER_SAMPLE;
    const room = Math.floor(this.deps.config.maxDurationS * SAMPLE_RATE) - this.receivedSamples;
    const overLimit = samples >= room;
    if (overLimit) samples = Math.max(0, room);
    if (samples > 0) {
      // Copy into an aligned buffer of its own: it is transferred to the engine thread (a keeper gets its own copy).
      const pcm = new Float32Array(samples);
      new Uint8Array(pcm.buffer).set(bytes.subarray(0, samples * BYTES_PER_SAMPLE));
      this.hooks.keep?.(pcm.slice());
      this.receivedSamples += samples;
      if (Math.floor(this.receivedSamples / SAMPLE_RATE / 60) > this.meteredMinutes) this.meterAudio();
      this.arrivals.push({ endSample: this.receivedSamples, wallMs: Date.now() });
      this.live.push(pcm);
    }
    if (overLimit) this.end('max_duration');
  }

  /**
   * Stops transcribing: what was said so far is committed, audio that comes until `resume` is dropped. Resolves once
   * those commits are stored (a pause of a paused session: once the pending flush's are), or the session is over.
   */
  pause(): Promise<void> {
    if (!this.paused && this.state !== 'closed') {
      this.paused = true;
      if (this.live) {
        this.flushesAsked++;
        this.live.flush();
      }
    }
    return this.flushStored(this.flushesAsked);
  }

  private flushStored(upTo: number): Promise<void> {
    if (this.flushesStored >= upTo || this.state === 'closed') return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push({ upTo, resolve }));
  }

  /** Flushes up to `upTo` have their commits stored (Infinity: the session is over, nothing more will come). */
  private settleFlushes(upTo: number): void {
    this.flushesStored = Math.max(this.flushesStored, upTo);
    const settled = this.flushWaiters.filter((waiter) => waiter.upTo <= this.flushesStored);
    this.flushWaiters = this.flushWaiters.filter((waiter) => waiter.upTo > this.flushesStored);
    for (const waiter of settled) waiter.resolve();
  }

  resume(): void {
    this.paused = false;
  }

  /** Tells the client something outside the spec's frames (a live recording's state), after what is queued before it. */
  notice(event: LiveEvent): void {
    this.enqueue(() => {
      if (this.state !== 'closed') this.output.send(event);
    });
  }

  /**
   * Options changed from outside the socket (a live recording's `PATCH .../settings`): applied as a
   * `session.update` frame would be, so the client hears `session.updated` the same way.
   */
  changeOptions(patch: Record<string, unknown>): void {
    if (this.state === 'closed') return;
    void this.sessionUpdate({ ...patch, type: 'session.update' });
  }

  /** Ends the session as `eof` would (a live recording stopped from elsewhere). */
  finish(): void {
    this.end('eof');
  }

  /** The transport is going away (a gateway shutting down): the session ends the way a lost engine ends it. */
  shutdown(): void {
    this.terminate('This gateway is shutting down; create a new session.');
  }

  /** Ends the session at once with an `error` frame (the engine stops; what was not committed is dropped). */
  terminate(message: string, code = 'engine_unavailable', retryable = true): void {
    this.live?.cancel();
    this.failed(message, code, retryable);
  }

  /** The client left: a dropped connection ends the session (no resume). */
  clientLeft(): void {
    const wasOpen = this.state !== 'closed';
    this.state = 'closed';
    this.stopHeartbeat();
    this.waitAbort.abort(new Error('client left'));
    // Stop the engine; its `done` frees the slot.
    if (wasOpen && this.live) this.live.cancel();
    this.meterEnd();
    this.settleFlushes(Infinity);
  }

  /** The client cannot keep up (the transport's judgement): stop transcribing; the slot frees once the engine stops. */
  abandon(): void {
    if (this.endReason !== 'cancelled') this.live?.cancel();
    this.endReason = 'cancelled';
    this.state = 'closed';
    this.stopHeartbeat();
    this.meterEnd();
    this.settleFlushes(Infinity);
  }

  // ---- engine events ----------------------------------------------------------------------------------------

  loading(stage: LoadingStage): void {
    if (this.state !== 'loading') return;
    this.output.send({ type: 'session.loading', stage });
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => this.output.send({ type: 'session.loading', stage }), this.deps.config.loadingHeartbeatS * 1000);
  }

  ready(): void {
    if (this.state !== 'loading') return;
    this.stopHeartbeat();
    this.state = 'ready';
    this.meterAudio();
    this.output.send({
      type: 'session.ready', sessionId: this.claims.sessionId, audio: { encoding: 'pcm_f32le', sampleRate: SAMPLE_RATE, channels: 1 },
    });
  }

  update(update: LiveUpdate): void {
    this.takeUpdate(update);
    // After the commits it brought are stored: a pause waiting for this flush answers now.
    const { flushed } = update;
    if (flushed !== undefined) this.enqueue(() => this.settleFlushes(flushed));
  }

  private takeUpdate(update: LiveUpdate): void {
    if (this.state !== 'ready' && this.state !== 'ending') return;
    if (this.endReason === 'cancelled') return; // cancel drops the rest
    this.processingS += update.processingS;
    const now = Date.now();
    const bodies = update.committed.map((segment) => this.committedBody(segment, now));
    if (update.committed.length > 0) this.forgetArrivalsBefore(update.committed[update.committed.length - 1]!.end);
    // With llmFix each line's fix is asked for now, beside the commits before it; each commit waits for its own.
    const fixes = bodies.map((body, i) => this.askFix(body, bodies.slice(0, i)));
    this.enqueue(async () => {
      for (const [index, heard] of bodies.entries()) {
        const held = await this.heldForFix(fixes[index]);
        const body = held ? this.withFix(heard, held.outcome, now) : heard;
        const committed = this.hooks.store ? await this.hooks.store.commit(body) : { ...body, seq: this.seq++ };
        this.recentLines = [...this.recentLines, committed.text].slice(-CONTEXT_LINES);
        if (typeof body.latencyS === 'number') {
          commitLatency.observe({ session: this.hooks.store ? 'live_recording' : 'realtime' }, body.latencyS);
        }
        const turn = update.committed[index]!.speakerTurn;
        if (turn !== undefined) this.turnSeqs.set(turn, committed.seq);
        if (!this.output.send({ type: 'transcript.committed', segment: committed })) return;
        if (committed.words.length > 0) this.output.send({ type: 'transcript.words', seq: committed.seq, words: committed.words });
        if (held) this.output.send({
          type: 'transcript.latency', seq: committed.seq, latencyS: committed.latencyS, heldS: held.heldS, ...outcomeFields(held.outcome),
        });
        else if (fixes[index]) this.amendWhenFixed(
          committed, now - (typeof heard.latencyS === 'number' ? heard.latencyS * 1000 : 0), fixes[index],
        );
        this.translateCommit(committed);
      }
      if (update.speakers?.length && !(await this.settleSpeakers(update.speakers))) return;
      const draft = update.draft.map((item) => ({
        start: round(item.start), text: item.text, speaker: item.speaker ?? SPEAKER_LABELS_OFF, tentative: true,
      }));
      const draftJson = JSON.stringify(draft);
      if (draftJson !== this.lastDraftJson && !this.output.behind()) {
        this.lastDraftJson = draftJson;
        this.output.send({ type: 'transcript.draft', segments: draft, audioS: round(update.coveredS) });
      }
    });
  }

  /**
   * `llmFix`: asks the model for this line's fix (the lines committed before it, and `before` of the same update,
   * as context); null when the session did not ask for fixes or the line is empty. Never rejects.
   */
  private askFix(body: CommittedBody, before: CommittedBody[]): { startedMs: number; outcome: Promise<FixOutcome> } | null {
    const fixLine = this.deps.fixLine;
    if (!this.options.llmFix || !fixLine || body.text.trim() === '') return null;
    const context = [...this.recentLines, ...before.map((b) => b.text)].slice(-CONTEXT_LINES);
    const outcome = fixLine({
      text: body.text, language: (body.language as string | null | undefined) ?? this.options.spokenLanguage, context,
    }).then(
      (proposed): FixOutcome => {
        const text = acceptedFix(body.text, proposed);
        if (text === null) return { fix: 'rejected' };
        return text === body.text.replace(/\s+/g, ' ').trim() ? { fix: 'unchanged' } : { fix: 'changed', text };
      },
      (error: unknown): FixOutcome => {
        this.deps.log?.('warn', 'llmFix: the line could not be fixed; it goes out as heard', {
          sessionId: this.claims.sessionId, error: String(error),
        });
        return { fix: 'failed', problem: (error as Error).message };
      },
    );
    return { startedMs: Date.now(), outcome };
  }

  /**
   * The line's fix, when it came within LLM_FIX_HOLD_MS of being asked for (the commit waited for it), with the
   * seconds the commit was held; null when the session asks no fixes or the time ran out (the line then goes out as
   * heard and its fix, if any, follows as `transcript.amended`).
   */
  private async heldForFix(fix: ReturnType<LiveSession['askFix']>): Promise<{ outcome: FixOutcome; heldS: number } | null> {
    if (!fix) return null;
    const holdMs = this.deps.config.llmFix?.holdMs ?? 0;
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<null>((resolve) => (timer = setTimeout(
      () => resolve(null), Math.max(0, fix.startedMs + holdMs - Date.now()),
    )));
    const outcome = await Promise.race([fix.outcome, timeUp]);
    clearTimeout(timer);
    return outcome && { outcome, heldS: round((Date.now() - fix.startedMs) / 1000) };
  }

  /** The heard line with its fix applied (words keep the heard times), its latency counted to now. */
  private withFix(heard: CommittedBody, outcome: FixOutcome, heardAtMs: number): CommittedBody {
    const latencyS = round((typeof heard.latencyS === 'number' ? heard.latencyS : 0) + (Date.now() - heardAtMs) / 1000);
    if (outcome.fix !== 'changed' || outcome.text === undefined) return { ...heard, latencyS };
    return { ...heard, text: outcome.text, words: retimedWords(heard.words, outcome.text), latencyS };
  }

  /**
   * A line that went out before its fix: once the fix comes, a changed text is stored (a live recording's) and sent
   * as `transcript.amended`, then `transcript.latency` says how long the final text took; after the commits queued
   * before it, and `session.done` waits for it as for a translation.
   */
  private amendWhenFixed(
    committed: CommittedBody & { seq: number }, endArrivedMs: number, fix: NonNullable<ReturnType<LiveSession['askFix']>>,
  ): void {
    const work = fix.outcome.then((outcome) =>
      this.enqueue(async () => {
        if (this.state === 'closed') return;
        if (outcome.fix === 'changed' && outcome.text !== undefined) {
          // A fix that cannot be stored leaves the line as it went out: unlike a commit, it does not end the session.
          const stored = this.hooks.store?.amend
            ? await this.hooks.store.amend(committed.seq, outcome.text, committed.text).catch((error: unknown) => {
                this.deps.log?.('warn', 'llmFix: a late fix could not be stored; the line stays as heard', {
                  sessionId: this.claims.sessionId, seq: committed.seq, error: String(error),
                });
                return null;
              })
            : { ...committed, text: outcome.text, words: retimedWords(committed.words, outcome.text) };
          if (stored) {
            this.output.send({
              type: 'transcript.amended', seq: committed.seq, reason: 'llm_fix', segment: { ...stored, seq: committed.seq },
              previousText: committed.text,
            });
          }
        }
        const latencyS = round((Date.now() - endArrivedMs) / 1000);
        this.output.send({
          type: 'transcript.latency', seq: committed.seq, latencyS, heldS: round((this.deps.config.llmFix?.holdMs ?? 0) / 1000),
          ...outcomeFields(outcome),
        });
      }),
    );
    const tracked = work.finally(() => this.translating.delete(tracked));
    this.translating.add(tracked);
  }

  /** Settled labels: stored (a live recording's) and sent as `transcript.speaker` frames; false once the client can take no more. */
  private async settleSpeakers(settlements: NonNullable<LiveUpdate['speakers']>): Promise<boolean> {
    const labels: SpeakerSettled[] = settlements.flatMap((s) => {
      const seq = this.turnSeqs.get(s.turn);
      return seq === undefined ? [] : [{
        seq, speaker: s.speaker, speakerConfidence: round(s.confidence), speakerProvisional: false as const,
      }];
    });
    if (labels.length === 0) return true;
    await this.hooks.store?.settleSpeakers(labels);
    return labels.every((label) => this.output.send({ type: 'transcript.speaker', ...label }));
  }

  /**
   * Translates a commit into the `translate` targets (its own language left out) beside the commits that follow,
   * never holding them back; its `transcript.translated` frame goes out when ready, after the commit's. A live
   * recording's store keeps the translation with the segment. A failure is an `error` frame naming the segment; the
   * session goes on.
   */
  private translateCommit(committed: CommittedBody & { seq: number }): void {
    const language = (committed.language as string | null | undefined) ?? this.options.spokenLanguage;
    const targets = this.options.translate.filter((target) => target !== language);
    // A live recording's store also translates into the languages its listeners asked for: it is always asked.
    if ((targets.length === 0 && !this.hooks.store) || committed.text.trim() === '') return;
    const work = (async () => {
      const made = this.hooks.store ? await this.hooks.store.translate(committed.seq, targets) : await this.translateText(
        committed.text, language, targets,
      );
      if (made && Object.keys(made.translations).length > 0) {
        this.enqueue(() => {
          if (this.state !== 'closed') this.output.send({ type: 'transcript.translated', seq: committed.seq, ...made });
        });
      }
    })()
      .catch((error: unknown) => {
        const apiError = toApiError(error);
        this.enqueue(() => this.sendError(
          apiError.code, `transcript.translated for seq ${committed.seq}: ${apiError.message}`, apiError.retryable,
        ));
      })
      .finally(() => this.translating.delete(work));
    this.translating.add(work);
  }

  private async translateText(text: string, from: string | null, targets: string[]): Promise<SegmentTranslated> {
    if (!this.deps.translate) throw errors.invalidOptions('translate: this server has no translation provider configured (GET '
      + '/v1/languages lists no translation targets).', { field: 'translate' });
    const made: SegmentTranslated = { translations: {}, translationSources: {} };
    for (const target of targets) {
      const [result] = await this.deps.translate([text], from, target);
      made.translations[target] = result!.text;
      made.translationSources[target] = result!.source;
    }
    return made;
  }

  /** Runs `step` after everything queued before it; a commit that cannot be stored ends the session. */
  private enqueue(step: () => Promise<void> | void): void {
    this.outbox = this.outbox.then(step).catch((error: unknown) => {
      this.deps.log?.('error', 'live session could not store a commit', { sessionId: this.claims.sessionId, error: String(error) });
      this.live?.cancel();
      this.failed('A committed segment could not be stored; the session ended. Reconnect to go on.');
    });
  }

  done(reason: 'eof' | 'cancelled'): void {
    this.releaseSlot();
    // After the commits still being stored, and the translations they started (a while at most).
    void this.drainTranslations().then(() => this.enqueue(() => {
      if (this.state === 'closed') return;
      const audioS = this.receivedSamples / SAMPLE_RATE;
      if (audioS > 0) realtimeFactor.observe({ kind: this.hooks.store ? 'live_recording' : 'realtime' }, this.processingS / audioS);
      this.output.send({
        type: 'session.done',
        reason: this.endReason ?? reason,
        stats: {
          audioS: round(audioS), processingS: round(this.processingS), realtimeFactor: audioS > 0 ? round(this.processingS / audioS) : 0,
        },
      });
      this.close('done');
    }));
  }

  /** Waits for the commits queued so far and the translations they start, TRANSLATION_DRAIN_MS at most. */
  private async drainTranslations(): Promise<void> {
    const deadline = Date.now() + TRANSLATION_DRAIN_MS;
    await this.outbox;
    while (this.translating.size > 0 && Date.now() < deadline && this.endReason !== 'cancelled') {
      await Promise.race([Promise.allSettled([...this.translating]), new Promise((resolve) => setTimeout(resolve, deadline - Date.now()))]);
    }
  }

  failed(message: string, code = 'engine_unavailable', retryable = true): void {
    this.releaseSlot();
    if (this.state === 'closed') return;
    this.output.send({ type: 'error', code, message, retryable });
    this.close('failed');
  }

  // ---- the rest -----------------------------------------------------------------------------------------------

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
    if (reason === 'cancelled') this.live?.cancel();
    else this.live?.endOfAudio();
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
    const change: Parameters<LiveHandle['update']>[0] = {};
    if (result.changed.includes('spokenLanguage')) change.language = result.options.spokenLanguage;
    if (result.changed.includes('latencyMode')) change.latencyMode = result.options.latencyMode;
    if (result.changed.includes('speakerLabels')) change.speakerLabels = labelsOn(result.options);
    if (Object.keys(change).length > 0) this.live?.update(change);
    this.deps.log?.('info', 'realtime session updated', { sessionId: this.claims.sessionId, changed: result.changed });
    // Not a spec frame (clients ignore unknown types): tells the client what took effect and what was ignored.
    this.output.send({ type: 'session.updated', options: result.options, changed: result.changed, ignored: result.ignored });
  }

  /** `clock`: `pcm` samples the client captured so far, `wall` seconds since capture started (engine: capture loss). */
  private clock(frame: Record<string, unknown>): void {
    const { pcm, wall } = frame;
    if (typeof pcm !== 'number' || !Number.isInteger(pcm) || pcm < 0 || typeof wall !== 'number' || !Number.isFinite(wall) || wall < 0) {
      this.sendError('invalid_body', 'clock: "pcm" must be a whole number of samples and "wall" a number of seconds, both ≥ 0.');
      return;
    }
    this.live?.clock(pcm, wall);
  }

  private committedBody(segment: LiveSegment, now: number): CommittedBody {
    const words = segment.words.map(
      (word) => ({ start: round(word.start), end: round(word.end), text: word.text, prob: round(word.prob) }),
    );
    const label = segment.speaker === undefined ? { speaker: SPEAKER_LABELS_OFF } : {
      speaker: segment.speaker, speakerConfidence: round(segment.speakerConfidence ?? 0), speakerProvisional: true,
    };
    return {
      ...label,
      start: round(segment.start),
      end: round(segment.end),
      text: segment.text,
      words,
      confidence: round(segment.confidence),
      language: segment.language,
      latencyS: round(Math.max(0.001, (now - this.arrivalWallMs(segment.end)) / 1000)),
      decoder: segment.decoder,
      ...(segment.decoder === 'fast' ? { catchup: true } : {}),
      ...(segment.gapBefore ? { gapBefore: round(segment.gapBefore) } : {}),
    };
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

  private sendError(code: string, message: string, retryable = false): void {
    this.output.send({ type: 'error', code, message, retryable });
  }

  private releaseSlot(): void {
    this.lease?.release();
    this.lease = null;
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private close(outcome: LiveOutcome): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.stopHeartbeat();
    this.meterEnd();
    this.settleFlushes(Infinity);
    this.output.finished(outcome);
  }

  /** The meter of a realtime session; a live recording's publisher has none (its capture is metered). */
  private get meter(): SessionMeter | null {
    return this.claims.recording ? null : (this.deps.meter ?? null);
  }

  /** Tells billing the audio so far (the minimum once started, then each whole minute); out of credit ends the session. */
  private meterAudio(): void {
    const meter = this.meter;
    if (!meter) return;
    const receivedS = this.receivedSamples / SAMPLE_RATE;
    this.meteredMinutes = Math.floor(receivedS / 60);
    this.metering = this.metering.then(async () => {
      if (await meter.audio(this.claims.sessionId, receivedS)) {
        this.terminate('The account ran out of credit; add credit and create a new session.', 'insufficient_credit', false);
      }
    }).catch((error: unknown) => {
      ledgerErrors.inc({ stage: 'session_meter' });
      this.deps.log?.('error', 'a realtime session could not be metered', { sessionId: this.claims.sessionId, error: String(error) });
    });
  }

  private meterEnd(): void {
    const meter = this.meter;
    if (!meter || this.meterEnded) return;
    this.meterEnded = true;
    const receivedS = this.receivedSamples / SAMPLE_RATE;
    const ran = this.meteredMinutes >= 0;
    this.metering = this.metering.then(() => meter.ended(this.claims.sessionId, receivedS, ran))
      .catch((error: unknown) => {
        ledgerErrors.inc({ stage: 'session_settle' });
        this.deps.log?.('error', 'a realtime session could not be settled', { sessionId: this.claims.sessionId, error: String(error) });
      });
  }
}

/** How long the end of a session waits for its last commits' translations. */
const TRANSLATION_DRAIN_MS = 15_000;

/** -1 while labels are off (the spec). */
const SPEAKER_LABELS_OFF = -1;

/** `auto` and `on` both label: the engine labels live audio (workers/engine/speakers/live-speakers.ts), as it does files. */
function labelsOn(options: RealtimeSessionOptions): boolean {
  return options.speakerLabels !== 'off';
}

/** A fix outcome as a `transcript.latency` frame carries it: `fix`, and `problem` when it failed. */
function outcomeFields(outcome: FixOutcome): { fix: FixOutcome['fix']; problem?: string } {
  return outcome.problem === undefined ? { fix: outcome.fix } : { fix: outcome.fix, problem: outcome.problem };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

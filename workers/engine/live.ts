/**
 * A live transcription: the streaming policy of every live path (the realtime socket, and the live recordings,
 * pulled streams and RTMP ingest built on it) in one place, knowing nothing of transports or threads.
 *
 * Audio, capture clocks, setting changes and the end come in; updates (committed segments on the session's
 * timeline, the draft) go out through `emit`. The policy:
 * - LocalAgreement-2 (stream.ts): what two passes agree on is committed, the rest is the draft.
 * - Pacing: a pass whenever at least `minStepS` of new audio arrived, so a session that keeps up reacts within
 *   one pass and one that falls behind takes bigger bites instead of queueing passes. Audio reaches the
 *   transcriber only between passes.
 * - Decoders: `fast` (greedy) and `accuracy` (beam search 5). `auto` decodes accurately while passes keep up and
 *   hands over to the fast decoder once the backlog passes `catchupLagS` (those commits say `decoder: 'fast'`),
 *   coming back once it is small again. A hand-over switches the decoder of the one transcriber in place: its
 *   buffer and committed words stay, so no audio is replayed, lost or transcribed twice.
 * - Capture loss: `clock(pcm, wall)` reports what the client captured; audio that never arrived and capture that
 *   stalled are lost audio. A commit spanning a loss is cut there, and the segment after it carries `gapBefore`.
 * - Speaker labels (while asked for): each commit gets a provisional speaker online (live-speakers.ts), and an
 *   update reports the labels that settled; the end of audio settles them all.
 */
import { concatSamples } from './audio.js';
import { SAMPLE_RATE } from './whisper/mel.js';
import type { Segment, Word } from './pipeline.js';
import type { StreamingTranscriber } from './stream.js';
import { OnlineSpeakers, type SpeakerSettlement } from './speakers/live-speakers.js';

/** What the policy needs of a transcriber (stream.ts's `StreamingTranscriber`). */
export type LiveTranscriber = Pick<StreamingTranscriber, 'push' | 'step' | 'flush' | 'setMode' | 'mode' | 'setLanguage' | 'bufferedS'>;

export type LiveDecoder = 'fast' | 'accuracy';
export type LatencyMode = 'auto' | LiveDecoder;

export interface LiveSettings {
  /** A language code, or null to detect it. */
  language: string | null;
  latencyMode: LatencyMode;
  /** Label each commit's speaker (absent: off). */
  speakerLabels?: boolean;
}

export interface LiveTuning {
  /** Smallest amount of new audio worth another pass. */
  minStepS: number;
  /** In `auto`: how far (seconds) the accurate decoder may fall behind the audio before the fast one takes over. */
  catchupLagS: number;
  /** In `auto`: the accurate decoder resumes once the backlog is under this. */
  resumeLagS: number;
}

/** A committed segment of a live session: which decoder said it, and the capture loss just before it. */
export interface LiveSegment extends Segment {
  decoder: LiveDecoder;
  /** Seconds of captured audio lost just before this segment (absent: none). */
  gapBefore?: number;
  /** With speaker labels: the provisional speaker (from 0), its confidence, and the turn number settlements name. */
  speaker?: number;
  speakerConfidence?: number;
  speakerTurn?: number;
}

export interface LiveDraft {
  start: number;
  text: string;
  /** With speaker labels: the speaker it would get now (-1 before any). */
  speaker?: number;
}

export interface LiveUpdate {
  committed: LiveSegment[];
  draft: LiveDraft[];
  /** Seconds of session audio the pass had seen. */
  coveredS: number;
  /** Wall seconds the pass took. */
  processingS: number;
  /** The decoder of the pass. */
  decoder: LiveDecoder;
  /** Speaker labels settled by this pass (or moved again by a later merge), by `speakerTurn`. */
  speakers?: SpeakerSettlement[];
  /**
   * This pass committed what was said before a flush (a pause): how many `flush` calls it answers, counted from the
   * first. Its commits are the last of the audio before those flushes.
   */
  flushed?: number;
}

/** Consecutive small-backlog passes before `auto` goes back to the accurate decoder (avoids flapping). */
const RESUME_AFTER_PASSES = 3;
/** Capture loss smaller than this is jitter (a chunk in flight, clock drift), not a gap. */
const MIN_GAP_S = 0.25;
/**
 * Most audio the transcriber holds: under Whisper's 30 s window, which a pass hears whole, and over the 26 s at
 * which the transcriber commits what it has and cuts its buffer (stream.ts FORCE_COMMIT_S).
 */
const MAX_BUFFER_S = 28;

export class LiveTranscription {
  private language: string | null;
  private latencyMode: LatencyMode;
  /** Audio received but not yet given to the transcriber. */
  private incoming: Float32Array[] = [];
  private receivedSamples = 0;
  /** Samples given to the transcriber. */
  private fedSamples = 0;
  /** Samples the last pass heard (fed when it started). */
  private lastPassSamples = 0;
  private smallBacklogPasses = 0;
  /** A decoder the client switched to, applied before the next pass (the pass in flight keeps its own). */
  private requestedMode: LiveDecoder | null = null;
  /** Capture loss the clocks revealed, not yet attached to a committed segment. */
  private pendingGaps: { atS: number; lostS: number }[] = [];
  private lostReportedS = 0;
  private ended = false;
  private cancelled = false;
  /**
   * A flush asked for while audio goes on (a pause): the next pass commits everything said before it, and only
   * that (audio after it, once the capture resumes, is the next passes'). Null when none is pending.
   */
  private flushAtSamples: number | null = null;
  /** `flush` calls so far: a flush pass reports how many it answers (`flushed`). */
  private flushesAsked = 0;
  private wake: (() => void) | null = null;
  /** Speaker labelling: null until labels are first asked for; kept while they are off (its speakers stay known). */
  private speakers: OnlineSpeakers | null = null;
  private speakerLabels = false;
  private nextTurn = 0;

  constructor(
    private readonly transcriber: LiveTranscriber,
    settings: LiveSettings,
    private readonly tuning: LiveTuning,
  ) {
    this.language = settings.language;
    this.latencyMode = settings.latencyMode;
    transcriber.setMode(settings.latencyMode === 'fast' ? 'fast' : 'accuracy');
    this.setSpeakerLabels(settings.speakerLabels ?? false);
  }

  push(pcm: Float32Array): void {
    if (this.ended || this.cancelled || pcm.length === 0) return;
    this.incoming.push(pcm);
    this.receivedSamples += pcm.length;
    this.signal();
  }

  /**
   * The client's capture clock: `pcm` samples captured so far, `wall` seconds since capture started. Captured
   * audio that never arrived (`pcm` ahead of what was received) and capture that stalled while time went on
   * (`wall` ahead of `pcm`) are both lost audio.
   */
  clock(pcm: number, wall: number): void {
    const capturedS = pcm / SAMPLE_RATE;
    const receivedS = this.receivedSamples / SAMPLE_RATE;
    const lostS = Math.max(0, capturedS - receivedS) + Math.max(0, wall - capturedS);
    if (lostS - this.lostReportedS >= MIN_GAP_S) {
      this.pendingGaps.push({ atS: receivedS, lostS: lostS - this.lostReportedS });
      this.lostReportedS = lostS;
    }
  }

  /** Applies from the next pass: the pass in flight keeps what it started with. */
  update(change: { language?: string | null; latencyMode?: LatencyMode; speakerLabels?: boolean }): void {
    if (change.speakerLabels !== undefined) this.setSpeakerLabels(change.speakerLabels);
    if (change.language !== undefined && change.language !== this.language) {
      // A detected language stays until the client names another one (or asks for detection again).
      this.language = change.language;
      this.transcriber.setLanguage(change.language ?? undefined);
    }
    if (change.latencyMode !== undefined && change.latencyMode !== this.latencyMode) {
      this.latencyMode = change.latencyMode;
      this.smallBacklogPasses = 0;
      // `auto` keeps whichever decoder runs; its backlog rule decides from the next pass on.
      this.requestedMode = change.latencyMode === 'auto' ? null : change.latencyMode;
      this.signal();
    }
  }

  /**
   * Commits everything said so far (a pause: the words before it must not wait for speech to resume), then goes on
   * taking audio.
   */
  flush(): void {
    this.flushesAsked++;
    this.flushAtSamples = this.receivedSamples;
    this.signal();
  }

  /** No more audio: the last pass commits everything said. */
  endOfAudio(): void {
    this.ended = true;
    this.signal();
  }

  /** Stops at once; what was not committed is dropped. */
  cancel(): void {
    this.cancelled = true;
    this.signal();
  }

  /** Runs passes until the end or a cancel; resolves with how it ended. Errors of a pass reject. */
  async run(emit: (update: LiveUpdate) => void): Promise<'eof' | 'cancelled'> {
    while (!this.cancelled) {
      if (this.requestedMode) this.transcriber.setMode(this.requestedMode);
      this.requestedMode = null;
      // A pending flush first, the end too: audio before a pause is committed on its own.
      if (this.flushAtSamples !== null) {
        const upTo = this.flushAtSamples;
        this.feed(upTo);
        // What the window could not take goes in by steps first; the flush commits once all of it is in.
        if (this.fedSamples < upTo) await this.pass(emit, () => this.transcriber.step());
        else {
          this.flushAtSamples = null;
          await this.pass(emit, () => this.transcriber.flush(), this.flushesAsked);
        }
        continue;
      }
      if (this.ended) {
        this.applyBacklogRule();
        this.feed();
        // A backlog longer than the model's window goes in by steps; the last pass commits everything.
        if (this.incoming.length > 0) await this.pass(emit, () => this.transcriber.step());
        else {
          await this.pass(emit, () => this.transcriber.flush());
          return this.cancelled ? 'cancelled' : 'eof';
        }
        continue;
      }
      if (this.receivedSamples - this.lastPassSamples >= this.tuning.minStepS * SAMPLE_RATE) {
        this.feed();
        await this.pass(emit, () => this.transcriber.step());
        this.applyBacklogRule();
      } else {
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    }
    return 'cancelled';
  }

  /** Labels from the audio not yet given to the transcriber on: earlier commits are not labelled again. */
  private setSpeakerLabels(on: boolean): void {
    if (on && !this.speakers) this.speakers = new OnlineSpeakers(this.fedSamples / SAMPLE_RATE);
    else if (on && !this.speakerLabels) this.speakers!.skipTo(this.fedSamples / SAMPLE_RATE);
    this.speakerLabels = on;
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /**
   * Gives the transcriber what arrived, in one push (each push copies its buffer once), but never more than its
   * buffer can hold: a pass hears at most the model's window, so audio past it would be skipped, not transcribed.
   * What does not fit waits for the next pass (after which the transcriber has committed and cut); so does what
   * came after `upToSamples` (a flush's point).
   */
  private feed(upToSamples = Infinity): void {
    if (this.incoming.length === 0) return;
    const pending = concatSamples(this.incoming);
    const roomS = Math.max(MAX_BUFFER_S - this.transcriber.bufferedS, this.tuning.minStepS);
    const take = Math.min(pending.length, Math.round(roomS * SAMPLE_RATE), Math.max(0, upToSamples - this.fedSamples));
    if (take === 0) return;
    this.transcriber.push(pending.subarray(0, take));
    if (this.speakerLabels) this.speakers!.push(pending.subarray(0, take));
    this.incoming = take < pending.length ? [pending.slice(take)] : [];
    this.fedSamples += take;
  }

  private async pass(
    emit: (update: LiveUpdate) => void, run: () => Promise<{ committed: Segment[]; draft: LiveDraft[] }>, flushed?: number,
  ): Promise<void> {
    const coveredSamples = this.fedSamples;
    const decoder = this.transcriber.mode;
    const started = performance.now();
    const result = await run();
    const processingS = (performance.now() - started) / 1000;
    this.lastPassSamples = coveredSamples;
    if (this.cancelled) return;
    const committed = result.committed
      .flatMap((segment) => this.splitAtGaps(segment))
      .map((segment): LiveSegment => {
        const gapBefore = this.takeGapsBefore(segment.end);
        return { ...segment, decoder, ...(gapBefore > 0 ? { gapBefore } : {}), ...this.labelOf(segment) };
      });
    const labels = this.speakerLabels ? this.speakers! : null;
    const draft = labels ? result.draft.map(
      (item) => ({ ...item, speaker: labels.guess(item.start, coveredSamples / SAMPLE_RATE) }),
    ) : result.draft;
    // The last pass (the end of audio) settles every label; one turned off settles nothing more.
    const settled = this.speakers?.settle(this.ended && this.incoming.length === 0) ?? [];
    emit({
      committed, draft, coveredS: coveredSamples / SAMPLE_RATE, processingS, decoder, ...(settled.length ? { speakers: settled } : {}),
      ...(flushed !== undefined ? { flushed } : {}),
    });
  }

  private labelOf(segment: Segment): Pick<LiveSegment, 'speaker' | 'speakerConfidence' | 'speakerTurn'> {
    if (!this.speakerLabels) return {};
    const turn = this.nextTurn++;
    const label = this.speakers!.assign(turn, segment.start, segment.end);
    return { speaker: label.speaker, speakerConfidence: label.confidence, speakerTurn: turn };
  }

  /**
   * `auto` only: hand over to the fast decoder when the accurate one falls behind, and back once it keeps up.
   * Also at the end of audio: a large backlog is flushed by the fast decoder.
   */
  private applyBacklogRule(): void {
    if (this.latencyMode !== 'auto' || this.cancelled) return;
    const backlogS = (this.receivedSamples - this.lastPassSamples) / SAMPLE_RATE;
    if (this.transcriber.mode === 'accuracy' && backlogS > this.tuning.catchupLagS) {
      this.transcriber.setMode('fast');
      this.smallBacklogPasses = 0;
    } else if (this.transcriber.mode === 'fast') {
      this.smallBacklogPasses = backlogS < this.tuning.resumeLagS ? this.smallBacklogPasses + 1 : 0;
      if (this.smallBacklogPasses >= RESUME_AFTER_PASSES && !this.ended) this.transcriber.setMode('accuracy');
    }
  }

  /**
   * A commit that spans a capture loss is cut there, at the first word that ends after it: the audio on either
   * side of a loss is not continuous, so a word reaching past it belongs to what came after, wherever the
   * alignment put its start. The loss then sits between two segments, and `gapBefore` is true to its word.
   */
  private splitAtGaps(segment: Segment): Segment[] {
    const cutAt = this.pendingGaps.find((gap) => gap.atS > segment.start && gap.atS < segment.end)?.atS;
    if (cutAt === undefined) return [segment];
    const index = segment.words.findIndex((word) => word.end > cutAt);
    if (index <= 0) return [segment];
    const part = (words: Word[]): Segment => ({
      ...segment,
      start: words[0]!.start,
      end: words[words.length - 1]!.end,
      text: words.map((word) => word.text).join(' '),
      words,
      confidence: words.reduce((sum, word) => sum + word.prob, 0) / words.length,
    });
    return [part(segment.words.slice(0, index)), ...this.splitAtGaps(part(segment.words.slice(index)))];
  }

  /** Losses reported before the end of this segment belong to it (they happened before its audio ended). */
  private takeGapsBefore(endS: number): number {
    let total = 0;
    while (this.pendingGaps.length > 0 && this.pendingGaps[0]!.atS < endS) total += this.pendingGaps.shift()!.lostS;
    return total;
  }
}

/**
 * Speaker labels for live audio: the classical statistics of diarize.ts, assigned online as segments commit, and
 * settled once later speech has had its say.
 *
 * - Features: the same MFCCs as diarize.ts, computed as audio arrives (in pieces of about a second) and dropped
 *   once the segments over them are labelled, so a long session keeps only the recent stretch.
 * - Turns: committed segments are often under a second, too little to tell voices apart, so consecutive segments
 *   with no spectral change between them (diarize.ts's ΔBIC change points over the stretch) form one speech turn,
 *   a diagonal Gaussian of its loud frames, labelled as a whole while it grows.
 * - Assignment (provisional): the open turn joins the speaker whose model it is nearest by ΔBIC when that merge
 *   improves BIC (ΔBIC < threshold, as clustering a file does); a turn long enough to judge (≥ `minTurnS`) that no
 *   speaker fits is a new speaker; a shorter one joins the nearest. A change closes the turn.
 * - Clustering: when a turn closes, all closed turns (the last MAX_CLUSTERED) are clustered again as a file's are
 *   (BIC agglomerative), the clusters keeping the numbers of the speakers whose turns they mostly hold; the models
 *   are the clusters'. So a voice first split in two comes back together, and an early wrong choice (a second
 *   voice's first turn taken for the first voice, whose model then took every later turn of both: 2–5% of random
 *   cuts of the two-speaker fixture into segments) is undone once more turns are heard.
 * - Settling: a segment of a closed turn is settled once `settleAfterS` more seconds were labelled after it (its
 *   speaker's model had time to grow, and a wrong split time to merge); its label and confidence are then
 *   reported, and reported again if a later clustering moves it. The end of the session settles every segment.
 * A live recording's labels are clustered again from the whole audio when it is finalized (a file's diarization).
 */
import {
  agglomerate,
  bicDistance,
  changePoints,
  DEFAULT_DIARIZE_OPTIONS,
  FRAME_S,
  mergeStats,
  N_CEPS,
  nearestModel,
  PrefixSums,
  speakerFrames,
  speakerPosterior,
  turnStats,
  type GaussianStats,
} from './diarize.js';
import { concatSamples } from '../audio.js';
import { HOP_LENGTH, SAMPLE_RATE } from '../whisper/mel.js';

export interface OnlineSpeakerOptions {
  /** A turn joins a speaker while the merge's ΔBIC is below this (diarize.ts: 0). */
  threshold: number;
  frameCorrelation: number;
  /** Shortest turn that may start a new speaker; shorter ones join the nearest. */
  minTurnS: number;
  maxSpeakers: number;
  /** Seconds of later labelled audio after which a turn's label is settled. */
  settleAfterS: number;
  /**
   * The change-point penalty (diarize.ts's `changePenalty`) for a change of voice inside one committed segment.
   * Higher than between segments: Whisper ends segments where it hears a pause, so one that runs on is more often
   * one voice whose spectrum moved than two voices run together.
   */
  segmentChangePenalty: number;
}

export const DEFAULT_ONLINE_SPEAKER_OPTIONS: OnlineSpeakerOptions = {
  threshold: DEFAULT_DIARIZE_OPTIONS.threshold,
  frameCorrelation: DEFAULT_DIARIZE_OPTIONS.frameCorrelation,
  minTurnS: DEFAULT_DIARIZE_OPTIONS.minTurnS,
  maxSpeakers: DEFAULT_DIARIZE_OPTIONS.maxSpeakers,
  settleAfterS: 20,
  // On the two-speaker fixture cut in segments of 1–10 s (test/engine/live-speakers.test.ts), 6 gave the lowest DER
  // summed over sizes; the between-segment penalty (1.3) cut one voice so often it did worse than not cutting.
  segmentChangePenalty: 6,
};

export interface SpeakerLabel {
  speaker: number;
  /** 0..1, as diarize.ts's: the posterior of the speaker among the models there are. */
  confidence: number;
}

/** A turn's label as settled (or moved again by a later merge). */
export interface SpeakerSettlement extends SpeakerLabel {
  turn: number;
}

interface Turn {
  id: number;
  start: number;
  end: number;
  stats: GaussianStats;
  speaker: number;
  /** What was last reported for it; null while provisional. */
  settled: SpeakerLabel | null;
}

/** Consecutive segments of one voice so far, labelled as a whole. */
interface OpenTurn {
  start: number;
  end: number;
  stats: GaussianStats;
  segments: Turn[];
}

/** An open turn closes at this length even without a change (bounds the features kept and the wait to settle). */
const MAX_OPEN_TURN_S = 30;
/** The most recent closed turns clustered again (older ones keep their labels). */
const MAX_CLUSTERED = 150;
/** Seconds a change point may sit inside a segment's edge and still count as between segments. */
const CHANGE_SLACK_S = 0.3;

/** The `id` of a piece of a segment that holds two voices, other than the piece the segment is labelled by. */
const PIECE_ONLY = -1;

/** Audio gathered before its features are computed: about a second, in whole 10 ms hops. */
const FEATURE_PIECE = SAMPLE_RATE;
/** Most seconds of features kept ahead of the last labelled turn. */
const KEEP_FRAMES_S = 60;

export class OnlineSpeakers {
  private readonly options: OnlineSpeakerOptions;
  private pending: Float32Array[] = [];
  private pendingLength = 0;
  /** Feature frames kept: frame `firstFrame + i` of the session at index i. */
  private ceps: Float32Array = new Float32Array(0);
  private energy: Float32Array = new Float32Array(0);
  private firstFrame = 0;
  private frames = 0;
  private readonly models = new Map<number, GaussianStats>();
  private nextSpeaker = 0;
  private readonly turns: Turn[] = [];
  /** Closed turns, clustered again as each closes (`recluster`). */
  private readonly closed: Array<{ start: number; end: number; stats: GaussianStats; segments: Turn[] }> = [];
  /** By speaker, the statistics of their turns that left the clustering window. */
  private readonly retired = new Map<number, GaussianStats>();
  /** ΔBIC between closed turns' statistics, by the earlier turn's (`turnDistance`). */
  private readonly distances = new WeakMap<GaussianStats, WeakMap<GaussianStats, number>>();
  /** The speech turn still growing: the segments since the last spectral change. */
  private open: OpenTurn | null = null;

  /** `originS`: where on the session's time line the audio pushed starts (labels may be turned on mid-session). */
  constructor(originS = 0, options: Partial<OnlineSpeakerOptions> = {}) {
    this.options = { ...DEFAULT_ONLINE_SPEAKER_OPTIONS, ...options };
    this.firstFrame = Math.round(originS / FRAME_S);
    this.frames = this.firstFrame;
  }

  /** Audio that follows what was pushed before, on the session's time line. */
  push(samples: Float32Array): void {
    if (samples.length === 0) return;
    this.pending.push(samples.slice());
    this.pendingLength += samples.length;
    if (this.pendingLength >= FEATURE_PIECE) this.computePending();
  }

  /** The audio pushed next starts at `seconds` (labels were off in between: the audio before it never came). */
  skipTo(seconds: number): void {
    this.pending = [];
    this.pendingLength = 0;
    this.ceps = new Float32Array(0);
    this.energy = new Float32Array(0);
    this.firstFrame = this.frames = Math.round(seconds / FRAME_S);
  }

  /**
   * Labels a committed segment [start, end] (session seconds), provisionally. `turn` names it in settlements.
   *
   * Segments are often shorter than a second, too little to tell voices apart, so they are gathered into the open
   * speech turn (consecutive segments with no spectral change between them, diarize.ts's ΔBIC change points); the
   * turn as a whole is matched to a speaker, and every segment in it gets that speaker. A change point closes the
   * turn (segments after it start the next one); a closed turn's statistics join its speaker's model.
   *
   * A long segment may hold a change of voice itself (Whisper ran two speakers' sentences together, as it does when
   * a pass takes a big bite of audio). Such a segment goes in as its pieces between the changes: each piece joins the
   * turns as a segment would, so no speaker model takes in the other voice, and the segment is labelled with its
   * longest piece (the other pieces are never reported on their own).
   */
  assign(turn: number, start: number, end: number): SpeakerLabel {
    const pieces = this.piecesOf(start, end);
    const longest = pieces.reduce((best, piece, i) => (piece.end - piece.start > pieces[best]!.end - pieces[best]!.start ? i : best), 0);
    const segment = pieces.map((piece, i) => this.assignPiece(i === longest ? turn : PIECE_ONLY, piece.start, piece.end))[longest]!;
    const open = this.open;
    return open?.segments.includes(segment)
      ? { speaker: segment.speaker, confidence: this.confidenceOf(open.stats, segment.speaker, open.stats) }
      : { speaker: segment.speaker, confidence: this.confidenceOf(segment.stats, segment.speaker) };
  }

  /** [start, end] cut at the spectral changes inside it (only a segment of two change windows or more can hold one). */
  private piecesOf(start: number, end: number): Array<{ start: number; end: number }> {
    if (Math.round(end / FRAME_S) > this.frames) this.computePending();
    const a = Math.max(this.firstFrame, Math.round(start / FRAME_S));
    const b = Math.min(this.frames, Math.round(end / FRAME_S));
    const cuts = b - a >= 2 * Math.round(DEFAULT_DIARIZE_OPTIONS.changeWindowS / FRAME_S) ? changePoints(
      new PrefixSums(this.ceps.subarray((a - this.firstFrame) * N_CEPS), b - a, N_CEPS), 0, b - a,
      { ...DEFAULT_DIARIZE_OPTIONS, changePenalty: this.options.segmentChangePenalty },
    ) : [];
    const bounds = [start, ...cuts.map((cut) => (a + cut) * FRAME_S), end];
    return bounds.slice(1).map((pieceEnd, i) => ({ start: bounds[i]!, end: pieceEnd }));
  }

  /** One piece of speech of a single voice into the open turn; `turn` is the segment it labels (PIECE_ONLY: none). */
  private assignPiece(turn: number, start: number, end: number): Turn {
    const stats = this.statsOf(start, end);
    if (this.open && (end - this.open.start > MAX_OPEN_TURN_S || this.differs(this.open, stats, end - start) || this.changeBefore(
      this.open, start, end,
    ))) this.closeOpenTurn();
    const segment: Turn = { id: turn, start, end, stats, speaker: -1, settled: null };
    this.turns.push(segment);
    const open = this.open ?? (this.open = { start, end, stats, segments: [] });
    if (open.segments.length > 0) open.stats = mergeStats(open.stats, stats);
    open.segments.push(segment);
    open.end = end;
    const speaker = this.speakerOfOpenTurn(open);
    for (const member of open.segments) member.speaker = speaker;
    // Features before the open turn are done with (its statistics are kept, its frames are needed for change points).
    this.dropFramesBefore(open.start);
    return segment;
  }

  /** The speaker the open turn matches: the nearest model when merging improves BIC (or the turn is too short to judge), else a new one. */
  private speakerOfOpenTurn(open: OpenTurn): number {
    if (this.models.size === 0) return this.nextSpeaker;
    const ids = [...this.models.keys()];
    const distances = ids.map((id) => bicDistance(open.stats, this.models.get(id)!, this.options.frameCorrelation));
    const best = distances.indexOf(Math.min(...distances));
    const judgeable = open.end - open.start >= this.options.minTurnS;
    return judgeable && distances[best]! >= this.options.threshold && this.models.size < this.options.maxSpeakers
      ? this.nextSpeaker
      : ids[best]!;
  }

  /** A segment long enough to judge on its own whose voice is not the open turn's (two models beat one by BIC). */
  private differs(open: OpenTurn, stats: GaussianStats, seconds: number): boolean {
    return seconds >= this.options.minTurnS && open.end - open.start >= this.options.minTurnS && bicDistance(
      open.stats, stats, this.options.frameCorrelation,
    ) >= this.options.threshold;
  }

  /**
   * A spectral change between the open turn and a segment [start, end]: a change point in the stretch from the
   * turn's start to the segment's end. One found inside the turn (only now with enough audio after it) splits it:
   * its segments that end by the change stay, the rest move to the next turn.
   */
  private changeBefore(open: OpenTurn, start: number, end: number): boolean {
    const a = Math.max(this.firstFrame, Math.round(open.start / FRAME_S));
    const b = Math.min(this.frames, Math.round(end / FRAME_S));
    if (b - a < 2) return false;
    const sums = new PrefixSums(this.ceps.subarray((a - this.firstFrame) * N_CEPS), b - a, N_CEPS);
    const cuts = changePoints(sums, 0, b - a, DEFAULT_DIARIZE_OPTIONS).map((cut) => (a + cut) * FRAME_S);
    // A change within the first segment of the turn is noise at its start, not a new voice.
    const cut = cuts.find((t) => t > open.segments[0]!.end - CHANGE_SLACK_S);
    if (cut === undefined) return false;
    const staying = open.segments.filter((segment) => segment.end <= cut + CHANGE_SLACK_S);
    if (staying.length === open.segments.length) return true;
    if (staying.length === 0) return false;
    // Split: the segments after the change go back in as the start of the next turn.
    const moving = open.segments.slice(staying.length);
    open.segments = staying;
    open.end = staying[staying.length - 1]!.end;
    open.stats = staying.map((s) => s.stats).reduce(mergeStats);
    for (const member of staying) member.speaker = this.speakerOfOpenTurn(open);
    this.closeOpenTurn();
    const next: OpenTurn = {
      start: Math.max(cut, moving[0]!.start), end: moving[moving.length - 1]!.end, stats: moving.map((s) => s.stats).reduce(mergeStats),
      segments: moving,
    };
    this.open = next;
    for (const member of moving) member.speaker = this.speakerOfOpenTurn(next);
    return false;
  }

  /** The open turn is over: its statistics join its speaker's model (a new speaker's number is taken now). */
  private closeOpenTurn(): void {
    const open = this.open;
    this.open = null;
    if (!open) return;
    const speaker = this.speakerOfOpenTurn(open);
    if (speaker === this.nextSpeaker) this.nextSpeaker++;
    for (const member of open.segments) member.speaker = speaker;
    this.closed.push({ start: open.start, end: open.end, stats: open.stats, segments: open.segments });
    this.recluster();
  }

  /**
   * The closed turns clustered again, as a file's are (diarize.ts: BIC agglomerative over the turns long enough to
   * judge, the rest to the nearest cluster), each time a turn closes: an early greedy choice (a second voice's first
   * turn taken for the first voice) no longer decides the rest. Clusters keep the numbers of the speakers whose turns
   * they hold most of; the models are the clusters'.
   */
  private recluster(): void {
    // Turns past the window keep their labels; their statistics stay in their speaker's model, so a voice heard long
    // ago is still known when it comes back.
    for (const turn of this.closed.splice(0, Math.max(0, this.closed.length - MAX_CLUSTERED))) {
      const speaker = turn.segments[0]!.speaker;
      const retired = this.retired.get(speaker);
      this.retired.set(speaker, retired ? mergeStats(retired, turn.stats) : turn.stats);
    }
    const closed = this.closed;
    const long = closed.filter((turn) => turn.end - turn.start >= this.options.minTurnS);
    const judged = long.length ? long : [closed.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a))];
    const labels = agglomerate(judged.map((turn) => turn.stats), {
      threshold: this.options.threshold, frameCorrelation: this.options.frameCorrelation, maxSpeakers: this.options.maxSpeakers,
    }, (i, j) => this.turnDistance(judged[i]!.stats, judged[j]!.stats));
    // Each cluster takes the number of the speaker whose seconds it holds most of, largest shares first.
    const shares: Array<{ cluster: number; speaker: number; seconds: number }> = [];
    judged.forEach((turn, i) => {
      const share = shares.find((s) => s.cluster === labels[i] && s.speaker === turn.segments[0]!.speaker);
      if (share) share.seconds += turn.end - turn.start;
      else shares.push({ cluster: labels[i]!, speaker: turn.segments[0]!.speaker, seconds: turn.end - turn.start });
    });
    const numberOf = new Map<number, number>();
    const taken = new Set<number>();
    for (const share of shares.sort((a, b) => b.seconds - a.seconds)) {
      if (numberOf.has(share.cluster) || taken.has(share.speaker)) continue;
      numberOf.set(share.cluster, share.speaker);
      taken.add(share.speaker);
    }
    // A cluster none of whose turns' speakers is free: a voice heard before the window if its model takes it, else new.
    for (const cluster of new Set(labels)) {
      if (numberOf.has(cluster)) continue;
      const pooled = judged.filter((_, i) => labels[i] === cluster).map((turn) => turn.stats).reduce(mergeStats);
      const known = [...this.retired].filter(([speaker]) => !taken.has(speaker))
        .map(([speaker, stats]) => ({ speaker, distance: bicDistance(pooled, stats, this.options.frameCorrelation) }))
        .filter((candidate) => candidate.distance < this.options.threshold)
        .sort((a, b) => a.distance - b.distance)[0];
      const speaker = known?.speaker ?? this.nextSpeaker++;
      numberOf.set(cluster, speaker);
      taken.add(speaker);
    }
    this.models.clear();
    for (const [speaker, stats] of this.retired) this.models.set(speaker, stats);
    judged.forEach((turn, i) => {
      const speaker = numberOf.get(labels[i]!)!;
      this.models.set(speaker, this.models.has(speaker) ? mergeStats(this.models.get(speaker)!, turn.stats) : turn.stats);
      for (const member of turn.segments) member.speaker = speaker;
    });
    const ids = [...this.models.keys()];
    for (const turn of closed) {
      if (judged.includes(turn)) continue;
      const speaker = ids[nearestModel(turn.stats, ids.map((id) => this.models.get(id)!))]!;
      for (const member of turn.segments) member.speaker = speaker;
    }
  }

  /** The speaker [start, end] would most likely get, changing nothing (the draft's); -1 before any speaker. */
  guess(start: number, end: number): number {
    const ids = [...this.models.keys()];
    const models = ids.map((id) => this.models.get(id)!);
    // The open turn counts as its speaker's model until it closes (a new voice has none yet).
    const openSpeaker = this.open ? this.speakerOfOpenTurn(this.open) : null;
    if (this.open && openSpeaker !== null && !this.models.has(openSpeaker)) {
      ids.push(openSpeaker);
      models.push(this.open.stats);
    }
    return ids.length ? ids[nearestModel(this.statsOf(start, end), models)]! : -1;
  }

  /**
   * Labels to report: turns ending `settleAfterS` before `labelledUntilS` (the end of the last labelled turn) not
   * reported yet, and reported turns a merge has moved since. `all` settles every turn (the end of the session).
   */
  settle(all = false): SpeakerSettlement[] {
    if (all) this.closeOpenTurn();
    const until = (this.turns[this.turns.length - 1]?.end ?? 0) - (all ? -Infinity : this.options.settleAfterS);
    const open = new Set(this.open?.segments ?? []);
    const out: SpeakerSettlement[] = [];
    for (const turn of this.turns) {
      // The open turn's label may still change as it grows: it settles once closed.
      if (turn.id === PIECE_ONLY || open.has(turn) || (turn.settled === null && turn.end > until)) continue;
      if (turn.settled !== null && turn.settled.speaker === turn.speaker) continue;
      const label = { speaker: turn.speaker, confidence: this.confidenceOf(turn.stats, turn.speaker) };
      turn.settled = label;
      out.push({ turn: turn.id, ...label });
    }
    return out;
  }

  /** The posterior of `speaker` for `stats` among the models (a speaker without a model yet counts with `fresh`). */
  private confidenceOf(stats: GaussianStats, speaker: number, fresh?: GaussianStats): number {
    const ids = [...this.models.keys()];
    const models = ids.map((id) => this.models.get(id)!);
    if (!this.models.has(speaker)) {
      if (!fresh) return 1;
      ids.push(speaker);
      models.push(fresh);
    }
    return speakerPosterior(stats, models, ids.indexOf(speaker));
  }

  /** ΔBIC of two closed turns, kept: a turn's statistics never change once closed, and each close clusters them again. */
  private turnDistance(a: GaussianStats, b: GaussianStats): number {
    let row = this.distances.get(a);
    if (!row) this.distances.set(a, (row = new WeakMap()));
    let distance = row.get(b);
    if (distance === undefined) row.set(b, (distance = bicDistance(a, b, this.options.frameCorrelation)));
    return distance;
  }

  /** The statistics of frames [start, end] (seconds), computing features of audio still pending as needed. */
  private statsOf(start: number, end: number): GaussianStats {
    if (Math.round(end / FRAME_S) > this.frames) this.computePending();
    const a = Math.max(this.firstFrame, Math.round(start / FRAME_S));
    const b = Math.max(a, Math.min(this.frames, Math.round(end / FRAME_S)));
    return turnStats(this.ceps.subarray((a - this.firstFrame) * N_CEPS), this.energy.subarray(a - this.firstFrame), 0, b - a);
  }

  /** Features of the pending audio in whole hops (a remainder under 10 ms waits for more). */
  private computePending(): void {
    const joined = concatSamples(this.pending);
    const take = joined.length - (joined.length % HOP_LENGTH);
    if (take === 0) return;
    const piece = speakerFrames(joined.subarray(0, take));
    const rest = joined.slice(take);
    this.pending = rest.length ? [rest] : [];
    this.pendingLength = rest.length;
    const kept = this.frames - this.firstFrame;
    const ceps = new Float32Array((kept + piece.frames) * N_CEPS);
    ceps.set(this.ceps.subarray(0, kept * N_CEPS));
    ceps.set(piece.ceps, kept * N_CEPS);
    const energy = new Float32Array(kept + piece.frames);
    energy.set(this.energy.subarray(0, kept));
    energy.set(piece.energy, kept);
    this.ceps = ceps;
    this.energy = energy;
    this.frames += piece.frames;
    // No segment spans more than the model's window: frames older than this are never labelled (a long silence).
    this.dropFramesBefore((this.frames - KEEP_FRAMES_S / FRAME_S) * FRAME_S);
  }

  private dropFramesBefore(seconds: number): void {
    const drop = Math.min(this.frames, Math.round(seconds / FRAME_S)) - this.firstFrame;
    if (drop <= 0) return;
    this.ceps = this.ceps.slice(drop * N_CEPS);
    this.energy = this.energy.slice(drop);
    this.firstFrame += drop;
  }
}

/**
 * Speaker diarization, the classical way (no speaker-embedding network): who spoke when, as speech turns with a
 * speaker index numbered from 0 in order of first appearance.
 *
 * 1. Features: 19 MFCCs (c1–c19, the DCT of the raw log-mel energies of mel.ts; c0, the loudness, is left out)
 *    every 10 ms.
 * 2. Turns: the voice-activity regions, split further where the spectrum changes: ΔBIC of one diagonal
 *    Gaussian against two over a sliding pair of windows (1.5 s each side), peaks above zero, ≥ 1 s apart.
 * 3. Statistics per turn: a diagonal Gaussian (mean and variance per coefficient) of its loud frames (within
 *    25 dB of the turn's loudest: pauses and breath left out).
 * 4. Clustering: agglomerative on ΔBIC (Chen & Gopalakrishnan 1998): the pair whose merge improves BIC most
 *    merges, until no merge improves it; that is the stopping threshold, with no tuned distance. Frames 10 ms
 *    apart are not independent: counts are divided by 10 (one observation per 100 ms). Turns under 1 s do not
 *    take part; they join the most likely cluster afterwards.
 * 5. Confidence per turn: the posterior of its speaker among the clusters' Gaussians, its frames counted as one
 *    observation per second (0.5 = a toss-up between two, 1 = certain).
 *
 * Pure and synchronous apart from the audio it is given; index.ts runs it on a file.
 */
import { HOP_LENGTH, N_FRAMES, N_MELS, N_SAMPLES, rawLogMel, SAMPLE_RATE } from '../whisper/mel.js';
import { textOfWords, type Segment, type Word } from '../pipeline.js';

/** Cepstral coefficients kept per frame (c1…c19). */
export const N_CEPS = 19;
/** Seconds per feature frame. */
export const FRAME_S = HOP_LENGTH / SAMPLE_RATE;

export interface SpeakerTurn {
  start: number;
  end: number;
  /** Numbered from 0 in order of first appearance. */
  speaker: number;
  /** 0..1: 1 when the turn is far nearer its own speaker than any other. */
  confidence: number;
}

export interface DiarizeOptions {
  /** Clusters merge while the best merge's ΔBIC is below this (default 0: while a merge makes the model better). */
  threshold: number;
  /** Consecutive 10 ms frames that count as one independent observation in BIC (default 10). */
  frameCorrelation: number;
  /** Multiplies the BIC model-size penalty of change detection: higher finds fewer changes (default 1.3). */
  changePenalty: number;
  /** Seconds each side of a candidate change point (default 1.5). */
  changeWindowS: number;
  /** Shortest turn that is clustered; shorter ones join the nearest cluster (default 1 s). */
  minTurnS: number;
  /** Most speakers reported; clustering goes on past the threshold until there are this many (default 20). */
  maxSpeakers: number;
}

export const DEFAULT_DIARIZE_OPTIONS: DiarizeOptions = {
  threshold: 0, frameCorrelation: 10, changePenalty: 1.3, changeWindowS: 1.5, minTurnS: 1, maxSpeakers: 20,
};

/** A stretch of speech in seconds on the audio's timeline. */
export interface TimeRegion {
  start: number;
  end: number;
}

/** The DCT-II rows for c1…c19 over the 80 mel bands. */
const dctRows: Float64Array[] = Array.from({ length: N_CEPS }, (_, i) => {
  const k = i + 1;
  return Float64Array.from({ length: N_MELS }, (_, m) => Math.cos((Math.PI * k * (m + 0.5)) / N_MELS));
});

/** Speaker features of audio: `ceps` [frames × 19] and `energy` (mean log10 mel energy) per 10 ms frame. */
export interface SpeakerFrames {
  ceps: Float32Array;
  energy: Float32Array;
  frames: number;
}

/** MFCCs and loudness of 16 kHz audio of any length, frame t at t·10 ms (computed 30 s at a time). */
export function speakerFrames(audio: Float32Array): SpeakerFrames {
  const frames = Math.floor(audio.length / HOP_LENGTH);
  const ceps = new Float32Array(frames * N_CEPS);
  const energy = new Float32Array(frames);
  for (let offset = 0; offset < audio.length; offset += N_SAMPLES) {
    const { data, frames: count } = rawLogMel(audio.subarray(offset, Math.min(audio.length, offset + N_SAMPLES)));
    const first = offset / HOP_LENGTH;
    for (let t = 0; t < count && first + t < frames; t++) {
      let sum = 0;
      for (let m = 0; m < N_MELS; m++) sum += data[m * N_FRAMES + t];
      energy[first + t] = sum / N_MELS;
      for (let c = 0; c < N_CEPS; c++) {
        const row = dctRows[c];
        let value = 0;
        for (let m = 0; m < N_MELS; m++) value += row[m] * data[m * N_FRAMES + t];
        ceps[(first + t) * N_CEPS + c] = value;
      }
    }
  }
  return { ceps, energy, frames };
}

/** Speaker features of a stream, pushed in pieces of any size: only the features are kept, not the audio. */
export class SpeakerFeatureStream {
  private pending: Float32Array[] = [];
  private pendingLength = 0;
  private readonly parts: SpeakerFrames[] = [];

  push(samples: Float32Array): void {
    this.pending.push(samples.slice());
    this.pendingLength += samples.length;
    if (this.pendingLength >= N_SAMPLES) this.flush(false);
  }

  /** Every frame so far (the end of the audio: a last partial frame is dropped). */
  finish(): SpeakerFrames {
    this.flush(true);
    const frames = this.parts.reduce((n, p) => n + p.frames, 0);
    const ceps = new Float32Array(frames * N_CEPS);
    const energy = new Float32Array(frames);
    let at = 0;
    for (const part of this.parts) {
      ceps.set(part.ceps, at * N_CEPS);
      energy.set(part.energy, at);
      at += part.frames;
    }
    return { ceps, energy, frames };
  }

  private flush(all: boolean): void {
    const joined = new Float32Array(this.pendingLength);
    let at = 0;
    for (const piece of this.pending) {
      joined.set(piece, at);
      at += piece.length;
    }
    // Whole 30 s pieces (a multiple of the hop), so frames stay on the 10 ms grid across pieces.
    const take = all ? joined.length - (joined.length % HOP_LENGTH) : joined.length - (joined.length % N_SAMPLES);
    if (take > 0) this.parts.push(speakerFrames(joined.subarray(0, take)));
    const rest = all ? new Float32Array(0) : joined.slice(take);
    this.pending = [rest];
    this.pendingLength = rest.length;
  }
}

/** Running sums of a frame range: [n, Σx, Σx²] per dimension, for O(1) Gaussians of any [a, b). */
export class PrefixSums {
  private readonly sum: Float64Array;
  private readonly sq: Float64Array;
  constructor(private readonly x: Float32Array, private readonly frames: number, private readonly d: number) {
    this.sum = new Float64Array((frames + 1) * d);
    this.sq = new Float64Array((frames + 1) * d);
    for (let t = 0; t < frames; t++) {
      for (let k = 0; k < d; k++) {
        const v = x[t * d + k];
        this.sum[(t + 1) * d + k] = this.sum[t * d + k] + v;
        this.sq[(t + 1) * d + k] = this.sq[t * d + k] + v * v;
      }
    }
  }

  /** Σ log variance (the log-determinant of a diagonal Gaussian) of frames [a, b). */
  logDet(a: number, b: number): number {
    const n = b - a;
    let total = 0;
    for (let k = 0; k < this.d; k++) {
      const mean = (this.sum[b * this.d + k] - this.sum[a * this.d + k]) / n;
      const variance = (this.sq[b * this.d + k] - this.sq[a * this.d + k]) / n - mean * mean;
      total += Math.log(Math.max(variance, 1e-6));
    }
    return total;
  }
}

/** Frames where a region's spectrum changes (ΔBIC peaks above zero, at least a window apart), ascending. */
export function changePoints(
  sums: PrefixSumsLike, from: number, to: number, options: Pick<DiarizeOptions, 'changePenalty' | 'changeWindowS'>,
): number[] {
  const w = Math.round(options.changeWindowS / FRAME_S);
  const step = 10;
  const d = N_CEPS;
  const n = 2 * w;
  const penalty = options.changePenalty * 0.5 * (2 * d) * Math.log(n);
  const candidates: Array<{ t: number; score: number }> = [];
  for (let t = from + w; t + w <= to; t += step) {
    const score = 0.5 * (n * sums.logDet(t - w, t + w) - w * sums.logDet(t - w, t) - w * sums.logDet(t, t + w)) - penalty;
    if (score > 0) candidates.push({ t, score });
  }
  // Strongest first; keep those not within a window of one already kept.
  candidates.sort((a, b) => b.score - a.score);
  const kept: number[] = [];
  for (const c of candidates) if (kept.every((k) => Math.abs(k - c.t) >= w)) kept.push(c.t);
  return kept.sort((a, b) => a - b);
}

type PrefixSumsLike = Pick<PrefixSums, 'logDet'>;

/** A diagonal Gaussian's sufficient statistics: frame count, Σx and Σx² per coefficient. */
export interface GaussianStats {
  n: number;
  sum: Float64Array;
  sq: Float64Array;
}

export function mergeStats(a: GaussianStats, b: GaussianStats): GaussianStats {
  const sum = new Float64Array(a.sum.length);
  const sq = new Float64Array(a.sum.length);
  for (let k = 0; k < sum.length; k++) {
    sum[k] = a.sum[k] + b.sum[k];
    sq[k] = a.sq[k] + b.sq[k];
  }
  return { n: a.n + b.n, sum, sq };
}

function logDetOf(s: GaussianStats): number {
  let total = 0;
  for (let k = 0; k < s.sum.length; k++) {
    const mean = s.sum[k] / s.n;
    total += Math.log(Math.max(s.sq[k] / s.n - mean * mean, 1e-6));
  }
  return total;
}

/**
 * ΔBIC of modelling a and b apart rather than as one speaker: > 0 says two speakers. Frames 10 ms apart are far
 * from independent, so counts are divided by `frameCorrelation` (a frame's worth of evidence per 100 ms at 10).
 */
export function bicDistance(
  a: GaussianStats, b: GaussianStats, frameCorrelation = DEFAULT_DIARIZE_OPTIONS.frameCorrelation, penalty = 1,
): number {
  const na = a.n / frameCorrelation;
  const nb = b.n / frameCorrelation;
  const n = na + nb;
  const d = a.sum.length;
  return 0.5 * (n * logDetOf(mergeStats(a, b)) - na * logDetOf(a) - nb * logDetOf(b)) - penalty * 0.5 * (2 * d) * Math.log(n);
}

/**
 * Agglomerative clustering of turns, each a diagonal Gaussian: the pair whose merge lowers BIC most merges, while
 * some merge lowers it (ΔBIC < `threshold`), and while there are more than `maxClusters`. Returns a cluster id
 * per turn (0…k−1, in order of first appearance).
 */
export function agglomerate(
  turns: GaussianStats[], options: Partial<Pick<DiarizeOptions, 'threshold' | 'frameCorrelation' | 'maxSpeakers'>> = {},
  /** ΔBIC of two of `turns` (by index), where the caller keeps them from an earlier clustering. */
  turnDistance?: (i: number, j: number) => number,
): number[] {
  const { threshold, frameCorrelation, maxSpeakers } = { ...DEFAULT_DIARIZE_OPTIONS, ...options };
  const n = turns.length;
  const stats = [...turns];
  const alive = new Array<boolean>(n).fill(true);
  const members: number[][] = turns.map((_, i) => [i]);
  const dist: Float64Array[] = turns.map(() => new Float64Array(n).fill(Infinity));
  const update = (i: number) => {
    for (let j = 0; j < n; j++) {
      if (j === i || !alive[j]) continue;
      const value = bicDistance(stats[i], stats[j], frameCorrelation);
      dist[i][j] = value;
      dist[j][i] = value;
    }
  };
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      dist[i][j] = dist[j][i] = turnDistance ? turnDistance(i, j) : bicDistance(stats[i], stats[j], frameCorrelation);
    }
  }
  // Each row's nearest later cluster (the first of equals), so a merge rescans only the rows it touched: the pair
  // merged is the first nearest in row-major order, as a scan of every pair would pick, in O(n²) instead of O(n³).
  const rowBest = new Float64Array(n).fill(Infinity);
  const rowArg = new Int32Array(n).fill(-1);
  const rescan = (i: number) => {
    rowBest[i] = Infinity;
    rowArg[i] = -1;
    for (let j = i + 1; j < n; j++) {
      if (alive[j] && dist[i][j] < rowBest[i]) [rowBest[i], rowArg[i]] = [dist[i][j], j];
    }
  };
  for (let i = 0; i < n; i++) rescan(i);
  let clusters = n;
  while (clusters > 1) {
    let bi = -1;
    for (let i = 0; i < n; i++) if (alive[i] && rowArg[i] >= 0 && (bi < 0 || rowBest[i] < rowBest[bi])) bi = i;
    const bj = rowArg[bi];
    if (rowBest[bi] >= threshold && clusters <= maxSpeakers) break;
    stats[bi] = mergeStats(stats[bi], stats[bj]);
    members[bi].push(...members[bj]);
    alive[bj] = false;
    clusters--;
    update(bi);
    rescan(bi);
    for (let k = 0; k < n; k++) {
      if (!alive[k] || k === bi) continue;
      if (rowArg[k] === bi || rowArg[k] === bj) rescan(k);
      else if (k < bi && (dist[k][bi] < rowBest[k] || (dist[k][bi] === rowBest[k] && bi < rowArg[k]))) {
        [rowBest[k], rowArg[k]] = [dist[k][bi], bi];
      }
    }
  }
  const label = new Array<number>(n).fill(-1);
  members.forEach((m, i) => {
    if (alive[i]) for (const v of m) label[v] = i;
  });
  return firstAppearanceOrder(label);
}

/** Renumbers labels 0, 1, … in order of first appearance. */
export function firstAppearanceOrder(labels: number[]): number[] {
  const renumber = new Map<number, number>();
  return labels.map((l) => {
    if (!renumber.has(l)) renumber.set(l, renumber.size);
    return renumber.get(l)!;
  });
}

/** Statistics of a turn's loud frames (within 25 dB of its loudest): quiet ones are pauses and breath. */
export function turnStats(ceps: Float32Array, energy: Float32Array, a: number, b: number): GaussianStats {
  let loudest = -Infinity;
  for (let t = a; t < b; t++) loudest = Math.max(loudest, energy[t]);
  const sum = new Float64Array(N_CEPS);
  const sq = new Float64Array(N_CEPS);
  let n = 0;
  for (let t = a; t < b; t++) {
    if (energy[t] < loudest - 2.5) continue;
    n++;
    for (let k = 0; k < N_CEPS; k++) {
      const v = ceps[t * N_CEPS + k];
      sum[k] += v;
      sq[k] += v * v;
    }
  }
  return { n: Math.max(n, 1), sum, sq };
}

/** The index of the model under which `turn` is most likely. */
export function nearestModel(turn: GaussianStats, models: GaussianStats[]): number {
  const ll = models.map((m) => meanLogLikelihood(turn, m));
  return ll.indexOf(Math.max(...ll));
}

/** Mean log-likelihood per frame of `turn`'s frames under the Gaussian `model` (from the sufficient statistics). */
function meanLogLikelihood(turn: GaussianStats, model: GaussianStats): number {
  let total = 0;
  for (let k = 0; k < turn.sum.length; k++) {
    const mean = model.sum[k] / model.n;
    const variance = Math.max(model.sq[k] / model.n - mean * mean, 1e-6);
    // E[(x − μ)²] over the turn's frames = Σx²/n − 2μ·Σx/n + μ².
    const spread = turn.sq[k] / turn.n - (2 * mean * turn.sum[k]) / turn.n + mean * mean;
    total += -0.5 * (Math.log(2 * Math.PI * variance) + spread / variance);
  }
  return total;
}

/**
 * How sure it is that `turn` is speaker `own` among `models`: the posterior, the turn's frames counted
 * conservatively as one observation per second (per 10 ms frame or per 100 ms it is 1.000 for nearly every turn,
 * which says nothing). 0.5 is a toss-up between two; 1 with a single model.
 */
export function speakerPosterior(turn: GaussianStats, models: GaussianStats[], own: number): number {
  if (models.length < 2) return 1;
  const ll = models.map((m) => meanLogLikelihood(turn, m) * turn.n * FRAME_S);
  const top = Math.max(...ll);
  const total = ll.reduce((s, v) => s + Math.exp(v - top), 0);
  return Math.round((Math.exp(ll[own]! - top) / total) * 1000) / 1000;
}

/**
 * Speech turns as frame ranges [a, b) in time order: the voice-activity `regions` (seconds) cut where the spectrum
 * changes (`changePoints`). The turns both diarizers label (this file's and diarize-embeddings.ts).
 */
export function speechTurns(
  features: SpeakerFrames, regions: TimeRegion[], options: Partial<Pick<DiarizeOptions, 'changePenalty' | 'changeWindowS'>> = {},
): Array<[number, number]> {
  const opts = { ...DEFAULT_DIARIZE_OPTIONS, ...options };
  const spans = regions
    .map((r): [number, number] => [Math.max(0, Math.round(r.start / FRAME_S)), Math.min(features.frames, Math.round(r.end / FRAME_S))])
    .filter(([a, b]) => b - a >= 2)
    .sort((x, y) => x[0] - y[0]);
  if (spans.length === 0) return [];
  const sums = new PrefixSums(features.ceps, features.frames, N_CEPS);
  const turns: Array<[number, number]> = [];
  for (const [a, b] of spans) {
    let from = a;
    for (const cut of changePoints(sums, a, b, opts)) {
      turns.push([from, cut]);
      from = cut;
    }
    turns.push([from, b]);
  }
  return turns;
}

/** Who spoke when in `regions` (seconds) of audio whose features are `features`. */
export function diarize(features: SpeakerFrames, regions: TimeRegion[], options: Partial<DiarizeOptions> = {}): SpeakerTurn[] {
  const opts = { ...DEFAULT_DIARIZE_OPTIONS, ...options };
  const turns = speechTurns(features, regions, opts);
  if (turns.length === 0) return [];
  const stats = turns.map(([a, b]) => turnStats(features.ceps, features.energy, a, b));
  const minFrames = opts.minTurnS / FRAME_S;
  const long = turns.map((_, i) => i).filter((i) => turns[i][1] - turns[i][0] >= minFrames);
  // With no turn long enough, the longest one alone decides.
  const clustered = long.length > 0 ? long : [turns.reduce((best, t, i) => (t[1] - t[0] > turns[best][1] - turns[best][0] ? i : best), 0)];
  const labels = agglomerate(clustered.map((i) => stats[i]), opts);
  const speakers = Math.max(...labels) + 1;
  const models: GaussianStats[] = [];
  clustered.forEach((turn, i) => (models[labels[i]] = models[labels[i]] ? mergeStats(models[labels[i]], stats[turn]) : stats[turn]));
  const assigned = new Map(clustered.map((turn, i) => [turn, labels[i]]));
  const raw = turns.map(([a, b], i) => {
    const own = assigned.get(i) ?? nearestModel(stats[i], models);
    return { start: a * FRAME_S, end: b * FRAME_S, speaker: own, confidence: speakers > 1 ? speakerPosterior(stats[i], models, own) : 1 };
  });
  const order = firstAppearanceOrder(raw.map((t) => t.speaker));
  return raw.map((t, i) => ({ ...t, speaker: order[i] }));
}

/** The turn that overlaps [start, end] most (else the nearest one): its speaker and confidence, or null with no turns. */
export function speakerOf(turns: SpeakerTurn[], start: number, end: number): { speaker: number; confidence: number } | null {
  // The speaker heard longest under the segment, summed over their turns: a segment that runs across a change of
  // speaker belongs to whoever says most of it, not to the one longest single turn it touches.
  const heard = new Map<number, number>();
  for (const turn of turns) {
    const overlap = Math.min(end, turn.end) - Math.max(start, turn.start);
    if (overlap > 0) heard.set(turn.speaker, (heard.get(turn.speaker) ?? 0) + overlap);
  }
  let best: SpeakerTurn | null = null;
  let bestScore = -Infinity;
  const mostHeard = [...heard.entries()].reduce<[number, number] | null>((a, b) => (!a || b[1] > a[1] ? b : a), null);
  for (const turn of turns) {
    if (mostHeard && turn.speaker !== mostHeard[0]) continue;
    const overlap = Math.min(end, turn.end) - Math.max(start, turn.start);
    // Overlap counts; with none, the gap (negative) ranks the nearest.
    if (overlap > bestScore) [best, bestScore] = [turn, overlap];
  }
  if (!best) return null;
  // Several speakers under one segment: the confidence shrinks by the share the chosen one covers.
  const length = Math.max(end - start, 1e-9);
  const share = mostHeard ? Math.min(1, mostHeard[1] / length) : 1;
  return { speaker: best.speaker, confidence: Math.round(best.confidence * Math.max(share, 0.5) * 1000) / 1000 };
}

/** Fewer words than this in a row from another speaker are alignment jitter at a turn's edge, not a turn of its own. */
const MIN_SPEAKER_RUN = 2;

/**
 * `segment` labelled with its speakers: split where the speaker changes between its words (the model may read
 * speech on both sides of a change of speaker as one segment), each part with the speaker of its words' turns.
 */
export function splitBySpeaker(turns: SpeakerTurn[], segment: Segment): Segment[] {
  const runs: { speaker: number; words: Word[] }[] = [];
  for (const word of segment.words) {
    const speaker = speakerOf(turns, word.start, word.end)?.speaker ?? -1;
    const last = runs[runs.length - 1];
    if (last && last.speaker === speaker) last.words.push(word);
    else runs.push({ speaker, words: [word] });
  }
  // A short run joins the run before it (the first one, the run after it).
  for (let i = 0; i < runs.length && runs.length > 1; ) {
    if (runs[i]!.words.length >= MIN_SPEAKER_RUN) i++;
    else if (i > 0) (runs[i - 1]!.words.push(...runs[i]!.words), runs.splice(i, 1));
    else (runs[1]!.words.unshift(...runs[0]!.words), runs.splice(0, 1));
  }
  for (let i = runs.length - 1; i > 0; i--)
    if (runs[i]!.speaker === runs[i - 1]!.speaker) (runs[i - 1]!.words.push(...runs[i]!.words), runs.splice(i, 1));
  // Labelled by where its words are (a segment's own times may run into the silence around them).
  const labelled = (part: Segment): Segment => {
    const found = part.words.length ? speakerOf(turns, part.words[0]!.start, part.words[part.words.length - 1]!.end) : speakerOf(
      turns, part.start, part.end,
    );
    return found ? { ...part, speaker: found.speaker, speakerConfidence: found.confidence } : part;
  };
  if (runs.length <= 1) return [labelled(segment)];
  return runs.map((run, i) => {
    const words = run.words;
    const start = i === 0 ? segment.start : words[0]!.start;
    const end = i === runs.length - 1 ? segment.end : words[words.length - 1]!.end;
    const text = textOfWords(words, segment.language);
    return labelled({ ...segment, start, end, text, words, confidence: words.reduce((sum, w) => sum + w.prob, 0) / words.length });
  });
}

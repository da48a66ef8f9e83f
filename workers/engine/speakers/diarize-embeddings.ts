/**
 * Speaker diarization with a speaker-embedding network (speaker-embedding.ts loads the operator's ONNX model):
 *
 * 1. Turns: the classical path's (diarize.ts `speechTurns`: voice-activity regions cut at ΔBIC change points).
 * 2. One embedding per turn: the Kaldi filterbank (fbank.ts) of the turn, mean-normalised over the turn, through the
 *    network; a turn longer than `windowS` is embedded in `windowS` windows every `stepS` (the last one flush with
 *    the turn's end), their unit-length embeddings averaged. A turn shorter than 0.5 s is embedded with the audio
 *    around it (0.5 s centred on it): the networks need some context.
 * 3. Clustering: agglomerative, average linkage on cosine distance, merging while the closest pair of clusters is
 *    nearer than `distanceThreshold` (and while there are more than `maxSpeakers`). Turns under `minTurnS` do not
 *    take part; they join the cluster whose centroid (mean unit embedding) is nearest.
 * 4. Confidence per turn, from the cosine margin: a softmax of its similarities to the centroids at temperature
 *    `marginScale` (two speakers: 1 / (1 + e^(−margin / 0.1)); a margin of 0.1 gives 0.73, 0.3 gives 0.95).
 *
 * Speakers are numbered from 0 in order of first appearance, as the classical path numbers them.
 */
import {
  DEFAULT_DIARIZE_OPTIONS,
  FRAME_S,
  firstAppearanceOrder,
  speechTurns,
  type DiarizeOptions,
  type SpeakerFrames,
  type SpeakerTurn,
  type TimeRegion,
} from './diarize.js';
import { cmn, type Fbank, type FbankOptions } from './fbank.js';

export interface EmbeddingDiarizeOptions extends Pick<DiarizeOptions, 'changePenalty' | 'changeWindowS' | 'minTurnS' | 'maxSpeakers'> {
  /** Clusters merge while their average cosine distance is below this (default 0.5). */
  distanceThreshold: number;
  /** Turns longer than this (seconds) are embedded in windows of this length (default 3). */
  windowS: number;
  /** Seconds between those windows (default 1.5). */
  stepS: number;
  /** Temperature of the confidence's softmax over cosine similarities (default 0.1). */
  marginScale: number;
}

export const DEFAULT_EMBEDDING_DIARIZE_OPTIONS: EmbeddingDiarizeOptions = {
  ...DEFAULT_DIARIZE_OPTIONS,
  distanceThreshold: 0.5,
  windowS: 3,
  stepS: 1.5,
  marginScale: 0.1,
};

/** The shortest stretch of filterbank frames a turn is embedded with (0.5 s). */
const MIN_EMBED_FRAMES = 50;

/** A speaker-embedding network as the diarizer uses it (speaker-embedding.ts's `SpeakerEmbeddingModel`). */
export interface SpeakerEmbedder {
  /** The embedding of mean-normalised filterbank frames, [frames × 80] row-major. */
  embed(features: Float32Array, frames: number): Promise<Float32Array>;
  /** The filterbank the network was trained on, where it differs from Kaldi's defaults. */
  readonly fbank?: Partial<FbankOptions>;
  /** The network's own stopping threshold, where it has one (options given to the diarizer win). */
  readonly distanceThreshold?: number;
}

/** `v` scaled to unit length (a zero vector stays zero). */
export function unitLength(v: ArrayLike<number>): Float64Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float64Array.from(v, (x) => x * scale);
}

const dot = (a: Float64Array, b: Float64Array): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
};

/** The mean of unit vectors, itself scaled to unit length. */
function centroid(vectors: Float64Array[]): Float64Array {
  const sum = new Float64Array(vectors[0].length);
  for (const v of vectors) for (let i = 0; i < sum.length; i++) sum[i] += v[i];
  return unitLength(sum);
}

/**
 * Agglomerative clustering of unit embeddings, average linkage on cosine distance (1 − cos): the closest pair of
 * clusters merges while nearer than `distanceThreshold`, and while there are more than `maxSpeakers`. Returns a
 * cluster id per embedding (0…k−1, in order of first appearance).
 */
export function clusterEmbeddings(
  embeddings: Float64Array[], options: Partial<Pick<EmbeddingDiarizeOptions, 'distanceThreshold' | 'maxSpeakers'>> = {},
): number[] {
  const { distanceThreshold, maxSpeakers } = { ...DEFAULT_EMBEDDING_DIARIZE_OPTIONS, ...options };
  const dist = embeddings.map((a) => Float64Array.from(embeddings, (b) => 1 - dot(a, b)));
  // Live clusters, each known by its first member's index: `dist` rows and `members` are kept under that index.
  const live = embeddings.map((_, i) => i);
  const members = embeddings.map((_, i) => [i]);
  while (live.length > 1) {
    let closest = { d: Infinity, x: 0, y: 0 };
    live.forEach((i, x) => {
      for (let y = x + 1; y < live.length; y++) if (dist[i][live[y]] < closest.d) closest = { d: dist[i][live[y]], x, y };
    });
    if (closest.d >= distanceThreshold && live.length <= maxSpeakers) break;
    const [i, j] = [live[closest.x], live[closest.y]];
    const [ni, nj] = [members[i].length, members[j].length];
    // Lance–Williams for average linkage: the merged cluster's distance is the size-weighted mean of its parts'.
    for (const k of live) if (k !== i && k !== j) dist[i][k] = dist[k][i] = (ni * dist[i][k] + nj * dist[j][k]) / (ni + nj);
    members[i].push(...members[j]);
    live.splice(closest.y, 1);
  }
  const labels = new Array<number>(embeddings.length);
  live.forEach((i, cluster) => members[i].forEach((m) => (labels[m] = cluster)));
  return firstAppearanceOrder(labels);
}

/** The unit embedding of filterbank frames [a, b): one window, or the mean of `windowS` windows every `stepS`. */
async function embedTurn(
  embedder: SpeakerEmbedder, fbank: Fbank, a: number, b: number, options: EmbeddingDiarizeOptions,
): Promise<Float64Array> {
  if (b - a < MIN_EMBED_FRAMES) {
    const centre = Math.round((a + b) / 2);
    a = Math.max(0, Math.min(centre - MIN_EMBED_FRAMES / 2, fbank.frames - MIN_EMBED_FRAMES));
    b = Math.min(fbank.frames, a + MIN_EMBED_FRAMES);
  }
  const window = Math.round(options.windowS / FRAME_S);
  const step = Math.max(1, Math.round(options.stepS / FRAME_S));
  const starts: number[] = [];
  if (b - a <= window) starts.push(a);
  else {
    for (let s = a; s + window < b; s += step) starts.push(s);
    starts.push(b - window);
  }
  const parts: Float64Array[] = [];
  for (const s of starts) {
    const e = Math.min(b, s + window);
    parts.push(unitLength(await embedder.embed(cmn(fbank, s, e), e - s)));
  }
  return centroid(parts);
}

/**
 * Who spoke when in `regions` (seconds): turns from the speaker features (`features`, as the classical path), each
 * labelled by the embedding `embedder` gives its filterbank frames (`fbank`, on the same 10 ms grid).
 */
export async function diarizeWithEmbeddings(
  features: SpeakerFrames,
  fbank: Fbank,
  regions: TimeRegion[],
  embedder: SpeakerEmbedder,
  options: Partial<EmbeddingDiarizeOptions> & { signal?: AbortSignal } = {},
): Promise<SpeakerTurn[]> {
  const opts: EmbeddingDiarizeOptions = {
    ...DEFAULT_EMBEDDING_DIARIZE_OPTIONS,
    ...options,
    distanceThreshold: options.distanceThreshold ?? embedder.distanceThreshold ?? DEFAULT_EMBEDDING_DIARIZE_OPTIONS.distanceThreshold,
  };
  // Filterbank frame t covers samples 160·t … 160·t + 399: the turn's frames end 2 before the turn's own end.
  const turns = speechTurns(features, regions, opts).filter(([a]) => a < fbank.frames);
  if (turns.length === 0) return [];
  const embeddings: Float64Array[] = [];
  for (const [a, b] of turns) {
    options.signal?.throwIfAborted();
    embeddings.push(await embedTurn(embedder, fbank, a, Math.max(a + 1, Math.min(fbank.frames, b - 2)), opts));
  }
  const minFrames = opts.minTurnS / FRAME_S;
  const long = turns.map((_, i) => i).filter((i) => turns[i][1] - turns[i][0] >= minFrames);
  // With no turn long enough, the longest one alone decides.
  const clustered = long.length > 0 ? long : [turns.reduce((best, t, i) => (t[1] - t[0] > turns[best][1] - turns[best][0] ? i : best), 0)];
  const labels = clusterEmbeddings(clustered.map((i) => embeddings[i]), opts);
  const speakers = Math.max(...labels) + 1;
  const centroids = Array.from(
    { length: speakers }, (_, s) => centroid(clustered.filter((_, i) => labels[i] === s).map((i) => embeddings[i])),
  );
  const assigned = new Map(clustered.map((turn, i) => [turn, labels[i]]));
  const raw = turns.map(([a, b], i) => {
    const similarity = centroids.map((c) => dot(c, embeddings[i]));
    const own = assigned.get(i) ?? similarity.indexOf(Math.max(...similarity));
    const top = Math.max(...similarity);
    const total = similarity.reduce((s, v) => s + Math.exp((v - top) / opts.marginScale), 0);
    const confidence = speakers > 1 ? Math.exp((similarity[own] - top) / opts.marginScale) / total : 1;
    return { start: a * FRAME_S, end: b * FRAME_S, speaker: own, confidence: Math.round(confidence * 1000) / 1000 };
  });
  const order = firstAppearanceOrder(raw.map((t) => t.speaker));
  return raw.map((t, i) => ({ ...t, speaker: order[i] }));
}

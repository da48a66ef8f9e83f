/**
 * The Whisper ONNX pair (transformers.js/optimum layout): `onnx/encoder_model*.onnx` and the merged
 * decoder `onnx/decoder_model_merged*.onnx`, which holds both the first-call graph and the key/value-cache
 * graph behind a `use_cache_branch` switch. This file only runs the graphs; search lives in decoding.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { DECODER_SESSION_CONFIG, hoistedDecoder, LOGITS_FROM } from '../graph/decoder-graph.js';
import { crossKeysPerStep } from '../graph/decoder-cross-kv.js';
import { CROSS_BIAS, POSITIONS, rowMasks, SELF_BIAS } from '../graph/decoder-masks.js';
import { newPositionsOnly } from '../graph/decoder-new-positions.js';
import { eightBitProjection } from '../graph/decoder-projection.js';
import { sharedCrossAttention } from '../graph/decoder-shared-cross.js';
import { dequantizedGraph } from '../graph/dequantize.js';
import { cachedGraph, graphCacheDir } from '../graph/graph-cache.js';
import { hasVnni, signedWeights } from '../graph/signed-weights.js';
import { blockedAttention } from '../graph/encoder-attention.js';
import { variableLengthEncoder } from '../graph/encoder-context.js';
import { releaseBuffers } from '../memory.js';
import { N_FRAMES, N_MELS } from './mel.js';
import { StepBatcher, type BatchedStep, type BatchedStepOutput } from './step-batcher.js';

export interface ModelConfig {
  dModel: number;
  decoderLayers: number;
  decoderHeads: number;
  headDim: number;
  maxTargetPositions: number;
  numMelBins: number;
}

export interface RuntimeOptions {
  /** 'cpu' (default), 'cuda', 'webgpu' …: both sessions run there, or both on the CPU when either cannot load. */
  provider?: string;
  /** Encoder threads inside one operator (0 = onnxruntime's default: one per core). */
  intraOpThreads?: number;
  /**
   * Decoder threads. Default 1: a decoder step is ~20 small operators on one token, where handing work to
   * other threads costs more than it saves (measured 14 ms/token on 1 thread, 22–44 ms on 2, 2 cores; with the
   * rewritten decoder, 1001 ms CPU on 1 thread against 1228 on 2 for a first call and 100 steps).
   */
  decoderThreads?: number;
  interOpThreads?: number;
  /** Let idle onnxruntime threads spin (default false: spinning steals the CPU from other work on small hosts). */
  spinning?: boolean;
  /**
   * Load the graphs a GPU runs (float products, whole-window attention) whatever the provider: the tests run
   * them on the CPU against the 8-bit graphs, since CI has no GPU.
   */
  gpuGraphs?: boolean;
  /** Which products of an 8-bit export run float on the CPU (FloatProducts); default `defaultFloatProducts`. */
  floatProducts?: FloatProducts;
  /**
   * The most decoder rows one batched step takes across the decodes of this model (step-batcher.ts: the steps of
   * every session and window ready at the same moment run as one call). Default DEFAULT_STEP_ROWS with the graphs a
   * GPU runs; 0 steps each decode alone. The CPU's graphs step each decode alone whatever this says: they take the
   * cross-attention keys and values from the host, which batching would copy together at every step.
   */
  stepRows?: number;
  /** Where rewritten graphs are kept between starts (graph-cache.ts; default `graphCacheDir()`); null keeps none. */
  graphCacheDir?: string | null;
}

export const DEFAULT_STEP_ROWS = 256;

/**
 * The products of an 8-bit export that run float on the CPU (dequantize.ts: the same 8-bit weights, the
 * activations no longer rounded to 8 bits at run time; a GPU runs them all float whatever this says):
 * - 'none': the export as shipped, every product 8-bit;
 * - 'gelu': the encoder's products that read a GELU (conv2, each layer's fc2), whose inputs 8-bit rounding crushes;
 * - 'encoder': every encoder product;
 * - 'all': every product of both graphs (the decoder's float products gain nothing measured, at 4× its weights).
 */
export type FloatProducts = 'none' | 'gelu' | 'encoder' | 'all';
export const FLOAT_PRODUCTS: readonly FloatProducts[] = ['none', 'gelu', 'encoder', 'all'];

/**
 * 'gelu' for whisper-tiny-sized models (d_model ≤ 384), 'none' for larger ones. On the read-speech clips
 * whisper-tiny greedy goes from 9.9 % WER to 2.2 % with its GELU readers float (every encoder product float:
 * the same), its encoder costing ~5 % more CPU; whisper-base stays where it was (7/91 words wrong either way) for
 * ~8 % more encoder CPU (workers/engine/README.md, "8-bit activations").
 */
export function defaultFloatProducts(config: Pick<ModelConfig, 'dModel'>): FloatProducts {
  return config.dModel <= 384 ? 'gelu' : 'none';
}

/** Per-layer decoder self-attention cache plus the encoder (cross-attention) keys/values. */
export interface KvCache {
  /**
   * present.{i}.decoder.key / .value, [batch, heads, pastLength, headDim]; a batched step's output holds other
   * decodes' rows too (`rows`, `offset`).
   */
  decoder: ort.Tensor[];
  /**
   * present.{i}.encoder.key / .value from the first call, [batch, heads, encoder frames (1500 for 30 s), headDim];
   * for a decoder that computes those at every step (GPU sessions, decoder-cross-kv.ts), the one tensor of
   * encoder states its rows decode, [batch, frames, dModel].
   */
  encoder: ort.Tensor[];
  /**
   * The decoder entries' newest positions, not yet in `decoder` (a decoder whose cached steps hand back only the
   * positions they add, decoder-new-positions.ts): the cache is `decoder` followed by these along the length axis,
   * [batch, heads, 1, headDim] each. `reorderCache` appends them as it picks the rows; `decode` first, when not.
   */
  appended?: ort.Tensor[];
  pastLength: number;
  /**
   * Whether the decoder lets rows share an encoder row (decoder-shared-cross.ts): a beam's hypotheses then keep the
   * one row of `encoder` their first call made instead of a copy each.
   */
  sharesEncoderRows?: boolean;
  /** Which rows of `decoder` are this cache's, when it is a view of a batched step (step-batcher.ts). */
  rows?: number[];
  /** Where this cache's entries start along `decoder`'s length axis, when it is a view padded in front. */
  offset?: number;
}

export interface DecoderOutput {
  /** Logits of the LAST position of each row, [batch][vocab] flattened. */
  lastLogits: Float32Array;
  /** Every position's logits when asked for (word alignment uses them), [batch, seq, vocab]. */
  allLogits?: Float32Array;
  cache: KvCache;
  /** cross_attentions.{layer} for the layers asked, [batch, heads, seq, encoder frames]. */
  crossAttentions?: Map<number, ort.Tensor>;
}

/**
 * The graph file of `stem`. On the CPU: the 8-bit export the npm packages ship, then whatever full-precision file
 * a download brought. On a GPU: a full-precision file first (a float graph runs every product on the GPU), else
 * the 8-bit one, which `load` makes float (dequantize.ts).
 */
/** The 8-bit exports' file name endings (the npm packages' `_quantized`, some downloads' `_int8`). */
const QUANTIZED_SUFFIXES = ['_quantized', '_int8'];

function pickOnnx(dir: string, stem: string, gpu: boolean): string {
  const quantized = QUANTIZED_SUFFIXES.map((suffix) => `${stem}${suffix}.onnx`);
  for (const name of gpu ? [`${stem}.onnx`, ...quantized] : [...quantized, `${stem}.onnx`, `${stem}_fp16.onnx`]) {
    const file = join(dir, 'onnx', name);
    if (existsSync(file)) return file;
  }
  throw new Error(`No ${stem}*.onnx in ${join(dir, 'onnx')}`);
}

/** What one session needs beyond the shared runtime settings. */
interface SessionSettings {
  threads: number;
  /** onnxruntime's CPU memory arena: freed buffers stay with the session for its next allocations. */
  arena: boolean;
  /** onnxruntime's memory pattern: one block per input shape, planned from the first run of that shape. */
  memPattern: boolean;
  /** Session config entries (`session.<key>`). */
  config?: Record<string, string>;
  /** The graph is onnxruntime's optimised form already (graph-cache.ts): load it as it is. */
  optimized?: boolean;
  /** Write onnxruntime's optimised form of the graph there (for the cache). */
  optimizeTo?: string;
}

/**
 * A session on `provider` (nodes it has no kernel for run on the CPU), or an error when the provider cannot load.
 * `graph`: the bytes, or a file onnxruntime reads itself (graph-cache.ts).
 */
function createSession(
  graph: Uint8Array | string, provider: string, runtime: RuntimeOptions, settings: SessionSettings,
): Promise<ort.InferenceSession> {
  const spin = runtime.spinning ? '1' : '0';
  // The overloads take a path or bytes, not their union.
  return ort.InferenceSession.create(graph as string, {
    graphOptimizationLevel: settings.optimized ? 'disabled' : 'all',
    ...(settings.optimizeTo ? { optimizedModelFilePath: settings.optimizeTo } : {}),
    intraOpNumThreads: settings.threads,
    interOpNumThreads: runtime.interOpThreads ?? 1,
    enableCpuMemArena: settings.arena,
    enableMemPattern: settings.memPattern,
    extra: { session: { intra_op: { allow_spinning: spin }, inter_op: { allow_spinning: spin }, ...settings.config } },
    executionProviders: provider === 'cpu' ? ['cpu'] : [provider, 'cpu'],
  });
}

/** `rewrite(graph)`, or `graph` as it was (with a warning saying what is lost) when the graph does not fit it. */
function tryRewrite(file: string, graph: Uint8Array, rewrite: (graph: Uint8Array) => Uint8Array, otherwise: string): {
  graph: Uint8Array; rewritten: boolean;
} {
  try {
    return { graph: rewrite(graph), rewritten: true };
  } catch (error) {
    console.warn(`[engine] ${file}: ${(error as Error).message}; ${otherwise}`);
    return { graph, rewritten: false };
  }
}

/** Which products of one graph are made float: all, those reading a GELU, or none. */
type GraphFloat = 'all' | 'gelu' | 'none';

/** An 8-bit export with the products `float` names made float (dequantize.ts); a GPU gets them all. */
function floatProducts(file: string, graph: Uint8Array, float: GraphFloat, gpu: boolean): Uint8Array {
  const only = gpu ? 'all' : float;
  if (only === 'none' || !QUANTIZED_SUFFIXES.some((suffix) => file.endsWith(`${suffix}.onnx`))) return graph;
  return tryRewrite(
    file, graph, (g) => dequantizedGraph(g, { only }), gpu ? 'its 8-bit products run on the CPU' : 'its products stay 8-bit',
  ).graph;
}

/**
 * The encoder graph, rewritten when possible to take fewer than 3000 frames (see encoder-context.ts) and, on the
 * CPU, to compute attention in blocks of query rows (encoder-attention.ts: a memory saving a GPU does not need,
 * paid for in more, smaller kernels) and, on a processor with VNNI, with signed 8-bit weights (signed-weights.ts);
 * at 3000 frames its output is the original's, bit for bit. `variableLength` false: only full windows work.
 */
function loadEncoderGraph(file: string, gpu: boolean, float: GraphFloat, vnni: boolean): { graph: Uint8Array; variableLength: boolean } {
  const context = tryRewrite(file, readFileSync(file), (graph) => variableLengthEncoder(graph), 'the encoder takes full 30 s windows only');
  const blocked = gpu ? context : tryRewrite(file, context.graph, (graph) => blockedAttention(graph), 'attention runs on whole windows '
    + '(more memory)');
  const graph = floatProducts(file, blocked.graph, float, gpu);
  return { graph: !gpu && vnni ? signedWeights(graph) : graph, variableLength: context.rewritten };
}

/**
 * The decoder graph with its output projection lifted out of the If (decoder-graph.ts), when it fits; on the CPU
 * also with an 8-bit projection (decoder-projection.ts; its table signed on a processor with VNNI), a beam's rows
 * reading one copy of the encoder keys and values (decoder-shared-cross.ts) and steps that hand back only their new
 * positions (decoder-new-positions.ts); on a GPU computing the cross-attention keys and values at every step
 * (decoder-cross-kv.ts) instead of taking them back from the host.
 */
function loadDecoderGraph(
  file: string,
  gpu: boolean,
  float: GraphFloat,
  batchSteps: boolean,
  vnni: boolean,
): {
  graph: Uint8Array; hoisted: boolean; crossKeysPerStep: boolean; rowMasks: boolean; sharesEncoderRows: boolean; newPositions: boolean;
} {
  const hoisted = tryRewrite(file, readFileSync(file), hoistedDecoder, 'each decoder step dequantises the output projection again '
    + '(slower)');
  const graph = floatProducts(file, hoisted.graph, float, gpu);
  if (!gpu) {
    const projected = hoisted.rewritten && float !== 'all'
      ? tryRewrite(file, graph, (g) => eightBitProjection(g, { signed: vnni }), 'the output projection stays float').graph : graph;
    const shared = tryRewrite(
      file, projected, sharedCrossAttention, 'each beam hypothesis reads its own copy of the encoder keys and values',
    );
    const positions = tryRewrite(file, shared.graph, newPositionsOnly, 'each step hands back the whole self-attention cache');
    return {
      graph: positions.graph, hoisted: hoisted.rewritten, crossKeysPerStep: false, rowMasks: false, sharesEncoderRows: shared.rewritten,
      newPositions: positions.rewritten,
    };
  }
  // Row masks first: the per-step rewrite then copies first-call nodes into the cached branch, which the masks
  // must not touch. Batched steps need both (each row brings its own encoder states).
  const masked = batchSteps ? tryRewrite(file, graph, rowMasks, 'each decode steps alone') : { graph, rewritten: false };
  const cross = tryRewrite(file, masked.graph, crossKeysPerStep, 'each step copies the cross-attention keys and values in from the host');
  if (!cross.rewritten && masked.rewritten) {
    return { graph, hoisted: hoisted.rewritten, crossKeysPerStep: false, rowMasks: false, sharesEncoderRows: false, newPositions: false };
  }
  return {
    graph: cross.graph, hoisted: hoisted.rewritten, crossKeysPerStep: cross.rewritten, rowMasks: masked.rewritten, sharesEncoderRows: false,
    newPositions: false,
  };
}

/** A session that could not load from a cached graph (the entries are removed: the next load rewrites them). */
class CachedGraphFailed extends Error {}

/**
 * `target` as [picked rows, heads, length + 1, headDim]: row i is row `rows[i]` of `source` ([rows, heads, length,
 * headDim]) with its position of `added` after each head's. `target` may be `source`'s own buffer (`scratch` then
 * given): blocks only move to higher offsets, so they are written from the last backwards, each after every block it
 * overwrites was read; a row that lands elsewhere (another row's parent) is saved first, since the blocks written
 * before it is read may overwrite it.
 */
function appendRows(
  target: Float32Array, source: Float32Array, added: Float32Array, rows: number[], heads: number, length: number, headDim: number,
  scratch?: RowBuffers,
): void {
  const block = length * headDim;
  const rowSize = heads * block;
  const moved = scratch && target.buffer === source.buffer ? [...new Set(rows.filter((row, i) => row !== i))] : [];
  const saved = scratch?.saved(moved.length * rowSize);
  moved.forEach((row, k) => saved!.set(source.subarray(row * rowSize, (row + 1) * rowSize), k * rowSize));
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i];
    const k = row === i ? -1 : moved.indexOf(row);
    for (let h = heads - 1; h >= 0; h--) {
      const to = (i * heads + h) * (block + headDim);
      const from = k < 0 ? source.subarray((row * heads + h) * block, (row * heads + h + 1) * block)
        : saved!.subarray(k * rowSize + h * block, k * rowSize + (h + 1) * block);
      target.set(from, to);
      target.set(added.subarray((row * heads + h) * headDim, (row * heads + h + 1) * headDim), to + block);
    }
  }
}

/**
 * Reusable buffers for a decode's row picks (`reorderCache`), one per decoder cache tensor: no fresh array per tensor
 * and step for the garbage collector (whisper-base, beam 5: ~7 MB a step), none faulted in. When a step hands back
 * only its new positions (`KvCache.appended`), the next pick rewrites the cache in place where it lies in its
 * buffer (`inPlace`, `appendRows`): the rows that move to another place are saved first (`saved`, one scratch for
 * every tensor), the rest move within the buffer. Two buffers per tensor (read one, write the other) would hold
 * twice the memory (whisper-base's beam of 5 at 100 tokens: ~27 instead of ~13 MB; at 224, ~55 instead of ~28).
 */
export class RowBuffers {
  private readonly buffers: (Float32Array | undefined)[] = [];
  private scratch = new Float32Array(0);

  /**
   * A view of `length` values of tensor `index`'s buffer, a new one (larger by half at least) when it is too small
   * or `source`, what the caller reads while writing it, lies in it.
   */
  take(index: number, length: number, source?: Float32Array): Float32Array {
    let buffer = this.buffers[index];
    if (!buffer || buffer.length < length || (source !== undefined && source.buffer === buffer.buffer)) {
      buffer = new Float32Array(Math.max(length, Math.ceil((buffer?.length ?? 0) * 1.5)));
      this.buffers[index] = buffer;
    }
    return buffer.subarray(0, length);
  }

  /** Tensor `index`'s whole buffer when `data` lies at its start and it has room for `length` values, else null. */
  inPlace(index: number, data: Float32Array, length: number): Float32Array | null {
    const buffer = this.buffers[index];
    if (!buffer || data.buffer !== buffer.buffer || data.byteOffset !== buffer.byteOffset || buffer.length < length) return null;
    return buffer;
  }

  /** Scratch room for `length` values, shared by every tensor (read back before the next tensor's rows are saved). */
  saved(length: number): Float32Array {
    if (this.scratch.length < length) this.scratch = new Float32Array(Math.ceil(length * 1.5));
    return this.scratch.subarray(0, length);
  }
}

export class WhisperOnnx {
  private constructor(
    readonly config: ModelConfig,
    private readonly encoder: ort.InferenceSession,
    private readonly decoder: ort.InferenceSession,
    readonly provider: string,
    /** Whether `encode` accepts fewer than 3000 frames (a short context for short audio). */
    readonly variableLength: boolean,
    /** Whether the decoder is the rewritten graph, which takes LOGITS_FROM. */
    private readonly hoisted: boolean,
    /** Whether the decoder computes the cross-attention keys and values at every step (no encoder past inputs). */
    private readonly crossKeysPerStep = false,
    /** Which products were asked to run float ('all' on a GPU; an export without 8-bit products has only float ones). */
    readonly floatProducts: FloatProducts = 'none',
    /** The most rows a batched step takes; 0 when the decoder has no row masks (each decode steps alone). */
    stepRows = 0,
    /** Whether decoder rows may share an encoder row (decoder-shared-cross.ts). */
    private readonly sharesEncoderRows = false,
    /** Whether a cached step hands back only the positions it adds (decoder-new-positions.ts): `KvCache.appended`. */
    private readonly newPositions = false,
  ) {
    this.steps = stepRows > 0 ? new StepBatcher(
      (step) => this.runStep(step),
      { heads: config.decoderHeads, headDim: config.headDim, dModel: config.dModel, layers: config.decoderLayers }, stepRows,
    ) : null;
  }

  /** Batches the first calls and cached steps of concurrent decodes (null: each decode runs alone). */
  readonly steps: StepBatcher | null;

  static async load(modelDir: string, runtime: RuntimeOptions = {}): Promise<WhisperOnnx> {
    const raw = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')) as Record<string, number>;
    const config: ModelConfig = {
      dModel: raw.d_model,
      decoderLayers: raw.decoder_layers,
      decoderHeads: raw.decoder_attention_heads,
      headDim: raw.d_model / raw.decoder_attention_heads,
      maxTargetPositions: raw.max_target_positions ?? 448,
      numMelBins: raw.num_mel_bins ?? N_MELS,
    };
    if (config.numMelBins !== N_MELS) throw new Error(`Model wants ${config.numMelBins} mel bins; this engine computes ${N_MELS}`);
    const requested = (runtime.provider ?? 'cpu').toLowerCase();
    const cacheDir = runtime.graphCacheDir === undefined ? graphCacheDir() : runtime.graphCacheDir;
    if (requested !== 'cpu') {
      try {
        return await WhisperOnnx.open(modelDir, config, runtime, requested, cacheDir);
      } catch (error) {
        // The npm build has no CUDA provider libraries until `npm run gpu:install` places them, and they need the
        // CUDA libraries and a GPU. Say why once and carry on on the CPU rather than refusing to start.
        console.warn(
          `[engine] execution provider '${requested}' unavailable (${(error as Error).message.trim().split('\n')[0]}); using cpu`,
        );
      }
    }
    try {
      return await WhisperOnnx.open(modelDir, config, runtime, 'cpu', cacheDir);
    } catch (error) {
      if (!(error instanceof CachedGraphFailed)) throw error;
      // A cached graph onnxruntime cannot load (a disk fault, a file changed by hand): gone now, rewritten once more.
      console.warn(`[engine] cached graphs in ${cacheDir} did not load (${error.message.split('\n')[0]}); rewriting them`);
      return WhisperOnnx.open(modelDir, config, runtime, 'cpu', cacheDir);
    }
  }

  /** Both sessions on `provider`, or an error (and nothing left loaded) when either cannot run there. */
  private static async open(
    modelDir: string, config: ModelConfig, runtime: RuntimeOptions, provider: string, cacheDir: string | null,
  ): Promise<WhisperOnnx> {
    const gpu = provider !== 'cpu' || runtime.gpuGraphs === true;
    const float = runtime.floatProducts ?? defaultFloatProducts(config);
    if (!FLOAT_PRODUCTS.includes(float)) throw new Error(`float products '${float}': one of ${FLOAT_PRODUCTS.join(', ')}`);
    const encoderFloat: GraphFloat = float === 'gelu' ? 'gelu' : float === 'none' ? 'none' : 'all';
    const vnni = hasVnni();
    // On the CPU the cache keeps onnxruntime's optimised graphs, which may hold kernels chosen for this processor
    // (its NCHWc layouts): the key names the runtime and the processor. A GPU's sessions optimise at each load.
    const optimizedFor = provider === 'cpu' ? { onnxruntime: ort.env.versions.common, processor: cpus()[0]?.model ?? '' } : null;
    const optimize = <Flags>(settingsOf: (flags: Flags) => SessionSettings) => (optimizedFor
      ? async (built: { graph: Uint8Array; flags: Flags }, path: string) => {
        await (await createSession(built.graph, provider, runtime, { ...settingsOf(built.flags), optimizeTo: path })).release();
      }
      : undefined);
    // Memory (workers/engine/README.md, "Measured"). No memory pattern, a block planned for the whole run where
    // one layer's buffers suffice. An arena only for whisper-tiny-sized encoders: an arena keeps the largest pass's
    // buffers for good, idle while the decoder runs (whisper-base: ~60 MB; without it a beam-5 file's peak ~418 →
    // ~384 MB for ~3 % more CPU); whisper-tiny's buffers taken from the heap instead cost ~4 % more CPU and no less
    // memory was measured.
    const whisperTinySized = config.dModel <= 384;
    const encoderSettings: SessionSettings = { threads: runtime.intraOpThreads ?? 0, arena: whisperTinySized, memPattern: false };
    const encoderFile = pickOnnx(modelDir, 'encoder_model', gpu);
    const encoderGraph = await cachedGraph(
      encoderFile, { graph: 'encoder', gpu, float: encoderFloat, optimizedFor, vnni },
      () => loadEncoderGraph(encoderFile, gpu, encoderFloat, vnni), cacheDir, optimize(() => encoderSettings),
    );
    const stepRows = Math.max(0, Math.floor(runtime.stepRows ?? DEFAULT_STEP_ROWS));
    const decoderFile = pickOnnx(modelDir, 'decoder_model_merged', gpu);
    const decoderFloat: GraphFloat = float === 'all' ? 'all' : 'none';
    // The decoder's buffers are small once its projection is lifted (decoder-graph.ts). An arena keeps the largest
    // first call's for good (its cross-attention keys and values among them: whisper-base +40–60 MB of peak, the same
    // CPU), so only whisper-tiny-sized decoders have one: there the projection's few 0.2–0.4 MB buffers per step were
    // otherwise mapped and faulted in afresh (~120 page faults a step), ~2–4 % of a whole file's CPU, the same peak.
    const decoderSettings = (hoisted: boolean): SessionSettings => ({
      threads: runtime.decoderThreads ?? 1, arena: whisperTinySized, memPattern: true, config: hoisted ? DECODER_SESSION_CONFIG : undefined,
    });
    const decoderGraph = await cachedGraph(
      decoderFile, { graph: 'decoder', gpu, float: decoderFloat, batchSteps: stepRows > 0, optimizedFor, vnni },
      () => loadDecoderGraph(decoderFile, gpu, decoderFloat, stepRows > 0, vnni), cacheDir,
      optimize((flags: Omit<ReturnType<typeof loadDecoderGraph>, 'graph'>) => decoderSettings(flags.hoisted)),
    );
    const [encoder, decoder] = await Promise.allSettled([
      createSession(encoderGraph.graph, provider, runtime, { ...encoderSettings, optimized: encoderGraph.optimized }),
      createSession(
        decoderGraph.graph, provider, runtime, { ...decoderSettings(decoderGraph.flags.hoisted), optimized: decoderGraph.optimized },
      ),
    ]);
    if (encoder.status === 'rejected' || decoder.status === 'rejected') {
      await Promise.all([encoder, decoder].map((s) => (s.status === 'fulfilled' ? s.value.release() : undefined)));
      const reason = (encoder.status === 'rejected' ? encoder.reason : (decoder as PromiseRejectedResult).reason) as Error;
      const fromCache = [encoderGraph, decoderGraph].filter((g) => typeof g.graph === 'string');
      if (provider !== 'cpu' || fromCache.length === 0) throw reason;
      await Promise.all(fromCache.map((g) => g.forget()));
      throw new CachedGraphFailed(reason.message);
    }
    return new WhisperOnnx(
      config,
      encoder.value,
      decoder.value,
      provider,
      encoderGraph.flags.variableLength,
      decoderGraph.flags.hoisted,
      decoderGraph.flags.crossKeysPerStep,
      gpu ? 'all' : float,
      decoderGraph.flags.rowMasks ? stepRows : 0,
      decoderGraph.flags.sharesEncoderRows,
      decoderGraph.flags.newPositions === true,
    );
  }

  /**
   * Encodes a batch of [80 × 3000] feature blocks into [batch, frames / 2, dModel] hidden states, reading the
   * first `frames` of each block only (an even number ≤ 3000; fewer than 3000 needs `variableLength`).
   */
  async encode(features: Float32Array[], frames = N_FRAMES): Promise<ort.Tensor> {
    if (frames !== N_FRAMES && (!this.variableLength || frames % 2 !== 0 || frames < 2 || frames > N_FRAMES)) {
      throw new Error(`encoder context of ${frames} frames is not available (variable length: ${this.variableLength})`);
    }
    const block = N_MELS * frames;
    const input = new Float32Array(features.length * block);
    features.forEach((f, i) => {
      if (frames === N_FRAMES) input.set(f, i * block);
      else for (let mel = 0; mel < N_MELS; mel++) input.set(f.subarray(mel * N_FRAMES, mel * N_FRAMES + frames), i * block + mel * frames);
    });
    const feeds = { input_features: new ort.Tensor('float32', input, [features.length, N_MELS, frames]) };
    releaseBuffers();
    const out = await this.encoder.run(feeds, ['last_hidden_state']);
    return out.last_hidden_state;
  }

  /** Rows [from, from+count) of a batched encoder output, as its own tensor. */
  static sliceBatch(tensor: ort.Tensor, from: number, count: number): ort.Tensor {
    const [, ...rest] = tensor.dims;
    const rowSize = rest.reduce((a, b) => a * b, 1);
    const data = (tensor.data as Float32Array).subarray(from * rowSize, (from + count) * rowSize);
    return new ort.Tensor('float32', data, [count, ...rest]);
  }

  /** One row of an encoder output repeated `times` (beam search decodes several hypotheses at once). */
  static repeatRow(tensor: ort.Tensor, times: number): ort.Tensor {
    if (times === 1 && tensor.dims[0] === 1) return tensor;
    const [, ...rest] = tensor.dims;
    const rowSize = rest.reduce((a, b) => a * b, 1);
    const source = (tensor.data as Float32Array).subarray(0, rowSize);
    const data = new Float32Array(rowSize * times);
    for (let i = 0; i < times; i++) data.set(source, i * rowSize);
    return new ort.Tensor('float32', data, [times, ...rest]);
  }

  /**
   * Runs the decoder on `tokens` ([batch][seq], same length per row). Without a cache this is the first
   * call (whole prompt, `use_cache_branch=false`, empty past); with one it appends to it. Only the outputs
   * needed are fetched: the export's attention outputs are costly and only word alignment wants them.
   * `keepCache: false` (a call nothing follows, as word alignment's) leaves the new key/value cache in
   * onnxruntime: `cache` then comes back empty, and ~18 MB per call (whisper-tiny) are not copied out.
   */
  async decode(
    tokens: number[][],
    encoderHidden: ort.Tensor,
    cache: KvCache | null,
    options: {
      crossAttentionLayers?: number[];
      allLogits?: boolean;
      /** With `allLogits`: the first position whose logits are wanted (default 0); `allLogits` then starts there. */
      logitsFrom?: number;
      keepCache?: boolean;
    } = {},
  ): Promise<DecoderOutput> {
    const keepCache = options.keepCache ?? true;
    const { decoderLayers, decoderHeads, headDim } = this.config;
    const batch = tokens.length;
    const seq = tokens[0].length;
    // A cached step of one token per row, or the first call of one row, waits for the other decodes ready now
    // (steps with steps, first calls with first calls) and runs with them.
    if (this.steps && keepCache && !options.crossAttentionLayers?.length) {
      if (cache && seq === 1 && !options.allLogits) {
        return this.steps.step(
          tokens.map((row) => row[0]),
          cache,
        );
      }
      if (!cache && batch === 1) {
        return this.steps.first(tokens[0], encoderHidden, options.allLogits ? (options.logitsFrom ?? 0) : undefined);
      }
    }
    if (cache?.rows || cache?.offset) throw new Error('a view of a batched step’s cache can only step with the batcher');
    // New positions a step handed back, not yet appended (the caller did not reorder the cache since): into new arrays.
    if (cache?.appended) cache = WhisperOnnx.reorderCache(cache, Array.from({ length: batch }, (_, row) => row), true);
    const ids = new BigInt64Array(batch * seq);
    tokens.forEach((row, b) => row.forEach((id, s) => (ids[b * seq + s] = BigInt(id))));
    // A decoder computing the cross-attention keys and values per step reads each row's encoder states instead.
    const perStep = this.crossKeysPerStep;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, [batch, seq]),
      encoder_hidden_states: cache && perStep ? cache.encoder[0] : encoderHidden,
      use_cache_branch: new ort.Tensor('bool', new Uint8Array([cache ? 1 : 0]), [1]),
    };
    // Logits of the last position only, unless all are asked for. Two rows, not one: onnxruntime's CPU MatMul
    // takes another kernel for a single row, whose sums differ in the last bits from the rows of a longer call.
    const logitsFrom = options.allLogits ? Math.min(Math.max(0, options.logitsFrom ?? 0), seq - 1) : 0;
    if (this.hoisted) {
      feeds[LOGITS_FROM] = new ort.Tensor('int64', BigInt64Array.of(BigInt(options.allLogits ? logitsFrom : Math.max(0, seq - 2))), [1]);
    }
    if (this.steps) {
      // Every row as long as the cache: positions follow it, nothing is masked (the first call's branch reads neither).
      const past = cache?.pastLength ?? 0;
      feeds[POSITIONS] = new ort.Tensor(
        'int64', BigInt64Array.from({ length: batch * seq }, (_, i) => BigInt(past + (i % seq))), [batch, seq],
      );
      feeds[SELF_BIAS] = new ort.Tensor('float32', new Float32Array(1), [1, 1, 1]);
      feeds[CROSS_BIAS] = new ort.Tensor('float32', new Float32Array(1), [1, 1, 1]);
    }
    const empty = new ort.Tensor('float32', new Float32Array(0), [batch, decoderHeads, 0, headDim]);
    for (let layer = 0; layer < decoderLayers; layer++) {
      feeds[`past_key_values.${layer}.decoder.key`] = cache ? cache.decoder[layer * 2] : empty;
      feeds[`past_key_values.${layer}.decoder.value`] = cache ? cache.decoder[layer * 2 + 1] : empty;
      if (perStep) continue;
      feeds[`past_key_values.${layer}.encoder.key`] = cache ? cache.encoder[layer * 2] : empty;
      feeds[`past_key_values.${layer}.encoder.value`] = cache ? cache.encoder[layer * 2 + 1] : empty;
    }
    const fetches = ['logits'];
    for (let layer = 0; layer < decoderLayers && keepCache; layer++) {
      fetches.push(`present.${layer}.decoder.key`, `present.${layer}.decoder.value`);
      if (!cache && !perStep) fetches.push(`present.${layer}.encoder.key`, `present.${layer}.encoder.value`);
    }
    for (const layer of options.crossAttentionLayers ?? []) fetches.push(`cross_attentions.${layer}`);
    const out = await this.decoder.run(feeds, fetches);
    const logits = out.logits.data as Float32Array;
    const [, rows, vocab] = out.logits.dims;
    // One row per batch entry already (a cached step): the output is the last logits, no copy needed.
    let lastLogits = logits;
    if (rows > 1 || options.allLogits) {
      lastLogits = new Float32Array(batch * vocab);
      for (let b = 0; b < batch; b++) lastLogits.set(logits.subarray((b * rows + rows - 1) * vocab, (b * rows + rows) * vocab), b * vocab);
    }
    const encoder = cache ? cache.encoder : perStep ? [encoderHidden] : [];
    const next: KvCache = { decoder: [], encoder, pastLength: (cache?.pastLength ?? 0) + seq };
    if (this.sharesEncoderRows) next.sharesEncoderRows = true;
    const presents: ort.Tensor[] = [];
    for (let layer = 0; layer < decoderLayers && keepCache; layer++) {
      presents.push(out[`present.${layer}.decoder.key`], out[`present.${layer}.decoder.value`]);
      if (!cache && !perStep) next.encoder.push(out[`present.${layer}.encoder.key`], out[`present.${layer}.encoder.value`]);
    }
    // A cached step of a decoder that hands back its new positions only: the cache it read, and those to append.
    if (cache && keepCache && this.newPositions) {
      next.decoder = cache.decoder;
      next.appended = presents;
    } else next.decoder = presents;
    const result: DecoderOutput = { lastLogits, cache: next };
    if (options.allLogits) {
      // Rows from `logitsFrom` on: the projection computed only those, or (an export whose projection was not lifted) all.
      const skip = rows - (seq - logitsFrom);
      if (skip === 0) result.allLogits = logits;
      else {
        const wanted = (seq - logitsFrom) * vocab;
        result.allLogits = new Float32Array(batch * wanted);
        for (let b = 0; b < batch; b++) result.allLogits.set(
          logits.subarray((b * rows + skip) * vocab, (b * rows + rows) * vocab), b * wanted,
        );
      }
    }
    if (options.crossAttentionLayers?.length) {
      result.crossAttentions = new Map(options.crossAttentionLayers.map((layer) => [layer, out[`cross_attentions.${layer}`]]));
    }
    return result;
  }

  /** One batched step or batch of first calls (step-batcher.ts) through the masked decoder's cached branch. */
  private async runStep(step: BatchedStep): Promise<BatchedStepOutput> {
    const { decoderLayers } = this.config;
    const rows = step.tokens.length / step.length;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', step.tokens, [rows, step.length]),
      encoder_hidden_states: step.encoder,
      use_cache_branch: new ort.Tensor('bool', new Uint8Array([1]), [1]),
      [POSITIONS]: step.positions,
      [SELF_BIAS]: step.selfBias,
      [CROSS_BIAS]: step.crossBias,
    };
    if (this.hoisted) feeds[LOGITS_FROM] = new ort.Tensor('int64', BigInt64Array.of(BigInt(step.logitsFrom)), [1]);
    const fetches = ['logits'];
    for (let layer = 0; layer < decoderLayers; layer++) {
      feeds[`past_key_values.${layer}.decoder.key`] = step.past[layer * 2];
      feeds[`past_key_values.${layer}.decoder.value`] = step.past[layer * 2 + 1];
      fetches.push(`present.${layer}.decoder.key`, `present.${layer}.decoder.value`);
    }
    const out = await this.decoder.run(feeds, fetches);
    const present = fetches.slice(1).map((name) => out[name]);
    const [, positions, vocab] = out.logits.dims;
    const wanted = step.length - step.logitsFrom;
    let logits = out.logits.data as Float32Array;
    if (positions !== wanted) {
      // An export whose projection was not lifted computes every position's logits: keep the ones asked for.
      const all = logits;
      logits = new Float32Array(rows * wanted * vocab);
      for (let row = 0; row < rows; row++) logits.set(
        all.subarray((row * positions + positions - wanted) * vocab, (row + 1) * positions * vocab), row * wanted * vocab,
      );
    }
    return { logits, present };
  }

  /**
   * Keeps cache rows in `rows` order: beam search gives each surviving hypothesis its parent's cache;
   * batched decoding drops the rows of windows that are done. `sameAudio` says every row decodes the same
   * window, so the encoder keys/values rows are identical and need only match the new batch size. With `buffers`
   * the decoder rows are copied into those (one per cache tensor, reused from step to step) instead of new arrays.
   * Positions a step handed back (`appended`) are appended to their rows in the same pass.
   */
  static reorderCache(cache: KvCache, rows: number[], sameAudio: boolean, buffers?: RowBuffers): KvCache {
    // `index`: the decoder tensor's place, for its buffer (encoder rows are picked into new arrays).
    const pick = (tensor: ort.Tensor, index?: number): ort.Tensor => {
      const [batch, ...rest] = tensor.dims;
      const rowSize = rest.reduce((a, b) => a * b, 1);
      const source = tensor.data as Float32Array;
      if (rows.length === batch && rows.every((r, i) => r === i)) return tensor;
      const size = rows.length * rowSize;
      const data = buffers && index !== undefined ? buffers.take(index, size, source) : new Float32Array(size);
      rows.forEach((row, i) => data.set(source.subarray(row * rowSize, (row + 1) * rowSize), i * rowSize));
      return new ort.Tensor('float32', data, [rows.length, ...rest]);
    };
    // Each picked row of `past` [batch, heads, length, headDim] with its row of `added` [batch, heads, 1, headDim] after
    // every head's positions (appendRows).
    const pickAppending = (past: ort.Tensor, added: ort.Tensor, index: number): ort.Tensor => {
      const [, heads, length, headDim] = past.dims;
      const source = past.data as Float32Array;
      const extra = added.data as Float32Array;
      const block = length * headDim;
      const size = rows.length * heads * (block + headDim);
      // In place where `past` lies in its buffer with room, else into another array.
      const data = buffers?.inPlace(index, source, size) ?? (buffers ? buffers.take(index, size, source) : new Float32Array(size));
      appendRows(data, source, extra, rows, heads, length, headDim, buffers);
      return new ort.Tensor('float32', data.subarray(0, size), [rows.length, heads, length + 1, headDim]);
    };
    // Rows of one window keep the encoder rows as they are when they fit, or when one row serves them all.
    const encoderRows = cache.encoder[0]?.dims[0];
    const keepEncoder = sameAudio && cache.encoder.length > 0
      && (encoderRows === rows.length || (cache.sharesEncoderRows === true && encoderRows === 1));
    const encoderRowsFor = (t: ort.Tensor) => (sameAudio ? WhisperOnnx.repeatRow(t, rows.length) : pick(t));
    // A view of a batched step's cache picks its rows by number: nothing is copied until the batcher needs it.
    if (cache.rows) {
      const encoder = keepEncoder ? cache.encoder : cache.encoder.map(encoderRowsFor);
      return {
        decoder: cache.decoder, encoder, pastLength: cache.pastLength, rows: rows.map((row) => cache.rows![row]), offset: cache.offset,
      };
    }
    const { appended } = cache;
    return {
      decoder: cache.decoder.map((t, index) => (appended ? pickAppending(t, appended[index], index) : pick(t, index))),
      encoder: keepEncoder ? cache.encoder : cache.encoder.map(encoderRowsFor),
      pastLength: cache.pastLength,
      ...(cache.sharesEncoderRows ? { sharesEncoderRows: true } : {}),
    };
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }
}

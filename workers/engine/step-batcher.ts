/**
 * Continuous batching of decoder steps, the way LLM servers batch requests: every decode of the engine thread that
 * is ready for its next token at the same moment (live sessions' passes, file windows, beam rows) goes into one
 * decoder call, and each gets its own rows back. A decode joins at whichever step it is ready and leaves when it
 * ends; nobody waits for a batch to fill. On a GPU, where a step for one row and a step for a hundred take about as
 * long (a few hundred small kernels, every tensor through host memory), this is what lets one machine hold many
 * sessions at real time.
 *
 * Rows differ in text length and encoder context. The decoder takes per-row positions and attention masks
 * (decoder-masks.ts): a batch is as long as its longest row, shorter rows' caches are padded in front and their
 * padding masked, and so are the encoder frames a row's window does not have. What a row gets is what it would get
 * alone, but for the order a kernel sums in.
 *
 * A batch's output cache stays one tensor per layer, and each decode's cache becomes a view of its rows (KvCache
 * `rows` and `offset`): while the same decodes go on in the same order, the next step feeds those tensors back as
 * they are, and only a batch whose rows changed is copied together anew.
 */
import * as ort from 'onnxruntime-node';
import { MASKED } from './decoder-masks.js';

/** The part of a decoder cache the batcher reads and writes (model.ts KvCache). */
export interface StepCache {
  /** Per layer self-attention keys and values, [rows, heads, length, headDim], this cache's rows among them. */
  decoder: ort.Tensor[];
  /** [rows of this decode, frames, dModel]: the encoder states its rows attend to. */
  encoder: ort.Tensor[];
  /** Entries of this cache (its text so far). */
  pastLength: number;
  /** Which rows of `decoder` are this cache's (default: all, in order). */
  rows?: number[];
  /** Where its entries start along the length axis of `decoder` (default 0: no padding in front). */
  offset?: number;
}

/** One batched step, ready to run: the inputs the masked decoder's cached branch reads. */
export interface BatchedStep {
  /** One token per row. */
  tokens: BigInt64Array;
  past: ort.Tensor[];
  encoder: ort.Tensor;
  positions: ort.Tensor;
  selfBias: ort.Tensor;
  crossBias: ort.Tensor;
}

export interface BatchedStepOutput {
  /** [rows × vocab] */
  logits: Float32Array;
  /** Per layer keys and values, [rows, heads, length + 1, headDim]. */
  present: ort.Tensor[];
}

export interface StepResult {
  lastLogits: Float32Array;
  cache: StepCache;
}

interface Pending {
  tokens: number[];
  cache: StepCache;
  resolve(result: StepResult): void;
  reject(error: unknown): void;
}

/** The batch whose output caches the decodes now hold: reused as the next past when the same rows come back. */
interface LastBatch {
  present: ort.Tensor[];
  rows: number;
  encoders: ort.Tensor[];
  encoder: ort.Tensor;
  crossBias: ort.Tensor;
}

export interface StepBatcherStats {
  /** Decoder calls made. */
  calls: number;
  /** Rows decoded over all calls. */
  rows: number;
  /** Calls whose past was put together anew (rows joined, left or were reordered). */
  rebuilds: number;
}

const rowsOf = (cache: StepCache): number[] => cache.rows ?? Array.from({ length: cache.decoder[0].dims[0] }, (_, i) => i);

const zeroBias = () => new ort.Tensor('float32', new Float32Array(1), [1, 1, 1]);

export class StepBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private running = false;
  private last: LastBatch | null = null;
  readonly stats: StepBatcherStats = { calls: 0, rows: 0, rebuilds: 0 };

  constructor(
    private readonly run: (step: BatchedStep) => Promise<BatchedStepOutput>,
    private readonly shape: { heads: number; headDim: number; dModel: number },
    /** At most this many rows per call; a decode's rows are never split. */
    private readonly maxRows: number,
  ) {}

  /** The next step of a decode (one token per row of `cache`): resolves once the batch it joined has run. */
  step(tokens: number[], cache: StepCache): Promise<StepResult> {
    if (tokens.length !== rowsOf(cache).length) return Promise.reject(new Error(`${tokens.length} tokens for a cache of ${rowsOf(cache).length} rows`));
    return new Promise((resolve, reject) => {
      this.queue.push({ tokens, cache, resolve, reject });
      this.kick();
    });
  }

  /**
   * Runs the queue on the next turn of the event loop, so that every decode that becomes ready now (the ones the last
   * batch just answered, each choosing its next token) is in it.
   */
  private kick(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    let rows = 0;
    let count = 0;
    while (count < this.queue.length && (count === 0 || rows + this.queue[count].tokens.length <= this.maxRows)) rows += this.queue[count++].tokens.length;
    const batch = this.queue.splice(0, count);
    try {
      const results = await this.runBatch(batch);
      batch.forEach((pending, i) => pending.resolve(results[i]));
    } catch (error) {
      this.last = null;
      for (const pending of batch) pending.reject(error);
    } finally {
      this.running = false;
      this.kick();
    }
  }

  private async runBatch(batch: Pending[]): Promise<StepResult[]> {
    const { heads } = this.shape;
    const lengths = batch.map((p) => p.cache.pastLength);
    const rowCounts = batch.map((p) => p.tokens.length);
    const total = rowCounts.reduce((a, b) => a + b, 0);
    const longest = Math.max(...lengths);
    const encoders = batch.map((p) => p.cache.encoder[0]);

    const last = this.last;
    // The same decodes in the same order, each one step on: the last output is this past, its encoder states the same.
    let next = 0;
    const continues =
      last !== null &&
      last.rows === total &&
      batch.every((p, i) => p.cache.decoder === last.present && encoders[i] === last.encoders[i] && rowsOf(p.cache).every((row) => row === next++));
    // One decode alone, its cache not a view of an earlier batch: its tensors are the past as they are.
    const alone = batch.length === 1 && batch[0].cache.rows === undefined && !batch[0].cache.offset && batch[0].cache.decoder[0].dims[2] === longest;
    const past = continues ? last.present : alone ? batch[0].cache.decoder : this.gatherPast(batch, longest, total);
    const encoder = continues ? last.encoder : this.gatherEncoders(encoders, rowCounts, total);
    const crossBias = continues ? last.crossBias : this.crossBias(encoders, rowCounts, total, encoder.dims[1]);
    const pastLength = past[0].dims[2];
    const starts = batch.map((p) => (continues ? (p.cache.offset ?? 0) : longest - p.cache.pastLength));

    const positions = new BigInt64Array(total);
    const tokens = new BigInt64Array(total);
    const evenLengths = starts.every((s) => s === 0);
    const selfBias = evenLengths ? zeroBias() : new ort.Tensor('float32', new Float32Array(total * heads * (pastLength + 1)), [total * heads, 1, pastLength + 1]);
    let row = 0;
    batch.forEach((pending, i) => {
      for (let r = 0; r < rowCounts[i]; r++, row++) {
        positions[row] = BigInt(lengths[i]);
        tokens[row] = BigInt(pending.tokens[r]);
        if (!evenLengths && starts[i] > 0) {
          const data = selfBias.data as Float32Array;
          for (let h = 0; h < heads; h++) data.fill(MASKED, (row * heads + h) * (pastLength + 1), (row * heads + h) * (pastLength + 1) + starts[i]);
        }
      }
    });
    const out = await this.run({
      tokens,
      past,
      encoder,
      positions: new ort.Tensor('int64', positions, [total, 1]),
      selfBias,
      crossBias,
    });
    this.stats.calls++;
    this.stats.rows += total;
    if (!continues && !alone) this.stats.rebuilds++;
    this.last = { present: out.present, rows: total, encoders, encoder, crossBias };
    const vocab = out.logits.length / total;
    let first = 0;
    return batch.map((pending, i) => {
      const rows = Array.from({ length: rowCounts[i] }, (_, r) => first + r);
      const lastLogits = out.logits.subarray(first * vocab, (first + rowCounts[i]) * vocab);
      first += rowCounts[i];
      return { lastLogits, cache: { decoder: out.present, encoder: pending.cache.encoder, pastLength: lengths[i] + 1, rows, offset: starts[i] } };
    });
  }

  /** Each decode's cache rows, padded in front to the longest, as one tensor per layer. */
  private gatherPast(batch: Pending[], longest: number, total: number): ort.Tensor[] {
    const { heads, headDim } = this.shape;
    return batch[0].cache.decoder.map((_, k) => {
      const out = new Float32Array(total * heads * longest * headDim);
      let row = 0;
      for (const { cache } of batch) {
        const source = cache.decoder[k];
        const data = source.data as Float32Array;
        const sourceLength = source.dims[2];
        const offset = cache.offset ?? 0;
        const size = cache.pastLength * headDim;
        for (const sourceRow of rowsOf(cache)) {
          for (let h = 0; h < heads; h++) {
            const from = ((sourceRow * heads + h) * sourceLength + offset) * headDim;
            out.set(data.subarray(from, from + size), ((row * heads + h) * longest + longest - cache.pastLength) * headDim);
          }
          row++;
        }
      }
      return new ort.Tensor('float32', out, [total, heads, longest, headDim]);
    });
  }

  /** Every row's encoder states, padded at the end to the longest window. */
  private gatherEncoders(encoders: ort.Tensor[], rowCounts: number[], total: number): ort.Tensor {
    const frames = Math.max(...encoders.map((e) => e.dims[1]));
    const { dModel } = this.shape;
    if (encoders.length === 1 && encoders[0].dims[0] === total) return encoders[0];
    const out = new Float32Array(total * frames * dModel);
    let row = 0;
    encoders.forEach((encoder, i) => {
      const data = encoder.data as Float32Array;
      const size = encoder.dims[1] * dModel;
      // A decode's rows attend to its own encoder rows: one per row, or one shared by all its rows.
      for (let r = 0; r < rowCounts[i]; r++, row++) {
        const source = encoder.dims[0] === rowCounts[i] ? r : 0;
        out.set(data.subarray(source * size, (source + 1) * size), row * frames * dModel);
      }
    });
    return new ort.Tensor('float32', out, [total, frames, dModel]);
  }

  /** The cross-attention bias masking the frames past each row's own window (none when all windows are as long). */
  private crossBias(encoders: ort.Tensor[], rowCounts: number[], total: number, frames: number): ort.Tensor {
    if (encoders.every((e) => e.dims[1] === frames)) return zeroBias();
    const { heads } = this.shape;
    const data = new Float32Array(total * heads * frames);
    let row = 0;
    encoders.forEach((encoder, i) => {
      for (let r = 0; r < rowCounts[i]; r++, row++) {
        for (let h = 0; h < heads; h++) data.fill(MASKED, (row * heads + h) * frames + encoder.dims[1], (row * heads + h + 1) * frames);
      }
    });
    return new ort.Tensor('float32', data, [total * heads, 1, frames]);
  }
}

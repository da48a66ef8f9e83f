/**
 * Continuous batching of decoder steps, the way LLM servers batch requests: every decode of the engine thread that
 * is ready for its next token at the same moment (live sessions' passes, file windows, beam rows) goes into one
 * decoder call, and each gets its own rows back. A decode joins at whichever step it is ready and leaves when it
 * ends; nobody waits for a batch to fill. First calls (a decode's whole prompt, the LLM servers' prefill) batch the
 * same way among themselves: they run through the same cached branch on an empty cache, each prompt padded in
 * front to the longest and masked causally (the export's cached branch has no causal mask of its own). On a GPU,
 * where a step for one row and a step for a hundred take about as long (a few hundred small kernels, every tensor
 * through host memory), this is what lets one engine thread serve many sessions (docs/gpu.md has what it bought).
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
import { MASKED } from '../graph/decoder-masks.js';

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

/** One batched call, ready to run: the inputs the masked decoder's cached branch reads. */
export interface BatchedStep {
  /** `length` tokens per row: one for a step, a whole prompt for a first call. */
  tokens: BigInt64Array;
  length: number;
  /** The first position (of `length`) whose logits are wanted. */
  logitsFrom: number;
  past: ort.Tensor[];
  encoder: ort.Tensor;
  positions: ort.Tensor;
  selfBias: ort.Tensor;
  crossBias: ort.Tensor;
}

export interface BatchedStepOutput {
  /** [rows × (length − logitsFrom) × vocab] */
  logits: Float32Array;
  /** Per layer keys and values, [rows, heads, past + length, headDim]. */
  present: ort.Tensor[];
}

export interface StepResult {
  lastLogits: Float32Array;
  /** A first call's logits of every position from the `logitsFrom` it asked for, [positions × vocab]. */
  allLogits?: Float32Array;
  cache: StepCache;
}

interface PendingStep {
  kind: 'step';
  tokens: number[];
  cache: StepCache;
  resolve(result: StepResult): void;
  reject(error: unknown): void;
}

interface PendingFirst {
  kind: 'first';
  /** The whole prompt of one row. */
  tokens: number[];
  /** [1, frames, dModel]: the window's encoder states. */
  encoder: ort.Tensor;
  /** The first position whose logits are wanted (undefined: the last only). */
  logitsFrom?: number;
  resolve(result: StepResult): void;
  reject(error: unknown): void;
}

type Pending = PendingStep | PendingFirst;

/** The batch whose output caches the decodes now hold: reused as the next past when the same rows come back. */
interface LastBatch {
  present: ort.Tensor[];
  rows: number;
  encoders: ort.Tensor[];
  encoder: ort.Tensor;
  crossBias: ort.Tensor;
}

export interface StepBatcherStats {
  /** Step calls made. */
  calls: number;
  /** Rows stepped over all calls. */
  rows: number;
  /** Calls whose past was put together anew (rows joined, left or were reordered). */
  rebuilds: number;
  /** First calls made, and the prompts they ran. */
  firstCalls: number;
  firstRows: number;
}

/**
 * The most logits rows (positions × rows, a vocabulary each: 200 KB) one batched first call returns. A live pass
 * wants the logits from its <|startoftranscript|> on, and the batch returns as many for every row as the row with
 * the longest forced text wants: this keeps that copy under ~200 MB.
 */
const FIRST_CALL_LOGIT_ROWS = 1024;

const rowsOf = (cache: StepCache): number[] => cache.rows ?? Array.from({ length: cache.decoder[0].dims[0] }, (_, i) => i);

const zeroBias = () => new ort.Tensor('float32', new Float32Array(1), [1, 1, 1]);

/**
 * The shape of a batch of first calls: as long as its longest prompt (all end at the last position), and its logits
 * from the earliest position any row wants: a row that wants only its last gets two (onnxruntime's CPU MatMul takes
 * another kernel for a single row, whose sums differ in the last bits from the first-call branch's).
 */
function firstCallLayout(batch: readonly PendingFirst[]): { length: number; logitsFrom: number; logitRows: number } {
  const length = Math.max(...batch.map((p) => p.tokens.length));
  const logitsFrom = Math.max(
    0,
    Math.min(...batch.map(
      (p) => length - p.tokens.length + (p.logitsFrom !== undefined ? Math.min(p.logitsFrom, p.tokens.length - 1) : p.tokens.length - 2),
    )),
  );
  return { length, logitsFrom, logitRows: batch.length * (length - logitsFrom) };
}

export class StepBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private running = false;
  private last: LastBatch | null = null;
  /** Key and value tensors per call: two per decoder layer. */
  private get layerTensors(): number {
    return this.shape.layers * 2;
  }

  readonly stats: StepBatcherStats = { calls: 0, rows: 0, rebuilds: 0, firstCalls: 0, firstRows: 0 };

  constructor(
    private readonly run: (step: BatchedStep) => Promise<BatchedStepOutput>,
    private readonly shape: { heads: number; headDim: number; dModel: number; layers: number },
    /** At most this many rows per call; a decode's rows are never split. */
    private readonly maxRows: number,
  ) {}

  /** The next step of a decode (one token per row of `cache`): resolves once the batch it joined has run. */
  step(tokens: number[], cache: StepCache): Promise<StepResult> {
    if (tokens.length !== rowsOf(cache).length) {
      return Promise.reject(new Error(`${tokens.length} tokens for a cache of ${rowsOf(cache).length} rows`));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'step', tokens, cache, resolve, reject });
      this.kick();
    });
  }

  /**
   * The first call of a decode: one row's whole prompt on the window's encoder states ([1, frames, dModel]);
   * resolves with the last position's logits (and every position's from `logitsFrom` on, when asked) once the
   * batch of first calls it joined has run. Its cache is a view of that batch's, as a step's is.
   */
  first(tokens: number[], encoder: ort.Tensor, logitsFrom?: number): Promise<StepResult> {
    if (tokens.length === 0) return Promise.reject(new Error('a first call needs at least one token'));
    if (encoder.dims[0] !== 1) return Promise.reject(new Error(`a first call decodes one window, not ${encoder.dims[0]}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'first', tokens, encoder, logitsFrom, resolve, reject });
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
    // The oldest request's kind runs: steps with steps, first calls with first calls (the others keep their order).
    const batch = this.queue[0].kind === 'step' ? this.takeSteps() : this.takeFirstCalls();
    try {
      const results = batch[0].kind === 'step' ? await this.runBatch(batch as PendingStep[]) : await this.runFirstCalls(
        batch as PendingFirst[],
      );
      batch.forEach((pending, i) => pending.resolve(results[i]));
    } catch (error) {
      this.last = null;
      for (const pending of batch) pending.reject(error);
    } finally {
      this.running = false;
      this.kick();
    }
  }

  /** Queued steps, oldest first, up to maxRows rows (a decode's rows are never split). */
  private takeSteps(): PendingStep[] {
    const taken: PendingStep[] = [];
    let rows = 0;
    this.queue = this.queue.filter((pending) => {
      if (pending.kind !== 'step' || (taken.length > 0 && rows + pending.tokens.length > this.maxRows)) return true;
      taken.push(pending);
      rows += pending.tokens.length;
      return false;
    });
    return taken;
  }

  /** Queued first calls, oldest first, up to maxRows rows and FIRST_CALL_LOGIT_ROWS logits rows. */
  private takeFirstCalls(): PendingFirst[] {
    const taken: PendingFirst[] = [];
    this.queue = this.queue.filter((pending) => {
      if (pending.kind !== 'first' || taken.length >= this.maxRows) return true;
      if (taken.length > 0 && firstCallLayout([...taken, pending]).logitRows > FIRST_CALL_LOGIT_ROWS) return true;
      taken.push(pending);
      return false;
    });
    return taken;
  }

  /**
   * First calls as one call of the cached branch on an empty cache: each prompt padded in front to the longest,
   * its padding masked and every token kept from the ones after it (causal), each row at its own positions.
   */
  private async runFirstCalls(batch: PendingFirst[]): Promise<StepResult[]> {
    const { heads, headDim } = this.shape;
    const rows = batch.length;
    const { length, logitsFrom } = firstCallLayout(batch);
    const tokens = new BigInt64Array(rows * length);
    const positions = new BigInt64Array(rows * length);
    const bias = new Float32Array(rows * heads * length * length);
    batch.forEach((pending, row) => {
      const pad = length - pending.tokens.length;
      for (let i = 0; i < length; i++) {
        tokens[row * length + i] = BigInt(pending.tokens[Math.max(0, i - pad)]);
        positions[row * length + i] = BigInt(Math.max(0, i - pad));
      }
      for (let h = 0; h < heads; h++) {
        for (let query = 0; query < length; query++) {
          const at = ((row * heads + h) * length + query) * length;
          // Keys in the padding, and keys after the query.
          bias.fill(MASKED, at, at + pad);
          bias.fill(MASKED, at + query + 1, at + length);
        }
      }
    });
    const encoders = batch.map((p) => p.encoder);
    const ones = encoders.map(() => 1);
    const encoder = this.gatherEncoders(encoders, ones, rows);
    const empty = new ort.Tensor('float32', new Float32Array(0), [rows, heads, 0, headDim]);
    const out = await this.run({
      tokens,
      length,
      logitsFrom,
      past: Array.from({ length: this.layerTensors }, () => empty),
      encoder,
      positions: new ort.Tensor('int64', positions, [rows, length]),
      selfBias: new ort.Tensor('float32', bias, [rows * heads, length, length]),
      crossBias: this.crossBias(encoders, ones, rows, encoder.dims[1]),
    });
    this.stats.firstCalls++;
    this.stats.firstRows += rows;
    const kept = length - logitsFrom;
    const vocab = out.logits.length / (rows * kept);
    return batch.map((pending, row) => {
      const pad = length - pending.tokens.length;
      const rowLogits = out.logits.subarray(row * kept * vocab, (row + 1) * kept * vocab);
      const result: StepResult = {
        lastLogits: rowLogits.subarray((kept - 1) * vocab),
        cache: { decoder: out.present, encoder: [pending.encoder], pastLength: pending.tokens.length, rows: [row], offset: pad },
      };
      if (pending.logitsFrom !== undefined) {
        result.allLogits = rowLogits.subarray((pad + Math.min(pending.logitsFrom, pending.tokens.length - 1) - logitsFrom) * vocab);
      }
      return result;
    });
  }

  private async runBatch(batch: PendingStep[]): Promise<StepResult[]> {
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
      batch.every(
        (p, i) => p.cache.decoder === last.present && encoders[i] === last.encoders[i] && rowsOf(p.cache).every((row) => row === next++),
      );
    // One decode alone, its cache not a view of an earlier batch: its tensors are the past as they are.
    const alone =
      batch.length === 1 && batch[0].cache.rows === undefined && !batch[0].cache.offset && batch[0].cache.decoder[0].dims[2] === longest;
    const past = continues ? last.present : alone ? batch[0].cache.decoder : this.gatherPast(batch, longest, total);
    const encoder = continues ? last.encoder : this.gatherEncoders(encoders, rowCounts, total);
    const crossBias = continues ? last.crossBias : this.crossBias(encoders, rowCounts, total, encoder.dims[1]);
    const pastLength = past[0].dims[2];
    const starts = batch.map((p) => (continues ? (p.cache.offset ?? 0) : longest - p.cache.pastLength));

    const positions = new BigInt64Array(total);
    const tokens = new BigInt64Array(total);
    const evenLengths = starts.every((s) => s === 0);
    const selfBias = evenLengths ? zeroBias() : new ort.Tensor(
      'float32', new Float32Array(total * heads * (pastLength + 1)), [total * heads, 1, pastLength + 1],
    );
    let row = 0;
    batch.forEach((pending, i) => {
      for (let r = 0; r < rowCounts[i]; r++, row++) {
        positions[row] = BigInt(lengths[i]);
        tokens[row] = BigInt(pending.tokens[r]);
        if (!evenLengths && starts[i] > 0) {
          const data = selfBias.data as Float32Array;
          for (let h = 0; h < heads; h++) data.fill(
            MASKED, (row * heads + h) * (pastLength + 1), (row * heads + h) * (pastLength + 1) + starts[i],
          );
        }
      }
    });
    const out = await this.run({
      tokens,
      length: 1,
      logitsFrom: 0,
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
      return {
        lastLogits, cache: { decoder: out.present, encoder: pending.cache.encoder, pastLength: lengths[i] + 1, rows, offset: starts[i] },
      };
    });
  }

  /** Each decode's cache rows, padded in front to the longest, as one tensor per layer. */
  private gatherPast(batch: PendingStep[], longest: number, total: number): ort.Tensor[] {
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

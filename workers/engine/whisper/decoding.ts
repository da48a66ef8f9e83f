/**
 * Token decoding for one 30 s window, after openai/whisper's decoding.py: a prompt of
 * [<|startofprev|> previous text…] <|startoftranscript|> <|lang|> <|transcribe|> (or <|translate|>: English text
 * from speech in any language, Whisper's own translation task), then one token at a time
 * with the decoder's key/value cache, through the same logit rules (suppressed tokens, blank start,
 * paired and non-decreasing timestamps), greedy or beam search at temperature 0 and best-of-N sampling
 * above it. `decodeWithFallback` retries at higher temperatures when the text is repetitive (gzip
 * compression ratio) or improbable (average log-probability), as the reference transcribe() does.
 */
import { deflateSync } from 'node:zlib';
import type * as ort from 'onnxruntime-node';
import { RowBuffers, WhisperOnnx, type DecoderOutput, type KvCache } from './model.js';
import type { WhisperTokenizer } from './tokenizer.js';

/** Whisper's two tasks: text in the spoken language, or its translation into English. */
export type DecodeTask = 'transcribe' | 'translate';

export interface DecodeOptions {
  language: string;
  /** The task token after the language (default 'transcribe'). */
  task?: DecodeTask;
  beamSize: number;
  /** Candidates sampled per temperature above 0. */
  bestOf: number;
  /** Text tokens of earlier windows, to condition on (the tail is kept; may be empty). */
  previousTokens: number[];
  /** Largest timestamp allowed at the very start (seconds), as the reference's max_initial_timestamp. */
  maxInitialTimestampS: number;
  /**
   * Text tokens the transcript must begin with (the reference's `prefix`): they are fed in one decoder call
   * and only what follows them is decoded. A live transcriber forces the text it already committed this way.
   */
  prefix?: number[];
  /** At most this many tokens are decoded (default: as many as the model's context leaves, up to 224). */
  maxNewTokens?: number;
  /** Decode text only, after <|notimestamps|> (no segment timestamps; word timings still come from alignment). */
  withoutTimestamps?: boolean;
  /**
   * Give up on a hypothesis as soon as its text is a repetition loop (compression ratio over the
   * threshold): the fallback will retry it hotter anyway, and a loop otherwise runs to 224 tokens.
   */
  stopOnRepetition?: boolean;
  signal?: AbortSignal;
}

export interface DecodeResult {
  /** Sampled tokens: text and timestamp ids, without the prompt, the prefix and <|endoftext|>. */
  tokens: number[];
  text: string;
  avgLogprob: number;
  noSpeechProb: number;
  compressionRatio: number;
  temperature: number;
  /** The prompt the tokens follow (word alignment replays it). */
  sotSequence: number[];
}

export const FALLBACK_TEMPERATURES = [0, 0.2, 0.4, 0.6, 0.8, 1.0];
const COMPRESSION_RATIO_THRESHOLD = 2.4;
const LOGPROB_THRESHOLD = -1.0;
const NO_SPEECH_THRESHOLD = 0.6;

export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}

/** A small seeded generator so sampling at temperature > 0 is reproducible run to run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Terms this far below the largest are left out of a log-sum-exp: a whole vocabulary of them (50k × e^-30 ≈ 5e-9)
 * changes the sum by less than float32 can tell, and the exp of every term was what these loops cost.
 */
const NEGLIGIBLE_LOG = 30;

/** exp(-d) by steps of 1/64 octave: 2^(-m/64) for every m that d ≤ NEGLIGIBLE_LOG needs. */
const EXP_STEPS = 64;
const STEPS_PER_NAT = Math.LOG2E * EXP_STEPS;
const NATS_PER_STEP = Math.LN2 / EXP_STEPS;
const POWERS = Float64Array.from({ length: Math.ceil(NEGLIGIBLE_LOG * STEPS_PER_NAT) + 2 }, (_, m) => 2 ** (-m / EXP_STEPS));

/**
 * exp(-d) for 0 ≤ d ≤ NEGLIGIBLE_LOG, within 1.3e-12 of Math.exp (relative): the table's 2^(-m/64) times the remainder's
 * 4th-degree Taylor polynomial (the remainder is under ln 2 / 64). A third of Math.exp's time, which each decoder step
 * spent once per vocabulary entry (51,865) and hypothesis: ~0.6 of whisper-base beam 5's 6.7 CPU s on the lecture.
 */
export function expNegative(d: number): number {
  const steps = d * STEPS_PER_NAT;
  const m = steps | 0;
  const r = (steps - m) * NATS_PER_STEP;
  return POWERS[m]! * (1 - r * (1 - r * (0.5 - r * (1 / 6 - r / 24))));
}

/** log Σ exp(row[i]) for i in [from, to) (-Infinity when every term is). */
export function logSumExp(row: Float32Array, from = 0, to = row.length): number {
  let max = -Infinity;
  for (let i = from; i < to; i++) if (row[i] > max) max = row[i];
  if (max === -Infinity) return -Infinity;
  const floor = max - NEGLIGIBLE_LOG;
  let sum = 0;
  for (let i = from; i < to; i++) {
    const value = row[i];
    if (value > floor) sum += expNegative(max - value);
  }
  return max + Math.log(sum);
}

function logSoftmaxInPlace(row: Float32Array): void {
  const logSum = logSumExp(row);
  for (let i = 0; i < row.length; i++) row[i] -= logSum;
}

/**
 * One window's encoder output plus the decoder states of prompt prefixes already run. The decoder's
 * first call (no cache) projects all 1500 encoder frames into cross-attention keys/values, which costs as
 * much as ~15 later steps; language detection, each fallback temperature and the no-speech probability
 * all start from the same `<|startoftranscript|>` prefix, so that call happens once per window.
 */
export class WindowDecoder {
  private readonly prefixes = new Map<string, Promise<DecoderOutput>>();
  constructor(
    readonly model: WhisperOnnx,
    readonly encoderHidden: ort.Tensor,
  ) {}

  /**
   * Decoder output after `tokens` (a first call), shared by every caller asking for the same prefix;
   * `logitsFrom` keeps the logits of every position from there on too (`allLogits`).
   */
  prefix(tokens: number[], logitsFrom?: number): Promise<DecoderOutput> {
    const key = `${tokens.join(',')}${logitsFrom !== undefined ? `+from${logitsFrom}` : ''}`;
    let result = this.prefixes.get(key);
    if (!result) {
      result = this.model.decode([tokens], this.encoderHidden, null, { allLogits: logitsFrom !== undefined, logitsFrom });
      this.prefixes.set(key, result);
    }
    return result;
  }
}

/** Probability of each language, from the decoder's first step after <|startoftranscript|>. */
export async function detectLanguage(
  tokenizer: WhisperTokenizer,
  window: WindowDecoder,
): Promise<{ language: string; probability: number; probabilities: Map<string, number> }> {
  const { lastLogits } = await window.prefix([tokenizer.special.startOfTranscript]);
  const entries = [...tokenizer.languageTokens];
  let max = -Infinity;
  for (const [, id] of entries) max = Math.max(max, lastLogits[id]);
  let sum = 0;
  const weights = entries.map(([code, id]) => {
    const w = Math.exp(lastLogits[id] - max);
    sum += w;
    return [code, w] as const;
  });
  const probabilities = new Map(weights.map(([code, w]) => [code, w / sum]));
  let best = entries[0][0];
  for (const [code, p] of probabilities) if (p > probabilities.get(best)!) best = code;
  return { language: best, probability: probabilities.get(best)!, probabilities };
}

/** The logit rules every hypothesis goes through before a token is chosen (whisper's LogitFilters). */
class LogitRules {
  private readonly suppressed: Int32Array;
  constructor(
    private readonly tokenizer: WhisperTokenizer,
    private readonly maxInitialTimestampIndex: number,
    /** Text only: every timestamp token is suppressed and the timestamp rules are off. */
    private readonly withoutTimestamps = false,
  ) {
    const s = tokenizer.special;
    const ids = new Set<number>([
      ...tokenizer.suppressTokens,
      s.transcribe, s.translate, s.startOfTranscript, s.startOfPrev, s.startOfLm, s.noSpeech, s.noTimestamps,
    ]);
    this.suppressed = Int32Array.from(ids);
  }

  /**
   * Mutates `logits` (one row) for a hypothesis whose sampled tokens so far are `sampled`. Returns the
   * log-sum-exp of the result, so the caller gets log-probabilities without another pass over the vocabulary.
   */
  apply(logits: Float32Array, sampled: readonly number[]): number {
    const { endOfText, timestampBegin } = this.tokenizer.special;
    const vocab = logits.length;
    for (const id of this.suppressed) if (id < vocab) logits[id] = -Infinity;
    if (sampled.length === 0) for (const id of this.tokenizer.beginSuppressTokens) logits[id] = -Infinity;
    if (this.withoutTimestamps) {
      logits.fill(-Infinity, timestampBegin);
      return logSumExp(logits, 0, timestampBegin);
    }

    // Timestamps come in pairs (end of one segment, start of the next) and never go back in time.
    const last = sampled.length >= 1 ? sampled[sampled.length - 1] : -1;
    const lastWasTimestamp = last >= timestampBegin;
    const penultimateWasTimestamp = sampled.length < 2 || sampled[sampled.length - 2] >= timestampBegin;
    if (lastWasTimestamp) {
      if (penultimateWasTimestamp) logits.fill(-Infinity, timestampBegin);
      else logits.fill(-Infinity, 0, endOfText);
    }
    let lastTimestamp = -1;
    for (let i = sampled.length - 1; i >= 0; i--) {
      if (sampled[i] >= timestampBegin) {
        lastTimestamp = sampled[i];
        break;
      }
    }
    if (lastTimestamp >= 0) {
      // A closing timestamp may equal the opening one's successor; otherwise segments must have length.
      const lowest = lastWasTimestamp && !penultimateWasTimestamp ? lastTimestamp : lastTimestamp + 1;
      logits.fill(-Infinity, timestampBegin, Math.min(lowest, vocab));
    }
    if (sampled.length === 0) {
      logits.fill(-Infinity, 0, timestampBegin);
      logits.fill(-Infinity, Math.min(vocab, timestampBegin + this.maxInitialTimestampIndex + 1));
    }
    // When all timestamps together are likelier than any single text token, a timestamp it is.
    let max = -Infinity;
    for (let i = 0; i < vocab; i++) if (logits[i] > max) max = logits[i];
    if (max === -Infinity) return -Infinity;
    const floor = max - NEGLIGIBLE_LOG;
    let textSum = 0;
    let maxText = -Infinity;
    for (let i = 0; i < timestampBegin; i++) {
      const value = logits[i];
      if (value > maxText) maxText = value;
      if (value > floor) textSum += expNegative(max - value);
    }
    let timestampSum = 0;
    for (let i = timestampBegin; i < vocab; i++) if (logits[i] > floor) timestampSum += expNegative(max - logits[i]);
    const logSum = max + Math.log(textSum + timestampSum);
    const timestampLogprob = Math.log(timestampSum) + max - logSum;
    if (timestampLogprob > maxText - logSum) {
      logits.fill(-Infinity, 0, timestampBegin);
      return max + Math.log(timestampSum);
    }
    return logSum;
  }
}

interface Hypothesis {
  tokens: number[];
  sumLogprob: number;
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

function sampleFrom(row: Float32Array, temperature: number, random: () => number): number {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let sum = 0;
  const weights = new Float64Array(row.length);
  for (let i = 0; i < row.length; i++) {
    weights[i] = row[i] === -Infinity ? 0 : Math.exp((row[i] - max) / temperature);
    sum += weights[i];
  }
  let target = random() * sum;
  for (let i = 0; i < row.length; i++) {
    target -= weights[i];
    if (target <= 0 && weights[i] > 0) return i;
  }
  return argmax(row);
}

function buildSotSequence(tokenizer: WhisperTokenizer, language: string, task: DecodeTask = 'transcribe'): number[] {
  const languageToken = tokenizer.languageTokens.get(language);
  if (languageToken === undefined) throw new Error(`The model does not know language '${language}'`);
  return [
    tokenizer.special.startOfTranscript, languageToken, task === 'translate' ? tokenizer.special.translate : tokenizer.special.transcribe,
  ];
}

/**
 * A decode's search from step to step (decodeWindow): the live hypotheses (one per decoder row) and the finished
 * ones. Apart from decodeWindow so that each step's choice is compiled once as a function of its own: inlined into
 * the async decodeWindow, V8 compiled that whole function afresh after every deoptimisation (13 times on the
 * lecture, up to 190 ms each: ~1.4 CPU s of whisper-base beam 5's ~14).
 */
class Search {
  /** Beam search starts from one live hypothesis; sampling rows are independent from the start. */
  live: Hypothesis[];
  private readonly finished: Hypothesis[] = [];

  constructor(
    private readonly rules: LogitRules,
    private readonly tokenizer: WhisperTokenizer,
    private readonly settings: { rows: number; beam: boolean; temperature: number; random: () => number; stopOnRepetition: boolean },
  ) {
    this.live = Array.from({ length: settings.beam ? 1 : settings.rows }, () => ({ tokens: [], sumLogprob: 0 }));
  }

  /**
   * Extends the live hypotheses by the step's logits (one row each, mutated by the logit rules): the rows that go on,
   * each by its parent's row, or null when the search is done.
   */
  advance(logitsBatch: Float32Array, step: number): number[] | null {
    const { live, finished } = this;
    const { rows, beam } = this.settings;
    const { endOfText } = this.tokenizer.special;
    const vocab = this.tokenizer.vocabSize;
    const candidates: Candidate[] = [];
    for (let r = 0; r < live.length; r++) {
      const logits = logitsBatch.subarray(r * vocab, (r + 1) * vocab);
      const logSum = this.rules.apply(logits, live[r].tokens);
      if (beam) {
        for (const { token, logprob } of bestContinuations(logits, logSum, rows + 1)) {
          candidates.push({ parent: r, token, sumLogprob: live[r].sumLogprob + logprob });
        }
      } else {
        const { temperature, random } = this.settings;
        const token = temperature > 0 ? sampleFrom(logits, temperature, random) : argmax(logits);
        candidates.push({ parent: r, token, sumLogprob: live[r].sumLogprob + logits[token] - logSum });
      }
    }
    if (beam) candidates.sort((a, b) => b.sumLogprob - a.sumLogprob);
    const nextLive: Hypothesis[] = [];
    const parents: number[] = [];
    const newlyFinished: Hypothesis[] = [];
    for (const candidate of candidates) {
      const hypothesis = { tokens: [...live[candidate.parent].tokens, candidate.token], sumLogprob: candidate.sumLogprob };
      if (candidate.token === endOfText) {
        hypothesis.tokens.pop();
        newlyFinished.push(hypothesis);
      } else {
        nextLive.push(hypothesis);
        parents.push(candidate.parent);
        // The reference's BeamSearchDecoder looks no further once the beam is full: an end of text ranked below
        // the beam's last live hypothesis does not finish. Counting those too filled the finished list with
        // weak early endings and stopped the search before the whole utterance was read (lost last words).
        if (beam && nextLive.length >= rows) break;
      }
    }
    // Best first, up to the beam's width (patience 1), as the reference keeps its finished sequences.
    for (const hypothesis of beam ? newlyFinished.sort((a, b) => b.sumLogprob - a.sumLogprob) : newlyFinished) {
      if (beam && finished.length >= rows) break;
      finished.push(hypothesis);
    }
    if (beam && finished.length >= rows) return null;
    if (this.settings.stopOnRepetition && step >= 40 && step % 10 === 0) {
      for (let i = nextLive.length - 1; i >= 0; i--) {
        if (compressionRatio(this.tokenizer.decode(nextLive[i].tokens)) > COMPRESSION_RATIO_THRESHOLD) {
          finished.push(nextLive[i]);
          nextLive.splice(i, 1);
          parents.splice(i, 1);
        }
      }
    }
    this.live = nextLive;
    return nextLive.length > 0 ? parents : null;
  }

  /** The best hypothesis once the search ends (done, or out of length). */
  best(): Hypothesis {
    const { finished } = this;
    const { rows, beam } = this.settings;
    // Ran out of length (or every row ended): unfinished hypotheses count while the beam has too few finished ones.
    for (const hypothesis of beam ? [...this.live].sort((a, b) => b.sumLogprob - a.sumLogprob) : this.live) {
      if (beam && finished.length >= rows) break;
      finished.push(hypothesis);
    }
    // Length-normalised score, as the reference's MaximumLikelihoodRanker without a length penalty.
    const score = (h: Hypothesis) => h.sumLogprob / Math.max(1, h.tokens.length + 1);
    return finished.reduce((a, b) => (score(b) > score(a) ? b : a));
  }
}

interface Candidate {
  parent: number;
  token: number;
  sumLogprob: number;
}

/**
 * The `count` best continuations of one row, as the reference's BeamSearchDecoder ranks them, in one pass: each
 * log-probability is rounded to float32 as a row of them would hold it, so ties rank as they did.
 */
function bestContinuations(logits: Float32Array, logSum: number, count: number): { token: number; logprob: number }[] {
  const top: { token: number; logprob: number; value: number }[] = [];
  // The rounded log-probability never falls as the logit rises, so a logit at or below the last kept one's cannot
  // rank above it: one comparison per entry, the rounding only for those that may enter.
  let least = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    const value = logits[i];
    if (value <= least) continue;
    const logprob = Math.fround(value - logSum);
    if (top.length === count && !(logprob > top[count - 1].logprob)) continue;
    if (top.length === count) top.pop();
    let at = top.length;
    while (at > 0 && logprob > top[at - 1].logprob) at--;
    top.splice(at, 0, { token: i, logprob, value });
    if (top.length === count) least = top[count - 1].value;
  }
  return top;
}

/** One decoding pass at one temperature (several rows for beam search and best-of sampling). */
export async function decodeWindow(
  tokenizer: WhisperTokenizer,
  window: WindowDecoder,
  temperature: number,
  options: DecodeOptions,
): Promise<DecodeResult> {
  const { model, encoderHidden } = window;
  const { endOfText, startOfPrev, noSpeech, startOfTranscript } = tokenizer.special;
  const sotSequence = buildSotSequence(tokenizer, options.language, options.task);
  const maxPromptTokens = Math.floor(model.config.maxTargetPositions / 2) - 1;
  const previous = options.previousTokens.filter((t) => t < endOfText).slice(-maxPromptTokens);
  const prompt = previous.length ? [startOfPrev, ...previous, ...sotSequence] : [...sotSequence];
  const prefix = (options.prefix ?? []).filter((t) => t < endOfText);
  // After the SOT prefix: language and task, <|notimestamps|> for text only, then the forced text.
  const forced = [...sotSequence.slice(1), ...(options.withoutTimestamps ? [tokenizer.special.noTimestamps] : []), ...prefix];
  const maxNewTokens = Math.min(
    options.maxNewTokens ?? Infinity,
    Math.floor(model.config.maxTargetPositions / 2),
    model.config.maxTargetPositions - prompt.length - forced.length + 2,
  );
  const rules = new LogitRules(tokenizer, Math.round(options.maxInitialTimestampS / 0.02), options.withoutTimestamps);
  const rows = temperature > 0 ? Math.max(1, options.bestOf) : Math.max(1, options.beamSize);
  const beam = temperature === 0 && rows > 1;
  const random = seededRandom(0x5eed + Math.round(temperature * 1000));

  // The prompt up to <|startoftranscript|> is a shared prefix (one first call per window and prompt); the
  // language and task tokens follow as cached steps. The no-speech probability is read at the SOT position.
  // A forced text prefix goes into the first call instead: the export's cached branch has no causal mask
  // within the new tokens, so only one token at a time may follow a cache.
  const sotPrefix = prompt.slice(0, prompt.length - sotSequence.length + 1);
  if (sotPrefix[sotPrefix.length - 1] !== startOfTranscript) throw new Error('prompt prefix must end with <|startoftranscript|>');
  const withForced = forced.length > sotSequence.length - 1;
  // With a forced text the no-speech probability is read at the SOT position of that one call: logits from there on
  // only (the previous text's positions would cost a vocabulary-sized row each, to be thrown away).
  const sotIndex = sotPrefix.length - 1;
  let state = await window.prefix(withForced ? [...sotPrefix, ...forced] : sotPrefix, withForced ? sotIndex : undefined);
  const vocab = tokenizer.vocabSize;
  const sotLogprobs = withForced ? state.allLogits!.slice(0, vocab) : Float32Array.from(state.lastLogits);
  logSoftmaxInPlace(sotLogprobs);
  const noSpeechProb = Math.exp(sotLogprobs[noSpeech]);
  if (!withForced) for (const token of forced) state = await model.decode([[token]], encoderHidden, state.cache);

  // The first call's cache may be another temperature's too: its rows are copied into new arrays, later steps' into
  // this decode's own buffers.
  let cache: KvCache = WhisperOnnx.reorderCache(state.cache, new Array(rows).fill(0), true);
  const rowBuffers = new RowBuffers();
  let logitsBatch: Float32Array = new Float32Array(rows * vocab);
  for (let r = 0; r < rows; r++) logitsBatch.set(state.lastLogits, r * vocab);
  const search = new Search(rules, tokenizer, { rows, beam, temperature, random, stopOnRepetition: options.stopOnRepetition === true });
  for (let step = 0; step < maxNewTokens; step++) {
    options.signal?.throwIfAborted();
    const parents = search.advance(logitsBatch, step);
    if (!parents) break;
    cache = WhisperOnnx.reorderCache(cache, parents, true, rowBuffers);
    const out = await model.decode(search.live.map((h) => [h.tokens[h.tokens.length - 1]]), encoderHidden, cache);
    cache = out.cache;
    logitsBatch = out.lastLogits;
  }
  const best = search.best();
  const text = tokenizer.decode(best.tokens);
  return {
    tokens: best.tokens,
    text,
    avgLogprob: best.sumLogprob / (best.tokens.length + 1),
    noSpeechProb,
    compressionRatio: compressionRatio(text),
    temperature,
    sotSequence,
  };
}

/**
 * Greedy decoding of several windows in lockstep, one decoder call per step for all of them: on a CPU a
 * step for 3 rows costs little more than a step for one, so the windows of an encoder batch finish in the
 * time of the longest instead of the sum. No previous-text prompt (each window stands alone, as in
 * faster-whisper's batched pipeline), so every row starts from the same prompt shape.
 */
export async function decodeGreedyBatch(
  model: WhisperOnnx,
  tokenizer: WhisperTokenizer,
  encoderHidden: ort.Tensor,
  language: string,
  options: Pick<DecodeOptions, 'maxInitialTimestampS' | 'signal' | 'task'>,
): Promise<DecodeResult[]> {
  const { endOfText, noSpeech } = tokenizer.special;
  const windows = encoderHidden.dims[0];
  const sotSequence = buildSotSequence(tokenizer, language, options.task);
  const rules = new LogitRules(tokenizer, Math.round(options.maxInitialTimestampS / 0.02));
  const maxNewTokens = Math.floor(model.config.maxTargetPositions / 2);
  const first = await model.decode(Array.from({ length: windows }, () => sotSequence), encoderHidden, null, { allLogits: true });
  const vocab = first.lastLogits.length / windows;
  const noSpeechProbs: number[] = [];
  for (let w = 0; w < windows; w++) {
    // Logits at <|startoftranscript|> (position 0 of row w) carry the no-speech probability.
    const sot = Float32Array.from(first.allLogits!.subarray(w * sotSequence.length * vocab, (w * sotSequence.length + 1) * vocab));
    logSoftmaxInPlace(sot);
    noSpeechProbs.push(Math.exp(sot[noSpeech]));
  }
  const hypotheses: Hypothesis[] = Array.from({ length: windows }, () => ({ tokens: [], sumLogprob: 0 }));
  let live = hypotheses.map((_, w) => w); // window index of each row still decoding
  let cache = first.cache;
  const rowBuffers = new RowBuffers();
  let logitsBatch: Float32Array = first.lastLogits;
  for (let step = 0; step < maxNewTokens && live.length > 0; step++) {
    options.signal?.throwIfAborted();
    const stillLive: number[] = [];
    const keptRows: number[] = [];
    live.forEach((w, row) => {
      const logits = logitsBatch.subarray(row * vocab, (row + 1) * vocab);
      const hypothesis = hypotheses[w];
      const logSum = rules.apply(logits, hypothesis.tokens);
      const token = argmax(logits);
      hypothesis.sumLogprob += logits[token] - logSum;
      if (token === endOfText) return;
      hypothesis.tokens.push(token);
      // A repetition loop is left for the per-window fallback to redo hotter.
      if (step >= 40 && step % 10 === 0 && compressionRatio(tokenizer.decode(hypothesis.tokens)) > COMPRESSION_RATIO_THRESHOLD) return;
      stillLive.push(w);
      keptRows.push(row);
    });
    if (stillLive.length === 0) break;
    cache = WhisperOnnx.reorderCache(cache, keptRows, false, rowBuffers);
    live = stillLive;
    const out = await model.decode(live.map((w) => [hypotheses[w].tokens[hypotheses[w].tokens.length - 1]]), encoderHidden, cache);
    cache = out.cache;
    logitsBatch = out.lastLogits;
  }
  return hypotheses.map((h, w) => {
    const text = tokenizer.decode(h.tokens);
    return {
      tokens: h.tokens,
      text,
      avgLogprob: h.sumLogprob / (h.tokens.length + 1),
      noSpeechProb: noSpeechProbs[w],
      compressionRatio: compressionRatio(text),
      temperature: 0,
      sotSequence,
    };
  });
}

/** Whether a result is silence the model was right to leave empty (then no fallback is needed). */
export function isSilence(result: DecodeResult): boolean {
  return result.noSpeechProb > NO_SPEECH_THRESHOLD && result.avgLogprob < LOGPROB_THRESHOLD;
}

/** Good enough to keep: not a repetition loop, not improbable — or silence the model rightly left empty. */
function isAcceptable(result: DecodeResult): boolean {
  const tooRepetitive = result.compressionRatio > COMPRESSION_RATIO_THRESHOLD;
  const tooImprobable = result.avgLogprob < LOGPROB_THRESHOLD;
  return isSilence(result) || (!tooRepetitive && !tooImprobable);
}

/**
 * Decodes at temperature 0 and, while the output looks like a repetition loop or nonsense, again at
 * each higher temperature. Returns the first acceptable result, else the least bad one.
 */
export async function decodeWithFallback(
  tokenizer: WhisperTokenizer,
  window: WindowDecoder,
  options: DecodeOptions,
  temperatures = FALLBACK_TEMPERATURES,
  /** The temperature-0 result when it was already decoded (batched); fallback starts after it. */
  firstAttempt?: DecodeResult,
): Promise<DecodeResult> {
  const attempts: DecodeResult[] = [];
  if (firstAttempt) {
    attempts.push(firstAttempt);
    if (isAcceptable(firstAttempt)) return firstAttempt;
    temperatures = temperatures.filter((t) => t > firstAttempt.temperature);
  }
  for (const [attempt, temperature] of temperatures.entries()) {
    const result = await decodeWindow(tokenizer, window, temperature, {
      ...options,
      stopOnRepetition: attempt < temperatures.length - 1,
      // Conditioning on earlier text feeds loops; the reference drops it once it has to fall back.
      previousTokens: temperature > 0.5 ? [] : options.previousTokens,
    });
    attempts.push(result);
    if (isAcceptable(result)) return result;
  }
  const acceptable = attempts.filter((a) => a.compressionRatio <= COMPRESSION_RATIO_THRESHOLD);
  const pool = acceptable.length ? acceptable : attempts;
  return pool.reduce((a, b) => (b.avgLogprob > a.avgLogprob ? b : a));
}

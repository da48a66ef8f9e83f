/**
 * Word timings by dynamic time warping over the decoder's cross-attention, as openai/whisper's timing.py:
 * replay the window's text tokens through the decoder in one pass, take the attention of the model's
 * alignment heads over the audio frames, normalise it, median-filter it in time, and find the cheapest
 * monotonic path from the first token to the last. Where the path moves to a new token is when that token
 * starts. The same pass gives each token's probability, which becomes the word's `prob`.
 */
import type * as ort from 'onnxruntime-node';
import { logSumExp } from './decoding.js';
import type { WhisperOnnx } from './model.js';
import type { WhisperTokenizer } from './tokenizer.js';

/** Encoder positions per second: 1500 over 30 s. */
const FRAMES_PER_SECOND = 50;
const MEDIAN_FILTER_WIDTH = 7;
const PREPEND_PUNCTUATION = `"'“¿([{-`;
const APPEND_PUNCTUATION = `"'.。,，!！?？:：”)]}、`;
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'.split(''));
/** Scripts written without spaces between words: split on characters instead. */
const NO_SPACE_LANGUAGES = new Set(['zh', 'ja', 'th', 'lo', 'my', 'yue']);

export interface AlignedWord {
  text: string;
  tokens: number[];
  /** Seconds from the start of the window. */
  start: number;
  end: number;
  prob: number;
}

/** Splits tokens into pieces that each decode to whole characters (multi-byte UTF-8 spans tokens). */
function splitOnCharacters(tokenizer: WhisperTokenizer, tokens: number[]): { text: string; tokens: number[] }[] {
  const pieces: { text: string; tokens: number[] }[] = [];
  let current: number[] = [];
  for (const token of tokens) {
    current.push(token);
    const text = tokenizer.decode(current);
    if (!text.includes('\ufffd') || token >= tokenizer.special.endOfText) {
      pieces.push({ text, tokens: current });
      current = [];
    }
  }
  if (current.length) pieces.push({ text: tokenizer.decode(current), tokens: current });
  return pieces;
}

/** Words as whisper splits them: a new word at each leading space, punctuation mark or special token. */
export function splitWords(tokenizer: WhisperTokenizer, tokens: number[], language: string): { text: string; tokens: number[] }[] {
  const pieces = splitOnCharacters(tokenizer, tokens);
  if (NO_SPACE_LANGUAGES.has(language)) return pieces;
  const words: { text: string; tokens: number[] }[] = [];
  for (const piece of pieces) {
    const special = piece.tokens[0] >= tokenizer.special.endOfText;
    const startsWord = piece.text.startsWith(' ');
    const punctuation = PUNCTUATION.has(piece.text.trim());
    if (special || startsWord || punctuation || words.length === 0) words.push({ text: piece.text, tokens: [...piece.tokens] });
    else {
      const last = words[words.length - 1];
      last.text += piece.text;
      last.tokens.push(...piece.tokens);
    }
  }
  return words;
}

/** Median filter along each row (reflect padding at the ends, as whisper's median_filter). */
function medianFilterRows(matrix: Float32Array, rows: number, cols: number, width: number): void {
  const half = Math.floor(width / 2);
  if (cols <= half) return;
  const window = new Float32Array(width);
  const row = new Float32Array(cols);
  for (let r = 0; r < rows; r++) {
    row.set(matrix.subarray(r * cols, (r + 1) * cols));
    for (let c = 0; c < cols; c++) {
      // Insertion sort: a handful of values, where a typed array's sort() costs a call into the runtime each time.
      for (let k = -half; k <= half; k++) {
        let index = c + k;
        if (index < 0) index = -index;
        else if (index >= cols) index = 2 * (cols - 1) - index;
        const value = row[index];
        let at = k + half;
        while (at > 0 && window[at - 1] > value) {
          window[at] = window[at - 1];
          at--;
        }
        window[at] = value;
      }
      matrix[r * cols + c] = window[half];
    }
  }
}

/** Cheapest monotonic path through `cost` ([rows][cols]); returns (row, col) pairs from the start. */
export function dynamicTimeWarping(cost: Float32Array, rows: number, cols: number): { rowIndex: number[]; colIndex: number[] } {
  const total = new Float64Array((rows + 1) * (cols + 1)).fill(Infinity);
  const trace = new Int8Array((rows + 1) * (cols + 1)).fill(-1);
  const at = (i: number, j: number) => i * (cols + 1) + j;
  total[0] = 0;
  for (let j = 1; j <= cols; j++) {
    for (let i = 1; i <= rows; i++) {
      const diagonal = total[at(i - 1, j - 1)];
      const up = total[at(i - 1, j)];
      const left = total[at(i, j - 1)];
      let best: number;
      let step: number;
      if (diagonal < up && diagonal < left) [best, step] = [diagonal, 0];
      else if (up < diagonal && up < left) [best, step] = [up, 1];
      else [best, step] = [left, 2];
      total[at(i, j)] = cost[(i - 1) * cols + (j - 1)] + best;
      trace[at(i, j)] = step;
    }
  }
  for (let j = 0; j <= cols; j++) trace[at(0, j)] = 2;
  for (let i = 0; i <= rows; i++) trace[at(i, 0)] = 1;
  const rowIndex: number[] = [];
  const colIndex: number[] = [];
  let i = rows;
  let j = cols;
  while (i > 0 || j > 0) {
    rowIndex.push(i - 1);
    colIndex.push(j - 1);
    const step = trace[at(i, j)];
    if (step === 0) {
      i--;
      j--;
    } else if (step === 1) i--;
    else j--;
  }
  return { rowIndex: rowIndex.reverse(), colIndex: colIndex.reverse() };
}

function mergePunctuation(words: AlignedWord[]): AlignedWord[] {
  for (let i = words.length - 2, j = words.length - 1; i >= 0; i--) {
    const previous = words[i];
    const following = words[j];
    if (previous.text.startsWith(' ') && PREPEND_PUNCTUATION.includes(previous.text.trim()) && previous.text.trim()) {
      following.text = previous.text + following.text;
      following.tokens = [...previous.tokens, ...following.tokens];
      previous.text = '';
      previous.tokens = [];
    } else j = i;
  }
  for (let i = 0, j = 1; j < words.length; j++) {
    const previous = words[i];
    const following = words[j];
    if (!previous.text.endsWith(' ') && following.text && APPEND_PUNCTUATION.includes(following.text)) {
      previous.text += following.text;
      previous.tokens = [...previous.tokens, ...following.tokens];
      following.text = '';
      following.tokens = [];
    } else i = j;
  }
  return words.filter((w) => w.text !== '');
}

/**
 * Aligns `textTokens` (a window's text, timestamps removed) with the audio. `numFrames` is the window's
 * real length in mel frames (100 per second); attention past it is padding and ignored.
 */
export async function alignWords(
  model: WhisperOnnx,
  tokenizer: WhisperTokenizer,
  encoderHidden: ort.Tensor,
  sotSequence: number[],
  textTokens: number[],
  numFrames: number,
  language: string,
  /**
   * The first text token whose probability the caller reads (a live pass reads only the words after its forced
   * prefix): the logits of earlier positions are neither computed nor copied out, and a word wholly before it gets
   * `prob` 0.
   */
  probabilitiesFrom = 0,
): Promise<AlignedWord[]> {
  if (textTokens.length === 0) return [];
  const probsFrom = Math.min(Math.max(0, probabilitiesFrom), textTokens.length - 1);
  const { endOfText, noTimestamps } = tokenizer.special;
  const tokens = [...sotSequence, noTimestamps, ...textTokens, endOfText];
  const heads = tokenizer.alignmentHeads.length
    ? tokenizer.alignmentHeads
    : // No alignment heads in the config: the reference's fallback is every head of the upper half.
      Array.from({ length: model.config.decoderLayers }, (_, l) => l)
        .filter((l) => l >= model.config.decoderLayers / 2)
        .flatMap((l) => Array.from({ length: model.config.decoderHeads }, (_, h): [number, number] => [l, h]));
  const layers = [...new Set(heads.map(([layer]) => layer))];
  const logitsFrom = sotSequence.length + probsFrom;
  const out = await model.decode([tokens], encoderHidden, null, {
    crossAttentionLayers: layers, allLogits: true, logitsFrom, keepCache: false,
  });

  // Token probabilities among text tokens, at the positions that predicted each text token (NaN before probsFrom).
  const vocab = out.allLogits!.length / (tokens.length - logitsFrom);
  const probs: number[] = new Array<number>(probsFrom).fill(NaN);
  for (let i = probsFrom; i < textTokens.length; i++) {
    const row = out.allLogits!.subarray((i - probsFrom) * vocab, (i - probsFrom) * vocab + endOfText);
    probs.push(Math.exp(row[textTokens[i]] - logSumExp(row)));
  }

  // Rows from <|notimestamps|> through the last text token; columns = encoder frames with real audio.
  const rowFrom = sotSequence.length;
  const rows = textTokens.length + 1;
  const cols = Math.max(1, Math.min(1500, Math.floor(numFrames / 2)));
  const matrix = new Float32Array(rows * cols);
  const headMatrix = new Float32Array(rows * cols);
  for (const [layer, head] of heads) {
    const attention = out.crossAttentions!.get(layer)!;
    const [, , seq, frames] = attention.dims;
    const data = attention.data as Float32Array;
    for (let r = 0; r < rows; r++) {
      const offset = (head * seq + rowFrom + r) * frames;
      // The export's attention is softmaxed over all 1500 frames; renormalise over the real audio only.
      let sum = 0;
      for (let c = 0; c < cols; c++) sum += data[offset + c];
      for (let c = 0; c < cols; c++) headMatrix[r * cols + c] = data[offset + c] / (sum || 1);
    }
    // Standardise each frame's column across tokens, then smooth in time.
    for (let c = 0; c < cols; c++) {
      let mean = 0;
      for (let r = 0; r < rows; r++) mean += headMatrix[r * cols + c];
      mean /= rows;
      let variance = 0;
      for (let r = 0; r < rows; r++) variance += (headMatrix[r * cols + c] - mean) ** 2;
      const std = Math.sqrt(variance / rows) || 1;
      for (let r = 0; r < rows; r++) headMatrix[r * cols + c] = (headMatrix[r * cols + c] - mean) / std;
    }
    medianFilterRows(headMatrix, rows, cols, MEDIAN_FILTER_WIDTH);
    for (let k = 0; k < matrix.length; k++) matrix[k] += headMatrix[k] / heads.length;
  }
  for (let k = 0; k < matrix.length; k++) matrix[k] = -matrix[k];
  const { rowIndex, colIndex } = dynamicTimeWarping(matrix, rows, cols);

  // Time at which the path first reaches each row = that token's start.
  const jumpTimes: number[] = [];
  for (let k = 0; k < rowIndex.length; k++) {
    if (k === 0 || rowIndex[k] !== rowIndex[k - 1]) jumpTimes.push(colIndex[k] / FRAMES_PER_SECOND);
  }
  const words = splitWords(tokenizer, [...textTokens, endOfText], language);
  const aligned: AlignedWord[] = [];
  let boundary = 0;
  for (const word of words.slice(0, -1)) {
    const next = boundary + word.tokens.length;
    const wordProbs = probs.slice(boundary, next).filter((p) => !Number.isNaN(p));
    aligned.push({
      text: word.text,
      tokens: word.tokens,
      start: jumpTimes[boundary] ?? 0,
      end: jumpTimes[next] ?? jumpTimes[jumpTimes.length - 1] ?? 0,
      prob: wordProbs.reduce((a, b) => a + b, 0) / Math.max(1, wordProbs.length),
    });
    boundary = next;
  }
  return mergePunctuation(aligned);
}

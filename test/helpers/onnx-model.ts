/**
 * Small real ONNX models written byte by byte (onnx.proto's wire format, with onnx-wire.ts's writers), for tests
 * that need a network of a given contract where none can be downloaded: `toySpeakerEmbedding` stands in for a
 * speaker-embedding network (workers/engine/speakers/speaker-embedding.ts).
 */
import {
  bytesField, messageField, nodeField, ONNX, stringField, varintField, writeMessage, type WireField,
} from '../../workers/engine/graph/onnx-wire.js';

const FLOAT = 1;
/** AttributeProto's type enum and value fields. */
const ATTRIBUTE = { int: { type: 2, field: 3 }, ints: { type: 7, field: 8 }, typeField: 20 } as const;

/** A dimension: a number is fixed, a string is a named (dynamic) one. */
type Dim = number | string;

/** A float32 ValueInfoProto (a graph input or output) of `shape`. */
function tensorInfo(graphField: number, name: string, shape: Dim[]): WireField {
  const dims = shape.map((d) => messageField(1, [typeof d === 'number' ? varintField(1, d) : stringField(2, d)]));
  const tensorType = messageField(1, [varintField(1, FLOAT), messageField(2, dims)]);
  return messageField(graphField, [stringField(ONNX.valueInfo.name, name), messageField(ONNX.valueInfo.type, [tensorType])]);
}

/** A float32 initializer of `dims` holding `values`. */
function floatInitializer(name: string, dims: number[], values: ArrayLike<number>): WireField {
  const raw = new Uint8Array(Float32Array.from(values).buffer);
  const { tensor } = ONNX;
  return messageField(ONNX.graph.initializer, [
    ...dims.map((d) => varintField(tensor.dims, d)), varintField(tensor.dataType, FLOAT), stringField(tensor.name, name),
    bytesField(tensor.rawData, raw),
  ]);
}

const intAttribute = (name: string, value: number): WireField =>
  messageField(ONNX.node.attribute, [
    stringField(ONNX.attribute.name, name), varintField(ATTRIBUTE.typeField, ATTRIBUTE.int.type), varintField(ATTRIBUTE.int.field, value),
  ]);
const intsAttribute = (name: string, values: number[]): WireField =>
  messageField(ONNX.node.attribute, [
    stringField(ONNX.attribute.name, name), varintField(ATTRIBUTE.typeField, ATTRIBUTE.ints.type),
    ...values.map((v) => varintField(ATTRIBUTE.ints.field, v)),
  ]);

export interface ToyEmbeddingOptions {
  /** [bins × D] row-major: the embedding is the log-variance profile (one value per bin, 80) times this. */
  projection: ArrayLike<number>;
  /** D values added to the product (default zeros). */
  bias?: ArrayLike<number>;
  /** The declared input shape (default [1, 'T', 80]); a fixed last dimension other than 80 sets the bins the projection takes. */
  inputShape?: Dim[];
  /** The declared output shape (default [1, D]). */
  outputShape?: Dim[];
}

/**
 * A speaker-embedding "network" of the contract's shape: input `feats` [1, T, 80] → per bin, the log of the mean
 * square over time (after mean normalisation: the log variance of each filterbank bin) → × projection + bias →
 * `embedding` [1, D]. Opset 17: Mul, ReduceMean (axes attribute), Add, Log, MatMul.
 */
export function toySpeakerEmbedding(options: ToyEmbeddingOptions): Uint8Array {
  const last = options.inputShape?.[2];
  const bins = typeof last === 'number' ? last : 80;
  const d = options.projection.length / bins;
  const graph: WireField[] = [
    nodeField('Mul', 'square', ['feats', 'feats'], ['squares']),
    nodeField('ReduceMean', 'variance', ['squares'], ['variances'], [intsAttribute('axes', [1]), intAttribute('keepdims', 0)]),
    nodeField('Add', 'floor', ['variances', 'epsilon'], ['floored']),
    nodeField('Log', 'log', ['floored'], ['profile']),
    nodeField('MatMul', 'project', ['profile', 'projection'], ['projected']),
    nodeField('Add', 'shift', ['projected', 'bias'], ['embedding']),
    stringField(2, 'toy-speaker-embedding'),
    floatInitializer('epsilon', [1], [1e-6]),
    floatInitializer('projection', [bins, d], options.projection),
    floatInitializer('bias', [d], options.bias ?? new Float32Array(d)),
    tensorInfo(ONNX.graph.input, 'feats', options.inputShape ?? [1, 'T', bins]),
    tensorInfo(ONNX.graph.output, 'embedding', options.outputShape ?? [1, d]),
  ];
  const opset = messageField(8, [stringField(1, ''), varintField(2, 17)]);
  return writeMessage([varintField(1, 8), stringField(2, 'speechgate-tests'), messageField(ONNX.modelGraph, graph), opset]);
}

/** [bins × D] projection: DCT-II basis vectors `from`…`to` (inclusive) over the bins, one per output. */
export function dctProjection(from: number, to: number, bins = 80): Float32Array {
  const d = to - from + 1;
  const out = new Float32Array(bins * d);
  for (let m = 0; m < bins; m++) for (let k = from; k <= to; k++) out[m * d + (k - from)] = Math.cos((Math.PI * k * (m + 0.5)) / bins);
  return out;
}

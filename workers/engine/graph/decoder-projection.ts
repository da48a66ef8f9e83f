/**
 * The decoder's output projection (hidden state → vocabulary logits) as an 8-bit product on the CPU.
 *
 * decoder-graph.ts lifts the projection out of the If as MatMul(hidden, DequantizeLinear(Transpose(table))), which
 * onnxruntime folds into one float [dModel, vocab] table at load: 106 MB for whisper-base (80 MB for whisper-tiny),
 * held twice once pre-packed, and read whole at every decoder step, the largest single cost of a step (a product
 * bound by memory). The table is the export's 8-bit token embedding, one scale and zero point for all of it.
 *
 * The rewrite feeds the same 8-bit table to onnxruntime's MatMulNBits (com.microsoft; 8 bits, blocks of
 * `BLOCK` along dModel, every block with the table's own scale and zero point, so the weights are exactly the
 * export's) with accuracy level 4: the hidden state is rounded to 8 bits per block of `BLOCK` values at run time and
 * the products summed in integers (VNNI). A quarter of the memory read per step, and a quarter of the memory held.
 * The logits move by the hidden state's rounding (measured: the accuracy bench, workers/engine/README.md).
 *
 * A graph that does not have this shape is refused with an error; the caller then keeps the float projection.
 */
import {
  bytesField,
  intAttribute,
  messageField,
  nodeField,
  nodesOf,
  ONNX,
  readGraph,
  readMessage,
  stringField,
  strings,
  varintField,
  varints,
  withGraph,
  type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, tensor: TENSOR } = ONNX;
const PREFIX = '/speechgate_projection';
/** Values per block: the hidden state's rounding runs over this many (finer than one scale per row). */
export const BLOCK = 32;
const ONNX_FLOAT = 1;
const ONNX_UINT8 = 2;
/** ModelProto.opset_import, OperatorSetIdProto { domain: 1, version: 2 }. */
const OPSET_IMPORT = 8;
const MICROSOFT = 'com.microsoft';

interface Initializer {
  dims: number[];
  dataType: number;
  /** The values' bytes: raw_data, or a scalar's float_data / int32_data written as raw. */
  raw: Uint8Array;
}

/** A tensor's values as raw bytes (little-endian), from raw_data or from a float / uint8 scalar's typed field. */
function rawValues(tensor: WireField[], dataType: number): Uint8Array | undefined {
  const raw = tensor.find((f) => f.field === TENSOR.rawData)?.value;
  if (raw) return raw;
  if (dataType === ONNX_FLOAT) {
    const floats = tensor.find((f) => f.field === TENSOR.floatData);
    // float_data is packed fixed32 (wire type 2) or one fixed32 (wire type 5): little-endian bytes either way.
    return floats?.value;
  }
  const ints = tensor.find((f) => f.field === TENSOR.int32Data);
  return ints ? Uint8Array.from(varints(ints)) : undefined;
}

function initializers(graph: WireField[]): Map<string, Initializer> {
  const found = new Map<string, Initializer>();
  for (const field of graph) {
    if (field.field !== GRAPH.initializer) continue;
    const tensor = readMessage(field.value);
    const name = strings(tensor, TENSOR.name)[0];
    const typeField = tensor.find((f) => f.field === TENSOR.dataType);
    const dataType = typeField ? varints(typeField)[0] : undefined;
    const raw = dataType === undefined ? undefined : rawValues(tensor, dataType);
    if (!name || !raw || dataType === undefined) continue;
    found.set(name, { dims: tensor.filter((f) => f.field === TENSOR.dims).flatMap(varints), dataType, raw });
  }
  return found;
}

function tensorField(name: string, dims: number[], dataType: number, raw: Uint8Array): WireField {
  return messageField(GRAPH.initializer, [
    ...dims.map((d) => varintField(TENSOR.dims, d)), varintField(TENSOR.dataType, dataType), stringField(TENSOR.name, name),
    bytesField(TENSOR.rawData, raw),
  ]);
}

/** The decoder graph with its lifted projection as an 8-bit MatMulNBits (see the file's comment). */
export function eightBitProjection(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'decoder');
  const nodes = nodesOf(graph);
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const matmul = nodes.find((n) => n.opType === 'MatMul' && n.outputs[0] === 'logits');
  const dequantize = matmul && producer.get(matmul.inputs[1]);
  const transpose = dequantize && producer.get(dequantize.inputs[0]);
  if (!matmul || dequantize?.opType !== 'DequantizeLinear' || transpose?.opType !== 'Transpose') {
    throw new Error('decoder logits are not a lifted MatMul of a dequantised, transposed table');
  }
  const constants = initializers(graph);
  const table = constants.get(transpose.inputs[0]);
  const scale = constants.get(dequantize.inputs[1]);
  const zeroPoint = constants.get(dequantize.inputs[2]);
  if (!table || table.dataType !== ONNX_UINT8 || table.dims.length !== 2) {
    throw new Error('decoder projection table is not uint8 [vocab, dModel]');
  }
  if (scale?.dataType !== ONNX_FLOAT || scale.raw.length !== 4 || zeroPoint?.dataType !== ONNX_UINT8 || zeroPoint.raw.length !== 1) {
    throw new Error('decoder projection table is not quantised with one scale and zero point');
  }
  const [vocab, dModel] = table.dims;
  if (dModel % BLOCK !== 0) throw new Error(`decoder width ${dModel} is not a multiple of ${BLOCK}`);
  const readers = (name: string) => nodes.filter((n) => n.inputs.includes(name));
  if (readers(dequantize.outputs[0]).length !== 1 || readers(transpose.outputs[0]).length !== 1) {
    throw new Error('decoder projection weights are read elsewhere');
  }

  // MatMulNBits' weight is [N, K / block, block]: the table's own rows, as they are stored.
  const blocks = vocab * (dModel / BLOCK);
  const scaleValue = Buffer.from(scale.raw).readFloatLE(0);
  const scales = new Float32Array(blocks).fill(scaleValue);
  const projection = [
    tensorField(`${PREFIX}/weight`, [vocab, dModel / BLOCK, BLOCK], ONNX_UINT8, table.raw),
    tensorField(`${PREFIX}/scales`, [blocks], ONNX_FLOAT, new Uint8Array(scales.buffer)),
    tensorField(`${PREFIX}/zero_points`, [blocks], ONNX_UINT8, new Uint8Array(blocks).fill(zeroPoint.raw[0])),
  ];
  const product = messageField(GRAPH.node, [
    ...readMessage(nodeField('MatMulNBits', `${PREFIX}/MatMulNBits`, [
      matmul.inputs[0], `${PREFIX}/weight`, `${PREFIX}/scales`, `${PREFIX}/zero_points`,
    ], matmul.outputs, [
      intAttribute('K', dModel), intAttribute('N', vocab), intAttribute('bits', 8), intAttribute('block_size', BLOCK),
      intAttribute('accuracy_level', 4),
    ]).value),
    stringField(7, MICROSOFT), // NodeProto.domain
  ]);
  const dropped = new Set([dequantize.index, transpose.index]);
  const rewritten = graph.flatMap((field, index) => {
    if (dropped.has(index)) return [];
    if (index === matmul.index) return [product];
    return [field];
  });
  rewritten.push(...projection);
  const imports = modelFields.filter((f) => f.field === OPSET_IMPORT).map((f) => strings(readMessage(f.value), 1)[0] ?? '');
  const withImport = imports.includes(MICROSOFT) ? modelFields
    : [...modelFields, messageField(OPSET_IMPORT, [stringField(1, MICROSOFT), varintField(2, 1)])];
  return withGraph(withImport, rewritten);
}

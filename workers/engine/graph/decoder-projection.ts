/**
 * The decoder's output projection (hidden state → vocabulary logits) as an 8-bit product on the CPU.
 *
 * decoder-graph.ts lifts the projection out of the If as MatMul(hidden, DequantizeLinear(Transpose(table))), which
 * onnxruntime folds into one float [dModel, vocab] table at load: 106 MB for whisper-base (80 MB for whisper-tiny),
 * held twice once pre-packed, and read whole at every decoder step, the largest single cost of a step (a product
 * bound by memory). The table is the export's 8-bit token embedding, one scale and zero point for all of it.
 *
 * The rewrite feeds the same 8-bit table (transposed; on VNNI processors shifted into int8 with its zero point: the
 * weights exactly the export's) to a MatMulInteger, the products summed in integers: a quarter of the memory read per
 * step, and a quarter of the memory held. The hidden state goes in as two 8-bit parts per row: the row rounded with
 * one scale (its largest magnitude / 127), then what that rounding left, rounded the same way; both parts' rows
 * run in one product and their sums are scaled and added. Two parts because one scale per row is coarse (the final
 * layer norm's output has a few channels ~25× the others: whisper-base's largest magnitude per row ~124, per 32
 * values ~23), while the second part brings the rounding error ~127× lower: logits within 0.007 of the float
 * projection's on the lecture (MatMulNBits' blocks of 32, what this replaced: 0.57). And faster at a beam's
 * rows: MatMulNBits reads its whole table once per row (whisper-base, 5 rows: 8.2 ms a step; this 5.6, one row 2.1
 * against 2.9).
 *
 * A graph that does not have this shape is refused with an error; the caller then keeps the float projection.
 */
import {
  bytesField,
  floatInitializer,
  intAttribute,
  intsAttribute,
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
const ONNX_FLOAT = 1;
const ONNX_UINT8 = 2;
const ONNX_INT8 = 3;

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

/** The decoder graph with its lifted projection as an 8-bit MatMulInteger (see the file's comment). */
export function eightBitProjection(model: Uint8Array, options: { signed: boolean }): Uint8Array {
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
  const readers = (name: string) => nodes.filter((n) => n.inputs.includes(name));
  if (readers(dequantize.outputs[0]).length !== 1 || readers(transpose.outputs[0]).length !== 1) {
    throw new Error('decoder projection weights are read elsewhere');
  }

  // MatMulInteger's weight is [K, N]: the table transposed. Signed (shifted by 128 into int8 with its zero point:
  // the same products, (w − 128) − (zp − 128) = w − zp) where VNNI takes u8 × s8 into 32-bit sums; without VNNI
  // onnxruntime's u8 × s8 kernel sums byte pairs into 16 bits, which can saturate (255 × 127 × 2 > 32767), so the
  // table stays unsigned there (u8 × u8, widened to 16 bits first: no saturation).
  const shift = options.signed ? 128 : 0;
  const weight = new Uint8Array(vocab * dModel);
  for (let token = 0; token < vocab; token++) {
    const row = token * dModel;
    for (let k = 0; k < dModel; k++) weight[k * vocab + token] = (table.raw[row + k] - shift) & 0xff;
  }
  const weightType = options.signed ? ONNX_INT8 : ONNX_UINT8;
  const name = (what: string) => `${PREFIX}/${what}`;
  const scalar = (what: string, dataType: number, raw: Uint8Array) => tensorField(name(what), [], dataType, raw);
  const float = (what: string, value: number) => floatInitializer(name(what), [], Float32Array.of(value));
  // Each node named after what it makes.
  const op = (opType: string, inputs: string[], outputs: string[], attributes: WireField[] = []) =>
    nodeField(opType, `${outputs[0]}/${opType}`, inputs, outputs, attributes);
  const added = [
    tensorField(name('weight'), [dModel, vocab], weightType, weight),
    scalar('weight_zero_point', weightType, Uint8Array.of((zeroPoint.raw[0] - shift) & 0xff)),
    scalar('weight_scale', ONNX_FLOAT, scale.raw),
    scalar('zero_point', ONNX_UINT8, Uint8Array.of(128)),
    float('inverse_127', 1 / 127),
    float('least_scale', 1e-30),
    float('f0', 0),
    float('f128', 128),
    float('f255', 255),
  ];
  // `value` per row (the last axis) as uint8 around 128: scale = the row's largest magnitude / 127.
  const rounded = (value: string, part: string) => [
    op('Abs', [value], [name(`${part}/abs`)]),
    op('ReduceMax', [name(`${part}/abs`)], [name(`${part}/largest`)], [intsAttribute('axes', [2]), intAttribute('keepdims', 1)]),
    op('Mul', [name(`${part}/largest`), name('inverse_127')], [name(`${part}/scale_or_zero`)]),
    op('Max', [name(`${part}/scale_or_zero`), name('least_scale')], [name(`${part}/scale`)]),
    op('Div', [value, name(`${part}/scale`)], [name(`${part}/steps`)]),
    op('Round', [name(`${part}/steps`)], [name(`${part}/rounded`)]),
    op('Add', [name(`${part}/rounded`), name('f128')], [name(`${part}/offset`)]),
    op('Clip', [name(`${part}/offset`), name('f0'), name('f255')], [name(`${part}/clipped`)]),
    op('Cast', [name(`${part}/clipped`)], [name(`${part}/uint8`)], [intAttribute('to', ONNX_UINT8)]),
  ];
  const hidden = matmul.inputs[0];
  const product = [
    ...rounded(hidden, 'coarse'),
    // What the coarse rounding left (at most half a step per value), rounded per row in turn.
    op('Mul', [name('coarse/rounded'), name('coarse/scale')], [name('coarse/kept')]),
    op('Sub', [hidden, name('coarse/kept')], [name('fine/value')]),
    ...rounded(name('fine/value'), 'fine'),
    // Both parts' rows in one product: the table is read once for all of them.
    op('Concat', [name('coarse/uint8'), name('fine/uint8')], [name('parts')], [intAttribute('axis', 0)]),
    op('MatMulInteger', [name('parts'), name('weight'), name('zero_point'), name('weight_zero_point')], [name('sums')]),
    op('Cast', [name('sums')], [name('float_sums')], [intAttribute('to', ONNX_FLOAT)]),
    op('Split', [name('float_sums')], [name('coarse/sums'), name('fine/sums')], [intAttribute('axis', 0)]),
    op('Mul', [name('coarse/scale'), name('weight_scale')], [name('coarse/unit')]),
    op('Mul', [name('fine/scale'), name('weight_scale')], [name('fine/unit')]),
    op('Mul', [name('coarse/sums'), name('coarse/unit')], [name('coarse/logits')]),
    op('Mul', [name('fine/sums'), name('fine/unit')], [name('fine/logits')]),
    op('Add', [name('coarse/logits'), name('fine/logits')], matmul.outputs),
  ];
  const dropped = new Set([dequantize.index, transpose.index]);
  const rewritten = graph.flatMap((field, index) => {
    if (dropped.has(index)) return [];
    if (index === matmul.index) return product;
    return [field];
  });
  rewritten.push(...added);
  return withGraph(modelFields, rewritten);
}

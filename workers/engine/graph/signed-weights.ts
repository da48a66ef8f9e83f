/**
 * The 8-bit products with unsigned weights (the npm whisper encoders' MatMulInteger: uint8 weights and zero points)
 * given signed ones instead, for processors with VNNI instructions.
 *
 * onnxruntime's integer matrix product (MLAS) has a fast kernel for unsigned activations times signed weights on
 * processors with AVX-512 VNNI or AVX-VNNI (one instruction multiplies and sums four byte pairs into 32 bits); with
 * unsigned weights it widens both to 16 bits first and does half the work per instruction. Each weight w and its
 * zero point z become w − 128 and z − 128, as int8: the products use (w − z) only, which does not change, so the
 * outputs are the export's bit for bit. Without VNNI the signed kernel multiplies byte pairs into 16 bits that can
 * saturate (255 × 127 × 2 > 32767): this rewrite is for VNNI processors only (model.ts asks `hasVnni`).
 *
 * Weights read by anything other than MatMulInteger's weight and zero-point inputs stay as they are, and so does a
 * graph without unsigned ones (the npm decoders' weights are signed already; ConvInteger has no signed kernel here).
 * On whisper-base's encoder (a 30 s window, 2 threads, AMD EPYC with AVX-512 VNNI): 520 → 415 ms CPU.
 */
import { readFileSync } from 'node:fs';
import {
  bytesField, messageField, nodesOf, ONNX, readGraph, readMessage, strings, varintField, varints, withGraph, type GraphNode,
  type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, tensor: TENSOR } = ONNX;
const UINT8 = 2;
const INT8 = 3;

/** Whether this processor has VNNI (Linux's /proc/cpuinfo flags; false elsewhere or when unreadable). */
export function hasVnni(): boolean {
  try {
    const flags = /^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1].split(/\s+/) ?? [];
    return flags.includes('avx512_vnni') || flags.includes('avx_vnni');
  } catch {
    return false;
  }
}

/** A uint8 initializer's fields as int8, each value less 128, as raw data (values in int32_data too: scalar zero points). */
function signed(fields: WireField[]): WireField[] {
  const shift = (values: Iterable<number>) => bytesField(TENSOR.rawData, Uint8Array.from(values, (v) => (v - 128) & 0xff));
  const listed = fields.filter((f) => f.field === TENSOR.int32Data).flatMap(varints);
  const out = fields.flatMap((f) => {
    if (f.field === TENSOR.dataType) return [varintField(TENSOR.dataType, INT8)];
    if (f.field === TENSOR.rawData) return [shift(f.value)];
    return f.field === TENSOR.int32Data ? [] : [f];
  });
  return listed.length > 0 ? [...out, shift(listed)] : out;
}

/** The graph with its MatMulInteger products' uint8 weights and zero points made int8 (see the file's comment). */
export function signedWeights(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'graph');
  const nodes = nodesOf(graph);
  const initializers = new Map<string, { index: number; fields: WireField[] }>();
  graph.forEach((field, index) => {
    if (field.field !== GRAPH.initializer) return;
    const fields = readMessage(field.value);
    initializers.set(strings(fields, TENSOR.name)[0] ?? '', { index, fields });
  });
  const isUnsigned = (name: string) => {
    const type = initializers.get(name)?.fields.find((f) => f.field === TENSOR.dataType);
    return type !== undefined && varints(type)[0] === UINT8;
  };
  // Names read as anything but a product's weight or weight zero point stay; so do both of a product that reads one.
  const isProduct = (n: GraphNode) => n.opType === 'MatMulInteger';
  const readElsewhere = new Set(nodes.flatMap((n) => n.inputs.filter((_, slot) => !isProduct(n) || (slot !== 1 && slot !== 3))));
  let products = nodes.filter((n) => isProduct(n) && n.inputs.length >= 4 && isUnsigned(n.inputs[1]) && isUnsigned(n.inputs[3]));
  for (let excluded = readElsewhere; ;) {
    const kept = products.filter((n) => !excluded.has(n.inputs[1]) && !excluded.has(n.inputs[3]));
    const dropped = products.filter((n) => !kept.includes(n));
    if (dropped.length === 0) break;
    excluded = new Set([...excluded, ...dropped.flatMap((n) => [n.inputs[1], n.inputs[3]])]);
    products = kept;
  }
  const candidates = new Set(products.flatMap((n) => [n.inputs[1], n.inputs[3]]));
  if (candidates.size === 0) return model;
  const at = new Map([...candidates].map((name) => [initializers.get(name)!.index, name]));
  const out = graph.map((field, index) => (at.has(index) ? messageField(GRAPH.initializer, signed(initializers.get(at.get(index)!)!.fields))
    : field));
  return withGraph(modelFields, out);
}

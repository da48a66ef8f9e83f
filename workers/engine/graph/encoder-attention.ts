/**
 * The encoder's self-attention computed in blocks of query rows, so that its largest buffers shrink.
 *
 * The export computes each layer's attention as MatMul(Q, Kᵀ) → Softmax → MatMul(·, V) over the whole
 * window: for 30 s (1500 positions) and whisper-tiny's 6 heads, the scores and the probabilities are
 * [6, 1500, 1500] floats, 54 MB each, both alive at the Softmax. Every query row is independent of the
 * others, so the rewrite slices Q into blocks of `rows` rows and runs the three nodes per block, then
 * concatenates the blocks' outputs: the same sums in the same order (the output is the original's, bit for
 * bit), with buffers a twelfth of the size for 128 rows. Smaller buffers also stay under glibc's mmap
 * threshold (at most 32 MB), so without onnxruntime's arena they are reused from the heap instead of mapped
 * and faulted in afresh for every layer. The attention maps are no longer outputs: nothing here reads them.
 * 128 rows rather than 256: whisper-base beam 5's peak RSS on the 60 s lecture ~478 → ~450 MB (medians of 7
 * alternating runs; the encoder's arena holds the largest block's buffers), the same CPU; 64 rows saved no more.
 */
import {
  int64Initializer, messageField, nodeField as node, ONNX, readGraph, readMessage, stringField, strings, varintField, withGraph,
  type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, node: NODE } = ONNX;
const PREFIX = '/speechgate_attention';
/** 30 s of encoder positions: the most rows a block list must cover. */
const MAX_POSITIONS = 1500;
const ATTRIBUTE_INT = 2;

interface Node {
  index: number;
  fields: WireField[];
  opType: string;
  inputs: string[];
  outputs: string[];
}

/**
 * The encoder graph with every Softmax between two MatMuls (reshapes between them allowed) computed in blocks
 * of `rows` query rows. Throws when there is no such attention in the graph.
 */
export function blockedAttention(model: Uint8Array, rows = 128): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'encoder model');
  const nodes: Node[] = graph.flatMap((f, index) => {
    if (f.field !== GRAPH.node) return [];
    const fields = readMessage(f.value);
    return [{
      index, fields, opType: strings(fields, NODE.opType)[0] ?? '', inputs: strings(fields, NODE.input),
      outputs: strings(fields, NODE.output),
    }];
  });
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const readers = (name: string) => nodes.filter((n) => n.inputs.includes(name));
  const graphOutputs = new Set(
    graph.filter((f) => f.field === GRAPH.output).map((f) => strings(readMessage(f.value), ONNX.valueInfo.name)[0]),
  );

  const replaced = new Map<number, WireField[]>();
  const removed = new Set<number>();
  const blocks = Math.ceil(MAX_POSITIONS / rows);
  const initializers: WireField[] = [int64Initializer(`${PREFIX}/axis1`, 1n)];
  for (let b = 0; b <= blocks; b++) initializers.push(int64Initializer(
    `${PREFIX}/row${b}`, b === blocks ? BigInt('9223372036854775807') : BigInt(b * rows),
  ));

  let layer = 0;
  for (const softmax of nodes.filter((n) => n.opType === 'Softmax')) {
    const scores = producer.get(softmax.inputs[0]);
    if (!scores || scores.opType !== 'MatMul') continue;
    // Follow the probabilities through reshapes (identity for batch 1) to the MatMul with V.
    const between: Node[] = [];
    let current = softmax.outputs[0];
    let next = readers(current);
    while (next.length === 1 && next[0].opType === 'Reshape') {
      between.push(next[0]);
      current = next[0].outputs[0];
      next = readers(current);
    }
    const weighted = next.length === 1 && next[0].opType === 'MatMul' && next[0].inputs[0] === current ? next[0] : undefined;
    const private_ = [scores, softmax, ...between].every(
      (n) => n.outputs.every((o) => !graphOutputs.has(o)) && readers(n.outputs[0]).length === 1,
    );
    if (!weighted || !private_) continue;
    const [query, keys] = scores.inputs;
    const values = weighted.inputs[1];
    const name = `${PREFIX}/${layer++}`;
    const softmaxAttributes = softmax.fields.filter((f) => f.field === NODE.attribute);
    const inserted: WireField[] = [];
    const parts: string[] = [];
    for (let b = 0; b < blocks; b++) {
      const at = `${name}/block${b}`;
      inserted.push(
        node('Slice', `${at}/Slice`, [query, `${PREFIX}/row${b}`, `${PREFIX}/row${b + 1}`, `${PREFIX}/axis1`], [`${at}/query`]),
        node('MatMul', `${at}/Scores`, [`${at}/query`, keys], [`${at}/scores`]),
        node('Softmax', `${at}/Softmax`, [`${at}/scores`], [`${at}/probabilities`], softmaxAttributes),
        node('MatMul', `${at}/Weighted`, [`${at}/probabilities`, values], [`${at}/out`]),
      );
      parts.push(`${at}/out`);
    }
    const axis = messageField(NODE.attribute, [stringField(1, 'axis'), varintField(3, 1), varintField(20, ATTRIBUTE_INT)]);
    inserted.push(node('Concat', `${name}/Concat`, parts, weighted.outputs, [axis]));
    for (const n of [scores, softmax, ...between]) removed.add(n.index);
    replaced.set(weighted.index, inserted);
  }
  if (layer === 0) throw new Error('encoder graph has no MatMul → Softmax → MatMul attention');
  const rewritten: WireField[] = [];
  graph.forEach((f, index) => {
    if (removed.has(index)) return;
    // Shape hints of removed values would only mislead onnxruntime.
    if (f.field === GRAPH.valueInfo) return;
    rewritten.push(...(replaced.get(index) ?? [f]));
  });
  rewritten.push(...initializers);
  return withGraph(modelFields, rewritten);
}

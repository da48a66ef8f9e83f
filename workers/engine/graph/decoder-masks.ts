/**
 * The merged decoder, given per-row positions and attention masks in its cached branch, so that the cached steps
 * of different decodes (other sessions, other windows) run as one call although their texts have different
 * lengths and their windows different encoder contexts (step-batcher.ts).
 *
 * The export's cached branch takes every row to be as long as the cache tensor: it reads the position of the new
 * token off the cache's length (`Slice(embed_positions, past, past + 1)`) and attends to every cached entry and every
 * encoder frame. Rows of a batch are as long as the longest, the shorter ones padded in front. The rewrite makes
 * three inputs of what the export assumed:
 * - `speechgate_positions`, int64 [batch, seq]: each new token's position (its row's own text length), gathered
 *   from the position table in place of the slice;
 * - `speechgate_self_bias`, float [batch × heads, seq, past + seq]: added to the self-attention scores before their
 *   softmax (0 where a row has a cache entry, a large negative number over its padding);
 * - `speechgate_cross_bias`, float [batch × heads, seq, frames]: the same for the cross-attention scores, over the
 *   encoder frames a row's window does not have.
 * A decode of rows that all have the same length feeds the positions of the slice and a zero bias of shape
 * [1, 1, 1], and gets what the export gives. The first-call branch is not changed (it ignores the three inputs).
 *
 * A graph that does not have this shape is refused with an error; the caller then keeps the export as it is.
 */
import {
  ifBranches,
  nodeField,
  nodesOf,
  ONNX,
  readGraph,
  rewire,
  singleIf,
  tensorValueInfo,
  valueName,
  withBranchGraph,
  withGraph,
  withoutUnread,
  type GraphNode,
  type WireField,
} from './onnx-wire.js';

const { graph: GRAPH } = ONNX;

export const POSITIONS = 'speechgate_positions';
export const SELF_BIAS = 'speechgate_self_bias';
export const CROSS_BIAS = 'speechgate_cross_bias';

/** What a masked score gets added: far below any real score, so its softmax weight is exactly 0 in float32. */
export const MASKED = -1e9;

const ONNX_FLOAT = 1;
const ONNX_INT64 = 7;

/** A graph input of `elementType` and `rank` dimensions, each named (its size is the caller's). */
const input = (name: string, elementType: number, rank: number): WireField => tensorValueInfo(GRAPH.input, name, elementType, rank);

/** Names that `start` reads, `depth` producers back (the nodes between an attention's scores and its keys). */
function ancestry(start: string, producer: Map<string, GraphNode>, depth: number): Set<string> {
  const seen = new Set<string>([start]);
  let frontier = [start];
  for (let level = 0; level < depth; level++) {
    frontier = frontier.flatMap((name) => producer.get(name)?.inputs.filter((i) => i && !seen.has(i)) ?? []);
    frontier.forEach((name) => seen.add(name));
  }
  return seen;
}

/** The decoder graph whose cached branch takes per-row positions and attention biases (see the file's comment). */
export function rowMasks(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'decoder');
  const { ifNode } = singleIf(graph);
  const { fields: ifFields, branches } = ifBranches(ifNode);
  const cached = branches.find((b) => nodesOf(b.graph).some((n) => n.inputs.some((i) => /^past_key_values\.\d+\.decoder\.key$/.test(i))));
  if (branches.length !== 2 || !cached) throw new Error('decoder If branches are not the merged export’s');
  if (graph.some((f) => f.field === GRAPH.input && [POSITIONS, SELF_BIAS, CROSS_BIAS].includes(valueName(f)))) {
    throw new Error('decoder already takes row masks');
  }

  const nodes = nodesOf(cached.graph);
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const positions = nodes.filter((n) => n.opType === 'Slice' && /embed_positions/.test(n.inputs[0]));
  if (positions.length !== 1) throw new Error(`decoder cached branch has ${positions.length} position slices`);
  // Each softmax reads scores from a MatMul of queries and keys: the self-attention's keys come from the cache it
  // just extended (present.{i}.decoder.key), the cross-attention's from the encoder's (past_key_values.{i}.encoder.key).
  const softmaxes = nodes.filter((n) => n.opType === 'Softmax');
  const kind = (softmax: GraphNode): 'self' | 'cross' => {
    const names = [...ancestry(softmax.inputs[0], producer, 4)];
    const self = names.some((n) => /^present\.\d+\.decoder\.key$/.test(n));
    const cross = names.some((n) => /^past_key_values\.\d+\.encoder\.key$/.test(n));
    if (self === cross) throw new Error(`decoder softmax ${softmax.outputs[0]} reads neither or both attentions' keys`);
    return self ? 'self' : 'cross';
  };
  const kinds = softmaxes.map(kind);
  const selfCount = kinds.filter((k) => k === 'self').length;
  if (selfCount === 0 || selfCount * 2 !== softmaxes.length) {
    throw new Error(`decoder cached branch has ${selfCount} self- and ${softmaxes.length - selfCount} cross-attention softmaxes`);
  }

  const masked = new Map(softmaxes.map((s, i) => [s.index, { softmax: s, bias: kinds[i] === 'self' ? SELF_BIAS : CROSS_BIAS }]));
  const slice = positions[0];
  const rewritten = cached.graph.flatMap((field, index) => {
    if (index === slice.index) {
      return [nodeField('Gather', `${slice.outputs[0]}/speechgate_rows`, [slice.inputs[0], POSITIONS], slice.outputs)];
    }
    const mask = masked.get(index);
    if (!mask) return [field];
    const scores = `${mask.softmax.inputs[0]}/speechgate_masked`;
    return [nodeField('Add', scores, [mask.softmax.inputs[0], mask.bias], [scores]), rewire(mask.softmax, [scores], mask.softmax.outputs)];
  });
  // A value_info naming the slice's output keeps its [seq, dModel] shape; the gather's is [batch, seq, dModel].
  const withoutSliceInfo = withoutUnread(rewritten.filter((f) => !(f.field === GRAPH.valueInfo && valueName(f) === slice.outputs[0])));

  const newIf = withBranchGraph(ifFields, cached, withoutSliceInfo);
  const inputs = [input(POSITIONS, ONNX_INT64, 2), input(SELF_BIAS, ONNX_FLOAT, 3), input(CROSS_BIAS, ONNX_FLOAT, 3)];
  const out: WireField[] = [];
  graph.forEach((field, index) => {
    out.push(index === ifNode.index ? newIf : field);
    if (field.field === GRAPH.input && graph[index + 1]?.field !== GRAPH.input) out.push(...inputs);
  });
  return withGraph(modelFields, out);
}

/**
 * The merged decoder, rearranged so that a decoder step stops redoing work whose result never changes. Same
 * outputs, bit for bit (with the session settings `EXACT_DECODER_SESSION_CONFIG`).
 *
 * The export keeps the token embedding as 8-bit [vocab, dModel] and, inside both branches of its
 * `use_cache_branch` If, computes the output projection as MatMul(hidden, DequantizeLinear(Transpose(W))):
 * every call, one token or a whole prompt, dequantises the whole table again (51865 × 384 floats, 80 MB for
 * whisper-tiny) before the one matrix product that needs it. onnxruntime cannot fold that inside the
 * branches, so the 80 MB buffer sat in the session's memory arena and each step paid to refill it.
 *
 * The rewrite lifts that projection out of the If: both branches return the final hidden state, and one
 * MatMul after the If applies the weights, whose Transpose → DequantizeLinear chain now hangs off constants
 * in the main graph, where onnxruntime folds it into one float table at load (constant folding of
 * DequantizeLinear needs `session.disable_quant_qdq`). It also moves nodes that only the first-call branch
 * reads (the quantisation of the encoder states, for the cross-attention keys and values) into that branch,
 * so cached steps no longer quantise 1500 × dModel values each. A graph that does not have this shape is
 * refused with an error; the caller then keeps the export as it is.
 */
import {
  bytesField,
  int64Initializer,
  messageField,
  nodeField,
  nodesOf,
  ONNX,
  readGraph,
  readMessage,
  rewire,
  singleIf,
  stringField,
  strings,
  valueName,
  varintField,
  withGraph,
  writeMessage,
  type GraphNode,
  type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, node: NODE, attribute: ATTRIBUTE, valueInfo: VALUE_INFO } = ONNX;
const HIDDEN = '/speechgate_decoder/hidden';
const PROJECTED = '/speechgate_decoder/projected';

/**
 * The input the rewritten graph adds: int64 [1], the first position whose logits are computed (0: all of
 * them; the last position: only the next token's). The projection costs one vocabulary-sized row per position,
 * and a first call on a 200-token prompt only wants its last row.
 */
export const LOGITS_FROM = 'speechgate_logits_from';

/**
 * Session config the rewritten graph wants: DequantizeLinear folded at load (the projection's float table). Weights
 * stay pre-packed (onnxruntime's default): a cached step of whisper-base with a beam of 5 took 28 ms without, 17
 * with (2 cores, onnxruntime-node 1.29). Pre-packed, a float projection sums in another order than the export's
 * (other last bits in the logits): `EXACT_DECODER_SESSION_CONFIG` turns it off where a test compares bits.
 */
export const DECODER_SESSION_CONFIG: Record<string, string> = { disable_quant_qdq: '1' };
export const EXACT_DECODER_SESSION_CONFIG: Record<string, string> = { ...DECODER_SESSION_CONFIG, disable_prepacking: '1' };

interface Branch {
  attribute: WireField[];
  graph: WireField[];
  nodes: GraphNode[];
}

function readBranches(ifNode: GraphNode): Branch[] {
  return readMessage(ifNode.field.value)
    .filter((f) => f.field === NODE.attribute)
    .map((f) => {
      const attribute = readMessage(f.value);
      const graphField = attribute.find((a) => a.field === ATTRIBUTE.graph);
      if (!graphField) throw new Error('decoder If has an attribute that is not a branch graph');
      const graph = readMessage(graphField.value);
      const nodes = nodesOf(graph);
      // Nested graphs could read names this rewrite moves; Whisper's branches have none.
      if (nodes.some((n) => readMessage(n.field.value).some(
        (f) => f.field === NODE.attribute && readMessage(f.value).some((a) => a.field === ATTRIBUTE.graph || a.field === ATTRIBUTE.graphs),
      ))) {
        throw new Error('decoder branch holds a nested graph');
      }
      return { attribute, graph, nodes };
    });
}

/**
 * The branch's output projection: the MatMul making its first output, and the nodes before its weight input
 * that read only names from outside the branch (constants), in graph order.
 */
function projection(branch: Branch, constants: Set<string>): { matmul: GraphNode; weightChain: GraphNode[] } {
  const outputs = branch.graph.filter((f) => f.field === GRAPH.output);
  const producer = new Map(branch.nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const matmul = producer.get(valueName(outputs[0]));
  if (!matmul || matmul.opType !== 'MatMul') throw new Error('decoder branch output 0 is not made by a MatMul');
  const chain = new Set<GraphNode>();
  const visit = (name: string) => {
    const node = producer.get(name);
    if (!node || chain.has(node)) return;
    chain.add(node);
    node.inputs.forEach(visit);
  };
  visit(matmul.inputs[1]);
  if (chain.size === 0 && !constants.has(matmul.inputs[1])) throw new Error('decoder projection weights are not constants');
  for (const node of chain) {
    if (node.inputs.some((i) => i && !producer.has(i) && !constants.has(i))) {
      throw new Error('decoder projection weights are not constants');
    }
    const used = node.outputs.some((o) => branch.nodes.some((n) => n !== matmul && !chain.has(n) && n.inputs.includes(o)));
    if (used) throw new Error('decoder projection weights are read elsewhere in the branch');
  }
  return { matmul, weightChain: [...chain].sort((a, b) => a.index - b.index) };
}

/** The first output's type without its shape (the hidden state is [batch, seq, dModel], not logits'). */
function elementTypeOnly(output: WireField): WireField[] {
  const type = readMessage(output.value).find((f) => f.field === VALUE_INFO.type);
  const tensorType = type && readMessage(type.value).find((f) => f.field === 1);
  const elementType = tensorType && readMessage(tensorType.value).find((f) => f.field === 1);
  return elementType ? [messageField(VALUE_INFO.type, [messageField(1, [elementType])])] : [];
}

/** The decoder graph with the output projection out of the If and first-call-only nodes inside its branch. */
export function hoistedDecoder(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'decoder model');
  const { topNodes, ifNode } = singleIf(graph);
  const branches = readBranches(ifNode);
  if (branches.length !== 2) throw new Error('decoder If does not have two branches');
  const constants = new Set(
    graph.filter((f) => f.field === GRAPH.initializer).flatMap((f) => strings(readMessage(f.value), ONNX.tensor.name)),
  );
  const projections = branches.map((branch) => projection(branch, constants));
  // The same computation in both: node names aside (NODE.name), field for field.
  const chainBytes = (p: { weightChain: GraphNode[] }) =>
    p.weightChain.map(
      (n) => Buffer.from(writeMessage(readMessage(n.field.value).filter((f) => f.field !== NODE.name))).toString('base64'),
    ).join();
  if (chainBytes(projections[0]) !== chainBytes(projections[1])) throw new Error('decoder branches project with different weights');

  // Top-level nodes read only inside one branch move into it (only that branch's calls pay for them).
  const readBy = (names: string[], nodes: GraphNode[]) => nodes.some((n) => n.inputs.some((i) => names.includes(i)));
  const graphOutputs = new Set(graph.filter((f) => f.field === GRAPH.output).map(valueName));
  const moves = new Map<GraphNode, number>();
  for (const node of topNodes) {
    if (node === ifNode || node.outputs.some((o) => graphOutputs.has(o)) || readBy(node.outputs, topNodes)) continue;
    const readers = branches.flatMap((b, i) => (readBy(node.outputs, b.nodes) ? [i] : []));
    if (readers.length === 1) moves.set(node, readers[0]);
  }

  const newBranches = branches.map((branch, b) => {
    const { matmul, weightChain } = projections[b];
    const dropped = new Set([matmul, ...weightChain].map((n) => n.index));
    const droppedNames = new Set([matmul, ...weightChain].flatMap((n) => n.outputs));
    let firstOutput = true;
    const rewritten: WireField[] = [...topNodes.filter((n) => moves.get(n) === b).map((n) => n.field)];
    branch.graph.forEach((f, index) => {
      if (dropped.has(index)) return;
      if (f.field === GRAPH.valueInfo && droppedNames.has(valueName(f))) return;
      if (f.field === GRAPH.output && firstOutput) {
        firstOutput = false;
        rewritten.push(messageField(GRAPH.output, [stringField(VALUE_INFO.name, matmul.inputs[0]), ...elementTypeOnly(f)]));
        return;
      }
      rewritten.push(f);
    });
    return messageField(
      NODE.attribute, branch.attribute.map((f) => (f.field === ATTRIBUTE.graph ? bytesField(ATTRIBUTE.graph, writeMessage(rewritten)) : f)),
    );
  });
  const newIf = messageField(GRAPH.node, [
    ...readMessage(rewire(ifNode, ifNode.inputs, [HIDDEN, ...ifNode.outputs.slice(1)]).value).filter((f) => f.field !== NODE.attribute),
    ...newBranches,
  ]);
  const { matmul, weightChain } = projections[0];
  const lifted = [
    ...weightChain.map((n) => n.field),
    nodeField('Slice', `${PROJECTED}/Slice`, [HIDDEN, LOGITS_FROM, `${PROJECTED}/end`, `${PROJECTED}/axis`], [PROJECTED]),
    rewire(matmul, [PROJECTED, matmul.inputs[1]], [ifNode.outputs[0]]),
  ];
  const logitsFrom = messageField(GRAPH.input, [
    stringField(VALUE_INFO.name, LOGITS_FROM),
    // TypeProto.tensor_type { elem_type: INT64, shape { dim { dim_value: 1 } } }
    messageField(VALUE_INFO.type, [messageField(1, [varintField(1, 7), messageField(2, [messageField(1, [varintField(1, 1)])])])]),
  ]);

  const moved = new Set([...moves.keys()].map((n) => n.index));
  const rewritten: WireField[] = [];
  graph.forEach((f, index) => {
    if (moved.has(index)) return;
    if (index === ifNode.index) rewritten.push(newIf, ...lifted);
    else rewritten.push(f);
    if (f.field === GRAPH.input && graph[index + 1]?.field !== GRAPH.input) rewritten.push(logitsFrom);
  });
  rewritten.push(int64Initializer(`${PROJECTED}/end`, BigInt('9223372036854775807')), int64Initializer(`${PROJECTED}/axis`, 1));
  return withGraph(modelFields, rewritten);
}

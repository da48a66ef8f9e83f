/**
 * The merged decoder, rearranged for a GPU so that the cross-attention keys and values never cross to the host.
 *
 * The export computes each layer's cross-attention keys and values from the encoder states in its first call
 * (`present.{i}.encoder.key/value`, [batch, heads, 1500, headDim]) and takes them back as inputs
 * (`past_key_values.{i}.encoder.*`) at every later step. onnxruntime-node has no device-resident outputs for
 * CUDA (its IO binding is WebGPU's only), so each step copied them out and back in: 18 MB per row for
 * whisper-tiny, 37 MB for whisper-base, several milliseconds of copying against well under one of arithmetic.
 *
 * The rewrite copies the nodes that compute them (the key and value projections of the encoder states, with
 * their reshapes) from the first-call branch into the cached branch, which then computes them at every step
 * from `encoder_hidden_states`, an input every step already sends (1500 × dModel floats per row, a twelfth of
 * what the keys and values of all layers weigh). The `past_key_values.{i}.encoder.*` inputs are gone, and the
 * first call's encoder keys and values need not be fetched. On the GPU the projections cost ~0.1–0.3 ms a step;
 * on the CPU they would cost more than the copies they save, so only GPU sessions load this graph.
 *
 * A graph that does not have this shape is refused with an error; the caller then keeps the export as it is.
 */
import {
  ifBranches,
  messageField,
  nodesOf,
  ONNX,
  readGraph,
  readMessage,
  rewire,
  singleIf,
  stringField,
  strings,
  valueName,
  varints,
  withBranchGraph,
  withGraph,
  type GraphNode,
  type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, node: NODE, attribute: ATTRIBUTE } = ONNX;
const ENCODER_KV = /^present\.(\d+)\.encoder\.(key|value)$/;
const RENAMED = '/speechgate_cross';
const ENCODER_STATES = 'encoder_hidden_states';

/** The value of a Constant node holding one int64 (a scalar or [1]), else undefined. */
function int64Scalar(node: GraphNode): bigint | undefined {
  if (node.opType !== 'Constant') return undefined;
  for (const field of readMessage(node.field.value)) {
    if (field.field !== NODE.attribute) continue;
    const value = readMessage(field.value).find((a) => a.field === ATTRIBUTE.tensor);
    if (!value) continue;
    const tensor = readMessage(value.value);
    const dims = tensor.filter((f) => f.field === ONNX.tensor.dims).flatMap(varints);
    const type = tensor.find((f) => f.field === ONNX.tensor.dataType);
    if (dims.some((d) => d !== 1) || !type || varints(type)[0] !== 7) return undefined;
    const raw = tensor.find((f) => f.field === ONNX.tensor.rawData);
    if (raw?.value.length === 8) return Buffer.from(raw.value).readBigInt64LE(0);
    const packed = tensor.find((f) => f.field === ONNX.tensor.int64Data);
    return packed ? BigInt(varints(packed)[0]) : undefined;
  }
  return undefined;
}

/** A copy of `node` with every name `rename` maps renamed, its own name marked (attributes as they were). */
function cloned(node: GraphNode, rename: (name: string) => string): WireField {
  const name = strings(readMessage(node.field.value), NODE.name)[0] ?? node.outputs[0];
  const renamed = readMessage(rewire(node, node.inputs.map(rename), node.outputs.map(rename)).value);
  return messageField(GRAPH.node, [...renamed.filter((f) => f.field !== NODE.name), stringField(NODE.name, `${name}${RENAMED}`)]);
}

/** The decoder graph whose cached branch computes the cross-attention keys and values itself (see the file's comment). */
export function crossKeysPerStep(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'decoder');
  const { topNodes, ifNode } = singleIf(graph);
  const { fields: ifFields, branches } = ifBranches(ifNode);
  const pastInputs = graph.filter((f) => f.field === GRAPH.input).map(valueName).filter(
    (name) => /^past_key_values\.\d+\.encoder\.(key|value)$/.test(name),
  );
  const readsPast = (branch: (typeof branches)[number]) => nodesOf(branch.graph).some((n) => n.inputs.some((i) => pastInputs.includes(i)));
  const cached = branches.find(readsPast);
  const first = branches.find((b) => b !== cached);
  if (branches.length !== 2 || !cached || !first || pastInputs.length === 0) {
    throw new Error('decoder If branches are not the merged export’s');
  }
  // Nothing else may read the inputs about to go.
  if (readsPast(first) || topNodes.some((n) => n.inputs.some((i) => pastInputs.includes(i)))) throw new Error('the decoder reads the '
    + 'encoder keys and values elsewhere');

  // The first-call branch's nodes that compute the encoder keys and values: a backward slice from its outputs,
  // stopping at names from outside the branch (encoder_hidden_states, initialisers).
  const firstNodes = nodesOf(first.graph);
  const producerIndex = new Map<string, number>();
  firstNodes.forEach((node, index) => node.outputs.forEach((output) => producerIndex.set(output, index)));
  const sliced = new Set<number>();
  // The keys' reshape reads the batch size off the decoder's hidden state (Gather(Shape(hidden), 0)): followed back,
  // that would copy the whole first call into every step. The encoder states have the same batch size, so such a
  // Shape reads them instead and the slice stops there.
  const batchShapes = new Set<number>();
  const readers = (name: string) => firstNodes.filter((n) => n.inputs.includes(name));
  const readsBatchOnly = (shape: GraphNode) =>
    readers(shape.outputs[0]).every((reader) => {
      const index = reader.opType === 'Gather' ? producerIndex.get(reader.inputs[1]) : undefined;
      return index !== undefined && int64Scalar(firstNodes[index]) === 0n;
    });
  const wanted = first.graph.filter((f) => f.field === GRAPH.output).map(valueName).filter((name) => ENCODER_KV.test(name));
  const stack = [...wanted];
  while (stack.length > 0) {
    const index = producerIndex.get(stack.pop()!);
    if (index === undefined || sliced.has(index)) continue;
    sliced.add(index);
    const node = firstNodes[index];
    if (node.opType === 'Shape' && node.inputs[0] !== ENCODER_STATES && readsBatchOnly(node)) {
      batchShapes.add(index);
      continue;
    }
    stack.push(...node.inputs.filter(Boolean));
  }
  if (wanted.length !== pastInputs.length) {
    throw new Error(`${wanted.length} encoder key/value outputs for ${pastInputs.length} past inputs`);
  }
  if (firstNodes.some((node, index) => sliced.has(index) && node.inputs.some((i) => i.startsWith('past_key_values.')))) {
    throw new Error('the encoder keys and values depend on the past');
  }
  const inBranch = new Set([...sliced].flatMap((index) => firstNodes[index].outputs));
  const rename = (name: string) => (inBranch.has(name) ? `${name}${RENAMED}` : name);
  const clones = firstNodes.flatMap((node, index) => {
    if (!sliced.has(index)) return [];
    return [cloned(batchShapes.has(index) ? { ...node, inputs: [ENCODER_STATES] } : node, rename)];
  });

  // The cached branch reads the computed values where it read the inputs.
  const computedFor = new Map(wanted.map((name) => [name.replace('present.', 'past_key_values.'), rename(name)]));
  // The clones go before the branch's first node: they read only names from outside it.
  const cachedNodes = new Map(nodesOf(cached.graph).map((n) => [n.index, n]));
  const firstNode = Math.min(...cachedNodes.keys());
  const cachedGraph = cached.graph.flatMap((field, index) => {
    const node = cachedNodes.get(index);
    if (!node) return [field];
    const read = node.inputs.some((i) => computedFor.has(i)) ? rewire(
      node, node.inputs.map((i) => computedFor.get(i) ?? i), node.outputs,
    ) : field;
    return index === firstNode ? [...clones, read] : [read];
  });

  const newIf = withBranchGraph(ifFields, cached, cachedGraph);
  const rewritten = graph.flatMap((field, index) => {
    if (index === ifNode.index) return [newIf];
    if (field.field === GRAPH.input && pastInputs.includes(valueName(field))) return [];
    return [field];
  });
  return withGraph(modelFields, rewritten);
}

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
import { messageField, ONNX, readGraph, readMessage, stringField, strings, withGraph, type WireField } from './onnx-wire.js';

const { graph: GRAPH, node: NODE, attribute: ATTRIBUTE, valueInfo: VALUE_INFO } = ONNX;
const ENCODER_KV = /^present\.(\d+)\.encoder\.(key|value)$/;
const RENAMED = '/speechgate_cross';

interface BranchNode {
  fields: WireField[];
  inputs: string[];
  outputs: string[];
}

function nodesOf(graph: WireField[]): BranchNode[] {
  return graph
    .filter((f) => f.field === GRAPH.node)
    .map((f) => {
      const fields = readMessage(f.value);
      return { fields, inputs: strings(fields, NODE.input), outputs: strings(fields, NODE.output) };
    });
}

const valueInfoNames = (graph: WireField[], field: number) => graph.filter((f) => f.field === field).map((f) => strings(readMessage(f.value), VALUE_INFO.name)[0]);

/** The node with its inputs, outputs and name replaced through `rename` (attributes as they were). */
function renamed(node: BranchNode, rename: (name: string) => string): WireField {
  const rest = node.fields.filter((f) => f.field !== NODE.input && f.field !== NODE.output && f.field !== NODE.name);
  const name = strings(node.fields, NODE.name)[0] ?? node.outputs[0];
  return messageField(GRAPH.node, [
    ...node.inputs.map((i) => stringField(NODE.input, i === '' ? '' : rename(i))),
    ...node.outputs.map((o) => stringField(NODE.output, rename(o))),
    stringField(NODE.name, `${name}${RENAMED}`),
    ...rest,
  ]);
}

/** The decoder graph whose cached branch computes the cross-attention keys and values itself (see the file's comment). */
export function crossKeysPerStep(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'decoder');
  const ifIndex = graph.findIndex((f) => f.field === GRAPH.node && strings(readMessage(f.value), NODE.opType)[0] === 'If');
  if (ifIndex < 0) throw new Error('decoder has no use_cache_branch If');
  const ifFields = readMessage(graph[ifIndex].value);
  const branches = ifFields.flatMap((field, position) => {
    if (field.field !== NODE.attribute) return [];
    const attribute = readMessage(field.value);
    const graphAt = attribute.findIndex((a) => a.field === ATTRIBUTE.graph);
    return graphAt < 0 ? [] : [{ position, attribute, graphAt, graph: readMessage(attribute[graphAt].value) }];
  });
  const pastInputs = valueInfoNames(graph, GRAPH.input).filter((name) => /^past_key_values\.\d+\.encoder\.(key|value)$/.test(name));
  const readsPast = (branch: (typeof branches)[number]) => nodesOf(branch.graph).some((n) => n.inputs.some((i) => pastInputs.includes(i)));
  const cached = branches.find(readsPast);
  const first = branches.find((b) => b !== cached);
  if (branches.length !== 2 || !cached || !first || pastInputs.length === 0) throw new Error('decoder If branches are not the merged export’s');

  // The first-call branch's nodes that compute the encoder keys and values: a backward slice from its outputs,
  // stopping at names from outside the branch (encoder_hidden_states, initialisers).
  const firstNodes = nodesOf(first.graph);
  const producerIndex = new Map<string, number>();
  firstNodes.forEach((node, index) => node.outputs.forEach((output) => producerIndex.set(output, index)));
  const sliced = new Set<number>();
  const wanted = valueInfoNames(first.graph, GRAPH.output).filter((name) => ENCODER_KV.test(name));
  const stack = [...wanted];
  while (stack.length > 0) {
    const index = producerIndex.get(stack.pop()!);
    if (index === undefined || sliced.has(index)) continue;
    sliced.add(index);
    stack.push(...firstNodes[index].inputs.filter(Boolean));
  }
  if (wanted.length !== pastInputs.length) throw new Error(`${wanted.length} encoder key/value outputs for ${pastInputs.length} past inputs`);
  if (firstNodes.some((node, index) => sliced.has(index) && node.inputs.some((i) => i.startsWith('past_key_values.')))) {
    throw new Error('the encoder keys and values depend on the past');
  }
  const inBranch = new Set([...sliced].flatMap((index) => firstNodes[index].outputs));
  const rename = (name: string) => (inBranch.has(name) ? `${name}${RENAMED}` : name);
  const clones = firstNodes.flatMap((node, index) => (sliced.has(index) ? [renamed(node, rename)] : []));

  // The cached branch reads the computed values where it read the inputs.
  const computedFor = new Map(wanted.map((name) => [name.replace('present.', 'past_key_values.'), rename(name)]));
  const cachedGraph: WireField[] = [];
  let inserted = false;
  for (const field of cached.graph) {
    if (field.field !== GRAPH.node) {
      cachedGraph.push(field);
      continue;
    }
    if (!inserted) {
      cachedGraph.push(...clones);
      inserted = true;
    }
    const node = nodesOf([field])[0];
    cachedGraph.push(node.inputs.some((i) => computedFor.has(i)) ? rewired(node, computedFor) : field);
  }

  const branchAttribute = messageField(
    NODE.attribute,
    cached.attribute.map((a, i) => (i === cached.graphAt ? messageField(ATTRIBUTE.graph, cachedGraph) : a)),
  );
  const ifNode = messageField(GRAPH.node, ifFields.map((f, i) => (i === cached.position ? branchAttribute : f)));
  const rewritten = graph.flatMap((field, index) => {
    if (index === ifIndex) return [ifNode];
    if (field.field === GRAPH.input && pastInputs.includes(strings(readMessage(field.value), VALUE_INFO.name)[0])) return [];
    return [field];
  });
  // Nothing may read the removed inputs any more (the main graph's own nodes included).
  const stillRead = nodesOf(rewritten).some((n) => n.inputs.some((i) => pastInputs.includes(i)));
  if (stillRead) throw new Error('the main graph reads the encoder keys and values');
  return withGraph(modelFields, rewritten);
}

/** The node with each input found in `replacements` replaced (everything else as it was). */
function rewired(node: BranchNode, replacements: Map<string, string>): WireField {
  const rest = node.fields.filter((f) => f.field !== NODE.input);
  return messageField(GRAPH.node, [...node.inputs.map((i) => stringField(NODE.input, replacements.get(i) ?? i)), ...rest]);
}

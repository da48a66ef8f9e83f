/**
 * The merged decoder, rearranged for the CPU so that a cached step neither copies its self-attention cache nor hands
 * it back: it reads the past as given, and outputs only the positions it adds; the host appends them to the cache it
 * holds (model.ts, `KvCache.appended`).
 *
 * The export's cached branch makes `present.{i}.decoder.key/value` = Concat(past, new), the whole cache, at every
 * step, attends over it, and outputs it: onnxruntime copies the cache once into the Concat and allocates it anew,
 * the Node binding copies it again into a fresh JavaScript buffer, and the garbage collector frees that copy some
 * steps later (whisper-base's beam of 5: 12 tensors of up to 2.3 MB per step; the Concats were ~23 % of a step's
 * operator time). Here each layer's self-attention reads the past and the new position apart:
 *
 *   scores  = Concat(q · Kpastᵀ, q · knewᵀ)         (the same dot products, one more matrix product of one column)
 *   weights = Softmax(scores)                         (as before; `decoder_attentions.{i}` unchanged)
 *   context = weights[..past] · Vpast + weights[past] · vnew
 *
 * and the branch outputs `knew`, `vnew`, [batch, heads, 1, headDim], under the present names. The context sums the
 * same products in another order than one product over the concatenated values: with float products the logits
 * differ from the export's in the last bits (whisper-tiny: 3e-5); with 8-bit activations such a difference may move a
 * dynamically quantised tensor's scale, and a row's logits with it (0.2 at most measured, the same best token). The
 * first call's branch is unchanged: its presents are all the prompt's positions. A whisper-base beam-5 decode of the
 * 60 s lecture took 7.0 → 6.5 CPU s.
 *
 * A graph that does not have this shape is refused with an error; the caller then keeps the export as it is.
 */
import {
  ifBranches, int64Vector, intAttribute, intsAttribute, messageField, nodeField, nodesOf, ONNX, readGraph, readMessage, singleIf,
  stringField, topologicallySorted, valueName, withBranchGraph, withGraph, withoutUnread, type GraphNode, type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, valueInfo: VALUE_INFO } = ONNX;
const PREFIX = '/speechgate_new_positions';
const DECODER_PAST = /^past_key_values\.\d+\.decoder\.(key|value)$/;
const DECODER_PRESENT = /^present\.(\d+)\.decoder\.(key|value)$/;
/** Slice bounds: the past is everything but the last position, the new one the last (ends past the end are clamped). */
const FIRST = `${PREFIX}/first`;
const LAST = `${PREFIX}/last`;
const END = `${PREFIX}/end`;
const LENGTH_AXIS = `${PREFIX}/length_axis`;
/** Added to the past's shape [batch × heads, past, headDim]: the concatenation's shape. */
const ONE_MORE = `${PREFIX}/one_more`;

/** One layer's self-attention in the cached branch, as the export computes it over Concat(past, new). */
interface SelfAttention {
  layer: number;
  /** The export's nodes that go: the Concats, the whole keys' and values' reshapes, the keys' transpose. */
  gone: GraphNode[];
  /** The scores' and the context's products, and Shape nodes reading the whole keys or values: new nodes make their outputs. */
  remade: GraphNode[];
  /** The scores' product: the new nodes take its place. */
  scoresProduct: GraphNode;
  /** The Shape nodes among `remade`, and whether each read the keys or the values. */
  shapes: { node: GraphNode; of: 'key' | 'value' }[];
  queries: string;
  newKey: string;
  newValue: string;
  /** The shapes the export reshapes the keys and the values to, [batch × heads, -1, headDim]. */
  keyShape: string;
  valueShape: string;
  /** The scores' name (the Softmax reads it) and the weights' as the values' product reads them, [batch × heads, 1, length]. */
  scores: string;
  weights: string;
  /** The context's name, [batch × heads, 1, headDim]. */
  context: string;
}

function readersOf(nodes: GraphNode[], name: string): GraphNode[] {
  return nodes.filter((n) => n.inputs.includes(name));
}

function selfAttention(nodes: GraphNode[], producer: Map<string, GraphNode>, layer: number): SelfAttention {
  const fail = (what: string): never => {
    throw new Error(`decoder self-attention ${layer}: ${what}`);
  };
  const concatOf = (part: 'key' | 'value') => {
    const concat = producer.get(`present.${layer}.decoder.${part}`);
    const past = `past_key_values.${layer}.decoder.${part}`;
    if (concat?.opType !== 'Concat' || concat.inputs.length !== 2 || concat.inputs[0] !== past) fail(`${part}s are not Concat(past, new)`);
    const readers = readersOf(nodes, concat!.outputs[0]);
    if (readers.length !== 1 || readers[0].opType !== 'Reshape') fail(`the whole ${part}s are read by other than one Reshape`);
    const reshape = readers[0];
    const reshapeReaders = readersOf(nodes, reshape.outputs[0]);
    const shapes = reshapeReaders.filter((n) => n.opType === 'Shape');
    return { concat: concat!, reshape, shapes, others: reshapeReaders.filter((n) => n.opType !== 'Shape') };
  };
  const key = concatOf('key');
  const value = concatOf('value');
  const transpose = key.others[0];
  if (key.others.length !== 1 || transpose.opType !== 'Transpose') fail('the keys are not transposed once');
  const scores = readersOf(nodes, transpose.outputs[0]);
  if (scores.length !== 1 || scores[0].opType !== 'MatMul' || scores[0].inputs[1] !== transpose.outputs[0]) fail('no scores product');
  const product = value.others[0];
  if (value.others.length !== 1 || product.opType !== 'MatMul' || product.inputs[1] !== value.reshape.outputs[0]) {
    fail('the values are not read by one product');
  }
  return {
    layer,
    gone: [key.concat, key.reshape, transpose, value.concat, value.reshape],
    remade: [scores[0], product, ...key.shapes, ...value.shapes],
    scoresProduct: scores[0],
    shapes: [...key.shapes.map((node) => ({ node, of: 'key' as const })), ...value.shapes.map((node) => ({ node, of: 'value' as const }))],
    queries: scores[0].inputs[0],
    newKey: key.concat.inputs[1],
    newValue: value.concat.inputs[1],
    keyShape: key.reshape.inputs[1],
    valueShape: value.reshape.inputs[1],
    scores: scores[0].outputs[0],
    weights: product.inputs[0],
    context: product.outputs[0],
  };
}

/** The nodes that compute one layer's scores and context from the past and the new position apart (the file's comment). */
function splitAttention(a: SelfAttention): WireField[] {
  const p = `${PREFIX}/${a.layer}`;
  const node = (opType: string, name: string, inputs: string[], attributes: WireField[] = []) =>
    nodeField(opType, `${p}/${name}`, inputs.map((i) => (i.startsWith('@') ? `${p}/${i.slice(1)}` : i)), [`${p}/${name}`], attributes);
  const past = (part: 'key' | 'value') => `past_key_values.${a.layer}.decoder.${part}`;
  const transposed = [intsAttribute('perm', [0, 2, 1])];
  return [
    node('Reshape', 'past_keys', [past('key'), a.keyShape]),
    node('Reshape', 'new_keys', [a.newKey, a.keyShape]),
    node('Reshape', 'past_values', [past('value'), a.valueShape]),
    node('Reshape', 'new_values', [a.newValue, a.valueShape]),
    node('Transpose', 'past_keys_t', ['@past_keys'], transposed),
    node('Transpose', 'new_keys_t', ['@new_keys'], transposed),
    node('MatMul', 'past_scores', [a.queries, '@past_keys_t']),
    node('MatMul', 'new_scores', [a.queries, '@new_keys_t']),
    nodeField('Concat', `${p}/scores`, [`${p}/past_scores`, `${p}/new_scores`], [a.scores], [intAttribute('axis', 2)]),
    node('Slice', 'past_weights', [a.weights, FIRST, LAST, LENGTH_AXIS]),
    node('Slice', 'new_weights', [a.weights, LAST, END, LENGTH_AXIS]),
    node('MatMul', 'past_context', ['@past_weights', '@past_values']),
    node('MatMul', 'new_context', ['@new_weights', '@new_values']),
    nodeField('Add', `${p}/context`, [`${p}/past_context`, `${p}/new_context`], [a.context]),
    // What read the shape of the whole keys or values reads the past's, one position longer.
    node('Shape', 'past_key_shape', ['@past_keys']),
    node('Shape', 'past_value_shape', ['@past_values']),
    ...a.shapes.map(({ node: shape, of }, i) => nodeField('Add', `${p}/shape_${i}`, [`${p}/past_${of}_shape`, ONE_MORE], shape.outputs)),
  ];
}

/** The decoder graph whose cached steps read the past apart and output their new positions only (the file's comment). */
export function newPositionsOnly(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'decoder');
  const { ifNode } = singleIf(graph);
  const { fields: ifFields, branches } = ifBranches(ifNode);
  const pastInputs = graph.filter((f) => f.field === GRAPH.input).map(valueName).filter((name) => DECODER_PAST.test(name));
  const cached = branches.find((b) => nodesOf(b.graph).some((n) => n.inputs.some((i) => pastInputs.includes(i))));
  if (branches.length !== 2 || !cached || pastInputs.length === 0) throw new Error('decoder has no cached branch reading its past');
  const nodes = nodesOf(cached.graph);
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const attentions = Array.from({ length: pastInputs.length / 2 }, (_, layer) => selfAttention(nodes, producer, layer));

  const replaced = new Set(attentions.flatMap((a) => [...a.gone, ...a.remade].map((n) => n.index)));
  const byLayer = new Map(attentions.map((a) => [a.layer, a]));
  // The new nodes go where each layer's scores product was (then sorted: some read values made further on).
  const scoresAt = new Map(attentions.map((a) => [a.scoresProduct.index, a]));
  const gone = new Set(attentions.flatMap((a) => a.gone.flatMap((n) => n.outputs)));
  const rewritten = cached.graph.flatMap((field, index): WireField[] => {
    const attention = scoresAt.get(index);
    if (attention) return splitAttention(attention);
    if (replaced.has(index)) return [];
    if (field.field === GRAPH.valueInfo && gone.has(valueName(field))) return [];
    if (field.field !== GRAPH.output) return [field];
    const match = DECODER_PRESENT.exec(valueName(field));
    if (!match) return [field];
    // The same output, named after the new positions: its type (float, four dimensions) holds for them too.
    const layer = byLayer.get(Number(match[1]))!;
    return [messageField(GRAPH.output, [
      stringField(VALUE_INFO.name, match[2] === 'key' ? layer.newKey : layer.newValue),
      ...readMessage(field.value).filter((f) => f.field !== VALUE_INFO.name),
    ])];
  });
  const branch = topologicallySorted(withoutUnread(rewritten));
  if (nodesOf(branch).some((n) => n.inputs.some((i) => gone.has(i)))) throw new Error('decoder whole keys or values are read elsewhere');
  const out = graph.map((field, index) => (index === ifNode.index ? withBranchGraph(ifFields, cached, branch) : field));
  out.push(int64Vector(FIRST, [0]), int64Vector(LAST, [-1]), int64Vector(END, [2 ** 31]), int64Vector(LENGTH_AXIS, [2]),
    int64Vector(ONE_MORE, [0, 1, 0]));
  return withGraph(modelFields, out);
}

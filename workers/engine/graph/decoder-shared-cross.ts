/**
 * The merged decoder, rearranged for the CPU so that the rows of a beam read one copy of their window's
 * cross-attention keys and values instead of one copy each.
 *
 * The export's cached branch takes `past_key_values.{i}.encoder.key/value` as [batch, heads, frames, headDim], one
 * entry per decoder row, and multiplies each row's single query by its own copy: a beam of 5 on a 30 s window
 * sent 5 identical copies of every layer's keys and values (184 MB for whisper-base) into every step, each read in
 * full to make one row of scores (matrix × vector products, bound by memory), and held them in the process.
 *
 * The rewrite lets those inputs have fewer rows than the decoder: `encoderRows` rows, each read by the
 * `batch / encoderRows` consecutive decoder rows that follow it (a beam: one encoder row for all of its
 * hypotheses; windows decoded together: one each, as before). Per layer, the queries [batch, seq, heads, headDim]
 * are regrouped as [encoderRows, heads, rows per encoder row × seq, headDim], so that one matrix product per head
 * reads the keys once for all of those rows, the same for the values; the context and the `cross_attentions.{i}`
 * output come back in the export's row order and shape. The scores are the same dot products with the same keys;
 * one matrix product sums them in another order than one vector product per row, so the logits differ from the
 * export's in the last bits (a cached step of whisper-base, beam 5: 1.7e-5 at most). With one encoder row per
 * decoder row the products are the export's, bit for bit. A beam step of whisper-base took 28 → 22 ms CPU.
 *
 * A graph that does not have this shape is refused with an error; the caller then keeps the export as it is.
 */
import {
  ifBranches,
  int64Vector,
  intAttribute,
  intsAttribute,
  messageField,
  nodeField,
  nodesOf,
  ONNX,
  readGraph,
  readMessage,
  rewire,
  singleIf,
  stringField,
  valueName,
  withBranchGraph,
  withGraph,
  withoutUnread,
  type GraphNode,
  type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, valueInfo: VALUE_INFO } = ONNX;
const PREFIX = '/speechgate_shared_cross';
/** The encoder inputs' first dimension, apart from the decoder's `batch_size`. */
const ENCODER_ROWS = 'encoder_rows';

/** One layer's cross-attention in the cached branch: the nodes replaced and the names around them. */
interface CrossAttention {
  layer: number;
  /** Every node the new ones replace. */
  replaced: GraphNode[];
  /** The queries before the heads move forward, [batch, seq, heads, headDim] (the 1/√headDim scale applied). */
  queries: string;
  keys: string;
  values: string;
  /** The node that reads the context as [batch, seq, heads, headDim] and flattens the heads (it stays). */
  contextReader: GraphNode;
  /** The name it read the context by. */
  context: string;
  /** The branch output of the attention weights, [batch, heads, seq, frames]. */
  weights: string;
}

/** The one node `match` accepts among the readers of `name`, or an error saying what was looked for. */
function onlyReader(nodes: GraphNode[], name: string, opType: string, what: string): GraphNode {
  const found = nodes.filter((n) => n.opType === opType && n.inputs.includes(name));
  if (found.length !== 1) throw new Error(`decoder cross-attention: ${found.length} ${opType} nodes read ${what}`);
  return found[0];
}

function crossAttention(nodes: GraphNode[], producer: Map<string, GraphNode>, layer: number): CrossAttention {
  const keys = `past_key_values.${layer}.encoder.key`;
  const values = `past_key_values.${layer}.encoder.value`;
  const keyReshape = onlyReader(nodes, keys, 'Reshape', keys);
  const valueReshape = onlyReader(nodes, values, 'Reshape', values);
  const keyTranspose = onlyReader(nodes, keyReshape.outputs[0], 'Transpose', 'the keys');
  const scores = onlyReader(nodes, keyTranspose.outputs[0], 'MatMul', 'the transposed keys');
  const queryReshape = producer.get(scores.inputs[0]);
  const headsFirst = queryReshape && producer.get(queryReshape.inputs[0]);
  if (queryReshape?.opType !== 'Reshape' || headsFirst?.opType !== 'Transpose') {
    throw new Error('decoder cross-attention queries are not a Reshape of a Transpose');
  }
  const softmax = onlyReader(nodes, scores.outputs[0], 'Softmax', 'the scores');
  const weightsOut = onlyReader(nodes, softmax.outputs[0], 'Reshape', 'the attention weights');
  if (!/^cross_attentions\.\d+$/.test(weightsOut.outputs[0])) throw new Error('decoder cross-attention weights are not an output');
  const product = onlyReader(nodes, valueReshape.outputs[0], 'MatMul', 'the values');
  // The weights reach the values' product directly or through a Reshape of the output.
  const weightsIn = producer.get(product.inputs[0]);
  const viaReshape = weightsIn?.opType === 'Reshape' && weightsIn.inputs[0] === weightsOut.outputs[0];
  if (!viaReshape && product.inputs[0] !== softmax.outputs[0]) throw new Error('decoder cross-attention values read other weights');
  const contextReshape = onlyReader(nodes, product.outputs[0], 'Reshape', 'the context');
  const contextTranspose = onlyReader(nodes, contextReshape.outputs[0], 'Transpose', 'the context');
  const contextReader = onlyReader(nodes, contextTranspose.outputs[0], 'Reshape', 'the context');
  const replaced = [keyReshape, valueReshape, keyTranspose, scores, queryReshape, softmax, weightsOut, product, contextReshape,
    contextTranspose, ...(viaReshape ? [weightsIn!] : [])];
  // Only shape readers may read what goes (the old shapes' arithmetic, unread once the nodes go; checked after).
  for (const node of replaced) {
    const elsewhere = node.outputs.some((o) => nodes.some(
      (n) => !replaced.includes(n) && n !== contextReader && n.opType !== 'Shape' && n.inputs.includes(o),
    ));
    if (elsewhere) throw new Error(`decoder cross-attention value ${node.outputs[0]} is read elsewhere`);
  }
  return {
    layer, replaced, queries: headsFirst.inputs[0], keys, values, contextReader, context: contextTranspose.outputs[0],
    weights: weightsOut.outputs[0],
  };
}

/** The nodes that compute one layer's cross-attention with the rows grouped by encoder row (see the file's comment). */
function groupedAttention(a: CrossAttention): WireField[] {
  const p = `${PREFIX}/${a.layer}`;
  const node = (opType: string, name: string, inputs: string[], attributes: WireField[] = []) =>
    nodeField(opType, `${p}/${name}`, inputs.map((i) => (i.startsWith('@') ? `${p}/${i.slice(1)}` : i)), [`${p}/${name}`], attributes);
  const at = (index: number) => `${PREFIX}/at_${index}`;
  return [
    // Shapes: queries [batch, seq, heads, headDim], keys [encoderRows, heads, frames, headDim].
    node('Shape', 'query_shape', [a.queries]),
    node('Shape', 'key_shape', [a.keys]),
    node('Gather', 'encoder_rows', ['@key_shape', at(0)], [intAttribute('axis', 0)]),
    node('Gather', 'frames', ['@key_shape', at(2)], [intAttribute('axis', 0)]),
    node('Gather', 'batch', ['@query_shape', at(0)], [intAttribute('axis', 0)]),
    node('Gather', 'seq', ['@query_shape', at(1)], [intAttribute('axis', 0)]),
    node('Gather', 'heads', ['@query_shape', at(2)], [intAttribute('axis', 0)]),
    node('Gather', 'head_dim', ['@query_shape', at(3)], [intAttribute('axis', 0)]),
    // [encoderRows, rows × seq, heads, headDim] → [encoderRows, heads, rows × seq, headDim]
    node('Concat', 'grouped_shape', ['@encoder_rows', `${PREFIX}/minus_one`, '@heads', '@head_dim'], [intAttribute('axis', 0)]),
    node('Reshape', 'grouped', [a.queries, '@grouped_shape']),
    node('Transpose', 'grouped_heads', ['@grouped'], [intsAttribute('perm', [0, 2, 1, 3])]),
    node('Transpose', 'keys_t', [a.keys], [intsAttribute('perm', [0, 1, 3, 2])]),
    node('MatMul', 'scores', ['@grouped_heads', '@keys_t']),
    node('Softmax', 'weights', ['@scores'], [intAttribute('axis', 3)]),
    node('MatMul', 'context', ['@weights', a.values]),
    // [encoderRows, heads, rows × seq, headDim] → [encoderRows, rows × seq, heads, headDim]: the flattening reads it.
    node('Transpose', 'context_rows', ['@context'], [intsAttribute('perm', [0, 2, 1, 3])]),
    // The weights in the export's [batch, heads, seq, frames].
    node('Concat', 'weights_split_shape', ['@encoder_rows', '@heads', `${PREFIX}/minus_one`, '@seq', '@frames'], [intAttribute('axis', 0)]),
    node('Reshape', 'weights_split', ['@weights', '@weights_split_shape']),
    node('Transpose', 'weights_rows', ['@weights_split'], [intsAttribute('perm', [0, 2, 1, 3, 4])]),
    node('Concat', 'weights_shape', ['@batch', '@heads', '@seq', '@frames'], [intAttribute('axis', 0)]),
    nodeField('Reshape', `${p}/weights_out`, [`${p}/weights_rows`, `${p}/weights_shape`], [a.weights]),
  ];
}

/** The decoder graph whose cached branch shares encoder rows among decoder rows (see the file's comment). */
export function sharedCrossAttention(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'decoder');
  const { ifNode } = singleIf(graph);
  const { fields: ifFields, branches } = ifBranches(ifNode);
  const encoderInputs = graph.filter((f) => f.field === GRAPH.input).map(valueName).filter(
    (name) => /^past_key_values\.\d+\.encoder\.(key|value)$/.test(name),
  );
  const cached = branches.find((b) => nodesOf(b.graph).some((n) => n.inputs.some((i) => encoderInputs.includes(i))));
  if (branches.length !== 2 || !cached || encoderInputs.length === 0) throw new Error('decoder has no cached branch reading encoder keys');
  const nodes = nodesOf(cached.graph);
  if (nodes.some((n) => n.opType === 'Add' && n.outputs[0].endsWith('/speechgate_masked'))) {
    throw new Error('decoder takes row masks (its rows bring their own encoder states)');
  }
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const attentions = Array.from({ length: encoderInputs.length / 2 }, (_, layer) => crossAttention(nodes, producer, layer));

  const replaced = new Set(attentions.flatMap((a) => a.replaced.map((n) => n.index)));
  const readers = new Map(attentions.map((a) => [a.contextReader.index, a]));
  const rewritten = cached.graph.flatMap((field, index): WireField[] => {
    if (replaced.has(index)) return [];
    const attention = readers.get(index);
    if (attention) {
      const reader = rewire(attention.contextReader, attention.contextReader.inputs.map(
        (i) => (i === attention.context ? `${PREFIX}/${attention.layer}/context_rows` : i),
      ), attention.contextReader.outputs);
      return [...groupedAttention(attention), reader];
    }
    return [field];
  });
  // The replaced values' shapes no longer hold (or the values no longer exist).
  const gone = new Set(attentions.flatMap((a) => a.replaced.flatMap((n) => n.outputs)));
  const branch = withoutUnread(rewritten.filter((f) => !(f.field === GRAPH.valueInfo && gone.has(valueName(f)))));
  if (nodesOf(branch).some((n) => n.inputs.some((i) => gone.has(i)))) throw new Error('decoder cross-attention values are read elsewhere');

  const newIf = withBranchGraph(ifFields, cached, branch);
  const out = graph.map((field, index) => {
    if (index === ifNode.index) return newIf;
    if (field.field === GRAPH.input && encoderInputs.includes(valueName(field))) return withFirstDimension(field, ENCODER_ROWS);
    return field;
  });
  out.push(
    ...[0, 1, 2, 3].map((i) => int64Vector(`${PREFIX}/at_${i}`, [i])),
    int64Vector(`${PREFIX}/minus_one`, [-1]),
  );
  return withGraph(modelFields, out);
}

/** A graph input's declaration with its first dimension renamed `name` (the rest of its type as it was). */
function withFirstDimension(input: WireField, name: string): WireField {
  const fields = readMessage(input.value);
  return messageField(GRAPH.input, fields.map((f) => {
    if (f.field !== VALUE_INFO.type) return f;
    // TypeProto.tensor_type (1) { elem_type (1), shape (2) { dim (1) { dim_value (1) | dim_param (2) } } }
    const type = readMessage(f.value).map((t) => {
      if (t.field !== 1) return t;
      const tensor = readMessage(t.value).map((s) => {
        if (s.field !== 2) return s;
        let first = true;
        const dims = readMessage(s.value).map((d) => {
          if (d.field !== 1 || !first) return d;
          first = false;
          return messageField(1, [stringField(2, name)]);
        });
        return messageField(2, dims);
      });
      return messageField(1, tensor);
    });
    return messageField(VALUE_INFO.type, type);
  }));
}

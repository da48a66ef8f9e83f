/**
 * An encoder that takes less than 30 s of features: whisper.cpp's `audio_ctx`, applied to the ONNX export.
 *
 * The export adds the whole [1500, dModel] positional-embedding table to the convolution output, so any
 * input but [80 × 3000] fails at that Add. This rewrites the graph to add only the table's first T rows,
 * T being the convolution output's length: Shape → Slice (T) → Slice (table[0:T]) → Add. Everything else in
 * the encoder already works on any length. The encoder's cost then grows with the audio it is given instead
 * of always paying for 30 s, which is what a live session's short, repeated passes need.
 *
 * Whisper was trained on 30 s windows only; a shorter context is a little less accurate, so it is for passes
 * whose text is provisional (realtime drafts), not for the text a file job keeps.
 */
import {
  int64Initializer, messageField, nodeField, ONNX, readGraph, readMessage, strings, stringField, withGraph, type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, node: NODE, tensor: TENSOR } = ONNX;
const VALUE_INFO_NAME = ONNX.valueInfo.name;

const PREFIX = '/speechgate_audio_ctx';

const node = (opType: string, name: string, inputs: string[], output: string): WireField => nodeField(
  opType, `${PREFIX}/${name}`, inputs, [output],
);

/**
 * The encoder graph rewritten to take any number of feature frames (even, ≤ 3000), keeping only the
 * `outputs` named (the export also returns 1500×1500 attention maps nobody here reads). Throws when the
 * graph has no Add of a positional-embedding initializer, i.e. is not a Whisper encoder export.
 */
export function variableLengthEncoder(model: Uint8Array, outputs: string[] = ['last_hidden_state']): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'encoder model');

  const initializerNames = new Set(
    graph.filter((f) => f.field === GRAPH.initializer).flatMap((f) => strings(readMessage(f.value), TENSOR.name)),
  );
  const table = [...initializerNames].find((name) => /embed_positions/.test(name));
  const addIndex = graph.findIndex((f) => {
    if (f.field !== GRAPH.node) return false;
    const fields = readMessage(f.value);
    return strings(fields, NODE.opType)[0] === 'Add' && table !== undefined && strings(fields, NODE.input).includes(table);
  });
  if (!table || addIndex < 0) throw new Error('encoder graph has no positional-embedding Add (not a Whisper encoder export)');

  const addFields = readMessage(graph[addIndex].value);
  const hidden = strings(addFields, NODE.input).find((input) => input !== table)!;
  const sliced = `${PREFIX}/positions`;
  const rewrittenAdd = addFields.map(
    (f) => (f.field === NODE.input && strings([f], NODE.input)[0] === table ? stringField(NODE.input, sliced) : f),
  );

  const zero = `${PREFIX}/zero`;
  const one = `${PREFIX}/one`;
  const two = `${PREFIX}/two`;
  // Slice (opset ≥ 10) takes starts/ends/axes as inputs: frames = shape(hidden)[1:2]; positions = table[0:frames].
  const inserted = [
    node('Shape', 'Shape', [hidden], `${PREFIX}/shape`),
    node('Slice', 'Frames', [`${PREFIX}/shape`, one, two, zero], `${PREFIX}/frames`),
    node('Slice', 'Positions', [table, zero, `${PREFIX}/frames`, zero], sliced),
  ];
  const kept = new Set(outputs);
  const rewritten: WireField[] = [];
  graph.forEach((f, index) => {
    if (index === addIndex) rewritten.push(...inserted, messageField(GRAPH.node, rewrittenAdd));
    // Shape hints were written for 1500 frames; onnxruntime infers the real ones.
    else if (f.field === GRAPH.valueInfo) return;
    else if (f.field === GRAPH.output && !kept.has(strings(readMessage(f.value), VALUE_INFO_NAME)[0] ?? '')) return;
    else rewritten.push(f);
  });
  rewritten.push(int64Initializer(zero, 0), int64Initializer(one, 1), int64Initializer(two, 2));
  return withGraph(modelFields, rewritten);
}

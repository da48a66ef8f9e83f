/**
 * Silero VAD v5 over many chunks in one call. The export runs one 32 ms chunk per call: its encoder (a short-time
 * Fourier transform and four convolutions) reads that chunk alone, and its recurrent cell carries the state to the
 * next call. Called once per chunk, a minute of audio took 1,875 calls, ~0.3 CPU s, most of it each call's own cost
 * (a third of it the model's arithmetic). The graph made here runs the encoder over a batch of chunks at once and the
 * cell as ONNX's LSTM over them as a sequence, starting from the state given and handing back the last: the same
 * arithmetic in the same order, so the probabilities are the per-chunk export's (within float rounding, tested).
 *
 * Reads the 16 kHz branch of the If-less opset-18 export (`silero_vad_op18_ifless.onnx`); anything else is refused
 * with an error saying what was not found, and the caller keeps calling the export chunk by chunk.
 */
import {
  floatInitializer, floatsOf, ifBranches, int64Vector, intAttribute, nodeField, nodesOf, ONNX, readGraph, readMessage, strings,
  tensorValueInfo, tensorValues, valueName, withGraph, type WireField,
} from './onnx-wire.js';

const PREFIX = 'speechgate_sequence';
const ONNX_FLOAT = 1;
/** The recurrent cell's width in Silero v5, also its input's (its state is [2, batch, 128]: hidden, then cell). */
const HIDDEN = 128;

/** PyTorch's LSTM gate blocks (input, forget, cell, output) in ONNX's order (input, output, forget, cell). */
function onnxGateOrder(values: Float32Array): Float32Array {
  const block = values.length / 4;
  const out = new Float32Array(values.length);
  [0, 3, 1, 2].forEach((gate, i) => out.set(values.subarray(gate * block, (gate + 1) * block), i * block));
  return out;
}

/**
 * The sequence graph: `input` [chunks, 64 + 512] (each chunk after the 64 samples before it) and `state` [2, 1, 128]
 * in, `output` [chunks] (each chunk's speech probability) and `stateN` [2, 1, 128] (after the last chunk) out.
 */
export function sequenceVadGraph(model: Uint8Array): Uint8Array {
  const { modelFields, graph } = readGraph(model, 'voice activity model');
  const ifNode = nodesOf(graph).find((n) => n.opType === 'If');
  if (!ifNode) throw new Error('voice activity model has no sample-rate If (not the If-less Silero v5 export)');
  // The 16 kHz branch: the one whose convolutions are not the 8 kHz model's.
  const branch = ifBranches(ifNode).branches.map((b) => b.graph).find((g) => {
    const convs = nodesOf(g).filter((n) => n.opType === 'Conv');
    return convs.length > 0 && convs.every((n) => !n.inputs[1].includes('8k'));
  });
  if (!branch) throw new Error('voice activity model has no 16 kHz branch');
  const nodes = nodesOf(branch);

  // The cell's two products: input (reads the encoder's output) and hidden (reads the state).
  const gemms = nodes.filter((n) => n.opType === 'Gemm');
  const stateReads = new Set(nodes.filter((n) => n.inputs[0] === 'state').flatMap((n) => n.outputs));
  const hiddenGemm = gemms.find((n) => stateReads.has(n.inputs[0]));
  const inputGemm = gemms.find((n) => n !== hiddenGemm);
  if (gemms.length !== 2 || !hiddenGemm || !inputGemm) throw new Error('voice activity model has no LSTM cell of two products');
  const encoded = inputGemm.inputs[0];
  const head = nodes.filter((n) => n.opType === 'Conv').at(-1)!;

  const initializers = new Map<string, WireField[]>();
  for (const field of [...graph, ...branch]) {
    if (field.field !== ONNX.graph.initializer) continue;
    const tensor = readMessage(field.value);
    initializers.set(strings(tensor, ONNX.tensor.name)[0] ?? '', tensor);
  }
  const weight = (name: string, size: number): Float32Array => {
    const tensor = initializers.get(name);
    const values = tensor && floatsOf(tensorValues(tensor));
    if (!values || values.length !== size) throw new Error(`voice activity model: ${name} is not ${size} floats`);
    return values;
  };
  const gates = 4 * HIDDEN;
  const bias = new Float32Array(2 * gates);
  bias.set(onnxGateOrder(weight(inputGemm.inputs[2], gates)), 0);
  bias.set(onnxGateOrder(weight(hiddenGemm.inputs[2], gates)), gates);

  // The encoder: every node the cell's input product depends on (none of them reads the state).
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const encoder = new Set<(typeof nodes)[number]>();
  const wanted = [encoded];
  while (wanted.length) {
    const node = producer.get(wanted.pop()!);
    if (!node || encoder.has(node)) continue;
    if (node.inputs.includes('state')) throw new Error('voice activity model: the encoder reads the state');
    encoder.add(node);
    wanted.push(...node.inputs);
  }
  const read = new Set([...encoder].flatMap((n) => n.inputs));
  const p = (name: string) => `${PREFIX}/${name}`;
  const encoderInitializers = [...graph, ...branch].filter(
    (f) => f.field === ONNX.graph.initializer && read.has(strings(readMessage(f.value), ONNX.tensor.name)[0] ?? ''),
  );
  const sequence: WireField[] = [
    ...nodes.filter((n) => encoder.has(n)).map((n) => n.field),
    // [chunks, 128] → [chunks (time), 1 (batch), 128]
    nodeField('Unsqueeze', p('steps'), [encoded, p('axis1')], [p('steps')]),
    nodeField('Slice', p('h0'), ['state', p('zero'), p('one'), p('zero')], [p('h0')]),
    nodeField('Slice', p('c0'), ['state', p('one'), p('two'), p('zero')], [p('c0')]),
    nodeField('LSTM', p('lstm'), [p('steps'), p('W'), p('R'), p('B'), '', p('h0'), p('c0')], [p('Y'), p('Yh'), p('Yc')], [
      intAttribute('hidden_size', HIDDEN),
    ]),
    nodeField('Concat', p('stateN'), [p('Yh'), p('Yc')], ['stateN'], [intAttribute('axis', 0)]),
    // The head, a 1 × 1 convolution over the hidden state: ReLU, a dot product with its weight, the bias, a sigmoid.
    nodeField('Reshape', p('hidden'), [p('Y'), p('rows')], [p('hidden')]),
    nodeField('Relu', p('relu'), [p('hidden')], [p('relu')]),
    nodeField('MatMul', p('dot'), [p('relu'), p('headW')], [p('dot')]),
    nodeField('Add', p('logit'), [p('dot'), head.inputs[2]], [p('logit')]),
    nodeField('Sigmoid', p('sigmoid'), [p('logit')], [p('probability')]),
    nodeField('Reshape', p('output'), [p('probability'), p('flat')], ['output']),
    ...encoderInitializers,
    floatInitializer(p('W'), [1, gates, HIDDEN], onnxGateOrder(weight(inputGemm.inputs[1], gates * HIDDEN))),
    floatInitializer(p('R'), [1, gates, HIDDEN], onnxGateOrder(weight(hiddenGemm.inputs[1], gates * HIDDEN))),
    floatInitializer(p('B'), [1, 2 * gates], bias),
    floatInitializer(p('headW'), [HIDDEN, 1], weight(head.inputs[1], HIDDEN)),
    floatInitializer(head.inputs[2], [1], weight(head.inputs[2], 1)),
    int64Vector(p('axis1'), [1]), int64Vector(p('zero'), [0]), int64Vector(p('one'), [1]), int64Vector(p('two'), [2]),
    int64Vector(p('rows'), [-1, HIDDEN]), int64Vector(p('flat'), [-1]),
    ...graph.filter((f) => f.field === ONNX.graph.input && ['input', 'state'].includes(valueName(f))),
    tensorValueInfo(ONNX.graph.output, 'output', ONNX_FLOAT, 1), tensorValueInfo(ONNX.graph.output, 'stateN', ONNX_FLOAT, 3),
    // GraphProto.name
    ...graph.filter((f) => f.field === 2),
  ];
  return withGraph(modelFields, sequence);
}

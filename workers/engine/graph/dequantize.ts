/**
 * The 8-bit exports, made float for a GPU. The npm packages ship Whisper quantised the way onnxruntime's
 * `quantize_dynamic` does it: every weight matrix is 8-bit, and each product runs as
 *
 *   DynamicQuantizeLinear(x) → MatMulInteger(x_q, W_q, x_zero, W_zero) → Cast(float) → Mul(·, x_scale × W_scale)
 *
 * (ConvInteger for the encoder's two convolutions). onnxruntime's CUDA provider has no kernel for uint8
 * activations or for ConvInteger, so on a GPU those nodes ran on the CPU with copies in and out at every product:
 * the quantised graph is a CPU graph. This rewrite replaces each such chain with the float product it
 * approximates, MatMul(x, W) or Conv(x, W) with W = (W_q − W_zero) × W_scale computed once here, so that every
 * product runs on the GPU. The weights are the same numbers the 8-bit graph multiplies by (no accuracy is lost
 * against it; activations are no longer rounded to 8 bits, which if anything gains a little), at four times the
 * memory (whisper-base: ~290 MB of GPU memory instead of ~75).
 *
 * Nodes, initialisers and value types left without a use are removed. A graph with none of these chains, or
 * with one this code does not understand (weights not initialisers, per-channel zero points), is refused with
 * an error: the caller then keeps the export as it is.
 *
 * On the CPU the same rewrite is an accuracy fix (model.ts `FloatProducts`): `DynamicQuantizeLinear` rounds a
 * whole activation tensor to 256 steps between its minimum and maximum, and a GELU's output (the input of each
 * layer's second MLP product, fc2, and of the encoder's second convolution) is mostly values near zero with a few
 * large outliers: with one step for the whole range, most of it rounds to a handful of levels. `only: 'gelu'`
 * makes float just the products that read a GELU (5 of whisper-tiny's 26 encoder products), which is where
 * whisper-tiny's 8-bit encoder loses its words (9.9 % WER against 2.2 % on the read-speech clips, the same as
 * with every product float; its states 0.25 from the float encoder's, relative, against 0.08).
 */
import {
  floatInitializer, floatsOf, messageField, nodeField, ONNX, readGraph, readMessage, strings, tensorValues, valueName, withGraph,
  type TensorValues, type WireField,
} from './onnx-wire.js';

const { graph: GRAPH, node: NODE, attribute: ATTRIBUTE, tensor: TENSOR } = ONNX;

/** Integer products and the float op each becomes. */
const FLOAT_OF: Record<string, string> = { MatMulInteger: 'MatMul', ConvInteger: 'Conv' };

interface Scope {
  fields: WireField[];
  nodes: ScopeNode[];
  parent: Scope | null;
  /** Names this graph returns (its `output` value infos). */
  outputs: Set<string>;
}

interface ScopeNode {
  /** Position among the scope's fields. */
  index: number;
  fields: WireField[];
  opType: string;
  inputs: string[];
  outputs: string[];
  /** Graph-valued attributes (an If's branches): the attribute's position among the node's fields, and its graph. */
  branches: { attribute: number; attributeFields: WireField[]; graphField: number; scope: Scope }[];
  removed: boolean;
  /** The node written instead of this one. */
  replacement?: WireField;
}

const UINT8 = 2;
const INT8 = 3;

function parseScope(fields: WireField[], parent: Scope | null): Scope {
  const scope: Scope = { fields, nodes: [], parent, outputs: new Set() };
  fields.forEach((field, index) => {
    if (field.field === GRAPH.output) scope.outputs.add(valueName(field));
    if (field.field !== GRAPH.node) return;
    const nodeFields = readMessage(field.value);
    const node: ScopeNode = {
      index,
      fields: nodeFields,
      opType: strings(nodeFields, NODE.opType)[0] ?? '',
      inputs: strings(nodeFields, NODE.input),
      outputs: strings(nodeFields, NODE.output),
      branches: [],
      removed: false,
    };
    nodeFields.forEach((nodeField, attribute) => {
      if (nodeField.field !== NODE.attribute) return;
      const attributeFields = readMessage(nodeField.value);
      attributeFields.forEach((a, graphField) => {
        if (a.field === ATTRIBUTE.graph) {
          node.branches.push({ attribute, attributeFields, graphField, scope: parseScope(readMessage(a.value), scope) });
        }
      });
    });
    scope.nodes.push(node);
  });
  return scope;
}

function integersOf(tensor: TensorValues): Int8Array | Uint8Array {
  if (tensor.dataType === UINT8) return tensor.raw;
  if (tensor.dataType === INT8) return new Int8Array(tensor.raw.buffer, tensor.raw.byteOffset, tensor.raw.byteLength);
  throw new Error(`weight of data type ${tensor.dataType}, not 8-bit`);
}

/**
 * (W_q − zero) × scale. The scale is one number or one per output channel: the last axis of a MatMul's [K, N]
 * weight, the first of a Conv's [M, C, k…]. The zero point is one number (what quantize_dynamic writes).
 */
export function dequantizeWeight(weight: TensorValues, zeroPoint: TensorValues, scale: TensorValues, op: 'MatMul' | 'Conv'): Float32Array {
  const q = integersOf(weight);
  const zeros = integersOf(zeroPoint);
  const scales = floatsOf(scale);
  if (zeros.length !== 1) throw new Error('per-channel zero points are not supported');
  const channels = op === 'MatMul' ? weight.dims[weight.dims.length - 1] : weight.dims[0];
  if (scales.length !== 1 && scales.length !== channels) throw new Error(`${scales.length} scales for ${channels} channels`);
  const out = new Float32Array(q.length);
  const zero = zeros[0];
  const perChannel = q.length / channels;
  for (let i = 0; i < q.length; i++) {
    const channel = scales.length === 1 ? 0 : op === 'MatMul' ? i % channels : Math.floor(i / perChannel);
    out[i] = (q[i] - zero) * scales[channel];
  }
  return out;
}

/** Where `name` is read: inputs of this scope's live nodes, names nested graphs take from it, and its outputs. */
function uses(scope: Scope, name: string): number {
  let count = scope.outputs.has(name) ? 1 : 0;
  for (const node of scope.nodes) {
    if (node.removed) continue;
    count += node.inputs.filter((input) => input === name).length;
    for (const branch of node.branches) count += uses(branch.scope, name);
  }
  return count;
}

function producer(scope: Scope, name: string): ScopeNode | undefined {
  for (let s: Scope | null = scope; s; s = s.parent) {
    const node = s.nodes.find((n) => !n.removed && n.outputs.includes(name));
    if (node) return node;
  }
  return undefined;
}

function consumers(scope: Scope, name: string): ScopeNode[] {
  return scope.nodes.filter((n) => !n.removed && n.inputs.includes(name));
}

/** The one node of `opType` reading `name` in this scope, when it is the only reader of `name` anywhere. */
function onlyConsumer(scope: Scope, name: string, opType: string): ScopeNode | undefined {
  const readers = consumers(scope, name);
  return readers.length === 1 && readers[0].opType === opType && uses(scope, name) === 1 ? readers[0] : undefined;
}

/** Which integer products become float: all of them, or those whose input is a GELU's output. */
export interface DequantizeOptions {
  only?: 'all' | 'gelu';
}

/** Op types that compute a GELU: fused, or the erf form exported as Div → Erf → Add → Mul → Mul. */
const GELU_OPS = new Set(['Gelu', 'FastGelu', 'BiasGelu', 'QuickGelu']);

/** Whether `name` is a GELU's output: made by a GELU op, or by a Mul at most three producers past an Erf. */
function isGeluOutput(scope: Scope, name: string): boolean {
  const first = producer(scope, name);
  if (!first) return false;
  if (GELU_OPS.has(first.opType)) return true;
  if (first.opType !== 'Mul') return false;
  let level = [first];
  for (let depth = 0; depth < 3 && level.length > 0; depth++) {
    const next: ScopeNode[] = [];
    for (const node of level) {
      for (const input of node.inputs) {
        const made = producer(scope, input);
        if (made?.opType === 'Erf') return true;
        if (made) next.push(made);
      }
    }
    level = next;
  }
  return false;
}

interface Rewrite {
  only: 'all' | 'gelu';
  /** The main graph's initialisers by name, as read (decoded only for the chains that use them). */
  initializers: Map<string, WireField[]>;
  /** Float weights made so far, by the 8-bit weight's name (both If branches read the same weights). */
  floatWeights: Map<string, { name: string; field: WireField }>;
  rewritten: number;
  kept: number;
  /** Outputs of the replaced integer products: their value types go with them. */
  replacedOutputs: Set<string>;
}

/** Replaces each integer-product chain of `scope` (and of the graphs nested in it) by its float product. */
function rewriteScope(scope: Scope, rewrite: Rewrite): void {
  for (const node of scope.nodes) {
    for (const branch of node.branches) rewriteScope(branch.scope, rewrite);
    const floatOp = FLOAT_OF[node.opType] as 'MatMul' | 'Conv' | undefined;
    if (!floatOp || node.removed) continue;
    const [quantizedInput, weightName, inputZeroName, weightZeroName] = node.inputs;
    const quantize = producer(scope, quantizedInput);
    const cast = onlyConsumer(scope, node.outputs[0], 'Cast');
    const scaled = cast && onlyConsumer(scope, cast.outputs[0], 'Mul');
    const scalesName = scaled?.inputs.find((input) => input !== cast!.outputs[0]);
    const scales = scalesName ? producer(scope, scalesName) : undefined;
    const weightScaleName = scales?.opType === 'Mul' ? scales.inputs.find((input) => rewrite.initializers.has(input)) : undefined;
    const weightFields = rewrite.initializers.get(weightName);
    const weightZeroFields = rewrite.initializers.get(weightZeroName);
    // The chain is exactly x's quantisation, the product, and its rescaling by x's scale times the weight's.
    const isChain =
      quantize?.opType === 'DynamicQuantizeLinear' &&
      quantize.outputs[0] === quantizedInput &&
      quantize.outputs[2] === inputZeroName &&
      scales?.inputs.includes(quantize.outputs[1]) === true;
    // Only the GELU's readers asked for: any other product is left as it is, whatever its shape.
    if (rewrite.only === 'gelu' && !(quantize?.opType === 'DynamicQuantizeLinear' && isGeluOutput(scope, quantize.inputs[0]))) continue;
    if (!isChain || !scaled || !weightScaleName || !weightFields || !weightZeroFields) {
      rewrite.kept++;
      continue;
    }
    let float = rewrite.floatWeights.get(weightName);
    if (!float) {
      const name = `${weightName}/speechgate_float`;
      const weight = tensorValues(weightFields);
      const values = dequantizeWeight(
        weight, tensorValues(weightZeroFields), tensorValues(rewrite.initializers.get(weightScaleName)!), floatOp,
      );
      float = { name, field: floatInitializer(name, weight.dims, values) };
      rewrite.floatWeights.set(weightName, float);
    }
    // The Conv keeps the ConvInteger's attributes (kernel, pads, strides, group); a MatMul has none.
    const attributes = node.fields.filter((f) => f.field === NODE.attribute);
    const name = strings(node.fields, NODE.name)[0] ?? `${scaled.outputs[0]}/speechgate_float`;
    node.replacement = nodeField(floatOp, name, [quantize.inputs[0], float.name], [scaled.outputs[0]], attributes);
    for (const output of node.outputs) rewrite.replacedOutputs.add(output);
    node.inputs = [quantize.inputs[0], float.name];
    node.outputs = [scaled.outputs[0]];
    cast.removed = true;
    scaled.removed = true;
    rewrite.rewritten++;
  }
}

/** Removes nodes no output of which is read any more (the quantisers and scale products left behind). */
function prune(scope: Scope): boolean {
  let changed = false;
  for (const node of scope.nodes) for (const branch of node.branches) changed = prune(branch.scope) || changed;
  for (const node of [...scope.nodes].reverse()) {
    if (node.removed || node.branches.length > 0) continue;
    if (node.outputs.every((output) => output === '' || uses(scope, output) === 0)) {
      node.removed = true;
      changed = true;
    }
  }
  return changed;
}

function producedNames(scope: Scope): Set<string> {
  return new Set(scope.nodes.filter((n) => !n.removed).flatMap((n) => n.outputs));
}

function serialize(scope: Scope, removedNames: Set<string>): WireField[] {
  const nodes = new Map(scope.nodes.map((n) => [n.index, n]));
  const produced = producedNames(scope);
  return scope.fields.flatMap((field, index) => {
    const node = nodes.get(index);
    if (node) {
      if (node.removed) return [];
      if (node.replacement) return [node.replacement];
      if (node.branches.length === 0) return [field];
      const rebuilt = node.fields.map((nodeField, position) => {
        const branches = node.branches.filter((b) => b.attribute === position);
        if (branches.length === 0) return nodeField;
        const attributeFields = branches[0].attributeFields.map((a, graphField) => {
          const branch = branches.find((b) => b.graphField === graphField);
          return branch ? messageField(ATTRIBUTE.graph, serialize(branch.scope, removedNames)) : a;
        });
        return messageField(NODE.attribute, attributeFields);
      });
      return [messageField(GRAPH.node, rebuilt)];
    }
    // Types of values no node makes any more (the integer products, the quantisers' outputs).
    if (field.field === GRAPH.valueInfo) {
      const name = valueName(field);
      if (removedNames.has(name) && !produced.has(name)) return [];
    }
    return [field];
  });
}

const initializerName = (field: WireField) => strings(readMessage(field.value), TENSOR.name)[0];

/** Outputs of every removed node, added to `into`. */
function allRemovedOutputs(scope: Scope, into: Set<string>): Set<string> {
  for (const node of scope.nodes) {
    if (node.removed) for (const output of node.outputs) into.add(output);
    for (const branch of node.branches) allRemovedOutputs(branch.scope, into);
  }
  return into;
}

/** Every name read anywhere in the model. */
function readNames(scope: Scope, into = new Set<string>()): Set<string> {
  for (const node of scope.nodes) {
    if (node.removed) continue;
    for (const input of node.inputs) into.add(input);
    for (const branch of node.branches) readNames(branch.scope, into);
  }
  for (const output of scope.outputs) into.add(output);
  return into;
}

/**
 * The model with every integer product a float product, or (`only: 'gelu'`) those that read a GELU (see the
 * file's comment); throws when there is none.
 */
export function dequantizedGraph(model: Uint8Array, options: DequantizeOptions = {}): Uint8Array {
  const { modelFields, graph } = readGraph(model);
  const main = parseScope(graph, null);
  const initializers = new Map(
    graph.filter((f) => f.field === GRAPH.initializer).map((f) => {
      const fields = readMessage(f.value);
      return [strings(fields, TENSOR.name)[0], fields] as const;
    }),
  );
  const rewrite: Rewrite = {
    only: options.only ?? 'all', initializers, floatWeights: new Map(), rewritten: 0, kept: 0, replacedOutputs: new Set(),
  };
  rewriteScope(main, rewrite);
  if (rewrite.rewritten === 0) {
    throw new Error(rewrite.only === 'gelu' ? 'no 8-bit product reads a GELU' : 'no 8-bit products to make float');
  }
  // onnxruntime reads a model held in memory as one protobuf message, which cannot pass 2 GB (a large model's
  // encoder, four times its 8-bit size, can).
  const floatBytes = [...rewrite.floatWeights.values()].reduce((sum, w) => sum + w.field.value.length, 0);
  if (model.length + floatBytes >= 2 ** 31) {
    throw new Error(`its float weights (${Math.round(floatBytes / 2 ** 20)} MB) would pass protobuf's 2 GB limit; download the float `
      + `export (npm run models:download -- <model> --dtype fp32)`);
  }
  if (rewrite.kept > 0) throw new Error(`${rewrite.kept} 8-bit products of a shape this rewrite does not know`);
  while (prune(main));
  const removedNames = allRemovedOutputs(main, rewrite.replacedOutputs);
  const read = readNames(main);
  const graphInputs = new Set(graph.filter((f) => f.field === GRAPH.input).map(valueName));
  const fields = serialize(main, removedNames).filter(
    (field) => field.field !== GRAPH.initializer || read.has(initializerName(field)) || graphInputs.has(initializerName(field)),
  );
  return withGraph(modelFields, [...fields, ...[...rewrite.floatWeights.values()].map((w) => w.field)]);
}

/**
 * Just enough of the protobuf wire format to edit an ONNX graph without a schema: a message is read as a
 * list of raw fields, and written back from them, so every field this code does not touch (weights,
 * metadata, fields of newer ONNX versions) is copied byte for byte.
 */

export interface WireField {
  field: number;
  /** 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
  wireType: number;
  /** The value's bytes (for a varint, its encoded bytes). */
  value: Uint8Array;
}

function readVarint(buffer: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  let next = offset;
  for (;;) {
    if (next >= buffer.length) throw new Error('protobuf: truncated varint');
    const byte = buffer[next++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, next };
    scale *= 128;
  }
}

function writeVarint(value: number): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

export function readMessage(buffer: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const key = readVarint(buffer, offset);
    const field = Math.floor(key.value / 8);
    const wireType = key.value % 8;
    offset = key.next;
    let end: number;
    if (wireType === 0) end = readVarint(buffer, offset).next;
    else if (wireType === 1) end = offset + 8;
    else if (wireType === 5) end = offset + 4;
    else if (wireType === 2) {
      const length = readVarint(buffer, offset);
      offset = length.next;
      end = offset + length.value;
    } else throw new Error(`protobuf: unsupported wire type ${wireType} (field ${field})`);
    if (end > buffer.length) throw new Error(`protobuf: field ${field} runs past the end`);
    fields.push({ field, wireType, value: buffer.subarray(offset, end) });
    offset = end;
  }
  return fields;
}

/** The pieces of `fields`' encoding, in order, and their total length. */
function encodeParts(fields: WireField[], parts: Uint8Array[] = []): { parts: Uint8Array[]; length: number } {
  let length = 0;
  for (const { field, wireType, value } of fields) {
    const key = writeVarint(field * 8 + wireType);
    const size = wireType === 2 ? writeVarint(value.length) : new Uint8Array(0);
    parts.push(key, size, value);
    length += key.length + size.length + value.length;
  }
  return { parts, length };
}

export function writeMessage(fields: WireField[]): Uint8Array {
  const { parts, length } = encodeParts(fields);
  return Buffer.concat(parts, length);
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export const bytesField = (field: number, value: Uint8Array): WireField => ({ field, wireType: 2, value });
export const stringField = (field: number, value: string): WireField => bytesField(field, utf8.encode(value));
export const varintField = (field: number, value: number): WireField => ({ field, wireType: 0, value: writeVarint(value) });
export const messageField = (field: number, fields: WireField[]): WireField => bytesField(field, writeMessage(fields));

/** The numbers of a varint field: one for a plain field, several for a packed repeated one. */
export function varints(field: WireField): number[] {
  if (field.wireType === 0) return [readVarint(field.value, 0).value];
  const values: number[] = [];
  for (let offset = 0; offset < field.value.length; ) {
    const { value, next } = readVarint(field.value, offset);
    values.push(value);
    offset = next;
  }
  return values;
}

/** Every string value of `field` (repeated string fields). */
export function strings(fields: WireField[], field: number): string[] {
  return fields.filter((f) => f.field === field && f.wireType === 2).map((f) => fromUtf8.decode(f.value));
}

/** onnx.proto's field numbers, for the messages the graph rewrites touch. */
export const ONNX = {
  modelGraph: 7,
  graph: { node: 1, initializer: 5, input: 11, output: 12, valueInfo: 13 },
  node: { input: 1, output: 2, name: 3, opType: 4, attribute: 5 },
  attribute: { name: 1, tensor: 5, graph: 6, graphs: 11 },
  tensor: { dims: 1, dataType: 2, floatData: 4, int32Data: 5, int64Data: 7, name: 8, rawData: 9, externalData: 13, dataLocation: 14 },
  valueInfo: { name: 1, type: 2 },
} as const;

/** A model's fields and its graph's fields, to edit the graph and write the model back with `withGraph`. */
export function readGraph(model: Uint8Array, what = 'model'): { modelFields: WireField[]; graph: WireField[] } {
  const modelFields = readMessage(model);
  const graphField = modelFields.find((f) => f.field === ONNX.modelGraph);
  if (!graphField) throw new Error(`${what} has no graph`);
  return { modelFields, graph: readMessage(graphField.value) };
}

/** The model with `graph` as its graph, written in one allocation (a graph holds the weights: tens of MB). */
export function withGraph(modelFields: WireField[], graph: WireField[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let length = 0;
  for (const f of modelFields) {
    if (f.field !== ONNX.modelGraph) {
      length += encodeParts([f], parts).length;
      continue;
    }
    const inner = encodeParts(graph);
    const key = writeVarint(ONNX.modelGraph * 8 + 2);
    const size = writeVarint(inner.length);
    parts.push(key, size, ...inner.parts);
    length += key.length + size.length + inner.length;
  }
  return Buffer.concat(parts, length);
}

/** An initializer's shape, data type and values as little-endian bytes, as raw_data holds them. */
export interface TensorValues {
  dims: number[];
  dataType: number;
  raw: Uint8Array;
}

const ONNX_FLOAT = 1;
const ONNX_UINT8 = 2;
const ONNX_INT8 = 3;

/** A TensorProto's values: raw_data, or float_data / int32_data (8-bit) written as raw bytes. */
export function tensorValues(fields: WireField[]): TensorValues {
  const { tensor: TENSOR } = ONNX;
  if (fields.some((f) => f.field === TENSOR.externalData)) throw new Error('weights in external data files are not supported');
  const dims = fields.filter((f) => f.field === TENSOR.dims).flatMap(varints);
  const dataType = varints(fields.find((f) => f.field === TENSOR.dataType)!)[0];
  const raw = fields.find((f) => f.field === TENSOR.rawData)?.value;
  if (raw) return { dims, dataType, raw };
  const count = dims.reduce((a, b) => a * b, 1);
  if (dataType === ONNX_FLOAT) {
    // float_data: packed fixed32 values, or one fixed32 field per value.
    const bytes = fields.filter((f) => f.field === TENSOR.floatData).map((f) => f.value);
    return { dims, dataType, raw: Uint8Array.from(bytes.flatMap((b) => [...b])) };
  }
  if (dataType === ONNX_UINT8 || dataType === ONNX_INT8) {
    const values = fields.filter((f) => f.field === TENSOR.int32Data).flatMap(varints);
    if (values.length !== count) throw new Error('8-bit initializer without its values');
    return { dims, dataType, raw: Uint8Array.from(values) };
  }
  throw new Error(`initializer of data type ${dataType} without raw data`);
}

/** A float tensor's values, copied out of the graph's bytes (which hold them at any alignment). */
export function floatsOf(tensor: TensorValues): Float32Array {
  if (tensor.dataType !== ONNX_FLOAT) throw new Error(`tensor of data type ${tensor.dataType}, not float`);
  return new Float32Array(tensor.raw.buffer.slice(tensor.raw.byteOffset, tensor.raw.byteOffset + tensor.raw.byteLength));
}

/**
 * A graph's input or output (`field`: ONNX.graph.input / output) of `elementType` with `rank` dimensions, each named
 * after the value (its size is the caller's).
 */
export function tensorValueInfo(field: number, name: string, elementType: number, rank: number): WireField {
  const dims = Array.from({ length: rank }, (_, i) => messageField(1, [stringField(2, `${name}_${i}`)]));
  // TypeProto.tensor_type { elem_type, shape { dim { dim_param } … } }
  return messageField(field, [
    stringField(ONNX.valueInfo.name, name),
    messageField(ONNX.valueInfo.type, [messageField(1, [varintField(1, elementType), messageField(2, dims)])]),
  ]);
}

/** A graph's node as the rewrites read it: where it sits, its raw field, and its op type, inputs and outputs. */
export interface GraphNode {
  /** Position among the graph's fields. */
  index: number;
  field: WireField;
  opType: string;
  inputs: string[];
  outputs: string[];
}

export function nodesOf(graph: WireField[]): GraphNode[] {
  return graph.flatMap((field, index) => {
    if (field.field !== ONNX.graph.node) return [];
    const fields = readMessage(field.value);
    const { node } = ONNX;
    return [{
      index, field, opType: strings(fields, node.opType)[0] ?? '', inputs: strings(fields, node.input),
      outputs: strings(fields, node.output),
    }];
  });
}

/** A merged decoder's one If node (its `use_cache_branch` switch) among the top-level nodes, or an error. */
export function singleIf(graph: WireField[]): { topNodes: GraphNode[]; ifNode: GraphNode } {
  const topNodes = nodesOf(graph);
  const ifNodes = topNodes.filter((n) => n.opType === 'If');
  if (ifNodes.length !== 1) throw new Error('decoder graph has no single If (not a merged decoder export)');
  return { topNodes, ifNode: ifNodes[0] };
}

/** One branch of an If node: the attribute holding it, where that sits among the node's fields, and its graph. */
export interface IfBranch {
  position: number;
  attribute: WireField[];
  graphAt: number;
  graph: WireField[];
}

/** The If node's fields and its branch graphs (then_branch, else_branch). */
export function ifBranches(ifNode: GraphNode): { fields: WireField[]; branches: IfBranch[] } {
  const fields = readMessage(ifNode.field.value);
  const branches = fields.flatMap((field, position) => {
    if (field.field !== ONNX.node.attribute) return [];
    const attribute = readMessage(field.value);
    const graphAt = attribute.findIndex((a) => a.field === ONNX.attribute.graph);
    return graphAt < 0 ? [] : [{ position, attribute, graphAt, graph: readMessage(attribute[graphAt].value) }];
  });
  return { fields, branches };
}

/** The If node (its `fields`) with `branch`'s graph replaced by `graph`. */
export function withBranchGraph(fields: WireField[], branch: IfBranch, graph: WireField[]): WireField {
  const attribute = messageField(
    ONNX.node.attribute, branch.attribute.map((a, i) => (i === branch.graphAt ? messageField(ONNX.attribute.graph, graph) : a)),
  );
  return messageField(ONNX.graph.node, fields.map((f, i) => (i === branch.position ? attribute : f)));
}

/** The node with its inputs and outputs replaced (everything else, attributes included, as it was). */
export function rewire(node: GraphNode, inputs: string[], outputs: string[]): WireField {
  const { node: NODE } = ONNX;
  const rest = readMessage(node.field.value).filter((f) => f.field !== NODE.input && f.field !== NODE.output);
  return messageField(ONNX.graph.node, [
    ...inputs.map((i) => stringField(NODE.input, i)), ...outputs.map((o) => stringField(NODE.output, o)), ...rest,
  ]);
}

/** The name of a ValueInfoProto field (a graph's input, output or value_info). */
export const valueName = (field: WireField): string => strings(readMessage(field.value), ONNX.valueInfo.name)[0] ?? '';

/** A NodeProto (as a graph's `node` field). */
export function nodeField(opType: string, name: string, inputs: string[], outputs: string[], attributes: WireField[] = []): WireField {
  return messageField(ONNX.graph.node, [
    ...inputs.map((input) => stringField(ONNX.node.input, input)),
    ...outputs.map((output) => stringField(ONNX.node.output, output)),
    stringField(ONNX.node.name, name),
    stringField(ONNX.node.opType, opType),
    ...attributes,
  ]);
}

/** A float32 initializer of shape `dims` (as a graph's `initializer` field). */
export function floatInitializer(name: string, dims: number[], values: Float32Array): WireField {
  const { tensor } = ONNX;
  const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  return messageField(ONNX.graph.initializer, [
    ...dims.map((d) => varintField(tensor.dims, d)), varintField(tensor.dataType, 1), stringField(tensor.name, name),
    bytesField(tensor.rawData, raw),
  ]);
}

/** A scalar int64 initializer (as a graph's `initializer` field). */
export function int64Initializer(name: string, value: number | bigint): WireField {
  const raw = new Uint8Array(8);
  new DataView(raw.buffer).setBigInt64(0, BigInt(value), true);
  const { tensor } = ONNX;
  return messageField(ONNX.graph.initializer, [
    varintField(tensor.dims, 1), varintField(tensor.dataType, 7), stringField(tensor.name, name), bytesField(tensor.rawData, raw),
  ]);
}

/**
 * A branch without the nodes nothing reads any more (a rewrite's leftovers), which onnxruntime would
 * drop at load with a warning each.
 */
export function withoutUnread(branch: WireField[]): WireField[] {
  let fields = branch;
  for (;;) {
    const nodes = nodesOf(fields);
    const read = new Set([...nodes.flatMap((n) => n.inputs), ...fields.filter((f) => f.field === ONNX.graph.output).map(valueName)]);
    const unread = new Set(nodes.filter((n) => n.outputs.every((o) => !read.has(o))).map((n) => n.index));
    if (unread.size === 0) return fields;
    fields = fields.filter((_, index) => !unread.has(index));
  }
}

/** A 1-D int64 initializer (as a graph's `initializer` field). */
export function int64Vector(name: string, values: number[]): WireField {
  const raw = new Uint8Array(8 * values.length);
  values.forEach((value, i) => new DataView(raw.buffer).setBigInt64(8 * i, BigInt(value), true));
  const { tensor } = ONNX;
  return messageField(ONNX.graph.initializer, [
    varintField(tensor.dims, values.length), varintField(tensor.dataType, 7), stringField(tensor.name, name),
    bytesField(tensor.rawData, raw),
  ]);
}

/** An attribute of type INT (a NodeProto's attribute field): AttributeProto { name: 1, i: 3, type: 20 = INT (2) }. */
export function intAttribute(name: string, value: number): WireField {
  return messageField(ONNX.node.attribute, [stringField(1, name), varintField(3, value), varintField(20, 2)]);
}

/** An attribute of type INTS (`perm`): AttributeProto { name: 1, ints: 8, type: 20 = INTS (7) }. */
export function intsAttribute(name: string, values: number[]): WireField {
  return messageField(ONNX.node.attribute, [stringField(1, name), ...values.map((v) => varintField(8, v)), varintField(20, 7)]);
}

/**
 * A graph's fields with its nodes in an order where each comes after the nodes making its inputs (ONNX requires it),
 * otherwise in the order they had: a rewrite may put new nodes where they read values made further on. Values no
 * node of `graph` makes (inputs, initializers, an enclosing graph's values) count as ready.
 */
export function topologicallySorted(graph: WireField[]): WireField[] {
  const nodes = nodesOf(graph);
  const made = new Set(nodes.flatMap((n) => n.outputs));
  const ready = new Set<string>();
  const order: GraphNode[] = [];
  let waiting = nodes;
  while (waiting.length > 0) {
    const still: GraphNode[] = [];
    for (const node of waiting) {
      if (node.inputs.every((i) => i === '' || !made.has(i) || ready.has(i))) {
        order.push(node);
        node.outputs.forEach((o) => ready.add(o));
      } else still.push(node);
    }
    if (still.length === waiting.length) throw new Error(`graph has a cycle through ${still[0].outputs[0]}`);
    waiting = still;
  }
  let next = 0;
  return graph.map((field) => (field.field === ONNX.graph.node ? order[next++].field : field));
}

/** Where `externalData` puts each weight in its file: at offsets aligned to 64 kB, which onnxruntime can map in place. */
const EXTERNAL_ALIGNMENT = 65_536;

/**
 * The weights of `model`'s top-level initializers of `minBytes` or more, laid out for a file of their own at aligned
 * offsets (ONNX's external data), and the model reading them from such a file beside it, named `location`.
 */
export function externalData(
  model: Uint8Array, minBytes = EXTERNAL_ALIGNMENT,
): { data: Uint8Array; model: (location: string) => Uint8Array } {
  const { modelFields, graph } = readGraph(model);
  const { tensor: TENSOR } = ONNX;
  const placed = new Map<number, { at: number; fields: WireField[]; bytes: Uint8Array }>();
  let end = 0;
  graph.forEach((field, index) => {
    if (field.field !== ONNX.graph.initializer) return;
    const fields = readMessage(field.value);
    const raw = fields.find((f) => f.field === TENSOR.rawData);
    if (!raw || raw.value.length < minBytes) return;
    const at = Math.ceil(end / EXTERNAL_ALIGNMENT) * EXTERNAL_ALIGNMENT;
    placed.set(index, { at, fields, bytes: raw.value });
    end = at + raw.value.length;
  });
  const data = new Uint8Array(end);
  for (const { at, bytes } of placed.values()) data.set(bytes, at);
  const entry = (key: string, value: string) => messageField(TENSOR.externalData, [stringField(1, key), stringField(2, value)]);
  return {
    data,
    model: (location) => withGraph(modelFields, graph.map((field, index) => {
      const moved = placed.get(index);
      return moved ? messageField(ONNX.graph.initializer, [
        ...moved.fields.filter((f) => f.field !== TENSOR.rawData),
        entry('location', location), entry('offset', String(moved.at)), entry('length', String(moved.bytes.length)),
        varintField(TENSOR.dataLocation, 1),
      ]) : field;
    })),
  };
}

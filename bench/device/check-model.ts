/**
 * `tsx bench/device/check-model.ts <out.onnx>`: a MatMul → Softmax graph of a few kilobytes, which check.mjs runs on the
 * CPU and on CUDA to show that a shipped provider loads and its kernels run on the device's GPU.
 */
import { writeFileSync } from 'node:fs';
import { floatInitializer, messageField, nodeField, stringField, varintField, writeMessage } from '../../workers/engine/graph/onnx-wire.js';

const FLOAT = 1;
/** A graph input (field 11) or output (12): ValueInfoProto { name, type { tensor_type { elem_type, shape } } }. */
const value = (field: number, name: string, dims: number[]) =>
  messageField(field, [
    stringField(1, name),
    messageField(2, [messageField(1, [varintField(1, FLOAT), messageField(2, dims.map((d) => messageField(1, [varintField(1, d)])))])]),
  ]);
const graph = [
  nodeField('MatMul', 'matmul', ['x', 'w'], ['y']),
  nodeField('Softmax', 'softmax', ['y'], ['z']),
  stringField(2, 'check'),
  floatInitializer('w', [64, 64], Float32Array.from({ length: 64 * 64 }, (_, i) => Math.sin(i) / 8)),
  value(11, 'x', [2, 64]),
  value(12, 'z', [2, 64]),
];
// ModelProto { ir_version 8, opset_import { domain '', version 13 }, graph }
writeFileSync(
  process.argv[2], writeMessage([varintField(1, 8), messageField(8, [stringField(1, ''), varintField(2, 13)]), messageField(7, graph)]),
);

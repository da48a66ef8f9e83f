// Runs check.onnx (check-model.ts) on the CPU and on CUDA and compares: the provider loads and its kernels run here.
import * as ort from 'onnxruntime-node';

const model = new URL('./check.onnx', import.meta.url).pathname;
const x = new ort.Tensor('float32', Float32Array.from({ length: 128 }, (_, i) => Math.cos(i)), [2, 64]);
const cpu = await (await ort.InferenceSession.create(model, { executionProviders: ['cpu'] })).run({ x });
const cuda = await (await ort.InferenceSession.create(model, { executionProviders: ['cuda'] })).run({ x });
let worst = 0;
for (let i = 0; i < cpu.z.data.length; i++) worst = Math.max(worst, Math.abs(cpu.z.data[i] - cuda.z.data[i]));
console.log(`CHECK cuda against cpu: largest difference ${worst} ${worst < 1e-4 ? 'OK' : 'BAD'}`);

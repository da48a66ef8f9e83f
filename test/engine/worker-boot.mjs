// Worker entry for worker.test.ts: tsx's loader hooks do not reach worker threads in Node 20, so the thread
// registers tsx itself before importing the TypeScript module named in workerData.entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);

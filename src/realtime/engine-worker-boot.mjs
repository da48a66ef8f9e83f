// Entry of an engine worker thread. The gateway runs TypeScript through tsx, whose loader hooks do not reach
// worker threads in Node 20, so the thread registers tsx itself before importing the TypeScript worker.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);

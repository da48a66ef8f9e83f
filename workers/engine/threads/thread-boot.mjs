// Entry of every engine worker thread (file jobs, realtime sessions, tests). The gateway runs TypeScript
// through tsx, whose loader hooks do not reach worker threads in Node 20, so the thread registers tsx itself
// and then imports the TypeScript module named in `workerData.entry`.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);

/** Runs inside a worker_threads Worker for worker.test.ts: load the engine there, transcribe, stream, report. */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeFileToPcm, SpeechEngine } from '../../workers/engine/speech-engine.js';

const { file } = workerData as { file: string };
const engine = await SpeechEngine.load();
const again = await SpeechEngine.load();
const result = await engine.transcribeFile(file);
const stream = engine.createStream({ language: 'en' });
stream.push(await decodeFileToPcm(file));
const streamed = await stream.flush();
parentPort!.postMessage({
  sameInstance: engine === again,
  provider: engine.provider,
  text: result.segments.map((s) => s.text).join(' '),
  streamed: streamed.committed.map((s) => s.text).join(' '),
});

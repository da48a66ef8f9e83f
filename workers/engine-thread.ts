/**
 * One engine thread of a worker process: loads the SpeechEngine once and transcribes the files the host sends,
 * one at a time, posting each segment as it is committed. Inference runs here so the process's event loop
 * (database writes, Bull's lock renewal, the gateway when run in one process) never waits on the model.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { knownError } from '../src/core/errors.js';
import { SpeechEngine, type EngineOptions } from './engine/index.js';
import type { EngineHostToThread, EngineThreadToHost } from './engine-host.js';

const port = parentPort!;
const post = (message: EngineThreadToHost) => port.postMessage(message);
const engineOptions = (workerData as { engine: EngineOptions }).engine;
const running = new Map<string, AbortController>();

let enginePromise: Promise<SpeechEngine> | null = null;
const engine = () => (enginePromise ??= SpeechEngine.load(engineOptions));

port.on('message', async (message: EngineHostToThread) => {
  if (message.type === 'cancel') {
    running.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  try {
    const loaded = await engine();
    const result = await loaded.transcribeFile(message.path, {
      language: message.options.language,
      startS: message.options.startS,
      beamSize: message.options.beamSize,
      signal: controller.signal,
      onSegment: (segment, progress) => post({ type: 'segment', id: message.id, segment, progress }),
    });
    post({
      type: 'done',
      id: message.id,
      result: {
        language: result.language,
        durationS: result.durationS,
        processingS: result.processingS,
        segments: result.segments.length,
        model: loaded.modelName,
        beamSize: message.options.beamSize ?? 1,
      },
    });
  } catch (error) {
    // The engine's refusals cross the thread boundary as the envelope's code and status; anything else as a message.
    const e = (knownError(error) ?? error) as { code?: string; status?: number; message?: string; details?: Record<string, unknown> };
    post({ type: 'error', id: message.id, error: { code: e.code ?? null, status: e.status ?? null, message: e.message ?? String(error), details: e.details ?? {} } });
  } finally {
    running.delete(message.id);
  }
});

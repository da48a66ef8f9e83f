/**
 * One engine thread: loads a `SpeechEngine` once and runs the tasks its host sends, file transcriptions (each
 * segment posted as it is committed) and live transcriptions (`LiveTranscription`, one per live task). Inference
 * happens here, never on the event loop of the process that hosts the thread (the gateway's sockets, a worker's
 * database writes and Bull lock renewals).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineError } from '../errors.js';
import { requestedProvider, splitBySpeaker, SpeechEngine, type EngineOptions } from '../speech-engine.js';
import { LiveTranscription } from '../live.js';
import type { HostToThread, ThreadFailure, ThreadToHost } from './thread-protocol.js';

const port = parentPort!;
const post = (message: ThreadToHost) => port.postMessage(message);
const fileTasks = new Map<string, AbortController>();
const liveTasks = new Map<string, LiveTranscription>();

function failureOf(error: unknown): ThreadFailure {
  if (error instanceof EngineError) return { code: error.code, message: error.message, details: error.details };
  return { code: null, message: error instanceof Error ? error.message : String(error), details: {} };
}

/** Runs a task over a file (a transcription, a translation): `cancel` aborts it, a failure is posted as `failed`. */
async function fileTask(id: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  fileTasks.set(id, controller);
  try {
    await work(controller.signal);
  } catch (error) {
    post({ type: 'failed', id, failure: failureOf(error) });
  } finally {
    fileTasks.delete(id);
  }
}

async function transcribeFile(engine: SpeechEngine, message: Extract<HostToThread, { type: 'file' }>, signal: AbortSignal): Promise<void> {
  const { speakerLabels, ...options } = message.options;
  // Speakers are found over the whole file first (also when a resumed job starts later), so the numbering is
  // the same for every segment; the turns are cheap next to decoding (~1 s per minute of audio).
  const turns = speakerLabels ? await engine.diarizeFile(message.path, { signal }) : null;
  const result = await engine.transcribeFile(message.path, {
    ...options,
    signal,
    onSegment: (segment, progress) => {
      for (const part of turns ? splitBySpeaker(turns, segment) : [segment]) post({
        type: 'segment', id: message.id, segment: part, progress,
      });
    },
  });
  const { language, durationS, processingS, segments, uncoveredSpeechS, uncoveredSpeech, redecodedGaps } = result;
  post({
    type: 'file_done',
    id: message.id,
    result: {
      language, durationS, processingS, segments: segments.length, model: engine.modelName, beamSize: message.options.beamSize ?? 1,
      uncoveredSpeechS, uncoveredSpeech, redecodedGaps,
    },
  });
}

async function translateSpeech(
  engine: SpeechEngine, message: Extract<HostToThread, { type: 'translate' }>, signal: AbortSignal,
): Promise<void> {
  const result = await engine.translateSpeech(message.path, { ...message.options, signal });
  post({ type: 'translate_done', id: message.id, result: { ...result, model: engine.modelName, beamSize: message.options.beamSize ?? 1 } });
}

function startLive(engine: SpeechEngine, message: Extract<HostToThread, { type: 'live' }>): void {
  let live: LiveTranscription;
  try {
    live = new LiveTranscription(
      engine.createStream({ language: message.settings.language ?? undefined }), message.settings, message.tuning,
    );
  } catch (error) {
    post({ type: 'failed', id: message.id, failure: failureOf(error) });
    return;
  }
  liveTasks.set(message.id, live);
  live
    .run((update) => post({ type: 'live_update', id: message.id, update }))
    .then(
      (reason) => post({ type: 'live_done', id: message.id, reason }),
      (error) => post({ type: 'failed', id: message.id, failure: failureOf(error) }),
    )
    .finally(() => liveTasks.delete(message.id));
}

function handle(engine: SpeechEngine, message: HostToThread): void {
  if (message.type === 'file') {
    void fileTask(message.id, (signal) => transcribeFile(engine, message, signal));
    return;
  }
  if (message.type === 'translate') {
    void fileTask(message.id, (signal) => translateSpeech(engine, message, signal));
    return;
  }
  if (message.type === 'live') {
    startLive(engine, message);
    return;
  }
  if (message.type === 'cancel') fileTasks.get(message.id)?.abort();
  const live = liveTasks.get(message.id);
  if (!live) return; // ended already: late audio or a second cancel
  try {
    if (message.type === 'audio') live.push(new Float32Array(message.pcm));
    else if (message.type === 'clock') live.clock(message.pcm, message.wall);
    else if (message.type === 'update') live.update(message);
    else if (message.type === 'flush') live.flush();
    else if (message.type === 'eof') live.endOfAudio();
    else if (message.type === 'cancel') live.cancel();
  } catch (error) {
    // One task's failure (a language the engine refuses) must not take the thread and its other tasks down.
    live.cancel();
    liveTasks.delete(message.id);
    post({ type: 'failed', id: message.id, failure: failureOf(error) });
  }
}

async function main(): Promise<void> {
  const options = (workerData as { engine: EngineOptions }).engine;
  const early: HostToThread[] = [];
  let engine: SpeechEngine | null = null;
  port.on('message', (message: HostToThread) => (engine ? handle(engine, message) : early.push(message)));
  try {
    post({ type: 'loading', stage: 'model' });
    engine = await SpeechEngine.load(options);
  } catch (error) {
    post({ type: 'load_failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  post({
    type: 'ready', modelName: engine.modelName, languages: engine.languages(), provider: engine.provider,
    requestedProvider: requestedProvider(options),
  });
  for (const message of early.splice(0)) handle(engine, message);
}

void main();

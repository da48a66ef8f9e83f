/**
 * The realtime part runs the engine in worker_threads Workers: it must load and run there (no state
 * shared across threads), each thread caching its own loaded model. Also: the execution provider knob.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SpeechEngine } from '../../workers/engine/speech-engine.js';
import { EngineThreads, type EngineInfo } from '../../workers/engine/threads/threads.js';
import { fixture } from '../helpers/fixtures.js';
import { normaliseWords } from './text.js';

describe('engine hosting', () => {
  it('loads once per thread and transcribes inside two Workers at the same time', async () => {
    const runWorker = () =>
      new Promise<{ sameInstance: boolean; provider: string; text: string; streamed: string }>((resolve, reject) => {
        const worker = new Worker(new URL('../../workers/engine/threads/thread-boot.mjs', import.meta.url), {
          workerData: { entry: new URL('./worker-thread.ts', import.meta.url).href, file: fixture('goforward.wav') },
        });
        worker.once('message', (message) => {
          resolve(message);
          void worker.terminate();
        });
        worker.once('error', reject);
      });
    const results = await Promise.all([runWorker(), runWorker()]);
    for (const result of results) {
      expect(result.sameInstance).toBe(true);
      expect(result.provider).toBe('cpu');
      expect(normaliseWords(result.text)).toEqual(expect.arrayContaining(['go', 'forward', 'meters']));
      expect(normaliseWords(result.streamed)).toEqual(expect.arrayContaining(['go', 'forward', 'meters']));
    }
  });

  it('falls back to the CPU when the execution provider asked for is not available, and says so', async () => {
    // The npm onnxruntime-node bundles no CUDA provider; a GPU host installs onnxruntime's CUDA build.
    const engine = await SpeechEngine.load({ provider: 'cuda' });
    expect(engine.provider).toBe('cpu');
    const result = await engine.transcribeFile(fixture('goforward.wav'), { beamSize: 4 });
    expect(normaliseWords(result.segments.map((s) => s.text).join(' '))).toEqual(expect.arrayContaining(['go', 'forward', 'meters']));
  });

  it('engine threads report the provider asked for and the one they run on, once each thread is ready', async () => {
    const ready: EngineInfo[] = [];
    const threads = new EngineThreads({
      threads: 1, engine: { model: 'whisper-tiny', provider: 'CUDA' }, onReady: (info) => ready.push(info),
    });
    try {
      const info = await threads.warm();
      expect(info).toMatchObject({ modelName: 'whisper-tiny', requestedProvider: 'cuda', provider: 'cpu' });
      expect(threads.loadedEngine()).toEqual(info);
      expect(ready).toEqual([info]);
    } finally {
      await threads.close();
    }
  });

  it('caches the loaded model per process and settings', async () => {
    const [a, b] = await Promise.all([SpeechEngine.load(), SpeechEngine.load({ model: 'whisper-tiny' })]);
    expect(a).toBe(b);
    expect(a.modelName).toBe('whisper-tiny');
  });
});

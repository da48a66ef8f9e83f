/**
 * Realtime decodes on the fast model in every latency mode (`accuracy` is beam search on it: whisper-base does
 * not keep real time on a 2-core CPU, README "Accuracy"); the server's configuration names both models.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.js';
import { RealtimeRuntime } from '../../src/live/runtime.js';

describe('models of the configuration', () => {
  it('default to whisper-tiny (fast) and whisper-base (accurate); MODEL alone sets both; MODEL_FAST / MODEL_ACCURATE win', () => {
    expect(loadConfig({}).models).toEqual({ fast: 'whisper-tiny', accurate: 'whisper-base' });
    expect(loadConfig({ MODEL: 'whisper-small' }).models).toEqual({ fast: 'whisper-small', accurate: 'whisper-small' });
    expect(loadConfig({ MODEL: 'whisper-small', MODEL_FAST: 'whisper-tiny' }).models).toEqual({
      fast: 'whisper-tiny', accurate: 'whisper-small',
    });
    expect(loadConfig({ MODEL_ACCURATE: 'whisper-medium' }).models).toEqual({ fast: 'whisper-tiny', accurate: 'whisper-medium' });
  });
});

describe('the realtime engine', () => {
  let runtime: RealtimeRuntime | null = null;
  afterAll(async () => {
    await runtime?.close();
  });

  it('loads the fast model (the one the fast mode, drafts and auto\'s catch-up decode with)', async () => {
    const config = loadConfig({ REALTIME_ENGINE_THREADS: '1', REALTIME_SECRET: 'models-suite-secret-0123456789abcdef', DATA_DIR: '/tmp' });
    runtime = new RealtimeRuntime(config);
    expect(runtime.config.model).toBe('whisper-tiny');
    const info = await runtime.engine.warm();
    expect(info.modelName).toBe('whisper-tiny');
    expect(runtime.capabilities().latencyModes).toEqual(['auto', 'fast', 'accuracy']);
  }, 120_000);
});

/**
 * Settings of voices (src/voices), read by `loadConfig` into `config.voices`. Every variable has a row in the
 * docs/voices.md.
 */
import os from 'node:os';
import path from 'node:path';
import { envBool as bool, envInt as int, envString as str, type Env } from './env.js';

export interface VoiceSettings {
  /** KOKORO_DIR: the text-to-speech model's folder (default MODELS_DIR/kokoro). */
  kokoroDir: string;
  /** KOKORO_DOWNLOAD: fetch the model in the background on first use when it is missing (default on). */
  kokoroDownload: boolean;
  /**
   * KOKORO_THREADS: threads of a synthesis (default: all cores but one, so requests keep being answered while a voice
   * trains or a preview renders).
   */
  kokoroThreads: number;
  /** VOICE_SAMPLE_MAX_BYTES: the largest voice sample accepted (default 50 MB). */
  sampleMaxBytes: number;
  /** VOICE_MIN_SPEECH_S: seconds of speech an uploaded sample needs to be trained (default 5). */
  minSpeechS: number;
  /** VOICE_FIT_CANDIDATES: catalogue voices a training compares the sample with (default 4, 1..20). */
  fitCandidates: number;
}

export function loadVoiceSettings(env: Env, modelsDir: string): VoiceSettings {
  return {
    kokoroDir: path.resolve(str(env, 'KOKORO_DIR') ?? path.join(modelsDir, 'kokoro')),
    kokoroDownload: bool(env, 'KOKORO_DOWNLOAD', true),
    kokoroThreads: Math.max(1, int(env, 'KOKORO_THREADS', os.availableParallelism() - 1)),
    sampleMaxBytes: Math.max(1, int(env, 'VOICE_SAMPLE_MAX_BYTES', 50 * 1024 * 1024)),
    minSpeechS: Math.max(1, int(env, 'VOICE_MIN_SPEECH_S', 5)),
    fitCandidates: Math.min(20, Math.max(2, int(env, 'VOICE_FIT_CANDIDATES', 4))),
  };
}

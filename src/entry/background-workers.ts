/** Every background worker of the service; add yours here (one line). See src/core/background.ts. */
import type { BackgroundWorker } from '../core/background.js';
import { idempotencySweeper } from '../core/idempotency-sweeper.js';
import { transcriptionWorker } from '../../workers/transcription-background.js';
import { streamPullWorker } from '../live/index.js';
import { meteringSweeper, billingSweeper } from '../billing/index.js';
import { voiceTrainingWorker } from '../../workers/voice-training.js';
import { voiceRenderWorker } from '../../workers/voice-render.js';

export const backgroundWorkers: BackgroundWorker[] = [
  idempotencySweeper,
  transcriptionWorker,
  streamPullWorker,
  meteringSweeper,
  billingSweeper,
  voiceTrainingWorker,
  voiceRenderWorker,
];

/** Every background worker of the service; add yours here (one line). See src/core/background.ts. */
import type { BackgroundWorker } from '../core/background.js';
import { idempotencySweeper } from '../core/idempotency-sweeper.js';
import { transcriptionWorker } from '../../workers/transcription-background.js';
import { streamPullWorker } from '../recordings/stream-pull.js';
import { meteringSweeper } from '../billing/metering.js';
import { billingSweeper } from '../billing/sweeper.js';
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

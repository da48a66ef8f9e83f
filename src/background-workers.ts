/** Every background worker of the service; add yours here (one line). See src/background.ts. */
import type { BackgroundWorker } from './background.js';
import { idempotencySweeper } from './workers/idempotency-sweeper.js';
import { transcriptionWorker } from '../workers/transcription-background.js';

export const backgroundWorkers: BackgroundWorker[] = [
  idempotencySweeper,
  transcriptionWorker,
];

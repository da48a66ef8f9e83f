/** Every background worker of the service; add yours here (one line). See src/background.ts. */
import type { BackgroundWorker } from './background.js';
import { idempotencySweeper } from './workers/idempotency-sweeper.js';

export const backgroundWorkers: BackgroundWorker[] = [
  idempotencySweeper,
];

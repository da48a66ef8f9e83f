/**
 * Registers the file/link transcription worker with the service's background workers (src/background-workers.ts):
 * it runs inside `npm start` by default and alone in `npm run worker` processes.
 */
import type { BackgroundWorker } from '../src/background.js';
import { linkFetchPolicyFromEnv } from '../src/services/links/index.js';
import { queueSettingsOf, workerTuningFromEnv } from './settings.js';
import { startTranscriptionWorker } from './transcription-worker.js';

export const transcriptionWorker: BackgroundWorker = {
  name: 'transcriptions',
  async start({ config, prisma, pubsub }) {
    const tuning = workerTuningFromEnv();
    const worker = startTranscriptionWorker({
      prisma,
      pubsub,
      queueSettings: queueSettingsOf(config, tuning),
      dataDir: config.dataDir,
      linkPolicy: linkFetchPolicyFromEnv(),
      maxUploadBytes: config.limits.maxUploadBytes,
      engine: { model: config.model, modelsDir: config.modelsDir },
      concurrency: tuning.concurrency,
      sweepIntervalMs: tuning.sweepIntervalMs,
    });
    // Pick up what a previous process left (jobs admitted but never put on Bull, queues with free slots).
    void worker.sweep();
    return { stop: () => worker.close() };
  },
};

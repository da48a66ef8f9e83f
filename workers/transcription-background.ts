/**
 * Registers the file/link transcription worker with the service's background workers (src/entry/background-workers.ts):
 * it runs inside `npm start` by default and alone in `npm run worker` processes.
 */
import type { BackgroundWorker } from '../src/core/background.js';
import { linkFetchPolicyOf } from '../src/links/index.js';
import { startTranscriptionWorker } from './transcription-worker.js';

export const transcriptionWorker: BackgroundWorker = {
  name: 'transcriptions',
  async start({ config, prisma, pubsub, logger, services }) {
    const settings = config.transcriptions;
    const worker = startTranscriptionWorker({
      prisma,
      pubsub,
      logger,
      queueSettings: {
        redisUrl: config.redisUrl,
        redisPrefix: config.redisPrefix,
        lockDurationMs: settings.workerLockMs,
        stalledIntervalMs: settings.workerStalledCheckMs,
      },
      dataDir: config.dataDir,
      linkPolicy: linkFetchPolicyOf(settings),
      maxUploadBytes: config.limits.maxUploadBytes,
      // File jobs: the accurate model, beam search 5 (FILE_BEAM_SIZE).
      engine: { model: config.models.accurate, modelsDir: config.modelsDir },
      concurrency: settings.workerConcurrency,
      sweepIntervalMs: settings.workerSweepMs,
      metering: services.metering,
      // Summaries are written after finalize; a failure is stored on the recording, never the job's.
      afterFinalize: (recordingId) => services.summaries.afterFinalize(recordingId),
    });
    // Pick up what a previous process left (jobs admitted but never put on Bull, queues with free slots).
    void worker.sweep();
    return { stop: () => worker.close() };
  },
};

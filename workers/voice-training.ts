/**
 * The Bull queue of voice training (src/voices/service.ts `train`): the gateway adds a job per training run through
 * the `VoiceTrainingQueue` port (injected by src/entry/services.ts), and the background worker (registered in
 * src/entry/background-workers.ts, inside `npm start` or alone in `npm run worker`) runs them one at a time per
 * process: a training uses every core for its syntheses.
 */
import Bull from 'bull';
import type { BackgroundWorker } from '../src/core/background.js';
import type { VoiceTrainingQueue } from '../src/voices/service.js';
import { countQueueJobs } from '../src/core/metrics.js';

interface TrainingData {
  voiceId: string;
  attempt: number;
}

interface QueueSettings {
  redisUrl: string;
  redisPrefix: string;
}

function createQueue(settings: QueueSettings): Bull.Queue<TrainingData> {
  return new Bull<TrainingData>('voice-training', settings.redisUrl, {
    prefix: `${settings.redisPrefix}bull`,
    // A training takes seconds to a minute of busy CPU: a generous lock, so a busy worker is not thought dead.
    settings: { lockDuration: 120_000, stalledInterval: 30_000, maxStalledCount: 2 },
    defaultJobOptions: { removeOnComplete: true, removeOnFail: 100, attempts: 1 },
  });
}

/** One Bull job per voice and attempt: adding twice is harmless. */
async function enqueue(queue: Bull.Queue<TrainingData>, voiceId: string, attempt: number): Promise<void> {
  const jobId = `voice:${voiceId}:${attempt}`;
  const previous = await queue.getJob(jobId);
  if (previous && ((await previous.isFailed()) || (await previous.isCompleted()))) await previous.remove();
  await queue.add('train', { voiceId, attempt }, { jobId });
}

/** The gateway's queue: opened on the first add. */
export function lazyVoiceTrainingQueue(settings: QueueSettings): VoiceTrainingQueue {
  let queue: Bull.Queue<TrainingData> | null = null;
  return {
    add: (voiceId, attempt) => enqueue((queue ??= createQueue(settings)), voiceId, attempt),
    close: async () => {
      await queue?.close();
    },
  };
}

export const voiceTrainingWorker: BackgroundWorker = {
  name: 'voice-training',
  async start({ config, services, logger }) {
    const queue = createQueue({ redisUrl: config.redisUrl, redisPrefix: config.redisPrefix });
    const uncountQueue = countQueueJobs(queue);
    // `train` never throws: the voice itself ends `failed` with its error.
    void queue.process('train', 1, (job) => services.voices.train(job.data.voiceId, job.data.attempt));
    queue.on('error', (error) => logger.warn({ err: error }, 'voice training queue error'));
    // Voices a dead process left training are queued again.
    void services.voices.resumeTraining().catch((error: unknown) => logger.warn({ err: error }, 'voice training resume failed'));
    return {
      stop: () => {
        uncountQueue();
        return queue.close();
      },
    };
  },
};

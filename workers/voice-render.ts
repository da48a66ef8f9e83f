/**
 * Spoken-translation tracks (src/recordings/voice-tracks.ts): the Bull queue `voice-tracks`, one job per
 * (recording, language) run. The gateway adds work through the `VoiceRenderQueue` port (`lazyVoiceRenderQueue`,
 * injected by src/entry/services.ts); this processor calls the service's `render`, which stores its own failures on
 * the track. It runs inside `npm start` by default and alone in `npm run worker` processes.
 */
import Bull from 'bull';
import type { BackgroundWorker } from '../src/core/background.js';
import type { VoiceRenderQueue, VoiceRenderWork } from '../src/recordings/index.js';
import type { QueueSettings } from './queue.js';
import { countQueueJobs } from '../src/core/metrics.js';

type VoiceQueue = Bull.Queue<VoiceRenderWork>;

function createVoiceQueue(settings: QueueSettings): VoiceQueue {
  return new Bull<VoiceRenderWork>('voice-tracks', settings.redisUrl, {
    prefix: `${settings.redisPrefix}bull`,
    settings: {
      lockDuration: settings.lockDurationMs ?? 60_000, stalledInterval: settings.stalledIntervalMs ?? 30_000, maxStalledCount: 2,
    },
    defaultJobOptions: { removeOnComplete: true, removeOnFail: 100, attempts: 1 },
  });
}

/** One Bull job per track run: its id names the track and attempt, so adding it twice is harmless. */
async function addRender(queue: VoiceQueue, work: VoiceRenderWork): Promise<void> {
  await queue.add('render', work, { jobId: `voice:${work.trackId}:${work.attempt}` });
}

/** The gateway's queue: Bull, opened on the first add. */
export function lazyVoiceRenderQueue(settings: QueueSettings): VoiceRenderQueue {
  let queue: VoiceQueue | null = null;
  return {
    add: (work) => addRender((queue ??= createVoiceQueue(settings)), work),
    close: async () => {
      await queue?.close();
    },
  };
}

export const voiceRenderWorker: BackgroundWorker = {
  name: 'voice-render',
  async start({ config, services, logger }) {
    const queue = createVoiceQueue({ redisUrl: config.redisUrl, redisPrefix: config.redisPrefix });
    const uncountQueue = countQueueJobs(queue);
    // One track at a time per process: Kokoro's model calls already use every core.
    void queue.process('render', 1, (job: Bull.Job<VoiceRenderWork>) =>
      services.voiceTracks.render(job.data).catch((error: unknown) => logger.error(
        { bullJob: job.id, error: String(error) }, 'voice render processor failed',
      )));
    // Runs left queued or rendering by a process that stopped are put on the queue again.
    void services.voiceTracks.resumeUnfinished().catch((error: unknown) => logger.error({ err: error }, 'voice render resume failed'));
    return {
      stop: () => {
        uncountQueue();
        return queue.close();
      },
    };
  },
};

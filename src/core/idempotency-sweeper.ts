/** Deletes Idempotency-Key records past their 24 h window, hourly. */
import type { BackgroundWorker } from './background.js';

export const idempotencySweeper: BackgroundWorker = {
  name: 'idempotency-sweeper',
  async start({ services, logger }) {
    const sweep = () => services.idempotency.sweep().catch((error) => logger.warn({ err: error }, 'idempotency sweep failed'));
    const timer = setInterval(sweep, 3600_000);
    timer.unref();
    return { stop: async () => clearInterval(timer) };
  },
};

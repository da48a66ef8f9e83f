/** Deletes Idempotency-Key records past their 24 h window, hourly. */
import { sweepIdempotencyRecords } from '../../rest/middleware/idempotency.js';
import type { BackgroundWorker } from '../background.js';

export const idempotencySweeper: BackgroundWorker = {
  name: 'idempotency-sweeper',
  async start({ prisma, logger }) {
    const sweep = () => sweepIdempotencyRecords(prisma).catch((error) => logger.warn({ err: error }, 'idempotency sweep failed'));
    const timer = setInterval(sweep, 3600_000);
    timer.unref();
    return { stop: async () => clearInterval(timer) };
  },
};

/**
 * The billing sweep, hourly: subscriptions past their period end read again from the provider (a missed webhook
 * cannot keep an ended subscription's plan, nor stop a renewed one's credit), monthly credit for yearly subscriptions
 * (they have no monthly invoice), and the plans' retention: transcriptions older than it are deleted (after a
 * downgrade, once its grace has passed).
 */
import type { BackgroundWorker } from '../core/background.js';
import type { Services } from '../core/services.js';

const SWEEP_INTERVAL_MS = 3_600_000;

/** Deletes what each account's plan no longer keeps. */
export async function applyRetention(services: Services, now = new Date()): Promise<number> {
  let deleted = 0;
  for (const { accountId, cutoff } of await services.billing.retentionCutoffs(now))
    deleted += await services.transcriptions.deleteOlderThan(accountId, cutoff);
  return deleted;
}

export const billingSweeper: BackgroundWorker = {
  name: 'billing-sweep',
  async start({ services, config, logger }) {
    if (!config.billing.enabled) return { stop: async () => undefined };
    let running: Promise<void> | null = null;
    const tick = () => {
      running ??= (async () => {
        await services.payments.reconcileSubscriptions();
        await services.payments.grantDueMonthlyCredit();
        await applyRetention(services);
      })().catch((error: unknown) => logger.warn({ err: error }, 'billing sweep failed')).finally(() => (running = null));
    };
    tick();
    const timer = setInterval(tick, SWEEP_INTERVAL_MS);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};

/**
 * The low-balance alert (`PUT /v1/billing/low-balance-alert`): one email each time the balance falls to the
 * account's threshold.
 *
 * "Each time it falls" is kept by BillingAccount.lowBalanceAlertedAt: set (under the account's row lock) when the
 * alert goes out, so two falls at once send one email; the next fall sends again only once the balance has been
 * above the threshold since. That rise is read from the ledger itself — a movement after the alert that left the
 * balance above the threshold — so whatever adds credit (a checkout, an auto top-up, a refund) re-arms the alert
 * without having to know about it. The mark is the time of the ledger movement the alert was sent for, so it is
 * compared with the ledger's own times, never with another machine's clock.
 *
 * Changing the alert (on/off or a new threshold) re-arms it. Billing off: the PUT is 409 `invalid_state`.
 */
import type { BillingSettings } from '../core/config/billing.js';
import { errors } from '../core/errors.js';
import { createLogger, type Logger } from '../core/logger.js';
import { createMailer, type Mailer } from '../core/mail.js';
import type { ServiceDeps } from '../core/services.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { isObject } from '../core/validate.js';
import { billingEmail } from './details.js';
import { lockBillingAccount, type BillingAccountRow } from './ledger.js';
import type { Tx } from '../core/db/transactions.js';
import { centsIn } from './money.js';
import { dollars, type BillingService } from './service.js';
import { TX_OPTIONS } from '../core/db/transactions.js';

export interface LowBalanceAlertView {
  enabled: boolean;
  threshold: number | null;
}

export interface LowBalanceAlertInput {
  enabled: boolean;
  /** Null: keep the saved threshold (only when turning the alert off). */
  thresholdCents: number | null;
}

const FIELDS = ['enabled', 'threshold'];

export const lowBalanceAlertView = (
  account: Pick<BillingAccountRow, 'lowBalanceAlertEnabled' | 'lowBalanceThresholdCents'>,
): LowBalanceAlertView => ({
  enabled: account.lowBalanceAlertEnabled,
  threshold: account.lowBalanceThresholdCents === null ? null : dollars(account.lowBalanceThresholdCents),
});

/** Checks a `{enabled, threshold}` body: threshold in whole cents inside `lowBalanceAlert.range`, required to enable. */
export function parseLowBalanceAlert(body: unknown, settings: BillingSettings): LowBalanceAlertInput {
  if (!isObject(body)) throw errors.invalidBody('The body must be {enabled, threshold}.', { field: 'body' });
  const unknown = Object.keys(body).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined) {
    throw errors.invalidBody(`${unknown} is not a low-balance alert field (enabled, threshold).`, { field: unknown });
  }
  if (typeof body.enabled !== 'boolean') throw errors.invalidBody('enabled must be true or false.', { field: 'enabled' });
  const thresholdCents = body.threshold === undefined || body.threshold === null ? null : centsIn(
    body.threshold, 'threshold', settings.lowBalanceAlert.range,
  );
  if (body.enabled && thresholdCents === null) throw errors.invalidBody('threshold is required to turn the alert on (dollars inside the '
    + 'plan list\'s lowBalanceAlert.range).', { field: 'threshold' });
  return { enabled: body.enabled, thresholdCents };
}

/** Turns the alert on or off and sets its threshold; a change re-arms it (the next fall to the threshold emails). */
export async function setLowBalanceAlert(
  prisma: PrismaClient, billing: BillingService, accountId: string, body: unknown,
): Promise<LowBalanceAlertView> {
  const settings = billing.requireOn('low-balance alert to set');
  const input = parseLowBalanceAlert(body, settings);
  return prisma.$transaction(async (tx) => {
    const account = await lockBillingAccount(tx, settings, accountId);
    const thresholdCents = input.thresholdCents ?? account.lowBalanceThresholdCents;
    const changed = input.enabled !== account.lowBalanceAlertEnabled || thresholdCents !== account.lowBalanceThresholdCents;
    const updated = await tx.billingAccount.update({
      where: { accountId },
      data: {
        lowBalanceAlertEnabled: input.enabled, lowBalanceThresholdCents: thresholdCents, ...(changed ? { lowBalanceAlertedAt: null } : {}),
      },
    });
    return lowBalanceAlertView(updated);
  }, TX_OPTIONS);
}

/** Money as the account's currency writes it (`$2.00`). */
function money(cents: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(dollars(cents));
}

/** Sends the alert emails: registered on billing's `onBalanceFell` by the entry point. */
export class LowBalanceAlerts {
  private readonly logger: Logger;
  private readonly mailer: Mailer;

  constructor(private readonly deps: ServiceDeps, private readonly billing: BillingService) {
    this.logger = createLogger(deps.config.logLevel);
    this.mailer = createMailer(billing.settings?.mail ?? null, this.logger);
  }

  /** Listens to every fall of a balance (billing's `onBalanceFell`). */
  listen(): void {
    this.billing.onBalanceFell((accountId) => this.balanceFell(accountId));
  }

  /**
   * After a movement that lowered the balance (committed): sends the alert when the balance is at or below the
   * threshold and this fall has not been alerted yet. Never throws: a failed email is logged and re-arms the alert,
   * so the next fall tries again.
   */
  async balanceFell(accountId: string): Promise<void> {
    const settings = this.billing.settings;
    if (!settings) return;
    // Most falls concern accounts without an alert, or still above it: answered without taking the lock.
    const glance = await this.deps.prisma.billingAccount.findUnique({ where: { accountId } });
    if (!glance?.lowBalanceAlertEnabled || glance.lowBalanceThresholdCents === null) return;
    if (glance.balanceCents > glance.lowBalanceThresholdCents && glance.lowBalanceAlertedAt === null) return;
    const due = await this.deps.prisma.$transaction((tx) => this.claim(tx, settings, accountId), TX_OPTIONS);
    if (!due) return;
    try {
      const to = await billingEmail(this.deps.prisma, accountId, due.account.details);
      if (!to) {
        this.logger.warn({ accountId }, 'low-balance alert: the account has no billing email and no person with an email; nothing sent');
        return;
      }
      await this.mailer.send({ to, ...await this.message(settings, due.account) });
    } catch (error) {
      this.logger.error({ accountId, err: error }, 'low-balance alert: the email could not be sent; the next fall tries again');
      await this.deps.prisma.billingAccount.updateMany({
        where: { accountId, lowBalanceAlertedAt: due.mark }, data: { lowBalanceAlertedAt: null },
      });
    }
  }

  /** Under the account's lock: whether this fall is one to alert, marking it alerted when it is. */
  private async claim(tx: Tx, settings: BillingSettings, accountId: string): Promise<{ account: BillingAccountRow; mark: Date } | null> {
    const account = await lockBillingAccount(tx, settings, accountId);
    const threshold = account.lowBalanceThresholdCents;
    if (!account.lowBalanceAlertEnabled || threshold === null) return null;
    if (account.balanceCents > threshold) {
      if (account.lowBalanceAlertedAt) await tx.billingAccount.update({ where: { accountId }, data: { lowBalanceAlertedAt: null } });
      return null;
    }
    if (account.lowBalanceAlertedAt) {
      const roseSince = await tx.ledgerEntry.findFirst({
        where: { accountId, createdAt: { gt: account.lowBalanceAlertedAt }, balanceAfterCents: { gt: threshold } }, select: { id: true },
      });
      if (!roseSince) return null;
    }
    const fall = await tx.ledgerEntry.findFirst({
      where: { accountId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { createdAt: true },
    });
    const mark = fall?.createdAt ?? new Date();
    return { account: await tx.billingAccount.update({ where: { accountId }, data: { lowBalanceAlertedAt: mark } }), mark };
  }

  private async message(settings: BillingSettings, account: BillingAccountRow): Promise<{ subject: string; text: string }> {
    const { name } = await this.deps.prisma.account.findUniqueOrThrow({ where: { id: account.accountId }, select: { name: true } });
    const balance = money(account.balanceCents, settings.currency);
    const threshold = money(account.lowBalanceThresholdCents ?? 0, settings.currency);
    const publicUrl = this.deps.config.publicUrl;
    const topUpUrl = settings.topUpUrl ?? (publicUrl ? this.billing.topUpUrl(publicUrl) : null);
    return {
      subject: `Low balance: ${balance} of credit left`,
      text: [
        `The credit of your account "${name}" is down to ${balance}, at or below the ${threshold} you asked to be told about.`,
        'New transcriptions are refused once it runs out.',
        '',
        topUpUrl ? `Add credit: ${topUpUrl}` : 'Add credit from your billing page.',
        '',
        'You get one email each time the balance falls to this amount; change or turn off the alert in your billing settings.',
      ].join('\n'),
    };
  }
}

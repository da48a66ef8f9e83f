/**
 * Billing: prepaid credit. Off by default (BILLING_CONFIG unset): every check passes and GET /v1/billing answers
 * `enabled: false`. On, it keeps each account's balance in the ledger (src/billing/ledger.ts), admits work at every
 * creation point (402 insufficient_credit, 402 quota_exceeded, 429 rate_limited), and meters what runs
 * (src/billing/metering.ts). Payments (checkouts, subscriptions, auto top-up) live in src/billing/payments.
 */
import type { BillingSettings, PlanSettings } from '../core/config/billing.js';
import { ApiError } from '../core/errors.js';
import type { Actor, Creator } from '../core/identity/actor.js';
import { newId } from '../core/ids.js';
import { createLogger, type Logger } from '../core/logger.js';
import type { Closable, ServiceDeps } from '../core/services.js';
import type { HourlyLimiter } from '../core/hourly-limiter.js';
import { costCents, heldCents, lockBillingAccount, planOf, type BillingAccountRow } from './ledger.js';
import type { Tx } from '../core/db/transactions.js';
import { TX_OPTIONS } from '../core/db/transactions.js';
import { ledgerErrors } from '../core/metrics.js';

declare module '../core/services.js' {
  interface Services {
    billing: BillingService;
  }
}

export type WorkKind = 'file' | 'live';
export type StartBlock = 'no_credit' | 'concurrency' | 'hourly_limit';

/** Told after a committed movement lowered an account's balance (low-balance email, auto top-up). Never throws. */
export type BalanceFellListener = (accountId: string) => Promise<void> | void;

export interface Admission {
  kind: WorkKind;
  /** The recording's (or realtime session's) id: the hold and the hourly count are kept under it. */
  workId: string;
  /** Seconds of audio when known before it runs (an upload): the cost is then checked whole. */
  knownSeconds?: number | null;
}

const HOUR_MS = 3_600_000;

/** Dollars from whole cents (the interface's money is dollars). */
export const dollars = (cents: number) => cents / 100;
/** Dollars per hour from millionths. */
export const ratePerHour = (micros: number) => micros / 1_000_000;

export function usageSource(creator: Pick<Creator, 'principalId' | 'principalKind'>): string {
  return creator.principalKind === 'api_key' ? creator.principalId : 'dashboard';
}

/** Web-page searches of the link probe an hour (the interface's Limits): with a plan, on pay as you go, never paid. */
export const PAGE_SEARCHES_PER_HOUR = { plan: 20, payAsYouGo: 10, neverPaid: 2 } as const;

export class BillingService implements Closable {
  readonly settings: BillingSettings | null;
  private readonly balanceFellListeners: BalanceFellListener[] = [];
  private readonly logger: Logger;

  constructor(
    private readonly deps: ServiceDeps,
    /** Hourly counts shared by every gateway (page searches here; promo checks in payments). */
    readonly hourly: HourlyLimiter & Partial<Closable>,
  ) {
    this.settings = deps.config.billing.enabled ? deps.config.billing : null;
    this.logger = createLogger(deps.config.logLevel);
  }

  async close(): Promise<void> {
    await this.hourly.close?.();
  }

  /**
   * Counts one web-page search of the link probe against the account's hourly allowance, or 429 `rate_limited` with
   * `retryAfterS`. A server that does not bill has no plans: every account gets the plan allowance.
   */
  async admitPageSearch(accountId: string): Promise<void> {
    let limit: number = PAGE_SEARCHES_PER_HOUR.plan;
    if (this.settings) {
      const account = await this.account(accountId);
      const subscribed = await this.deps.prisma.subscription.count({ where: { accountId, status: 'active' } });
      limit = subscribed
        ? PAGE_SEARCHES_PER_HOUR.plan
        : account.hasPaid
          ? PAGE_SEARCHES_PER_HOUR.payAsYouGo
          : PAGE_SEARCHES_PER_HOUR.neverPaid;
    }
    const hit = await this.hourly.hit(`page-searches:${accountId}`, limit);
    if (!hit.allowed) {
      const retryAfterS = Math.max(1, Math.ceil(hit.resetMs / 1000));
      throw new ApiError('rate_limited', 429, `Searching web pages for recordings is limited to ${limit} an hour for this account; retry `
        + `in ${retryAfterS} s.`, {
        details: { metric: 'page_searches', limit, retryAfterS },
        headers: { 'Retry-After': String(retryAfterS) },
      });
    }
  }

  /** Whether the payment provider takes automatic (off-session) charges: auto top-up is offered only then. */
  get offersAutomaticCharges(): boolean {
    return this.settings?.provider.kind === 'stripe';
  }

  get enabled(): boolean {
    return this.settings !== null;
  }

  /** The settings, or 409 `invalid_state` on a server that does not bill (`what` names what the caller wanted). */
  requireOn(what: string): BillingSettings {
    if (!this.settings) throw new ApiError('invalid_state', 409, `This server does not bill: there is no ${what}.`, { retryable: false });
    return this.settings;
  }

  /** The settings, for code that only runs with billing on. */
  on(): BillingSettings {
    if (!this.settings) throw new Error('billing is off');
    return this.settings;
  }

  topUpUrl(baseUrl: string): string {
    return this.settings?.topUpUrl ?? `${baseUrl}/v1/billing/plans`;
  }

  /** The account's billing row, made (with its signup credit) on first use; read outside any lock. */
  async account(accountId: string): Promise<BillingAccountRow> {
    const existing = await this.deps.prisma.billingAccount.findUnique({ where: { accountId } });
    if (existing) return existing;
    return this.deps.prisma.$transaction((tx) => lockBillingAccount(tx, this.on(), accountId), TX_OPTIONS);
  }

  plan(account: Pick<BillingAccountRow, 'planId'>): PlanSettings {
    return planOf(this.on(), account.planId);
  }

  /**
   * Admits new work inside the transaction that creates it, under the account's row lock: refuses it (nothing
   * charged, nothing created) or records the admission and holds its minimum cost until its charge opens. Parallel
   * creates queue on the lock, each seeing the holds of those admitted before it: a balance covering N minimums
   * admits exactly N. Billing off: admits everything.
   */
  async admit(tx: Tx, creator: Creator, work: Admission, baseUrl: string): Promise<void> {
    if (!this.settings) return;
    const account = await lockBillingAccount(tx, this.settings, creator.accountId);
    const plan = this.plan(account);
    const block = await this.blockFor(tx, account, plan, work.kind);
    const minimum = this.minimumCents(plan, work.kind);
    const required = work.knownSeconds != null ? costCents(
      Math.max(work.knownSeconds, plan.rates.minimumSeconds), this.rate(plan, work.kind),
    ) : minimum;
    if (block.block === 'hourly_limit') throw this.hourlyLimited(block.limit, block.resetsAt);
    if (block.block === 'no_credit' || block.availableCents < required) {
      // `required` only when the whole cost is known up front (an upload's length); a link's or live audio's is not.
      throw this.insufficientCredit(account, plan, baseUrl, work.knownSeconds != null ? required : null);
    }
    if (block.block === 'concurrency' && work.kind === 'live') throw this.quotaExceeded(plan, block.used, baseUrl);
    await tx.billingAdmission.create({ data: { id: newId('adm'), accountId: creator.accountId, kind: work.kind, workId: work.workId } });
    await tx.creditHold.create({ data: { workId: work.workId, accountId: creator.accountId, amountCents: required } });
  }

  /**
   * `admit` for an actor: the creator's kind (its usage source) is the identity's when the caller passed it, else
   * read from the principal (only with billing on).
   */
  async admitActor(tx: Tx, actor: Actor, work: Admission, baseUrl: string): Promise<void> {
    if (!this.settings) return;
    await this.admit(tx, await this.creatorOf(tx, actor), work, baseUrl);
  }

  async creatorOf(tx: Tx, actor: Actor): Promise<Creator> {
    if (actor.principalKind) return { accountId: actor.accountId, principalId: actor.principalId, principalKind: actor.principalKind };
    const principal = await tx.principal.findUnique({ where: { id: actor.principalId }, select: { kind: true } });
    return {
      accountId: actor.accountId, principalId: actor.principalId, principalKind: principal?.kind === 'api_key' ? 'api_key' : 'user',
    };
  }

  /** Registers a listener told after each committed movement that lowered an account's balance. */
  onBalanceFell(listener: BalanceFellListener): void {
    this.balanceFellListeners.push(listener);
  }

  /**
   * Called after the transaction that lowered the account's balance committed (metering, settling). A listener's
   * failure is its own: it never fails the work that spent the credit.
   */
  async balanceFell(accountId: string): Promise<void> {
    if (!this.settings) return;
    await Promise.all(this.balanceFellListeners.map(async (listener) => {
      try {
        await listener(accountId);
      } catch (error) {
        ledgerErrors.inc({ stage: 'balance_fell_listener' });
        this.logger.warn({ accountId, err: error }, 'a balance-fell listener failed');
      }
    }));
  }

  /**
   * Accounts whose plan keeps data a limited time, with the cutoff before which their transcriptions go: the plan's
   * `retentionDays` ago, once any `retentionDeadline` (the grace after a downgrade) has passed.
   */
  async retentionCutoffs(now = new Date()): Promise<Array<{ accountId: string; cutoff: Date }>> {
    const settings = this.settings;
    if (!settings) return [];
    const limited = settings.plans.filter((plan) => plan.limits.retentionDays !== null);
    if (!limited.length) return [];
    const accounts = await this.deps.prisma.billingAccount.findMany({
      where: { planId: { in: limited.map((plan) => plan.id) }, OR: [{ retentionDeadline: null }, { retentionDeadline: { lte: now } }] },
      select: { accountId: true, planId: true },
    });
    return accounts.map((account) => ({
      accountId: account.accountId, cutoff: new Date(now.getTime() - this.plan(account).limits.retentionDays! * 86_400_000),
    }));
  }

  /** Releases the credit held for work that will not run (a create that failed after admission, a purged job). */
  async release(tx: Tx, workId: string): Promise<void> {
    if (!this.settings) return;
    await tx.creditHold.deleteMany({ where: { workId } });
  }

  rate(plan: PlanSettings, kind: WorkKind): number {
    return kind === 'live' ? plan.rates.liveMicros : plan.rates.fileMicros;
  }

  minimumCents(plan: PlanSettings, kind: WorkKind): number {
    return costCents(plan.rates.minimumSeconds, this.rate(plan, kind));
  }

  /**
   * What would stop new work now, in the order the interface names: no credit (balance at or below zero, or what
   * is left after holds below the minimum), the hour's creations used, the plan's concurrent transcriptions (a
   * file job then queues; live is refused).
   */
  async blockFor(tx: Tx, account: BillingAccountRow, plan: PlanSettings, kind: WorkKind): Promise<{
    block: StartBlock | null; availableCents: number; used: number; limit: number; resetsAt: Date | null;
  }> {
    const availableCents = account.balanceCents - await heldCents(tx, account.accountId);
    const since = new Date(Date.now() - HOUR_MS);
    const limit = account.hasPaid ? plan.limits.createsPerHour : plan.limits.createsPerHourUnpaid;
    const inHour = { accountId: account.accountId, at: { gt: since } };
    const created = await tx.billingAdmission.count({ where: inHour });
    const used = await this.runningCount(tx, account.accountId);
    // Used up: a creation frees when the oldest of the last `limit` leaves the hour.
    const freedBy = created >= limit ? await tx.billingAdmission.findFirst({
      where: inHour, orderBy: { at: 'desc' }, skip: limit - 1, select: { at: true },
    }) : null;
    const resetsAt = freedBy ? new Date(freedBy.at.getTime() + HOUR_MS) : null;
    let block: StartBlock | null = null;
    if (account.balanceCents <= 0 || availableCents < this.minimumCents(plan, kind)) block = 'no_credit';
    else if (created >= limit) block = 'hourly_limit';
    else if (used >= plan.limits.concurrentTranscriptions) block = 'concurrency';
    return { block, availableCents, used, limit, resetsAt };
  }

  /** Transcriptions running now: file jobs transcribing and live audio being metered (open live charges). */
  async runningCount(tx: Tx, accountId: string): Promise<number> {
    const [files, live] = await Promise.all([
      tx.job.count({ where: { accountId, state: 'transcribing' } }),
      tx.charge.count({ where: { accountId, kind: 'live', state: 'open' } }),
    ]);
    return files + live;
  }

  insufficientCredit(account: BillingAccountRow, plan: PlanSettings, baseUrl: string, requiredCents: number | null): ApiError {
    const details: Record<string, unknown> = {
      balance: dollars(account.balanceCents),
      plan: plan.id,
      topUpUrl: this.topUpUrl(baseUrl),
      currency: this.on().currency,
    };
    if (requiredCents !== null) details.required = dollars(requiredCents);
    return new ApiError('insufficient_credit', 402, requiredCents !== null
      ? `The account's credit does not cover this transcription's cost of ${dollars(requiredCents).toFixed(2)} (the minimum billed `
        + `included); add credit and try again.`
      : 'The account has no credit left; add credit and try again.', { details, retryable: false });
  }

  quotaExceeded(plan: PlanSettings, used: number, baseUrl: string): ApiError {
    return new ApiError('quota_exceeded', 402, `The plan's ${plan.limits.concurrentTranscriptions} concurrent transcriptions are running; `
      + `a live one can start when one ends.`, {
      details: {
        metric: 'concurrent_transcriptions', limit: plan.limits.concurrentTranscriptions, used, resetsAt: null, plan: plan.id,
        topUpUrl: this.topUpUrl(baseUrl),
      },
      retryable: false,
    });
  }

  hourlyLimited(limit: number, resetsAt: Date | null): ApiError {
    const retryAfterS = Math.max(1, Math.ceil(((resetsAt?.getTime() ?? Date.now() + HOUR_MS) - Date.now()) / 1000));
    return new ApiError('rate_limited', 429, `The plan allows ${limit} new transcriptions an hour; retry in ${retryAfterS} s.`, {
      details: { metric: 'creates_per_hour', limit, resetsAt: resetsAt?.toISOString() ?? null, retryAfterS },
      headers: { 'Retry-After': String(retryAfterS) },
    });
  }
}

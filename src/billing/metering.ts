/**
 * Metering: what runs is charged through the ledger (src/billing/ledger.ts), each step inside the transaction of
 * the state it pays for, under the recording's row lock and then the billing account's (the one lock order).
 *
 * - A file job's charge opens when the job moves to `transcribing`: it bills the file's cost at once (its length,
 *   at least the minimum, at the plan's file rate) and releases the credit held since admission. A file whose cost
 *   is more than the account can spend (its balance less what other admitted work holds; no grace: a file's whole
 *   cost is known before it runs) fails `insufficient_credit` instead, nothing charged. At `done` the charge settles
 *   at the exact length transcribed (at least the minimum); a job that fails after its charge opened has it voided
 *   (what it cost comes back as a refund: the customer pays for transcripts, not for failures). A retried job opens
 *   a new charge: the voided one is kept, detached from the recording, so the ledger keeps both stories.
 * - A live recording's charge opens when it starts; the metering sweeper (every `meterIntervalS`) bills the whole
 *   minutes of audio captured so far (paused audio is not captured); stop (or a failed stream) settles it at the
 *   exact seconds captured, at least the minimum.
 * - A realtime session's charge (keyed by its session id) opens with the session; once the engine takes it the
 *   minimum is billed, then each whole minute of audio received, and its end settles it at the audio received.
 *
 * Idempotent by construction: every step is `meterCharge` to a new total under the account lock, a movement keyed by
 * the charge and that total, so a minute is billed once however many sweepers run it or after a crash and a rerun.
 *
 * Below zero: with the plan's grace cap, running work goes on until the balance is below minus the cap; without
 * one, until metering takes it to zero or below (the minute in progress is still billed). Then live recordings end
 * (a `recording.state` `ended` event with `reason: 'insufficient_credit'`) and realtime sessions end with an `error`
 * frame `insufficient_credit` (not retryable). New work is refused while the balance is at or below zero (admission).
 */
import type { BackgroundWorker } from '../core/background.js';
import type { ServiceDeps } from '../core/services.js';
import { newId } from '../core/ids.js';
import { inTransaction, type PendingFrame, capturedSeconds } from '../transcript/index.js';
import { TX_OPTIONS } from '../core/db/transactions.js';
import {
  costCents, heldCents, lockBillingAccount, meterCharge, settleCharge, voidCharge, type BillingAccountRow,
  type ChargeRow,
} from './ledger.js';
import type { Tx } from '../core/db/transactions.js';
import { dollars, usageSource, type BillingService } from './service.js';
import type { Creator } from '../core/identity/actor.js';
import { ledgerErrors } from '../core/metrics.js';

const MINUTE_S = 60;

/** Seconds billed while audio runs: the whole minutes of it. */
export const wholeMinutes = (seconds: number) => Math.floor(seconds / MINUTE_S) * MINUTE_S;

/**
 * What a metering step did: whether the balance fell (the balance-fell listeners are told after the commit), whether
 * the work must stop.
 */
export interface Metered {
  balanceFell: boolean;
  overdrawn: boolean;
}

const NOTHING: Metered = { balanceFell: false, overdrawn: false };

/** A file job as metering reads it. */
export interface MeteredJob {
  recordingId: string;
  accountId: string;
  windowStartS: number | null;
  windowEndS: number | null;
}

/** A live recording to end because its account ran out of credit. */
export interface Overdrawn {
  accountId: string;
  recordingId: string;
}

declare module '../core/services.js' {
  interface Services {
    metering: Metering;
  }
}

/** Metering and admission for the modules that create and run work: `billing` admits, the rest charges. */
export class Metering {
  constructor(
    private readonly deps: ServiceDeps,
    readonly billing: BillingService,
  ) {}

  /** Whether the balance ran past what running work may spend (the plan's grace cap below zero, else zero). */
  private overdrawn(account: BillingAccountRow): boolean {
    const grace = this.billing.plan(account).graceCapCents;
    return grace > 0 ? account.balanceCents < -grace : account.balanceCents <= 0;
  }

  private async meterTo(tx: Tx, charge: ChargeRow, seconds: number): Promise<Metered> {
    const account = await lockBillingAccount(tx, this.billing.on(), charge.accountId);
    const result = await meterCharge(tx, account, charge, seconds);
    return { balanceFell: result.posted.after < result.posted.before, overdrawn: this.overdrawn(result.account) };
  }

  private async settle(tx: Tx, charge: ChargeRow, exactSeconds: number): Promise<Metered> {
    const account = await lockBillingAccount(tx, this.billing.on(), charge.accountId);
    const settled = await settleCharge(tx, account, charge, exactSeconds);
    return { balanceFell: settled.account.balanceCents < account.balanceCents, overdrawn: false };
  }

  /** Tells the balance-fell listeners, after the commit. */
  async after(accountId: string, metered: Metered): Promise<void> {
    if (metered.balanceFell) await this.billing.balanceFell(accountId);
  }

  // ---- file jobs (src/jobs/service.ts calls these inside its moves) ---------------------------------------------

  /**
   * Live audio being metered now (open live charges: live recordings and realtime sessions running): the plan's
   * concurrent transcriptions count these beside file jobs, so job dispatch leaves them their slots.
   */
  runningLive(tx: Tx, accountId: string): Promise<number> {
    return tx.charge.count({ where: { accountId, kind: 'live', state: 'open' } });
  }

  /**
   * `queued → transcribing`: opens the job's charge and bills the file's cost, or answers why the job fails
   * instead (the cost is more than the account can spend; nothing is charged and the held credit is released).
   */
  async openFile(tx: Tx, job: MeteredJob): Promise<{ refused: { message: string; code: string } | null; metered: Metered }> {
    if (!this.billing.settings) return { refused: null, metered: NOTHING };
    const existing = await tx.charge.findUnique({ where: { recordingId: job.recordingId } });
    if (existing?.state === 'open' || existing?.state === 'settled') return { refused: null, metered: NOTHING };
    // A retry after a failure: the voided charge stays in the ledger, detached from the recording (recordingId is unique).
    if (existing) await tx.charge.update({ where: { id: existing.id }, data: { recordingId: null } });
    const recording = await tx.recording.findUniqueOrThrow({
      where: { id: job.recordingId },
      select: { name: true, durationS: true, transcription: { select: { ownerPrincipalId: true, name: true } } },
    });
    const account = await lockBillingAccount(tx, this.billing.on(), job.accountId);
    const plan = this.billing.plan(account);
    const seconds = Math.max(windowSeconds(recording.durationS, job), plan.rates.minimumSeconds);
    const cost = costCents(seconds, plan.rates.fileMicros);
    const ownHold = (await tx.creditHold.findUnique({ where: { workId: job.recordingId } }))?.amountCents ?? 0;
    const spendable = account.balanceCents - (await heldCents(tx, job.accountId)) + ownHold;
    if (cost > spendable) {
      await this.billing.release(tx, job.recordingId);
      return {
        refused: {
          code: 'insufficient_credit',
          message: `This file costs ${dollars(cost).toFixed(2)} ${this.billing.on().currency.toUpperCase()} (${Math.round(seconds)} s of `
            + `audio, the minimum billed included) and the account can spend ${dollars(Math.max(0, spendable)).toFixed(2)}; add credit `
              + `and retry the job.`,
        },
        metered: NOTHING,
      };
    }
    const creator = await this.billing.creatorOf(tx, { accountId: job.accountId, principalId: recording.transcription.ownerPrincipalId });
    const charge = await tx.charge.create({
      data: {
        id: newId('chg'), accountId: job.accountId, recordingId: job.recordingId, kind: 'file', source: usageSource(creator),
        name: recording.name ?? recording.transcription.name,
        state: 'open', rateMicros: plan.rates.fileMicros, minimumSeconds: plan.rates.minimumSeconds,
      },
    });
    const metered = await this.meterTo(tx, charge, seconds);
    // The charge now covers what the hold kept for it.
    await this.billing.release(tx, job.recordingId);
    return { refused: null, metered };
  }

  /** `transcribing → done`: the charge settles at the exact length transcribed (at least the minimum). */
  async settleFile(tx: Tx, recordingId: string, seconds: number): Promise<Metered> {
    if (!this.billing.settings) return NOTHING;
    const charge = await tx.charge.findUnique({ where: { recordingId } });
    if (!charge || charge.state !== 'open') return NOTHING;
    return this.settle(tx, charge, seconds);
  }

  /** A job failed: its open charge is voided (refunded); credit still held for it is released. */
  async voidFile(tx: Tx, recordingId: string, reason: string): Promise<void> {
    if (!this.billing.settings) return;
    await this.billing.release(tx, recordingId);
    const charge = await tx.charge.findUnique({ where: { recordingId } });
    if (!charge || charge.state !== 'open') return;
    const account = await lockBillingAccount(tx, this.billing.on(), charge.accountId);
    await voidCharge(tx, account, charge, reason);
  }

  // ---- live recordings ------------------------------------------------------------------------------------------

  /** A live recording starts (inside its creating transaction, after admission): its charge opens, nothing billed yet. */
  async openLive(tx: Tx, recording: { id: string; accountId: string; name: string }, creator: Creator): Promise<void> {
    if (!this.billing.settings) return;
    const account = await lockBillingAccount(tx, this.billing.settings, recording.accountId);
    const plan = this.billing.plan(account);
    await tx.charge.create({
      data: {
        id: newId('chg'), accountId: recording.accountId, recordingId: recording.id, kind: 'live', source: usageSource(creator),
        name: recording.name,
        state: 'open', rateMicros: plan.rates.liveMicros, minimumSeconds: plan.rates.minimumSeconds,
      },
    });
  }

  /** A live recording ended (stop, a failed stream): inside that move, its charge settles at the seconds captured. */
  async settleLive(tx: Tx, recordingId: string, mediaS: number): Promise<Metered> {
    if (!this.billing.settings) return NOTHING;
    const charge = await tx.charge.findUnique({ where: { recordingId } });
    if (!charge || charge.state !== 'open') return NOTHING;
    return this.settle(tx, charge, mediaS);
  }

  /**
   * Bills one live recording's whole minutes captured so far, under its row lock; a recording that ended without
   * its charge settling (a path that ended it elsewhere) is settled here. Answers whether it must stop.
   */
  async meterRecording(recordingId: string): Promise<{ accountId: string; overdrawn: boolean } | null> {
    const outcome = await inTransaction(this.deps, recordingId, async (tx) => {
      const charge = await tx.charge.findUnique({ where: { recordingId } });
      if (!charge || charge.state !== 'open') return { result: null, frames: [] as PendingFrame[] };
      const recording = await tx.recording.findUnique({ where: { id: recordingId }, select: { state: true, mediaS: true } });
      // Seconds captured: the capture file grows while audio runs (the row's mediaS is written at pauses and stops).
      const mediaS = Math.max(recording?.mediaS ?? 0, capturedSeconds(this.deps.config.dataDir, recordingId));
      const open = recording?.state === 'live' || recording?.state === 'paused';
      const metered = open ? await this.meterTo(tx, charge, wholeMinutes(mediaS)) : await this.settle(tx, charge, mediaS);
      return {
        result: { accountId: charge.accountId, metered: { ...metered, overdrawn: open && metered.overdrawn } },
        frames: [] as PendingFrame[],
      };
    });
    if (!outcome) return null;
    await this.after(outcome.accountId, outcome.metered);
    return { accountId: outcome.accountId, overdrawn: outcome.metered.overdrawn };
  }

  /**
   * One metering pass over every open live charge (any process may run it, as often as it likes: each step is keyed
   * by its total). Realtime sessions that never started, or whose process died, are closed once they must be over.
   * Answers the recordings that ran out of credit; the caller ends them.
   */
  async sweep(): Promise<Overdrawn[]> {
    if (!this.billing.settings) return [];
    const open = await this.deps.prisma.charge.findMany({
      where: { state: 'open', kind: 'live' }, select: { id: true, recordingId: true, sessionId: true, openedAt: true },
    });
    const overdrawn: Overdrawn[] = [];
    for (const charge of open) {
      if (charge.recordingId) {
        const metered = await this.meterRecording(charge.recordingId);
        if (metered?.overdrawn) overdrawn.push({ accountId: metered.accountId, recordingId: charge.recordingId });
      } else if (charge.sessionId) {
        await this.closeAbandonedSession(charge.id, charge.openedAt);
      }
    }
    return overdrawn;
  }

  // ---- realtime sessions ----------------------------------------------------------------------------------------

  /** A realtime session is created (after admission, in the same transaction): its charge opens, nothing billed yet. */
  async openSession(tx: Tx, sessionId: string, creator: Creator, name: string): Promise<void> {
    if (!this.billing.settings) return;
    const account = await lockBillingAccount(tx, this.billing.settings, creator.accountId);
    const plan = this.billing.plan(account);
    await tx.charge.create({
      data: {
        id: newId('chg'), accountId: creator.accountId, sessionId, kind: 'live', source: usageSource(creator), name,
        state: 'open', rateMicros: plan.rates.liveMicros, minimumSeconds: plan.rates.minimumSeconds,
      },
    });
  }

  /**
   * The session's audio so far: once the engine took the session its minimum is billed (0 s received bills the
   * minimum), then each whole minute received. Answers whether the session must stop (out of credit).
   */
  async meterSession(sessionId: string, receivedS: number): Promise<boolean> {
    if (!this.billing.settings) return false;
    const outcome = await this.deps.prisma.$transaction(async (tx) => {
      const charge = await tx.charge.findUnique({ where: { sessionId } });
      if (!charge || charge.state !== 'open') return null;
      return {
        accountId: charge.accountId, metered: await this.meterTo(tx, charge, Math.max(charge.minimumSeconds, wholeMinutes(receivedS))),
      };
    }, TX_OPTIONS);
    if (!outcome) return false;
    await this.after(outcome.accountId, outcome.metered);
    return outcome.metered.overdrawn;
  }

  /** The session ended: settled at the audio it received (at least the minimum once it ran), its hold released. */
  async settleSession(sessionId: string, receivedS: number, ran: boolean): Promise<void> {
    if (!this.billing.settings) return;
    const outcome = await this.deps.prisma.$transaction(async (tx) => {
      const charge = await tx.charge.findUnique({ where: { sessionId } });
      if (!charge || charge.state !== 'open') return null;
      if (!ran && charge.billedSeconds === 0) {
        const account = await lockBillingAccount(tx, this.billing.on(), charge.accountId);
        await voidCharge(tx, account, charge, 'the session never started');
        return { accountId: charge.accountId, metered: NOTHING };
      }
      return { accountId: charge.accountId, metered: await this.settle(tx, charge, receivedS) };
    }, TX_OPTIONS);
    if (outcome) await this.after(outcome.accountId, outcome.metered);
  }

  /**
   * A session charge still open after its session must have ended (it never connected before its token expired, or
   * its process died): voided when nothing was billed, else settled at what was billed.
   */
  private async closeAbandonedSession(chargeId: string, openedAt: Date): Promise<void> {
    const { tokenTtlS } = this.deps.config.realtime;
    const startedBy = openedAt.getTime() + (tokenTtlS + MINUTE_S) * 1000;
    const endedBy = startedBy + this.deps.config.limits.realtimeMaxDurationS * 1000;
    const now = Date.now();
    if (now < startedBy) return;
    const settled = await this.deps.prisma.$transaction(async (tx) => {
      const charge = await tx.charge.findUnique({ where: { id: chargeId } });
      if (!charge || charge.state !== 'open') return null;
      // A started session has billed its minimum; with no minimum on the plan it is known to be over only later.
      if (charge.billedSeconds === 0 && charge.minimumSeconds > 0) {
        await voidCharge(tx, await lockBillingAccount(tx, this.billing.on(), charge.accountId), charge, 'the session never started');
        return null;
      }
      return now >= endedBy ? { accountId: charge.accountId, metered: await this.settle(tx, charge, charge.billedSeconds) } : null;
    }, TX_OPTIONS);
    if (settled) await this.after(settled.accountId, settled.metered);
  }
}

/** The seconds a file job transcribes: its window of the source, or all of it (0 when its length is not known yet). */
export function windowSeconds(durationS: number | null, job: Pick<MeteredJob, 'windowStartS' | 'windowEndS'>): number {
  if (durationS === null) return 0;
  const end = Math.min(job.windowEndS ?? durationS, durationS);
  return Math.max(0, end - (job.windowStartS ?? 0));
}

/** How often the metering sweeper runs when billing is off (it then does nothing, and checks rarely). */
const IDLE_INTERVAL_S = 3600;

/**
 * The metering sweeper (src/entry/background-workers.ts): every `meterIntervalS` it bills the live audio captured
 * since the last pass and ends the recordings whose account ran out of credit. Each gateway and worker process runs
 * one; they may overlap freely.
 */
export const meteringSweeper: BackgroundWorker = {
  name: 'billing-metering',
  async start({ services, config, logger }) {
    const intervalS = config.billing.enabled ? config.billing.meterIntervalS : IDLE_INTERVAL_S;
    let running: Promise<void> | null = null;
    const pass = async () => {
      const overdrawn = await services.metering.sweep();
      for (const { accountId, recordingId } of overdrawn) await services.liveRecordings.endForCredit(accountId, recordingId);
    };
    const tick = () => {
      running ??= pass().catch(
        (error: unknown) => { ledgerErrors.inc({ stage: 'metering_sweep' }); logger.warn({ err: error }, 'metering sweep failed'); },
      ).finally(() => (running = null));
    };
    const timer = setInterval(tick, intervalS * 1000);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};

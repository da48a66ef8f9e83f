/**
 * A recording's title and summary, stored on the recording (`summary*` columns). The summariser is chosen by
 * configuration (SUMMARY_PROVIDER): `builtin` (extractive.ts, no LLM), `openai` (openai.ts, an OpenAI-compatible
 * chat API) or `off`.
 *
 * Stored states: null (none asked), `pending` (being written; finalize sets it in the finalize transaction, so a
 * finished job never reads as missing), `ready`, `failed`. Answered states (spec): `ready`, `pending`,
 * `unavailable`, the last with a `reason`:
 *   - `off`            the server has no summariser (SUMMARY_PROVIDER=off);
 *   - `failed`         the summariser failed (API error, timeout, malformed answer, no words), or a `pending` one
 *                      was left over STALE_MS by a process that died; `retryable: true`: `summarize` asks again;
 *   - `missing`        a finished recording has none (finalized before summaries existed); `summarize` asks;
 *   - `no_transcript`  the recording's job failed: there is nothing to summarise.
 * A recording not yet finished answers `pending`: the summary is written after finalize.
 *
 * Writing runs in the process that asked (the worker after finalize, the gateway for `summarize`); it never fails
 * the finalize, and a failure is stored, not thrown.
 *
 * Summaries follow corrections. A summary records what text it was made from: `summarySeq`, the recording's
 * `lastEventSeq` when its segments were read, and it is stored only if no event came since (otherwise the text is
 * read again). A correction batch, a revert or a retranscription of a finalized recording whose summary is `ready`
 * (or being written) marks it `pending` in the correction's own transaction (`markStale`), so no read after the
 * correction answers the old summary as `ready`; the rewrite is queued in the process that corrected
 * (`rewriteSoon`), debounced by SUMMARY_REWRITE_DELAY_MS so a burst of corrections is one rewrite. Meanwhile
 * `GET .../summary` answers `pending`: the old summary is not served, since it may repeat what was just corrected
 * (a misheard name). A rewrite that fails reads `failed` (retryable) as a first attempt does. Naming a speaker does
 * not queue one: the summariser reads the sentences' text, not the speakers' names.
 */
import type { Prisma } from '../generated/prisma/client.js';
import { errors } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ServiceDeps } from '../core/services.js';
import type { Tx } from '../core/db/transactions.js';
import { buildSentences } from '../transcript/index.js';
import type { ReaderCredentials, RecordingsService } from '../recordings/service.js';
import type { TranslationService } from '../translation/service.js';
import { extractiveSummariser } from './extractive.js';
import { openAiSummariser } from './openai.js';
import type { Summariser } from './summariser.js';

declare module '../core/services.js' {
  interface Services {
    summaries: SummariesService;
  }
}

/** A `pending` summary older than this was left by a process that died: it reads as failed and `summarize` retries. */
export const STALE_MS = 10 * 60_000;

/** Reads of the text one write makes before giving up when events keep arriving while it summarises. */
const MAX_READS = 3;

export type SummaryState = 'ready' | 'pending' | 'unavailable';
export type UnavailableReason = 'off' | 'failed' | 'missing' | 'no_transcript';

export interface SummaryView {
  recordingId: string;
  state: SummaryState;
  title: string | null;
  summary: string | null;
  /** The language it is written in (the spoken one). */
  language: string | null;
  /** Set only when the answer is a translation (none exist yet): always null today. */
  lang: string | null;
  /** Which summariser wrote it: `builtin` (extractive) or `openai:<model>`. */
  provider: string | null;
  writtenAt: string | null;
  reason: UnavailableReason | null;
  /** `unavailable` only: true when `summarize` may succeed now. */
  retryable: boolean;
  /** Why the last attempt failed. */
  error: string | null;
}

type RecordingRow = Prisma.RecordingGetPayload<{}>;

/** A summary translated once and kept (Recording.summaryTranslations), with what it was translated from. */
interface KeptTranslation {
  title: string;
  summary: string;
  summarySeq: number | null;
  writtenAt: string | null;
}

/** The summariser SUMMARY_PROVIDER names; null for `off`. */
export function summariserOf(settings: ServiceDeps['config']['summaries']): Summariser | null {
  if (settings.provider === 'off') return null;
  return settings.provider === 'openai' ? openAiSummariser(settings) : extractiveSummariser;
}

export class SummariesService {
  private readonly running = new Set<Promise<void>>();
  /** Rewrites waiting out SUMMARY_REWRITE_DELAY_MS after a correction, by recording. */
  private readonly queued = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly recordings: RecordingsService,
    private readonly translation: Pick<TranslationService, 'translate'>,
    private readonly summariser: Summariser | null = summariserOf(deps.config.summaries),
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  /** `GET /v1/recordings/{id}/summary`: the owner or a share-link reader; queues nothing. */
  async get(recordingId: string, credentials: ReaderCredentials, lang: string | null | undefined): Promise<SummaryView> {
    const { reader, recording } = await this.recordings.reader(recordingId, credentials);
    if (reader.kind !== 'owner' && reader.kind !== 'shareLink') throw errors.forbidden('The summary is read by the recording\'s owner or '
      + 'through a share link.');
    const target = await this.recordings.translationTarget(reader, recording, lang);
    const view = this.view(recording);
    return target && view.state === 'ready' ? this.translated(recording, view, target) : view;
  }

  /**
   * A ready summary in another language: translated on the first ask and kept with the summary it was made from
   * (Recording.summaryTranslations, by language, with the summary's `summarySeq`), so a rewrite after a correction
   * is translated afresh and every later ask is answered from what was kept.
   */
  private async translated(recording: RecordingRow, view: SummaryView, target: string): Promise<SummaryView> {
    const kept = (recording.summaryTranslations as Record<string, KeptTranslation> | null)?.[target];
    const madeFrom = recording.summarySeq ?? null;
    if (kept && kept.summarySeq === madeFrom && kept.writtenAt === view.writtenAt) {
      return { ...view, title: kept.title, summary: kept.summary, lang: target };
    }
    const [title, summary] = await this.translation.translate([view.title ?? '', view.summary ?? ''], view.language, target);
    const entry: KeptTranslation = { title: title!.text, summary: summary!.text, summarySeq: madeFrom, writtenAt: view.writtenAt };
    // Kept only while the summary is still the one translated (a rewrite may have landed meanwhile).
    await this.deps.prisma.$executeRaw`
      UPDATE "Recording" SET "summaryTranslations" = COALESCE("summaryTranslations", '{}'::jsonb) || jsonb_build_object(${target}::text,
        ${JSON.stringify(entry)}::jsonb)
      WHERE id = ${recording.id} AND "summaryAt" IS NOT DISTINCT FROM ${recording.summaryAt}`;
    return { ...view, title: entry.title, summary: entry.summary, lang: target };
  }

  /**
   * `POST /v1/recordings/{id}/summarize` (owner, `write`): asks for a summary when a finished recording has none (or
   * its last attempt failed, or was left pending by a dead process); answers the state after asking. Asking again
   * while one is pending or ready changes nothing.
   */
  async summarize(accountId: string, recordingId: string): Promise<SummaryView> {
    const { recording } = await this.recordings.reader(recordingId, { accountId });
    if (!this.summariser || recording.state !== 'finalized' || recording.lifecycle !== 'active') return this.view(recording);
    const claimed = await this.deps.prisma.recording.updateMany({
      where: {
        id: recordingId,
        state: 'finalized',
        OR: [
          { summaryState: null }, { summaryState: 'failed' },
          { summaryState: 'pending', OR: [{ summaryAt: null }, { summaryAt: { lt: new Date(Date.now() - STALE_MS) } }] },
        ],
      },
      data: { summaryState: 'pending', summaryAt: new Date(), summaryError: null },
    });
    if (claimed.count) this.start(recordingId);
    return this.view(await this.deps.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } }));
  }

  /** Called once a recording is finalized (a file job `done`, a live recording `finalized`): writes its summary in the background. */
  afterFinalize(recordingId: string): void {
    if (this.summariser) this.start(recordingId);
  }

  /**
   * In a correction's transaction (the recording's row locked): a finalized recording's summary made from the text
   * before it (`ready`, or `pending` being written) reads `pending` from this commit on. True when a rewrite is due:
   * `rewriteSoon` after the commit. A recording with no summary, a failed one, or one not finished is left alone.
   */
  async markStale(tx: Tx, recordingId: string): Promise<boolean> {
    if (!this.summariser) return false;
    const marked = await tx.recording.updateMany({
      where: { id: recordingId, state: 'finalized', summaryState: { in: ['ready', 'pending'] } },
      data: { summaryState: 'pending', summaryAt: new Date(), summaryError: null },
    });
    return marked.count > 0;
  }

  /** Writes the summary again SUMMARY_REWRITE_DELAY_MS after the last call for this recording (debounced). */
  rewriteSoon(recordingId: string): void {
    if (!this.summariser) return;
    clearTimeout(this.queued.get(recordingId));
    const timer = setTimeout(() => {
      this.queued.delete(recordingId);
      this.start(recordingId);
    }, this.deps.config.summaries.rewriteDelayMs);
    timer.unref();
    this.queued.set(recordingId, timer);
  }

  /** Writes the queued rewrites now and waits for summaries being written (shutdown). */
  async close(): Promise<void> {
    for (const [recordingId, timer] of this.queued) {
      clearTimeout(timer);
      this.start(recordingId);
    }
    this.queued.clear();
    await Promise.allSettled([...this.running]);
  }

  private start(recordingId: string): void {
    const run = this.write(recordingId).catch((error: unknown) => this.logger?.warn({ recordingId, err: error }, 'summary not stored'));
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /**
   * Writes the summary of a `pending` recording from its corrected transcript; a failure is stored as `failed`.
   * Stored only while the recording's log is where it was when the text was read (`summarySeq`): a correction that
   * lands meanwhile makes it read the text again.
   */
  private async write(recordingId: string): Promise<void> {
    for (let read = 0; read < MAX_READS; read++) {
      if (await this.writeOnce(recordingId)) return;
    }
    this.logger?.warn({ recordingId }, 'summary not stored: the transcript kept changing while it was written');
  }

  /** One read and write; false when the text may have changed since it was read (nothing stored). */
  private async writeOnce(recordingId: string): Promise<boolean> {
    const summariser = this.summariser!;
    const recording = await this.deps.prisma.recording.findUnique({ where: { id: recordingId } });
    if (!recording || recording.state !== 'finalized' || recording.summaryState !== 'pending') return true;
    const seq = recording.lastEventSeq;
    const segments = await this.deps.prisma.segment.findMany({ where: { recordingId }, orderBy: { seq: 'asc' } });
    const sentences = buildSentences(segments.map((s) => ({
      seq: s.seq, speaker: s.speaker, start: s.start, end: s.end, text: s.text, words: s.words as never, confidence: s.confidence,
    })))
      .map((sentence) => sentence.text.trim())
      .filter(Boolean);
    const language = recording.spokenLanguage ?? segments[0]?.language ?? null;
    let data: Prisma.RecordingUpdateManyMutationInput;
    try {
      if (!sentences.length) throw new Error('The transcript has no words to summarise.');
      const { title, summary } = await summariser.summarise({ sentences, language });
      data = {
        summaryState: 'ready', summaryTitle: title, summaryText: summary, summaryLanguage: language, summaryProvider: summariser.name,
        summaryError: null,
      };
    } catch (error) {
      data = { summaryState: 'failed', summaryError: (error as Error).message, summaryProvider: summariser.name };
    }
    const stored = await this.deps.prisma.recording.updateMany({
      where: { id: recordingId, summaryState: 'pending', lastEventSeq: seq }, data: { ...data, summarySeq: seq, summaryAt: new Date() },
    });
    return stored.count > 0;
  }

  private view(recording: RecordingRow): SummaryView {
    const base: SummaryView = {
      recordingId: recording.id, state: 'unavailable', title: null, summary: null, language: null, lang: null,
      provider: null, writtenAt: null, reason: null, retryable: false, error: null,
    };
    const unavailable = (reason: UnavailableReason, retryable: boolean): SummaryView => ({
      ...base, reason, retryable, error: recording.summaryError,
    });
    if (!this.summariser) return { ...base, reason: 'off' };
    if (recording.summaryState === 'ready') {
      return {
        ...base, state: 'ready', title: recording.summaryTitle, summary: recording.summaryText, language: recording.summaryLanguage,
        provider: recording.summaryProvider, writtenAt: recording.summaryAt?.toISOString() ?? null,
      };
    }
    if (recording.summaryState === 'failed') return unavailable('failed', true);
    if (recording.summaryState === 'pending') {
      const stale = !recording.summaryAt || recording.summaryAt.getTime() < Date.now() - STALE_MS;
      return stale ? unavailable('failed', true) : { ...base, state: 'pending' };
    }
    if (recording.state === 'finalized') return unavailable('missing', true);
    // A file recording `ended` is a failed job: no transcript to summarise until it is retried.
    if (recording.kind === 'file' && recording.state === 'ended') return unavailable('no_transcript', false);
    return { ...base, state: 'pending' };
  }
}

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
 */
import type { Prisma } from '../generated/prisma/client.js';
import { errors } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ServiceDeps } from '../core/services.js';
import { buildSentences } from '../recordings/sentences.js';
import type { ReaderCredentials, RecordingsService } from '../recordings/service.js';
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

/** The summariser SUMMARY_PROVIDER names; null for `off`. */
export function summariserOf(settings: ServiceDeps['config']['summaries']): Summariser | null {
  if (settings.provider === 'off') return null;
  return settings.provider === 'openai' ? openAiSummariser(settings) : extractiveSummariser;
}

export class SummariesService {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly recordings: RecordingsService,
    private readonly summariser: Summariser | null = summariserOf(deps.config.summaries),
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  /** `GET /v1/recordings/{id}/summary`: the owner or a share-link reader; queues nothing. */
  async get(recordingId: string, credentials: ReaderCredentials, lang: string | null | undefined): Promise<SummaryView> {
    const { reader, recording } = await this.recordings.reader(recordingId, credentials);
    if (reader.kind !== 'owner' && reader.kind !== 'shareLink') throw errors.forbidden('The summary is read by the recording\'s owner or through a share link.');
    this.recordings.refuseLang(reader, recording, lang);
    return this.view(recording);
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
        OR: [{ summaryState: null }, { summaryState: 'failed' }, { summaryState: 'pending', OR: [{ summaryAt: null }, { summaryAt: { lt: new Date(Date.now() - STALE_MS) } }] }],
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

  /** Waits for summaries being written (shutdown). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private start(recordingId: string): void {
    const run = this.write(recordingId).catch((error: unknown) => this.logger?.warn({ recordingId, err: error }, 'summary not stored'));
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Writes the summary of a `pending` recording from its corrected transcript; a failure is stored as `failed`. */
  private async write(recordingId: string): Promise<void> {
    const summariser = this.summariser!;
    const recording = await this.deps.prisma.recording.findUnique({ where: { id: recordingId } });
    if (!recording || recording.state !== 'finalized' || recording.summaryState !== 'pending') return;
    const segments = await this.deps.prisma.segment.findMany({ where: { recordingId }, orderBy: { seq: 'asc' } });
    const sentences = buildSentences(segments.map((s) => ({ seq: s.seq, speaker: s.speaker, start: s.start, end: s.end, text: s.text, words: s.words as never, confidence: s.confidence })))
      .map((sentence) => sentence.text.trim())
      .filter(Boolean);
    const language = recording.spokenLanguage ?? segments[0]?.language ?? null;
    let data: Prisma.RecordingUpdateManyMutationInput;
    try {
      if (!sentences.length) throw new Error('The transcript has no words to summarise.');
      const { title, summary } = await summariser.summarise({ sentences, language });
      data = { summaryState: 'ready', summaryTitle: title, summaryText: summary, summaryLanguage: language, summaryProvider: summariser.name, summaryError: null };
    } catch (error) {
      data = { summaryState: 'failed', summaryError: (error as Error).message, summaryProvider: summariser.name };
    }
    await this.deps.prisma.recording.updateMany({ where: { id: recordingId, summaryState: 'pending' }, data: { ...data, summaryAt: new Date() } });
  }

  private view(recording: RecordingRow): SummaryView {
    const base: SummaryView = {
      recordingId: recording.id, state: 'unavailable', title: null, summary: null, language: null, lang: null,
      provider: null, writtenAt: null, reason: null, retryable: false, error: null,
    };
    const unavailable = (reason: UnavailableReason, retryable: boolean): SummaryView => ({ ...base, reason, retryable, error: recording.summaryError });
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

/**
 * Live recordings (spec: "Recording (live transcription)"): the state machine and the publisher's side of it.
 *
 * | state      | moved by                                   | next       |
 * |------------|--------------------------------------------|------------|
 * | (none)     | start (POST /v1/transcriptions/{id}/recordings) | `live` (a publisher grant is minted) |
 * | `live`     | pause (idempotent)                         | `paused`   |
 * | `paused`   | resume                                     | `live`     |
 * | `paused`   | stop (only from paused)                    | `ended`    |
 * | `ended`    | the finalize job completes                 | `finalized`|
 *
 * Every move is one transaction that appends its `recording.state` event (published on the transcription's topic
 * after commit), then a control frame on `recording:<id>` tells the process holding the publisher's socket (any
 * gateway) to pause, resume or end its session. Committed segments are stored by `commitSegment` before their
 * frame goes to the publisher; the capture audio is kept as it arrives (`capture.f32`, 16 kHz mono float32: the
 * media time line). Paused audio is neither transcribed nor kept, and capture spans map media time to wall time.
 */
import {
  liveAudioRelay, commitSegment, inTransaction, type EventLogContext, type PendingFrame, withoutConfidencePolicy,
  CAPTURE_FILE, capturedSeconds, ensureRendition, makeMaster, mediaPath, recordingMediaDir, parseConfidencePolicy,
  type StoredConfidencePolicy, type SpeakerSettled,
} from '../transcript/index.js';
import path from 'node:path';
import { Prisma } from '../generated/prisma/client.js';
import { ApiError, errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { afterCursor, encodeCursor } from '../core/cursor.js';
import type { Frame } from '../core/pubsub.js';
import type { ServiceDeps } from '../core/services.js';
import { isObject } from '../core/validate.js';
import type { RealtimeService } from './service.js';
import { type CommittedBody } from './session.js';
import { retimedWords } from './llm-fix.js';
import { parseSessionOptions, type OptionRules, type RealtimeSessionOptions } from './options.js';
import { TX_OPTIONS, type Tx } from '../core/db/transactions.js';
import type { Actor, Creator } from '../core/identity/actor.js';
import { recordingView, type RecordingView } from '../recordings/service.js';
import {
  applySpeakerLabels, relabelSegments, storedSpeakers, type SpeakerTurnOnMaster, translateSegments, type SegmentTranslations,
  type Translate, type ListenerLanguages,
} from '../recordings/index.js';
import { parseVoicePins } from '../core/voice-pins.js';
import { longestWordS, wordKey } from '../../workers/engine/index.js';
import { lockTranscription } from '../core/db/transactions.js';

declare module '../core/services.js' {
  interface Services {
    liveRecordings: LiveRecordingsService;
  }
}

export type LiveState = 'live' | 'paused' | 'ended' | 'finalized';
/** What a live recording's publisher is told through `recording:<id>`. */
export type ControlAction = 'pause' | 'resume' | 'stop' | 'demote' | 'settings' | 'audio';

/** A stream recording started: processes running stream pulls sweep at once (stream-pull.ts). */
export const STREAM_PULLS_TOPIC = 'gateway:stream-pulls';

/** Where the server's pull of a stream source stands (`ingest` on the recording, `stream.ingest` frames). */
export interface IngestReport {
  state: 'connecting' | 'streaming' | 'reconnecting' | 'failed';
  /** Bytes read from the source (playlists and segments of HLS included). */
  bytes: number;
  /** Seconds of audio decoded from it (paused time included: the pull goes on while paused). */
  seconds: number;
  reconnects: number;
  /** Why the last connection ended or failed. */
  error: string | null;
}

/** A stream recording's pull before its first connection. */
export const INGEST_CONNECTING: IngestReport = { state: 'connecting', bytes: 0, seconds: 0, reconnects: 0, error: null };

/** A publisher says it is there this often; one silent for PUBLISHER_GONE_MS is taken for gone. */
export const PUBLISHER_HEARTBEAT_MS = 5_000;
const PUBLISHER_GONE_MS = 15_000;
/**
 * Longest a pause waits for its publisher's flush to be stored: one pass of the live decoder, on a busy machine a
 * few. Past it the pause answers and the last commits follow as events.
 */
export const PAUSE_FLUSH_WAIT_MS = 10_000;
export const MAX_SCRIPT_CHARS = 100_000;
const LIST_MAX = 500;

export interface RecordingGrant {
  sessionId: string;
  /** The publisher's socket (the realtime protocol); null for a stream-URL source, which the server pulls itself. */
  streamUrl: string | null;
  expiresAt: string;
  recording: RecordingView;
}

export interface RecordingPage {
  items: RecordingView[];
  nextCursor: string | null;
}

/** How a start made elsewhere (a broadcast's) extends it. */
export interface StartOptions {
  /** Runs first inside the start's transaction: locks, checks and makes what the start needs (its transcription). */
  before?: (tx: Tx) => Promise<void>;
  /** Body fields besides `scriptText` that the caller reads itself. */
  fields?: readonly string[];
}

/** The body of a recording start: `scriptText` (no extra properties but `extra`, which the caller reads). */
export function parseStartRecording(body: unknown, extra: readonly string[] = []): { scriptText: string | null } {
  const input = body === undefined || body === null ? {} : body;
  if (!isObject(input)) throw errors.invalidOptions('The body must be a JSON object or absent.', { field: 'body' });
  const fields = ['scriptText', ...extra];
  for (const key of Object.keys(input)) if (!fields.includes(key)) throw errors.invalidOptions(`${key} is not a field of a recording `
    + `start (${fields.join(', ')}).`, { field: key });
  const script = input.scriptText;
  if (script !== undefined && script !== null && (typeof script !== 'string' || script.length > MAX_SCRIPT_CHARS)) {
    throw errors.invalidOptions(`scriptText must be a string of at most ${MAX_SCRIPT_CHARS} characters, or null.`, { field: 'scriptText' });
  }
  return { scriptText: typeof script === 'string' && script.trim() ? script : null };
}

/** What `PATCH /v1/recordings/{id}/settings` changes in the running capture, from the next segment on. */
export const CAPTURE_SETTING_FIELDS = ['latencyMode', 'spokenLanguage', 'speakerLabels', 'translate', 'llmFix'] as const;
export type CaptureSettings = Partial<Pick<RealtimeSessionOptions, (typeof CAPTURE_SETTING_FIELDS)[number]>>;

/**
 * The body of a capture settings change (no extra properties): each field validated as the realtime options are
 * (a language the model knows, a speaker label mode offered); null sets a field back to its default (detect,
 * `auto`, `off`). Only the fields sent are returned.
 */
export function parseCaptureSettings(body: unknown, rules: OptionRules): CaptureSettings {
  if (!isObject(body)) {
    throw errors.invalidOptions(
      `The body must be a JSON object of capture settings (${CAPTURE_SETTING_FIELDS.join(', ')}).`, { field: 'body' },
    );
  }
  for (const key of Object.keys(body)) {
    if (!(CAPTURE_SETTING_FIELDS as readonly string[]).includes(key)) {
      throw errors.invalidOptions(`${key} is not a capture setting (${CAPTURE_SETTING_FIELDS.join(', ')}).`, { field: key });
    }
  }
  const present = CAPTURE_SETTING_FIELDS.filter((field) => body[field] !== undefined);
  const parsed = parseSessionOptions(Object.fromEntries(present.map((field) => [field, body[field]])), rules);
  return Object.fromEntries(present.map((field) => [field, parsed[field]])) as CaptureSettings;
}

/**
 * What `PATCH /v1/recordings/{id}/settings` takes: the capture settings, and the recording's own ConfidencePolicy and
 * voice pins (`voiceByLang`, for its spoken translation), which any recording takes in any state.
 */
export const RECORDING_SETTING_FIELDS = [...CAPTURE_SETTING_FIELDS, 'confidencePolicy', 'voiceByLang'] as const;
export interface RecordingSettingsPatch {
  capture: CaptureSettings;
  /** Absent: unchanged; null: cleared (the transcription's, then the broadcasts', then the default apply). */
  confidencePolicy?: StoredConfidencePolicy | null;
  /** Absent: unchanged; null or {}: cleared (the transcription's pins, then each language's default, speak). */
  voiceByLang?: Record<string, string> | null;
}

/**
 * The body of a recording settings change (no extra properties): the capture settings as `parseCaptureSettings`
 * reads them, and `confidencePolicy` as every level's policy is read (src/transcriptions/service.ts).
 */
export function parseRecordingSettings(body: unknown, rules: OptionRules): RecordingSettingsPatch {
  if (!isObject(body)) {
    throw errors.invalidOptions(
      `The body must be a JSON object of recording settings (${RECORDING_SETTING_FIELDS.join(', ')}).`, { field: 'body' },
    );
  }
  for (const key of Object.keys(body)) {
    if (!(RECORDING_SETTING_FIELDS as readonly string[]).includes(key)) {
      throw errors.invalidOptions(`${key} is not a recording setting (${RECORDING_SETTING_FIELDS.join(', ')}).`, { field: key });
    }
  }
  const { confidencePolicy, voiceByLang, ...capture } = body;
  const patch: RecordingSettingsPatch = { capture: parseCaptureSettings(capture, rules) };
  if (confidencePolicy !== undefined) patch.confidencePolicy = parseConfidencePolicy(confidencePolicy, 'confidencePolicy');
  if (voiceByLang !== undefined) patch.voiceByLang = parseVoicePins(voiceByLang, 'voiceByLang');
  return patch;
}

const stateFrame = (state: LiveState, extra: Record<string, unknown> = {}): PendingFrame => ({
  type: 'recording.state', audience: 'transcription', body: { state, ...extra },
});

/** A word as the accurate model heard it, on the media time line. */
export interface TimedWord { start: number; end: number; text: string; prob: number }

/**
 * Reads the master again with the accurate model (the worker's engine): its words, the language it heard, and with
 * `speakerLabels` who spoke when (the whole audio's diarization, as a file job's).
 */
export type CatchUp = (masterPath: string, language: string | null, options: { speakerLabels: boolean }) => Promise<{
  words: TimedWord[]; language: string | null; speakers?: SpeakerTurnOnMaster[];
}>;


/** How far (seconds, middle to middle) a word of the accurate reading may be from the live word it is taken to repeat. */
const SAME_WORD_WITHIN_S = 1;

/**
 * The accurate model's words laid over the live segments, so seqs and segment boundaries stay as the listeners saw
 * them and only the words change. A word the live text also has nearby (the same letters, middles within 1 s, in
 * order) goes to that live word's segment: at a boundary the two readings time a word differently, and a word given
 * to the neighbour while its own segment kept its live text was said twice ("can do for" + "for"). Any other word
 * goes to the segment whose stretch of the time line holds its middle (a segment's stretch runs from its start to
 * the next one's; the first's from 0, the last's to the end), never before the segment of the word before it. A
 * segment that gets no word keeps what the fast model said.
 */
export function overlayWords<S extends {
  seq: number; start: number; words?: unknown;
}>(segments: S[], words: TimedWord[]): Map<number, TimedWord[]> {
  const ordered = [...segments].sort((a, b) => a.start - b.start || a.seq - b.seq);
  const liveWords = ordered.flatMap((segment, at) =>
    (Array.isArray(segment.words) ? (segment.words as TimedWord[]) : [])
      .filter((word) => wordKey(word.text) !== '')
      .map((word) => ({ at, key: wordKey(word.text), middle: (word.start + word.end) / 2 })),
  );
  const bySeq = new Map<number, TimedWord[]>();
  let byTime = 0;
  let nextLive = 0;
  let atLeast = 0;
  for (const word of [...words].sort((a, b) => a.start - b.start)) {
    const middle = (word.start + word.end) / 2;
    while (byTime + 1 < ordered.length && middle >= ordered[byTime + 1]!.start) byTime++;
    if (!ordered[byTime]) break;
    const key = wordKey(word.text);
    // Live words too early for this word are too early for every later one (the words come in time order).
    while (nextLive < liveWords.length && liveWords[nextLive]!.middle < middle - SAME_WORD_WITHIN_S) nextLive++;
    let same = -1;
    for (let i = nextLive; i < liveWords.length && liveWords[i]!.middle <= middle + SAME_WORD_WITHIN_S; i++) {
      if (liveWords[i]!.key === key && key !== '' && Math.abs(liveWords[i]!.middle - middle) <= SAME_WORD_WITHIN_S) {
        same = i;
        break;
      }
    }
    if (same >= 0) nextLive = same + 1;
    const at = Math.max(same >= 0 ? liveWords[same]!.at : byTime, atLeast);
    atLeast = at;
    const seq = ordered[at]!.seq;
    bySeq.set(seq, [...(bySeq.get(seq) ?? []), word]);
  }
  return bySeq;
}

/** A live word this far from every word of the accurate reading lies in audio that reading did not cover. */
const COVERED_WITHIN_S = 0.3;

const wordCount = (words: { text: string }[]) => words.filter((word) => wordKey(word.text) !== '').length;

/**
 * Whether the accurate reading of a live segment (`accurate`: its words laid over it) lost speech the live text holds:
 * it has fewer words than the live text, and some live word's middle lies in audio no word of the whole reading
 * (`heard`) covers. The live words are the evidence of speech there; an accurate reading with fewer words that covers
 * that audio merely reads it differently ("ill disposed" as "ill-disposed", a word moved to the next segment). A word
 * covers no more than the engine's own check lets it (`longestWordS`): alignment stretches a last word over speech
 * the model skipped ("spills" over the 8 s of "over into normative arguments made by other …").
 */
export function lostSpeech(live: TimedWord[], accurate: TimedWord[], heard: TimedWord[]): boolean {
  if (wordCount(accurate) >= wordCount(live)) return false;
  const covered = (at: number) =>
    heard.some(
      (word) => word.start - COVERED_WITHIN_S <= at && at <= Math.min(word.end, word.start + longestWordS(word.text)) + COVERED_WITHIN_S,
    );
  return live.some((word) => wordCount([word]) > 0 && !covered((word.start + word.end) / 2));
}

/**
 * The accurate model catches up: every live segment came from the fast model (greedy, `catchup: true`, or beam
 * search, `decoder: accuracy`); each is amended in place from the accurate model's reading of the master (same seq,
 * its words and text, `decoder: accuracy`, no `catchup`), with a durable `transcript.amended` event. A segment whose
 * text comes out the same and already says `accuracy` is left alone, so a finalize job run again amends nothing twice.
 * A catch-up only improves: a segment whose accurate reading lost speech its live text holds (`lostSpeech`) keeps
 * the live text. Answers how many segments were amended.
 */
export async function catchUpSegments(
  ctx: EventLogContext, recordingId: string, heard: { words: TimedWord[]; language: string | null },
): Promise<number> {
  const segments = await ctx.prisma.segment.findMany({ where: { recordingId }, orderBy: { seq: 'asc' } });
  const overlay = overlayWords(segments, heard.words);
  let amended = 0;
  for (const segment of segments) {
    const words = overlay.get(segment.seq);
    // A person's correction (src/corrections) wins over the accurate model's re-reading: corrected segments stay; so
    // do segments that follow the script (their text is the script's, `recognizedText` the fast model's).
    if (!words || words.length === 0 || segment.recognizedText !== null) continue;
    if (lostSpeech(segment.words as unknown as TimedWord[], words, heard.words)) continue;
    const text = words.map((word) => word.text.trim()).join(' ');
    if (text === segment.text.trim() && segment.decoder === 'accuracy') continue;
    const confidence = Math.round((words.reduce((sum, word) => sum + word.prob, 0) / words.length) * 1000) / 1000;
    await inTransaction(ctx, recordingId, async (tx) => {
      const updated = await tx.segment.update({
        where: { id: segment.id },
        data: {
          text, words: words as object[], confidence, decoder: 'accuracy', catchup: null, language: heard.language ?? segment.language,
        },
      });
      const view = {
        seq: updated.seq, speaker: updated.speaker, start: updated.start, end: updated.end, text, words, confidence,
        language: updated.language, decoder: 'accuracy',
      };
      return {
        result: null,
        frames: [{
          type: 'transcript.amended', audience: 'log',
          body: { seq: updated.seq, reason: 'catchup', segment: view, previousText: segment.text },
        }],
      };
    });
    amended++;
  }
  return amended;
}

/**
 * The finalize job's speaker labels: every segment labelled live takes the speaker the whole audio's diarization
 * gives its stretch (src/recordings/speakers.ts relabelSegments keeps the live numbers where they agree, and a named
 * number with the voice holding most of its speech, so names given during the recording stay with their voice),
 * settled, with a `transcript.speaker` event for each segment that changed.
 */
async function reclusterSpeakers(ctx: EventLogContext, recordingId: string, turns: SpeakerTurnOnMaster[]): Promise<void> {
  const segments = await ctx.prisma.segment.findMany({
    where: { recordingId, speaker: { gte: 0 } }, orderBy: { seq: 'asc' },
    select: { seq: true, speaker: true, speakerConfidence: true, speakerProvisional: true, start: true, end: true },
  });
  const recording = await ctx.prisma.recording.findUnique({ where: { id: recordingId }, select: { speakers: true } });
  const named = new Set(storedSpeakers(recording?.speakers).map((speaker) => speaker.index));
  const labels = relabelSegments(segments, turns, named);
  if (labels.length === 0) return;
  await inTransaction(ctx, recordingId, async (tx) => ({ result: null, frames: await applySpeakerLabels(tx, recordingId, labels) }));
}

/**
 * `ended → finalized`, the finalize job's move (workers call it): the capture audio becomes the master (16 kHz
 * mono WAV, what `/audio` and clips are made from), the delivery audio (Ogg/Opus) is encoded from it, the
 * recording's length is known, and with `catchUp` the accurate model reads it again and amends what the fast model
 * committed live.
 */
export async function finalizeRecording(ctx: EventLogContext & { dataDir: string; catchUp?: CatchUp }, recordingId: string): Promise<void> {
  let recording = await ctx.prisma.recording.findUnique({ where: { id: recordingId } });
  // A stop ends the publisher's session with a flush: its last commits may still be on their way. Wait until it has
  // left (its detach clears the presence) or has been silent long enough to be gone.
  const deadline = Date.now() + PUBLISHER_GONE_MS + 5_000;
  while (recording?.publisherSeenAt && Date.now() - recording.publisherSeenAt.getTime() < PUBLISHER_GONE_MS && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    recording = await ctx.prisma.recording.findUnique({ where: { id: recordingId } });
  }
  if (!recording || recording.kind !== 'live' || recording.state !== 'ended') return;
  const capture = path.join(recording.id, CAPTURE_FILE);
  let masterPath: string | null = null;
  const durationS = capturedSeconds(ctx.dataDir, recording.id);
  if (durationS > 0) {
    masterPath = path.join(recording.id, 'master.wav');
    await makeMaster(mediaPath(ctx.dataDir, capture), mediaPath(ctx.dataDir, masterPath), { rawPcm: true });
    // The delivery audio listeners play, encoded now rather than on the first listener's request.
    await ensureRendition(mediaPath(ctx.dataDir, masterPath), recordingMediaDir(ctx.dataDir, recording.id), 'delivery', 'ogg');
    if (ctx.catchUp && recording.lastSeq >= 0) {
      const settings = recording.settings as { spokenLanguage?: string | null };
      // Segments labelled live are labelled again from the whole audio (online labels only saw what came before).
      const labelled = (await ctx.prisma.segment.count({ where: { recordingId, speaker: { gte: 0 } } })) > 0;
      const heard = await ctx.catchUp(
        mediaPath(ctx.dataDir, masterPath), settings.spokenLanguage ?? recording.spokenLanguage ?? null, { speakerLabels: labelled },
      );
      await catchUpSegments(ctx, recordingId, heard);
      if (heard.speakers) await reclusterSpeakers(ctx, recordingId, heard.speakers);
      if (heard.language && !recording.spokenLanguage) {
        await ctx.prisma.recording.update({ where: { id: recordingId }, data: { spokenLanguage: heard.language } });
      }
    }
  }
  await inTransaction(ctx, recordingId, async (tx) => {
    const moved = await tx.recording.updateMany({
      where: { id: recordingId, state: 'ended' },
      data: {
        state: 'finalized', finalizedAt: new Date(), masterPath, durationS, mediaS: durationS, summaryState: 'pending',
        summaryAt: new Date(),
      },
    });
    return { result: null, frames: moved.count ? [stateFrame('finalized', { durationS })] : [] };
  });
}

/**
 * Billing as live recordings use it (src/billing/metering.ts answers it): admit a start against the account's credit
 * and meter what is captured. What `settleLive` answers is handed back to `after` once its transaction committed.
 */
export interface LiveMetering {
  readonly billing: {
    readonly enabled: boolean;
    creatorOf(tx: Tx, actor: Actor): Promise<Creator>;
    admit(tx: Tx, creator: Creator, work: { kind: 'live'; workId: string }, baseUrl: string): Promise<void>;
  };
  openLive(tx: Tx, recording: { id: string; accountId: string; name: string }, creator: Creator): Promise<void>;
  settleLive(tx: Tx, recordingId: string, mediaS: number): Promise<unknown>;
  after(accountId: string, settled: unknown): Promise<void>;
}

/** Where a stopped recording's finalize work goes (the jobs module's Bull queue, src/jobs/queue.ts). */
export interface FinalizeQueue {
  add(name: 'finalize', data: { jobId: string; attempt: number }): Promise<void>;
}

export class LiveRecordingsService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly realtime: RealtimeService,
    private readonly queue: FinalizeQueue,
    private readonly translate?: Translate,
    private readonly listenerLanguages?: Pick<ListenerLanguages, 'of'>,
    /** Admits new recordings against the account's credit and meters what they capture (src/billing); absent: free. */
    private readonly metering?: LiveMetering,
  ) {}

  private get events(): EventLogContext {
    return { prisma: this.deps.prisma, pubsub: this.deps.pubsub };
  }

  /** The publisher's relay of its live audio to listeners who ask for it (live-audio.ts). */
  audioRelay(recordingId: string): ReturnType<typeof liveAudioRelay> {
    return liveAudioRelay(this.deps.pubsub, recordingId);
  }

  private control(recordingId: string, action: ControlAction, extra: Record<string, unknown> = {}): void {
    this.deps.pubsub.publish(`recording:${recordingId}`, { type: 'recording.control', action, ...extra });
  }

  /**
   * Starts a recording of a live transcription and mints the publisher's grant. Refused: a transcription of
   * another account (404), one archived or not live (409 `invalid_state`), and while another recording of it is
   * live or paused (409 `conflict`, `details.takeover` says how to take it over). Concurrent starts serialise on
   * the transcription's row, so only one wins. With billing on it is admitted in the same transaction (402
   * `insufficient_credit`, 402 `quota_exceeded` past the plan's concurrent transcriptions, 429 past the hour's
   * creations: nothing is created) and its charge opens. Its usage source is the actor's principal, or (an RTMP
   * publish, acting for the key's owner) the transcription's owner.
   */
  async start(
    actor: { accountId: string; principalId?: string; principalKind?: Actor['principalKind'] }, transcriptionId: string, body: unknown,
    baseUrl: string, options: StartOptions = {},
  ): Promise<RecordingGrant> {
    const { scriptText } = parseStartRecording(body, options.fields);
    const recordingId = newId('rec');
    const recording = await this.deps.prisma.$transaction(async (tx) => {
      await options.before?.(tx);
      const transcription = await lockTranscription(tx, actor.accountId, transcriptionId);
      if (transcription.kind !== 'live') {
        throw errors.invalidState(
          'Only a live transcription records live; a file or link transcription has its one recording already.',
          { kind: transcription.kind },
        );
      }
      if (transcription.lifecycle !== 'active') {
        throw errors.invalidState('The transcription is archived; restore it first.', { state: transcription.lifecycle });
      }
      const running = await tx.recording.findFirst({
        where: { transcriptionId, kind: 'live', state: { in: ['live', 'paused'] } }, orderBy: { createdAt: 'desc' },
      });
      if (running) {
        throw errors.conflict(
          'Another device is recording this transcription; take it over with the publish token route.',
          { takeover: takeoverDetails(running) },
        );
      }
      const pulled = streamSourceOf(transcription) !== null;
      const created = await tx.recording.create({
        data: {
          id: recordingId, transcriptionId, accountId: actor.accountId, kind: 'live', state: 'live', name: transcription.name,
          // The confidence policy is left out: it is resolved when read (src/transcript/confidence.ts), not pinned here.
          settings: withoutConfidencePolicy(transcription.settings) as Prisma.InputJsonValue, scriptText, publisherEpoch: 1,
          ...(pulled ? { ingest: { ...INGEST_CONNECTING } } : {}),
        },
      });
      if (this.metering?.billing.enabled) {
        const creator = await this.metering.billing.creatorOf(tx, actor.principalId
          ? { accountId: actor.accountId, principalId: actor.principalId, principalKind: actor.principalKind }
          : { accountId: actor.accountId, principalId: transcription.ownerPrincipalId });
        await this.metering.billing.admit(tx, creator, { kind: 'live', workId: recordingId }, baseUrl);
        await this.metering.openLive(tx, { id: recordingId, accountId: actor.accountId, name: transcription.name }, creator);
      }
      return created;
    }, TX_OPTIONS);
    // The event after the row: `recording.started` names the recording the moment it exists.
    await inTransaction(
      this.events, recordingId,
      async () => ({ result: null, frames: [{ type: 'recording.started', audience: 'transcription', body: { state: 'live' } }] }),
    );
    if (recording.ingest) {
      // A stream source: the server is the publisher. Whichever process runs stream pulls claims it now.
      this.deps.pubsub.publish(STREAM_PULLS_TOPIC, { type: 'stream-pulls.sweep', recordingId });
      return { ...this.grant(recording, baseUrl), streamUrl: null };
    }
    return this.grant(recording, baseUrl);
  }

  /**
   * `POST /v1/recordings/{id}/publish-token`: a new grant for an open recording, so a publisher whose network
   * dropped re-attaches to the same recording, time line and sequence. While another publisher is attached (it
   * said so in the last 15 s) that is 409 `conflict` with `details.takeover`, unless `takeover` is true: then the
   * current publisher is demoted (its socket gets an `error` frame and closes) and its grant stops working.
   */
  async publishToken(accountId: string, recordingId: string, takeover: boolean, baseUrl: string): Promise<RecordingGrant> {
    const recording = await this.deps.prisma.$transaction(async (tx) => {
      const current = await lockRecording(tx, accountId, recordingId);
      if (current.kind !== 'live') throw errors.invalidState('A file or link recording has no publisher.', { kind: current.kind });
      if (current.ingest) {
        throw errors.invalidState('The server pulls this recording\'s stream source itself; it takes no publisher.', { source: 'stream' });
      }
      if (current.state !== 'live' && current.state !== 'paused') {
        throw errors.invalidState('The recording has ended; start a new one.', { state: current.state });
      }
      const attached = current.publisherSeenAt !== null && Date.now() - current.publisherSeenAt.getTime() < PUBLISHER_GONE_MS;
      if (attached && !takeover) {
        throw errors.conflict(
          'A publisher is attached to this recording; ask again with takeover=true to take it over.',
          { takeover: takeoverDetails(current) },
        );
      }
      return tx.recording.update({
        where: { id: recordingId }, data: { publisherEpoch: { increment: 1 }, publisherSeenAt: null }, include: { captureSpans: true },
      });
    }, TX_OPTIONS);
    this.control(recordingId, 'demote', { epoch: recording.publisherEpoch });
    return this.grant(recording, baseUrl);
  }

  /** A publisher grant for the recording's current epoch: a realtime stream token bound to this recording. */
  private grant(recording: Prisma.RecordingGetPayload<{}>, baseUrl: string): RecordingGrant {
    const runtime = this.realtime.runtime;
    const issued = runtime.signer.issue(recording.accountId, this.optionsOf(recording.settings), runtime.config.tokenTtlS, {
      id: recording.id, epoch: recording.publisherEpoch,
    });
    return {
      sessionId: issued.sessionId,
      streamUrl: `${baseUrl.replace(/^http/, 'ws')}/v1/recordings/${recording.id}/publish/${issued.token}`,
      expiresAt: issued.expiresAt.toISOString(),
      recording: recordingView(recording),
    };
  }

  /** The capture settings as they stand now, as session options (a re-attach keeps what PATCH .../settings changed). */
  private optionsOf(stored: Prisma.JsonValue): RealtimeSessionOptions {
    const settings = (stored ?? {}) as Record<string, unknown>;
    return parseSessionOptions(
      Object.fromEntries(CAPTURE_SETTING_FIELDS.map((field) => [field, settings[field] ?? null])), this.realtime.runtime.optionRules(),
    );
  }

  /** A recording's session options now (a pulled stream's next session starts with them). */
  async captureOptions(recordingId: string): Promise<RealtimeSessionOptions> {
    const recording = await this.deps.prisma.recording.findUniqueOrThrow({ where: { id: recordingId }, select: { settings: true } });
    return this.optionsOf(recording.settings);
  }

  // ---- stream sources (stream-pull.ts) ----------------------------------------------------------------------

  /**
   * Claims the open stream recordings that no puller reports for (none attached, or silent for PUBLISHER_GONE_MS),
   * except those this process pulls already: each claim moves the grant's epoch on in a transaction that checks the
   * epoch it read, so of two processes sweeping at once one wins, and a puller that was only slow is demoted.
   */
  async claimStreamPulls(pulling: string[]): Promise<Array<{ recordingId: string; accountId: string; url: string; epoch: number }>> {
    const gone = new Date(Date.now() - PUBLISHER_GONE_MS);
    const open = await this.deps.prisma.recording.findMany({
      where: {
        kind: 'live', state: { in: ['live', 'paused'] }, ingest: { not: Prisma.AnyNull }, id: { notIn: pulling },
        OR: [{ publisherSeenAt: null }, { publisherSeenAt: { lt: gone } }],
      },
      include: { transcription: true },
      take: 20,
    });
    const claimed = [];
    for (const recording of open) {
      const url = streamSourceOf(recording.transcription);
      // An RTMP ingest address is pushed to this server, not pulled: its RTMP server publishes it (src/live/transports/rtmp.ts).
      if (!url || url.startsWith('rtmp://')) continue;
      const moved = await this.deps.prisma.recording.updateMany({
        where: { id: recording.id, publisherEpoch: recording.publisherEpoch, state: { in: ['live', 'paused'] } },
        data: { publisherEpoch: { increment: 1 }, publisherSeenAt: new Date() },
      });
      if (moved.count === 0) continue;
      this.control(recording.id, 'demote', { epoch: recording.publisherEpoch + 1 });
      claimed.push({ recordingId: recording.id, accountId: recording.accountId, url, epoch: recording.publisherEpoch + 1 });
    }
    return claimed;
  }

  /**
   * The pull's progress: kept on the recording (its `ingest`), and sent on the transcription's events socket, as a
   * `stream.ingest` frame (every few seconds, not stored) or, for a state change, a durable `recording.ingest` event.
   */
  async reportIngest(recordingId: string, epoch: number, report: IngestReport, durable: boolean): Promise<void> {
    const ingest = { ...report, seconds: Math.round(report.seconds * 100) / 100 };
    if (!durable) {
      // Also the puller's presence while it waits to reopen (no session, so no publisher heartbeat).
      const moved = await this.deps.prisma.recording.updateMany({
        where: { id: recordingId, publisherEpoch: epoch, state: { in: ['live', 'paused'] } }, data: { ingest, publisherSeenAt: new Date() },
      });
      const recording = moved.count ? await this.deps.prisma.recording.findUnique({
        where: { id: recordingId }, select: { transcriptionId: true },
      }) : null;
      if (recording) {
        this.deps.pubsub.publish(`transcription:${recording.transcriptionId}`, {
          type: 'stream.ingest', recordingId, ...ingest, at: new Date().toISOString(),
        });
      }
      return;
    }
    await inTransaction(this.events, recordingId, async (tx) => {
      const moved = await tx.recording.updateMany({ where: { id: recordingId, publisherEpoch: epoch }, data: { ingest } });
      return { result: null, frames: moved.count ? [{ type: 'recording.ingest', audience: 'transcription', body: ingest }] : [] };
    });
  }

  /**
   * A stream that cannot be opened (or reopened) fails its recording: `live`/`paused → ended` with a durable
   * `recording.ingest` `failed` event naming the reason, then finalization as after a stop.
   */
  async failIngest(recordingId: string, epoch: number, report: IngestReport): Promise<void> {
    const mediaS = capturedSeconds(this.deps.config.dataDir, recordingId);
    const moved = await inTransaction(this.events, recordingId, async (tx) => {
      const recording = await tx.recording.findUnique({ where: { id: recordingId } });
      if (!recording || recording.publisherEpoch !== epoch || (recording.state !== 'live' && recording.state !== 'paused')) {
        return { result: null, frames: [] };
      }
      const wall = (Date.now() - recording.createdAt.getTime()) / 1000;
      await tx.captureSpan.updateMany({ where: { recordingId, wallEnd: null }, data: { mediaEnd: mediaS, wallEnd: wall } });
      await tx.recording.update({
        where: { id: recordingId }, data: { state: 'ended', endedAt: new Date(), mediaS, ingest: { ...report }, publisherSeenAt: null },
      });
      const settled = await this.metering?.settleLive(tx, recordingId, mediaS);
      return {
        result: { accountId: recording.accountId, settled },
        frames: [
          { type: 'recording.ingest', audience: 'transcription', body: { ...report } },
          stateFrame('ended', { reason: 'source_failed', error: report.error }),
        ],
      };
    });
    if (!moved) return;
    if (moved.settled) await this.metering?.after(moved.accountId, moved.settled);
    await this.queue.add('finalize', { jobId: recordingId, attempt: 0 });
  }

  /** The live recordings of a transcription, newest first; the cursor is the last item's (createdAt, id). */
  async list(accountId: string, transcriptionId: string, query: { cursor?: string | null; limit?: number | null }): Promise<RecordingPage> {
    const transcription = await this.deps.prisma.transcription.findFirst({
      where: { id: transcriptionId, accountId }, select: { id: true },
    });
    if (!transcription) throw errors.notFound('The transcription');
    const limit = query.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) {
      throw errors.invalidOptions(`limit must be an integer from 1 to ${LIST_MAX}.`, { field: 'limit' });
    }
    const where: Prisma.RecordingWhereInput = { transcriptionId };
    if (query.cursor) where.OR = afterCursor(query.cursor);
    const rows = await this.deps.prisma.recording.findMany({
      where, include: { captureSpans: true }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(recordingView),
      nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
    };
  }

  /**
   * `live → paused` (pausing a paused recording changes nothing). With a publisher attached, answers once it has
   * stored what was said before the pause (its flush; PAUSE_FLUSH_WAIT_MS at most), so the transcript read next has
   * those last words; the answer's `lastSeq` counts them.
   */
  async pause(accountId: string, recordingId: string): Promise<RecordingView> {
    // Subscribed before the control frame goes out, so the publisher's answer cannot come first.
    const answers = this.deps.pubsub.subscribe(`recording:${recordingId}`);
    const next = answers.next();
    try {
      const view = await this.move(accountId, recordingId, {
        from: ['live'], same: 'paused', to: 'paused', action: 'pause', closeSpan: true,
      });
      if (!(await this.publisherFlushed(recordingId, answers, next))) return view;
      return recordingView(await this.deps.prisma.recording.findUniqueOrThrow({
        where: { id: recordingId }, include: { captureSpans: true },
      }));
    } finally {
      void answers.return?.();
    }
  }

  /**
   * Waits (PAUSE_FLUSH_WAIT_MS at most) for the attached publisher's `recording.flushed`; false at once when no
   * publisher is attached (nothing is being transcribed), or when the time ran out (the commits follow as events).
   */
  private async publisherFlushed(
    recordingId: string, answers: AsyncIterableIterator<Frame>, first: Promise<IteratorResult<Frame>>,
  ): Promise<boolean> {
    const recording = await this.deps.prisma.recording.findUnique({ where: { id: recordingId } });
    if (!recording?.publisherSeenAt || Date.now() - recording.publisherSeenAt.getTime() >= PUBLISHER_GONE_MS) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PAUSE_FLUSH_WAIT_MS)));
    try {
      for (let next = first; ; next = answers.next()) {
        const answer = await Promise.race([next, timeUp]);
        if (!answer || answer.done) return false;
        const frame = answer.value as { type?: unknown; epoch?: unknown };
        if (frame.type === 'recording.flushed' && frame.epoch === recording.publisherEpoch) return true;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** The publisher of `epoch` has stored what was said before the pause it was sent (`pause` waits for this). */
  flushed(recordingId: string, epoch: number): void {
    this.deps.pubsub.publish(`recording:${recordingId}`, { type: 'recording.flushed', epoch });
  }

  /** `paused → live`: a new capture span starts where the media time line stands. */
  async resume(accountId: string, recordingId: string): Promise<RecordingView> {
    return this.move(accountId, recordingId, { from: ['paused'], to: 'live', action: 'resume', openSpan: 'resume' });
  }

  /** `paused → ended` (only from paused), then the finalize job runs. */
  async stop(accountId: string, recordingId: string): Promise<RecordingView> {
    const view = await this.move(accountId, recordingId, { from: ['paused'], to: 'ended', action: 'stop' });
    await this.queue.add('finalize', { jobId: recordingId, attempt: 0 });
    return view;
  }

  /**
   * The metering sweeper found the account out of credit (src/billing/metering.ts): the recording ends at once from
   * `live` or `paused` (its capture span closes, its charge settles at the seconds captured), with
   * `reason: 'insufficient_credit'` on its `recording.state` event; the publisher is stopped and finalization runs as
   * after a stop. A recording that ended meanwhile is left as it is.
   */
  async endForCredit(accountId: string, recordingId: string): Promise<void> {
    const error = 'The account ran out of credit; add credit and start a new recording.';
    try {
      await this.move(accountId, recordingId, {
        from: ['live', 'paused'], to: 'ended', action: 'stop', closeSpan: true, reason: 'insufficient_credit', error,
      });
    } catch (refused) {
      if (refused instanceof ApiError) return;
      throw refused;
    }
    await this.queue.add('finalize', { jobId: recordingId, attempt: 0 });
  }

  /**
   * `PATCH /v1/recordings/{id}/settings`: mode, language and speaker labels of the running capture, stored on the
   * recording (a re-attached publisher gets them) and applied by its publisher from the next segment on. Open
   * recordings only (`live` or `paused`); a `recording.settings` event names what changed. `confidencePolicy` (the
   * recording's own, over its transcription's and broadcasts') is taken in any state and kind, applies from the next
   * read (src/transcript/confidence.ts) and appends no event; null clears it. So is `voiceByLang` (read when a
   * spoken translation speaks); null or {} clears it.
   */
  async updateSettings(accountId: string, recordingId: string, body: unknown): Promise<RecordingView> {
    const { capture: patch, confidencePolicy, voiceByLang } = parseRecordingSettings(body, this.realtime.runtime.optionRules());
    const row = await inTransaction(this.events, recordingId, async (tx) => {
      const recording = await lockRecording(tx, accountId, recordingId);
      // A body of only `confidencePolicy` and `voiceByLang` does not touch the capture: it is taken whatever the state.
      const capturing = Object.keys(patch).length > 0 || (confidencePolicy === undefined && voiceByLang === undefined);
      if (capturing && recording.kind !== 'live') throw errors.invalidState('A file or link recording has no running capture; its '
        + 'settings are the transcription\'s (confidencePolicy and voiceByLang alone may be set).', { kind: recording.kind });
      if (capturing && recording.state !== 'live' && recording.state !== 'paused') throw errors.invalidState('The recording has ended; '
        + 'its capture settings no longer change (confidencePolicy and voiceByLang alone may be set).', { state: recording.state });
      const { confidencePolicy: stored, voiceByLang: storedPins, ...rest } = recording.settings as Record<string, unknown>;
      const policy = confidencePolicy === undefined ? stored : confidencePolicy;
      const pins = voiceByLang === undefined ? storedPins : voiceByLang;
      const settings = {
        ...rest, ...patch, ...(policy ? { confidencePolicy: policy } : {}),
        ...(pins && Object.keys(pins).length ? { voiceByLang: pins } : {}),
      };
      const updated = await tx.recording.update({
        where: { id: recordingId }, data: { settings: settings as Prisma.InputJsonValue }, include: { captureSpans: true },
      });
      const frames: PendingFrame[] = Object.keys(patch).length ? [{
        type: 'recording.settings', audience: 'transcription', body: { settings: patch },
      }] : [];
      return { result: updated, frames };
    });
    if (Object.keys(patch).length) this.control(recordingId, 'settings', { settings: patch });
    return recordingView(row);
  }

  private async move(
    accountId: string,
    recordingId: string,
    rule: {
      from: LiveState[]; to: LiveState; same?: LiveState; action: ControlAction; closeSpan?: boolean; openSpan?: string; reason?: string;
      error?: string;
    },
  ): Promise<RecordingView> {
    const mediaS = capturedSeconds(this.deps.config.dataDir, recordingId);
    const moved = await inTransaction(this.events, recordingId, async (tx) => {
      const recording = await lockRecording(tx, accountId, recordingId);
      if (recording.kind !== 'live') {
        throw errors.invalidState(
          `A file or link recording is not paused, resumed or stopped; only live recordings are.`, { kind: recording.kind },
        );
      }
      if (rule.same === recording.state) {
        return {
          result: {
            row: await tx.recording.findUniqueOrThrow({ where: { id: recordingId }, include: { captureSpans: true } }), settled: undefined,
          },
          frames: [],
        };
      }
      if (!rule.from.includes(recording.state as LiveState)) {
        throw errors.invalidState(
          `${rule.action} moves a recording from ${rule.from.join(' or ')}; this one is ${recording.state}.`, { state: recording.state },
        );
      }
      const wall = (Date.now() - recording.createdAt.getTime()) / 1000;
      if (rule.closeSpan) {
        await tx.captureSpan.updateMany({ where: { recordingId, wallEnd: null }, data: { mediaEnd: mediaS, wallEnd: wall } });
      }
      if (rule.openSpan) await openSpan(tx, recordingId, rule.openSpan, wall, mediaS);
      const updated = await tx.recording.update({
        where: { id: recordingId },
        data: { state: rule.to, mediaS, ...(rule.to === 'ended' ? { endedAt: new Date() } : {}) },
        include: { captureSpans: true },
      });
      // An ended recording's charge settles at the seconds it captured, in the same transaction.
      const settled = rule.to === 'ended' ? await this.metering?.settleLive(tx, recordingId, mediaS) : undefined;
      return {
        result: { row: updated, settled }, frames: [stateFrame(rule.to, rule.reason ? { reason: rule.reason, error: rule.error } : {})],
      };
    });
    if (moved.settled) await this.metering?.after(moved.row.accountId, moved.settled);
    // Also when nothing moved (a second pause): the publisher may have missed the first one.
    this.control(recordingId, rule.action);
    return recordingView(moved.row);
  }

  // ---- the publisher's side ---------------------------------------------------------------------------------

  /**
   * A publisher socket attaches: the grant must be the recording's current one and the recording still open.
   * Opens a capture span (`start` on the first attach, `attach` after) and answers where its audio starts on the
   * media time line, and whether the recording is paused now.
   */
  async attach(recordingId: string, epoch: number): Promise<{ offsetS: number; paused: boolean }> {
    const offsetS = capturedSeconds(this.deps.config.dataDir, recordingId);
    return this.deps.prisma.$transaction(async (tx) => {
      const recording = await tx.recording.findUnique({ where: { id: recordingId } });
      if (!recording || recording.kind !== 'live') throw errors.notFound('The recording');
      if (recording.state === 'ended' || recording.state === 'finalized') {
        throw errors.invalidState('The recording has ended; start a new one.', { state: recording.state });
      }
      if (recording.publisherEpoch !== epoch) {
        throw errors.conflict(
          'This publish grant was replaced by a newer one (another device took over); ask for a new publish token.',
          { takeover: { recordingId } },
        );
      }
      await tx.recording.update({ where: { id: recordingId }, data: { publisherSeenAt: new Date() } });
      const spans = await tx.captureSpan.count({ where: { recordingId } });
      await tx.captureSpan.updateMany({
        where: { recordingId, wallEnd: null }, data: { mediaEnd: offsetS, wallEnd: (Date.now() - recording.createdAt.getTime()) / 1000 },
      });
      if (recording.state === 'live') {
        await openSpan(tx, recordingId, spans === 0 ? 'start' : 'attach', (Date.now() - recording.createdAt.getTime()) / 1000, offsetS);
      }
      return { offsetS, paused: recording.state === 'paused' };
    }, TX_OPTIONS);
  }

  /**
   * Stores a publisher's commit on the recording's time line (its session started `offsetS` into it): the segment
   * and its `transcript.committed` event in one transaction, with the next gapless `seq`, following the recording's
   * script when it has one (`commitSegment`). A grant that was replaced stores nothing (409).
   */
  async storeCommit(recordingId: string, epoch: number, offsetS: number, body: CommittedBody): Promise<CommittedBody & { seq: number }> {
    const shift = (t: number) => Math.round((t + offsetS) * 1000) / 1000;
    const words = body.words.map((word) => ({ ...word, start: shift(word.start), end: shift(word.end) }));
    const segment = { ...body, start: shift(body.start), end: shift(body.end), words };
    return inTransaction(this.events, recordingId, async (tx) => {
      const recording = await tx.recording.findUnique({ where: { id: recordingId }, select: { publisherEpoch: true, state: true } });
      if (!recording || recording.publisherEpoch !== epoch) throw errors.conflict('This publisher was replaced; its commits are no longer '
        + 'stored.');
      // The tail flushed after a stop is stored while `ended`; a finalized transcript takes nothing more.
      if (recording.state === 'finalized') {
        throw errors.invalidState('The recording is finalized; its transcript takes no more commits.', { state: recording.state });
      }
      const { seq, frame, segment: stored } = await commitSegment(tx, recordingId, {
        speaker: Number(body.speaker ?? -1),
        ...(typeof body.speakerConfidence === 'number' ? {
          speakerConfidence: body.speakerConfidence, speakerProvisional: body.speakerProvisional === true,
        } : {}),
        start: segment.start,
        end: segment.end,
        text: body.text,
        words,
        confidence: Number(body.confidence ?? 0),
        language: (body.language as string | null) ?? null,
        decoder: (body.decoder as 'fast' | 'accuracy') ?? 'fast',
        ...(body.catchup ? { catchup: true } : {}),
        ...(typeof body.gapBefore === 'number' ? { gapBefore: body.gapBefore } : {}),
        ...(typeof body.latencyS === 'number' ? { latencyS: body.latencyS } : {}),
      });
      // The publisher's socket shows what was stored: a segment following the script reads as the script.
      const script = stored.scriptPos !== undefined ? {
        text: stored.text, recognizedText: stored.recognizedText, scriptFrom: stored.scriptFrom, scriptPos: stored.scriptPos,
      } : {};
      return { result: { ...segment, ...script, seq }, frames: [frame] };
    });
  }

  /**
   * A publisher's commit translated into the session's `translate` targets and the languages its broadcast
   * listeners asked for (listener-languages.ts) (translations.ts translateSegments: stored on the segment with a
   * durable `transcript.translated` event, so subscribers and later reads have it).
   */
  async translateCommit(recordingId: string, seq: number, targets: string[]): Promise<SegmentTranslations | null> {
    const wanted = [...new Set([...targets, ...((await this.listenerLanguages?.of(recordingId)) ?? [])])];
    if (wanted.length === 0) return null;
    if (!this.translate) throw errors.invalidOptions('translate: this server has no translation provider configured (GET /v1/languages '
      + 'lists no translation targets).', { field: 'translate' });
    const made = await translateSegments({ ...this.events, translate: this.translate }, recordingId, [seq], wanted);
    return made.get(seq) ?? null;
  }

  /**
   * A publisher's commit fixed after it was stored (`llmFix`, src/live/llm-fix.ts): the segment takes the fixed
   * text, its words keeping the stored times, with a durable `transcript.amended` event (`reason: llm_fix`). A segment
   * a person corrected, or that follows the script, or a finalized recording's, is left alone (null).
   */
  async amendCommit(recordingId: string, seq: number, text: string, previousText: string): Promise<CommittedBody | null> {
    return inTransaction(this.events, recordingId, async (tx) => {
      const recording = await tx.recording.findUnique({ where: { id: recordingId }, select: { state: true } });
      const segment = await tx.segment.findFirst({ where: { recordingId, seq } });
      if (!recording || recording.state === 'finalized' || !segment || segment.recognizedText !== null || segment.text !== previousText) {
        return { result: null, frames: [] };
      }
      const words = retimedWords(segment.words as unknown as TimedWord[], text);
      const updated = await tx.segment.update({ where: { id: segment.id }, data: { text, words: words as object[] } });
      const view = {
        seq, speaker: updated.speaker, start: updated.start, end: updated.end, text, words, confidence: updated.confidence,
        language: updated.language, decoder: updated.decoder,
      };
      return {
        result: view,
        frames: [{ type: 'transcript.amended', audience: 'log', body: { seq, reason: 'llm_fix', segment: view, previousText } }],
      };
    });
  }

  /**
   * Settled speaker labels of a publisher's commits: each segment's speaker, confidence and `speakerProvisional:
   * false`, with its durable `transcript.speaker` frame (`seq`, `speaker`, `speakerConfidence`), in one transaction.
   * A label the finalize job already re-clustered is left alone (the whole audio's clustering wins).
   */
  async settleSpeakers(recordingId: string, labels: SpeakerSettled[]): Promise<void> {
    await inTransaction(this.events, recordingId, async (tx) => {
      const recording = await tx.recording.findUnique({ where: { id: recordingId }, select: { state: true } });
      if (!recording || recording.state === 'finalized') return { result: null, frames: [] };
      return { result: null, frames: await applySpeakerLabels(tx, recordingId, labels) };
    });
  }

  /**
   * The attached publisher is still there (every PUBLISHER_HEARTBEAT_MS while its socket is open); answers the
   * recording's state and grant epoch as they stand, so a publisher that missed a control frame catches up.
   */
  async heartbeat(recordingId: string, epoch: number): Promise<{ state: string; epoch: number } | null> {
    // Only while present: a heartbeat still on its way when the socket closed must not bring back a detached publisher.
    await this.deps.prisma.recording.updateMany({
      where: { id: recordingId, publisherEpoch: epoch, publisherSeenAt: { not: null } }, data: { publisherSeenAt: new Date() },
    });
    const now = await this.deps.prisma.recording.findUnique({ where: { id: recordingId }, select: { state: true, publisherEpoch: true } });
    return now && { state: now.state, epoch: now.publisherEpoch };
  }

  /**
   * The publisher's socket closed: its capture span ends where the media time line stands, and the recording has
   * no publisher (unless a newer grant's took over meanwhile: its span and presence stay).
   */
  async detach(recordingId: string, epoch: number, options: { stayPresent?: boolean } = {}): Promise<void> {
    const mediaS = capturedSeconds(this.deps.config.dataDir, recordingId);
    await this.deps.prisma.$transaction(async (tx) => {
      const recording = await tx.recording.findUnique({ where: { id: recordingId } });
      if (!recording || recording.publisherEpoch !== epoch) return;
      const wall = (Date.now() - recording.createdAt.getTime()) / 1000;
      await tx.captureSpan.updateMany({ where: { recordingId, wallEnd: null }, data: { mediaEnd: mediaS, wallEnd: wall } });
      // A pulled stream between two connections is still its process's: it stays present, so no other process
      // claims it (and starts its failure count again) while this one waits to reopen.
      await tx.recording.update({ where: { id: recordingId }, data: { mediaS, publisherSeenAt: options.stayPresent ? new Date() : null } });
    }, TX_OPTIONS);
  }

  /** Control frames for one recording's publisher (pause, resume, stop, demote), from any process. */
  controls(recordingId: string): AsyncIterableIterator<Frame> {
    return this.deps.pubsub.subscribe(`recording:${recordingId}`);
  }
}

/** The URL a live transcription's stream source pulls, or null for a microphone. */
function streamSourceOf(transcription: { source: Prisma.JsonValue }): string | null {
  const source = transcription.source as { kind?: string; url?: string } | null;
  return source?.kind === 'stream' && typeof source.url === 'string' ? source.url : null;
}

/** What a client needs to take a recording over from the device recording it. */
export function takeoverDetails(recording: { id: string; state: string }) {
  return { recordingId: recording.id, state: recording.state, publishToken: `/v1/recordings/${recording.id}/publish-token?takeover=true` };
}

async function openSpan(tx: Tx, recordingId: string, reason: string, wallStart: number, mediaStart: number): Promise<void> {
  const idx = await tx.captureSpan.count({ where: { recordingId } });
  await tx.captureSpan.create({ data: { id: newId('spn'), recordingId, idx, wallStart, mediaStart, reason } });
}

/** The recording's row, locked for this transaction (moves serialise on it); 404 for another account's. */
async function lockRecording(tx: Tx, accountId: string, recordingId: string) {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Recording" WHERE id = ${recordingId} AND "accountId" =
    ${accountId} FOR UPDATE`;
  if (rows.length === 0) throw errors.notFound('The recording');
  return tx.recording.findUniqueOrThrow({ where: { id: recordingId } });
}

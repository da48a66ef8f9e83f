/**
 * A recording's durable event log and its committed segments. Every change that users may follow (a job state
 * change, a committed segment) is one database transaction that also appends its RecordingEvent rows (gapless
 * `seq` per recording, counted on Recording.lastEventSeq under that row's lock); the frames are published only
 * after the commit, so a subscriber never sees a change the database does not have.
 */
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { Frame, PubSub, Topic } from '../core/pubsub.js';
import { TX_OPTIONS, type Tx } from '../core/db/transactions.js';
import { broadcastIdsOf } from './broadcast-ids.js';
import type { CommittedSegment, Word } from './segments.js';
import { closesSentence, sentencesTouching } from './sentences.js';
import { cachedScript, followScript, type ScriptMatch } from './script.js';

export interface EventLogContext {
  prisma: PrismaClient;
  pubsub: Pick<PubSub, 'publish'>;
}

/** A frame headed for the durable log and then the sockets. */
export interface PendingFrame {
  type: string;
  /**
   * Who hears it besides the durable log and the recording's subscribers (every frame goes to both):
   * `transcription` frames (job and recording states, `recording.started`) are also published on the transcription's
   * topic (its events socket and `transcriptionEvents`); `log` frames (committed segments) are not (a live
   * recording's publisher gets its commits on its own socket).
   */
  audience: 'transcription' | 'log';
  body: Record<string, unknown>;
}

/**
 * Frames about one segment: storing them moves the segment's `cursor` (what `transcript?after=` answers). So does
 * a `transcript.speaker` frame that settles a segment's label (it names its `seq`; one that names a speaker does not).
 */
const SEGMENT_FRAMES = new Set(['transcript.committed', 'transcript.amended', 'transcript.corrected', 'transcript.translated']);
const isSegmentFrame = (
  type: string, body: Record<string, unknown>,
) => SEGMENT_FRAMES.has(type) || (type === 'transcript.speaker' && typeof body.seq === 'number');

/** Frames the events sockets of the broadcasts a recording feeds also carry. */
const BROADCAST_FRAMES = new Set(['recording.started', 'recording.state']);

/** Every durable frame of a recording, for its subscribers (`WS /v1/recordings/{id}/subscribe`) in every process. */
export const recordingLogTopic = (recordingId: string): Topic => `recording:${recordingId}:log`;

/**
 * Appends frames to a recording's durable log inside `tx` and returns them stamped with `cursor` (their place in
 * the log, gapless per recording), `seq` (the segment's for segment frames, else the cursor) and `at`.
 * The increment takes the recording row's lock, so concurrent writers serialise and the cursor stays gapless.
 * A step that changes a segment's words or speaker also writes the `transcript.sentence` frames of the sentences
 * holding it (sentenceFrames).
 */
export async function appendEvents(
  tx: Tx, recordingId: string, changes: PendingFrame[],
): Promise<Array<{ frame: Frame; topics: Topic[] }>> {
  if (changes.length === 0) return [];
  // Sentences right after the segment changes that touched them, and before a step's end of the recording (`ended`,
  // `finalized`): a reader may stop at that frame.
  const sentences = await sentenceFrames(tx, recordingId, changes);
  const end = changes.findIndex(endsRecording);
  const place = end >= 0 ? end : changes.findLastIndex(touchesSentence) + 1;
  const frames = [...changes.slice(0, place), ...sentences, ...changes.slice(place)];
  const recording = await tx.recording.update({
    where: { id: recordingId },
    data: { lastEventSeq: { increment: frames.length } },
    select: { lastEventSeq: true, transcriptionId: true, transcription: { select: { broadcastIds: true } } },
  });
  const broadcastIds = broadcastIdsOf(recording.transcription);
  const firstCursor = recording.lastEventSeq - frames.length + 1;
  const at = new Date();
  const stamped = frames.map((pending, index) => {
    const cursor = firstCursor + index;
    const frame: Frame = {
      type: pending.type, recordingId, ...pending.body, cursor, seq: typeof pending.body.seq === 'number' ? pending.body.seq : cursor,
      at: at.toISOString(),
    };
    // A broadcast's listeners follow recordings of several transcriptions: the frame says which.
    if (BROADCAST_FRAMES.has(pending.type)) frame.transcriptionId = recording.transcriptionId;
    const topics: Topic[] = [recordingLogTopic(recordingId)];
    if (pending.audience === 'transcription') topics.push(`transcription:${recording.transcriptionId}`);
    if (BROADCAST_FRAMES.has(pending.type)) for (const broadcastId of broadcastIds) topics.push(`broadcast:${broadcastId}`);
    return { frame, topics };
  });
  await tx.recordingEvent.createMany({
    data: stamped.map(({ frame }) => ({
      recordingId, seq: frame.cursor as number, type: frame.type, payload: frame as Prisma.InputJsonValue, createdAt: at,
    })),
  });
  for (const { frame } of stamped) {
    if (isSegmentFrame(frame.type, frame)) {
      await tx.segment.updateMany({ where: { recordingId, seq: frame.seq as number }, data: { cursor: frame.cursor as number } });
    }
  }
  return stamped;
}

/** A change of a segment's words or speaker (a translation changes neither). */
const touchesSentence = ({ type, body }: PendingFrame) =>
  type !== 'transcript.translated' && isSegmentFrame(type, body) && typeof body.seq === 'number';
const endsRecording = ({ type, body }: PendingFrame) =>
  type === 'recording.state' && (body.state === 'ended' || body.state === 'finalized');

/** About the most segments read back from a change for the start of its sentence, or on for its end (a longer sentence is cut there). */
const SENTENCE_LOOKBACK = 256;

/**
 * `transcript.sentence` frames for the sentences a change touched (a segment committed, amended, corrected, its
 * speaker settled), or the last sentence closing when the recording ends: the sentence as the snapshot would now
 * give it, so a reader keeps sentences current without re-reading. Read inside the change's transaction, so the
 * sentence matches the segments it was built from.
 */
async function sentenceFrames(tx: Tx, recordingId: string, changes: PendingFrame[]): Promise<PendingFrame[]> {
  const touched = new Set(changes.filter(touchesSentence).map(({ body }) => body.seq as number));
  const ended = changes.some(endsRecording);
  if (ended) {
    const last = await tx.segment.findFirst({ where: { recordingId }, orderBy: { seq: 'desc' }, select: { seq: true, text: true } });
    // An open last sentence closes: no segment will follow it.
    if (last && !closesSentence(last.text)) touched.add(last.seq);
  }
  if (touched.size === 0) return [];
  const first = Math.min(...touched);
  const last = Math.max(...touched);
  // Back to where the sentence holding `first` starts: after a segment that closes one, or another speaker's. Most
  // sentences start a segment or two back: a few are read first, more only when no boundary is among them.
  const firstRow = await tx.segment.findUnique({ where: { recordingId_seq: { recordingId, seq: first } }, select: { speaker: true } });
  let from = first;
  let speaker = firstRow?.speaker;
  for (let take = 8, boundary = false; !boundary && take <= SENTENCE_LOOKBACK; take *= 4) {
    const before = await tx.segment.findMany({
      where: { recordingId, seq: { lt: from } }, orderBy: { seq: 'desc' }, take, select: { seq: true, speaker: true, text: true },
    });
    boundary = before.length < take;
    for (const segment of before) {
      if (closesSentence(segment.text) || segment.speaker !== speaker) {
        boundary = true;
        break;
      }
      from = segment.seq;
      speaker = segment.speaker;
    }
  }
  const select = { seq: true, speaker: true, start: true, end: true, text: true, words: true, confidence: true } as const;
  const segments = await tx.segment.findMany({ where: { recordingId, seq: { gte: from, lte: last } }, orderBy: { seq: 'asc' }, select });
  // On past `last` to where its sentence ends: through the segment that closes it, or to another speaker's first
  // (which closes it too, and is left out below as untouched). Read a few at a time, as going back.
  for (let take = 8, open = segments.length > 0 && !closesSentence(segments.at(-1)!.text); open && take <= SENTENCE_LOOKBACK; take *= 4) {
    const after = await tx.segment.findMany({
      where: { recordingId, seq: { gt: segments.at(-1)!.seq } }, orderBy: { seq: 'asc' }, take, select,
    });
    open = after.length === take;
    for (const segment of after) {
      const otherSpeaker = segment.speaker !== segments.at(-1)!.speaker;
      segments.push(segment);
      if (otherSpeaker || closesSentence(segment.text)) {
        open = false;
        break;
      }
    }
  }
  const sources = segments.map((segment) => ({ ...segment, words: segment.words as unknown as Word[] }));
  return sentencesTouching(sources, touched, ended).map((sentence) => ({
    type: 'transcript.sentence', audience: 'log', body: { sentenceId: sentence.id, sentence },
  }));
}

export function publishAll(pubsub: Pick<PubSub, 'publish'>, published: Array<{ frame: Frame; topics: Topic[] }>): void {
  for (const { frame, topics } of published) for (const topic of topics) pubsub.publish(topic, frame);
}

/** One state change: `change` runs in a transaction and returns the frames it caused; they are published after commit. */
export async function inTransaction<T>(
  ctx: EventLogContext,
  recordingId: string,
  change: (tx: Tx) => Promise<{ result: T; frames: PendingFrame[] }>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { result, published } = await ctx.prisma.$transaction(async (tx) => {
        // Every writer of a recording's log takes the recording's row first: one lock order for all of them (a
        // commit, a translation, a settled label, a pause), so they queue instead of deadlocking over its segments.
        await tx.$queryRaw`SELECT id FROM "Recording" WHERE id = ${recordingId} FOR UPDATE`;
        const { result, frames } = await change(tx);
        return { result, published: await appendEvents(tx, recordingId, frames) };
      }, TX_OPTIONS);
      publishAll(ctx.pubsub, published);
      return result;
    } catch (error) {
      // PostgreSQL may still abort one of two transactions as a write conflict; nothing of it was kept: run it again.
      if (attempt < WRITE_CONFLICT_TRIES && (error as { code?: unknown } | null)?.code === 'P2034') continue;
      throw error;
    }
  }
}

/** How often a transaction aborted as a write conflict or deadlock (Prisma P2034) is tried. */
const WRITE_CONFLICT_TRIES = 3;

/** A segment as the engine (file job or live session) hands it over, before it has a `seq`. */
export type SegmentToCommit = Omit<CommittedSegment, 'seq' | 'decoder' | 'confidence' | 'language'> & {
  confidence: number;
  language: string | null;
  /** Which decoding path produced it (`accuracy` for file jobs). */
  decoder: NonNullable<CommittedSegment['decoder']>;
};

/** A segment as committed: the engine's, with its script following when the recording has a script. */
export type CommittedView = Omit<CommittedSegment, 'words'> & { words: SegmentToCommit['words'] } & Partial<
    Pick<ScriptMatch, 'recognizedText' | 'scriptFrom' | 'scriptPos'>
  >;

/**
 * A recording with a script follows it (src/transcript/script.ts): the reader is where the last matched segment
 * left them (its `scriptPos`; 0 before any). Runs under the recording row's lock, so commits follow one by one.
 */
async function followRecordingScript(
  tx: Tx, recordingId: string, scriptText: string | null, recognized: string,
): Promise<ScriptMatch | null> {
  if (!scriptText) return null;
  const last = await tx.segment.findFirst({
    where: { recordingId, scriptPos: { not: null } }, orderBy: { seq: 'desc' }, select: { scriptPos: true },
  });
  return followScript(cachedScript(scriptText), recognized, last?.scriptPos ?? 0);
}

/**
 * Stores one committed segment with the next `seq` of its recording (gapless: the increment takes the recording
 * row's lock) and returns the `transcript.committed` frame for the durable log and the segment as stored. Every
 * path that commits text (file jobs, live recordings) stores it here, inside the caller's transaction. When the
 * recording follows a script and the segment matches it, `text` is the script's words and `recognizedText` what
 * was heard, with `scriptFrom`/`scriptPos`.
 */
export async function commitSegment(tx: Tx, recordingId: string, segment: SegmentToCommit): Promise<{
  seq: number; frame: PendingFrame; segment: CommittedView;
}> {
  const { lastSeq: seq, scriptText } = await tx.recording.update({
    where: { id: recordingId }, data: { lastSeq: { increment: 1 } }, select: { lastSeq: true, scriptText: true },
  });
  const script = await followRecordingScript(tx, recordingId, scriptText, segment.text);
  const stored = await tx.segment.create({
    data: {
      id: `${recordingId}:${seq}`,
      recordingId,
      seq,
      speaker: segment.speaker,
      speakerConfidence: segment.speakerConfidence ?? null,
      speakerProvisional: segment.speakerProvisional ?? null,
      start: segment.start,
      end: segment.end,
      text: script?.text ?? segment.text,
      words: segment.words as object[],
      recognizedText: script?.recognizedText ?? null,
      scriptFrom: script?.scriptFrom ?? null,
      scriptPos: script?.scriptPos ?? null,
      confidence: segment.confidence,
      language: segment.language,
      decoder: segment.decoder,
      catchup: segment.catchup ?? null,
      gapBefore: segment.gapBefore ?? null,
      latencyS: segment.latencyS ?? null,
    },
  });
  const committed: CommittedView = {
    seq: stored.seq,
    speaker: stored.speaker,
    ...(stored.speakerConfidence !== null ? { speakerConfidence: stored.speakerConfidence } : {}),
    ...(stored.speakerProvisional !== null ? { speakerProvisional: stored.speakerProvisional } : {}),
    start: stored.start,
    end: stored.end,
    text: stored.text,
    words: segment.words,
    confidence: stored.confidence,
    language: stored.language,
    decoder: stored.decoder as CommittedView['decoder'],
    ...(stored.catchup ? { catchup: true } : {}),
    ...(stored.gapBefore !== null ? { gapBefore: stored.gapBefore } : {}),
    ...(stored.latencyS !== null ? { latencyS: stored.latencyS } : {}),
    ...(script ? { recognizedText: script.recognizedText, scriptFrom: script.scriptFrom, scriptPos: script.scriptPos } : {}),
  };
  return { seq, frame: { type: 'transcript.committed', audience: 'log', body: { seq, segment: committed } }, segment: committed };
}

/**
 * Naming a recording's speakers (`PUT /v1/recordings/{id}/speakers/{idx}`): the names live on the recording's
 * `speakers` (a list of `{index, name}`, named speakers only), so snapshots and every export show them, and a
 * durable `transcript.speaker` frame (`speaker`, `name`) tells subscribers. A name is trimmed, at most 100
 * characters; null or an empty name clears it (the speaker reads as "Speaker n" again in exports).
 */
import type { Prisma } from '../generated/prisma/client.js';
import { errors } from '../core/errors.js';
import { speakerOf, type SpeakerTurn } from '../../workers/engine/index.js';
import type { SpeakerSettled } from '../transcript/index.js';
import { inTransaction, type EventLogContext, type PendingFrame } from '../transcript/index.js';
import type { Tx } from '../core/db/transactions.js';

export interface SpeakerName { index: number; name: string | null }

export const MAX_SPEAKER_NAME = 100;
const INT32_MAX = 2147483647;

/** The stored `speakers` as a clean list (anything malformed left out). */
export function storedSpeakers(stored: unknown): SpeakerName[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (s): s is SpeakerName =>
      !!s && typeof s === 'object' && Number.isInteger((s as SpeakerName).index) && typeof (s as SpeakerName).name === 'string',
  );
}

/** `idx` from a path (a string) or GraphQL (a number): an integer from 0; otherwise 400 naming `idx`. */
export function parseSpeakerIndex(raw: unknown): number {
  const value = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > INT32_MAX) {
    throw errors.invalidOptions(`idx must be a speaker index: an integer from 0 (as segments number their speakers), not `
      + `${JSON.stringify(raw)}.`, { field: 'idx' });
  }
  return value;
}

/** The body `{name}` (no other fields): a string of at most 100 characters, or null/empty to clear. */
export function parseSpeakerName(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.invalidOptions('The body must be an object: {"name": '
    + '"..."} (null or "" clears the name).', { field: 'body' });
  for (const key of Object.keys(body)) if (key !== 'name') throw errors.invalidOptions(
    `${key} is not a field here (name).`, { field: key },
  );
  const name = (body as { name?: unknown }).name;
  if (name === undefined) throw errors.invalidOptions('name is required: a string, or null or "" to clear the name.', { field: 'name' });
  if (name === null) return null;
  if (typeof name !== 'string') throw errors.invalidOptions('name must be a string, or null to clear it.', { field: 'name' });
  const trimmed = name.replace(/\s+/g, ' ').trim();
  if (trimmed.length > MAX_SPEAKER_NAME) {
    throw errors.invalidOptions(`name must be at most ${MAX_SPEAKER_NAME} characters.`, { field: 'name' });
  }
  return trimmed || null;
}

/**
 * Stores (or clears) speaker `index`'s name on the owner's recording under its row's lock, with the durable
 * `transcript.speaker` frame in the same transaction. 404 for another account's recording, 409 while archived.
 */
export async function nameSpeaker(
  ctx: EventLogContext, accountId: string, recordingId: string, index: number, name: string | null,
): Promise<SpeakerName> {
  const owned = await ctx.prisma.recording.findFirst({ where: { id: recordingId, accountId }, select: { id: true } });
  if (!owned) throw errors.notFound('The recording');
  return inTransaction(ctx, recordingId, async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Recording" WHERE id = ${recordingId} FOR UPDATE`;
    const recording = await tx.recording.findUniqueOrThrow({ where: { id: recordingId }, select: { speakers: true, lifecycle: true } });
    if (recording.lifecycle !== 'active') throw errors.invalidState('The recording is archived; restore it before naming its speakers.');
    const others = storedSpeakers(recording.speakers).filter((s) => s.index !== index);
    const speakers = [...others, ...(name === null ? [] : [{ index, name }])].sort((a, b) => a.index - b.index);
    await tx.recording.update({ where: { id: recordingId }, data: { speakers: speakers as unknown as Prisma.InputJsonValue } });
    return { result: { index, name }, frames: [{ type: 'transcript.speaker', audience: 'log', body: { speaker: index, name } }] };
  });
}

/**
 * Settles speaker labels of a recording's segments inside `tx` (a live publisher's settlements, the finalize job's
 * re-clustering): each segment's `speaker`, `speakerConfidence` and `speakerProvisional: false`, and a durable
 * `transcript.speaker` frame per segment that names its `seq` (unlike a naming frame, which names no segment).
 */
export async function applySpeakerLabels(tx: Tx, recordingId: string, labels: SpeakerSettled[]): Promise<PendingFrame[]> {
  const frames: PendingFrame[] = [];
  for (const label of labels) {
    const updated = await tx.segment.updateMany({
      where: { recordingId, seq: label.seq },
      data: { speaker: label.speaker, speakerConfidence: label.speakerConfidence, speakerProvisional: false },
    });
    if (updated.count > 0) frames.push({ type: 'transcript.speaker', audience: 'log', body: { ...label } });
  }
  return frames;
}

/** A turn of a whole recording's diarization: who spoke from `start` to `end` (seconds), and how sure it is. */
export type SpeakerTurnOnMaster = SpeakerTurn;

interface LabelledSegment {
  seq: number; speaker: number; speakerConfidence: number | null; speakerProvisional: boolean | null; start: number; end: number;
}

/**
 * The labels segments take from a whole recording's diarization (`turns`), as settlements of what changed.
 * Diarization numbers speakers its own way; its numbers are mapped onto the segments' present ones, pairs sharing
 * the most speech first (one to one), so a voice keeps the number it had (and its name); a speaker the segments did
 * not have gets the smallest number no segment uses. A `named` number goes first to the voice holding most of its
 * speech: when live labelling split one voice over two numbers, the name stays with the voice, not the larger half.
 */
export function relabelSegments(
  segments: LabelledSegment[], turns: SpeakerTurn[], named: ReadonlySet<number> = new Set(),
): SpeakerSettled[] {
  if (segments.length === 0 || turns.length === 0) return [];
  const found = segments.map((segment) => ({ segment, label: speakerOf(turns, segment.start, segment.end)! }));
  const shared = new Map<string, { from: number; to: number; seconds: number }>();
  for (const { segment, label } of found) {
    const key = `${label.speaker}:${segment.speaker}`;
    const pair = shared.get(key) ?? { from: label.speaker, to: segment.speaker, seconds: 0 };
    pair.seconds += segment.end - segment.start;
    shared.set(key, pair);
  }
  const numbering = new Map<number, number>();
  const taken = new Set<number>();
  const pairs = [...shared.values()].sort((a, b) => b.seconds - a.seconds);
  const namedFirst = [...named].flatMap((to) => pairs.filter((pair) => pair.to === to).slice(0, 1)).sort((a, b) => b.seconds - a.seconds);
  for (const pair of [...namedFirst, ...pairs]) {
    if (numbering.has(pair.from) || taken.has(pair.to)) continue;
    numbering.set(pair.from, pair.to);
    taken.add(pair.to);
  }
  const used = new Set(segments.map((s) => s.speaker));
  let free = 0;
  for (const { label } of found) {
    if (numbering.has(label.speaker)) continue;
    while (used.has(free) || taken.has(free)) free++;
    numbering.set(label.speaker, free);
    taken.add(free);
  }
  return found.flatMap(({ segment, label }) => {
    const speaker = numbering.get(label.speaker)!;
    if (speaker === segment.speaker && label.confidence === segment.speakerConfidence && segment.speakerProvisional === false) return [];
    return [{ seq: segment.seq, speaker, speakerConfidence: label.confidence, speakerProvisional: false as const }];
  });
}

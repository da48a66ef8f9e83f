/**
 * Naming a recording's speakers (`PUT /v1/recordings/{id}/speakers/{idx}`): the names live on the recording's
 * `speakers` (a list of `{index, name}`, named speakers only), so snapshots and every export show them, and a
 * durable `transcript.speaker` frame (`speaker`, `name`) tells subscribers. A name is trimmed, at most 100
 * characters; null or an empty name clears it (the speaker reads as "Speaker n" again in exports).
 */
import type { Prisma } from '../generated/prisma/client.js';
import { errors } from '../core/errors.js';
import { inTransaction, type EventLogContext } from './events.js';

export interface SpeakerName { index: number; name: string | null }

export const MAX_SPEAKER_NAME = 100;
const INT32_MAX = 2147483647;

/** The stored `speakers` as a clean list (anything malformed left out). */
export function storedSpeakers(stored: unknown): SpeakerName[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter((s): s is SpeakerName => !!s && typeof s === 'object' && Number.isInteger((s as SpeakerName).index) && typeof (s as SpeakerName).name === 'string');
}

/** `idx` from a path (a string) or GraphQL (a number): an integer from 0; otherwise 400 naming `idx`. */
export function parseSpeakerIndex(raw: unknown): number {
  const value = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > INT32_MAX) {
    throw errors.invalidOptions(`idx must be a speaker index: an integer from 0 (as segments number their speakers), not ${JSON.stringify(raw)}.`, { field: 'idx' });
  }
  return value;
}

/** The body `{name}` (no other fields): a string of at most 100 characters, or null/empty to clear. */
export function parseSpeakerName(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.invalidOptions('The body must be an object: {"name": "..."} (null or "" clears the name).', { field: 'body' });
  for (const key of Object.keys(body)) if (key !== 'name') throw errors.invalidOptions(`${key} is not a field here (name).`, { field: key });
  const name = (body as { name?: unknown }).name;
  if (name === undefined) throw errors.invalidOptions('name is required: a string, or null or "" to clear the name.', { field: 'name' });
  if (name === null) return null;
  if (typeof name !== 'string') throw errors.invalidOptions('name must be a string, or null to clear it.', { field: 'name' });
  const trimmed = name.replace(/\s+/g, ' ').trim();
  if (trimmed.length > MAX_SPEAKER_NAME) throw errors.invalidOptions(`name must be at most ${MAX_SPEAKER_NAME} characters.`, { field: 'name' });
  return trimmed || null;
}

/**
 * Stores (or clears) speaker `index`'s name on the owner's recording under its row's lock, with the durable
 * `transcript.speaker` frame in the same transaction. 404 for another account's recording, 409 while archived.
 */
export async function nameSpeaker(ctx: EventLogContext, accountId: string, recordingId: string, index: number, name: string | null): Promise<SpeakerName> {
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

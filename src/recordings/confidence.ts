/**
 * Which confidence policy a recording is read under (ConfidencePolicy: `hideBelow`, `lowThreshold`, `suppressCount`).
 * It may be set on the recording, its transcription and the broadcasts that transcription feeds; each field comes
 * from the most specific level that sets it: the recording's, then the transcription's, then the broadcasts' (in
 * the order they were attached: the first that sets the field), else the default (`hideBelow` 0.60).
 *
 * It is resolved when read, never copied: a broadcast's policy applies to every transcription feeding it, the one it
 * started and one attached later alike, from the moment it is attached until it is detached, and a change to any
 * level applies to the next read (a snapshot, an export, a subscriber hub that starts).
 */
import type { PrismaClient } from '../generated/prisma/client.js';
import { broadcastIdsOf } from '../core/broadcast-ids.js';
import { resolveConfidencePolicy, type ConfidencePolicy } from './sentences.js';

/** A recording with what its policy is resolved from. */
export interface PolicySources {
  settings: unknown;
  transcription: { settings: unknown; broadcastIds: unknown };
}

export async function recordingConfidencePolicy(prisma: Pick<PrismaClient, 'broadcast'>, recording: PolicySources): Promise<ConfidencePolicy> {
  const ids = broadcastIdsOf(recording.transcription);
  const broadcasts = ids.length ? await prisma.broadcast.findMany({ where: { id: { in: ids } }, select: { id: true, settings: true } }) : [];
  const byId = new Map(broadcasts.map((b) => [b.id, b.settings]));
  return resolveConfidencePolicy(recording.settings, recording.transcription.settings, ...ids.map((id) => byId.get(id)));
}

/** Capture settings copied to a new transcription or recording leave the policy out: it is resolved when read. */
export function withoutConfidencePolicy(settings: unknown): Record<string, unknown> {
  const { confidencePolicy: _dropped, ...rest } = (settings ?? {}) as Record<string, unknown>;
  return rest;
}

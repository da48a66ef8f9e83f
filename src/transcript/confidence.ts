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
import { broadcastIdsOf } from './broadcast-ids.js';
import { errors } from '../core/errors.js';
import { isObject } from '../core/validate.js';
import { resolveConfidencePolicy, type ConfidencePolicy } from './sentences.js';

/** A recording with what its policy is resolved from. */
export interface PolicySources {
  settings: unknown;
  transcription: { settings: unknown; broadcastIds: unknown };
}

export async function recordingConfidencePolicy(
  prisma: Pick<PrismaClient, 'broadcast'>, recording: PolicySources,
): Promise<ConfidencePolicy> {
  const ids = broadcastIdsOf(recording.transcription);
  const broadcasts = ids.length ? await prisma.broadcast.findMany(
    { where: { id: { in: ids } }, select: { id: true, settings: true } },
  ) : [];
  const byId = new Map(broadcasts.map((b) => [b.id, b.settings]));
  return resolveConfidencePolicy(recording.settings, recording.transcription.settings, ...ids.map((id) => byId.get(id)));
}

/** Capture settings copied to a new transcription or recording leave the policy out: it is resolved when read. */
export function withoutConfidencePolicy(settings: unknown): Record<string, unknown> {
  const { confidencePolicy: _dropped, ...rest } = (settings ?? {}) as Record<string, unknown>;
  return rest;
}

/** A confidence policy as settings store it (every field optional; the defaults fill in when it is read). */
export type StoredConfidencePolicy = { hideBelow?: number; lowThreshold?: number; suppressCount?: number };

/**
 * A ConfidencePolicy (no extra properties; `hideBelow` and `lowThreshold` 0..1, `suppressCount` a uint32, accepted
 * and kept though no longer read), or null (clears a stored one). `field` names it in a refusal
 * (`settings.confidencePolicy.hideBelow`). Every level that sets one (broadcast, transcription, recording) parses it here.
 */
export function parseConfidencePolicy(policy: unknown, field: string): StoredConfidencePolicy | null {
  if (policy === null) return null;
  if (!isObject(policy)) throw errors.invalidOptions(`${field} must be an object or null.`, { field });
  const parsed: StoredConfidencePolicy = {};
  for (const [key, raw] of Object.entries(policy)) {
    const name = `${field}.${key}`;
    if (!['hideBelow', 'lowThreshold', 'suppressCount'].includes(key)) {
      throw errors.invalidOptions(`${name} is not a confidence policy field (hideBelow, lowThreshold, suppressCount).`, { field: name });
    }
    if (
      typeof raw !== 'number' ||
      !Number.isFinite(raw) ||
      raw < 0 ||
      (key !== 'suppressCount' && raw > 1) ||
      (key === 'suppressCount' && (!Number.isInteger(raw) || raw > 4294967295))
    ) {
      throw errors.invalidOptions(`${name} must be `
        + `${key === 'suppressCount' ? 'a whole number from 0 to 4294967295' : 'a number from 0 to 1'}.`, { field: name });
    }
    parsed[key as keyof typeof parsed] = raw;
  }
  return parsed;
}

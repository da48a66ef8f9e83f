/**
 * Share links: a secret `code` that lets anyone holding it read one transcription's recordings (or follow one
 * broadcast's) with exactly the link's permissions (download, export, translate). Revoking is immediate: the next
 * read with the code is 404, as is every read while the transcription is archived (its links are dead until
 * restored).
 */
import crypto from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.js';
import { errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { ServiceDeps } from '../core/services.js';

declare module '../core/services.js' {
  interface Services {
    shareLinks: ShareLinksService;
  }
}

export type ShareLinkRow = Prisma.ShareLinkGetPayload<{}>;

/** A label's most characters. */
export const MAX_LABEL = 200;

const PERMISSIONS = ['allowDownload', 'allowExport', 'allowTranslate'] as const;
const FIELDS = new Set(['label', ...PERMISSIONS]);

/** 128 bits, URL-safe: the code is the whole credential, so it must not be guessable. */
export const newShareCode = () => crypto.randomBytes(16).toString('base64url');

/** Validates CreateShareLink (creating) or a PATCH body (partial); unknown fields are refused by name. */
export function parseShareLinkInput(
  body: unknown, mode: 'create' | 'patch',
): { label?: string } & Partial<Record<(typeof PERMISSIONS)[number], boolean>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.invalidOptions('The body must be a JSON object.', { field: 'body' });
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!FIELDS.has(key)) {
      throw errors.invalidOptions(`${key} is not a share link field (label, allowDownload, allowExport, allowTranslate).`, { field: key });
    }
  }
  const out: { label?: string } & Partial<Record<(typeof PERMISSIONS)[number], boolean>> = {};
  if (input.label !== undefined || mode === 'create') {
    if (typeof input.label !== 'string' || !input.label.trim()) throw errors.invalidOptions('label must be a non-empty string (who the '
      + 'link is for).', { field: 'label' });
    if (input.label.length > MAX_LABEL) throw errors.invalidOptions(`label must be at most ${MAX_LABEL} characters.`, { field: 'label' });
    out.label = input.label.trim();
  }
  for (const permission of PERMISSIONS) {
    const value = input[permission];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'boolean') throw errors.invalidOptions(`${permission} must be true, false or null.`, { field: permission });
    out[permission] = value;
  }
  return out;
}

/** What a link shares. */
export type ShareTarget = { transcriptionId: string } | { broadcastId: string };

export class ShareLinksService {
  constructor(private readonly deps: Pick<ServiceDeps, 'prisma'>) {}

  /** What a link shares: one of the account's transcriptions or broadcasts (404 for anything else). */
  private async ownedTarget(accountId: string, target: ShareTarget): Promise<{ lifecycle: string }> {
    const found = 'broadcastId' in target
      ? await this.deps.prisma.broadcast.findFirst({ where: { id: target.broadcastId, accountId } })
      : await this.deps.prisma.transcription.findFirst({ where: { id: target.transcriptionId, accountId } });
    if (!found) throw errors.notFound('broadcastId' in target ? 'The broadcast' : 'The transcription');
    return found;
  }

  private async ownedLink(accountId: string, id: string) {
    const link = await this.deps.prisma.shareLink.findFirst({ where: { id, accountId, revokedAt: null } });
    if (!link) throw errors.notFound('The share link');
    return link;
  }

  async create(accountId: string, target: ShareTarget, body: unknown): Promise<ShareLinkRow> {
    const input = parseShareLinkInput(body, 'create');
    const shared = await this.ownedTarget(accountId, target);
    if (shared.lifecycle !== 'active') {
      throw errors.invalidState(`The ${'broadcastId' in target ? 'broadcast' : 'transcription'} is archived; restore it before sharing.`);
    }
    const link = await this.deps.prisma.shareLink.create({
      data: { id: newId('shl'), code: newShareCode(), accountId, ...target, label: input.label!, ...pickPermissions(input) },
    });
    return link;
  }

  /** The active links of a transcription or a broadcast, oldest first. */
  async list(accountId: string, target: ShareTarget): Promise<ShareLinkRow[]> {
    await this.ownedTarget(accountId, target);
    return this.deps.prisma.shareLink.findMany({ where: { ...target, revokedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  async update(accountId: string, id: string, body: unknown): Promise<ShareLinkRow> {
    const input = parseShareLinkInput(body, 'patch');
    await this.ownedLink(accountId, id);
    const link = await this.deps.prisma.shareLink.update({
      where: { id }, data: { ...(input.label ? { label: input.label } : {}), ...pickPermissions(input) },
    });
    return link;
  }

  async revoke(accountId: string, id: string): Promise<ShareLinkRow> {
    await this.ownedLink(accountId, id);
    return this.deps.prisma.shareLink.update({ where: { id }, data: { revokedAt: new Date() } });
  }

  /**
   * The live link behind a code, or 404: revoked, unknown, or what it shares (transcription or broadcast) archived
   * all look the same to a reader.
   */
  async resolve(code: string): Promise<ShareLinkRow> {
    const link = await this.deps.prisma.shareLink.findUnique({
      where: { code },
      include: { transcription: { select: { lifecycle: true } }, broadcast: { select: { lifecycle: true } } },
    });
    const shared = link?.transcription ?? link?.broadcast;
    if (!link || link.revokedAt || shared?.lifecycle !== 'active') throw errors.notFound('The share link');
    const { transcription: _transcription, broadcast: _broadcast, ...row } = link;
    return row;
  }
}

function pickPermissions(input: Partial<Record<(typeof PERMISSIONS)[number], boolean>>) {
  const out: Partial<Record<(typeof PERMISSIONS)[number], boolean>> = {};
  for (const permission of PERMISSIONS) if (input[permission] !== undefined) out[permission] = input[permission];
  return out;
}

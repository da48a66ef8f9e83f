/**
 * Broadcasts (spec: "Broadcast", "Broadcasts and share links"): a link (`code`) that listeners open, fed by the
 * live transcriptions attached to it. This module owns the broadcast itself: create (a creator-chosen `code` or
 * one derived from `name`, globally unique), list by lifecycle, read, PATCH (name, access and password, code,
 * default settings), archive, restore, purge.
 *
 * Codes: lower-case letters, digits and hyphens. Every code a broadcast ever had is a BroadcastCode row (the
 * primary key makes it globally unique, so a taken code is `409 conflict` from the database itself, whatever races)
 * and keeps opening that broadcast after a rename of its code. A private broadcast stores only an scrypt hash of its
 * password.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { Prisma } from '../generated/prisma/client.js';
import { ApiError, errors, isUniqueViolation } from '../core/errors.js';
import type { Actor } from '../core/identity/actor.js';
import {
  parseStartRecording, takeoverDetails, type LiveRecordingsService, type RecordingGrant, type RecordingPage,
} from '../live/index.js';
import { withoutConfidencePolicy, broadcastIdsOf } from '../transcript/index.js';
import { recordingView } from '../recordings/service.js';
import { lockTranscription } from '../core/db/transactions.js';
import { newId } from '../core/ids.js';
import { pageByLifecycle } from '../core/cursor.js';
import { lifecycleTimes, type LifecycleTimes } from '../core/lifecycle.js';
import type { ServiceDeps } from '../core/services.js';
import { isObject } from '../core/validate.js';
import {
  mergeSettings, parseCaptureSource, parseName, parseSettings, storedSettings, type CaptureSource,
  type TranscriptionSettings, type TranscriptionsService,
} from '../transcriptions/service.js';
import { AudioSourceCheckCache, parseAudioSourceInput, type AudioSourceView } from './audio-sources.js';
import { checkSource, type AudioSourceCheck } from './source-check.js';

declare module '../core/services.js' {
  interface Services {
    broadcasts: BroadcastsService;
  }
}

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export const ACCESS_MODES = ['public', 'private'] as const;
export type Access = (typeof ACCESS_MODES)[number];
const CREATE_FIELDS = ['name', 'access', 'code', 'password', 'settings', 'source'] as const;
const PATCH_FIELDS = ['name', 'access', 'code', 'password', 'settings'] as const;
/** A code as listeners type it into a link: 3 to 64 lower-case letters, digits and inner hyphens. */
export const CODE_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$/;
export const MIN_PASSWORD = 4;
export const MAX_PASSWORD = 200;

export interface BroadcastRefView { id: string; name: string; code: string; access: Access; shareUrl: string }

export interface BroadcastView extends LifecycleTimes {
  id: string;
  code: string;
  name: string;
  kind: 'broadcast';
  source: CaptureSource;
  access: Access;
  lifecycle: 'active' | 'archived';
  ownerPrincipalId: string;
  shareUrl: string;
  settings: Record<string, unknown>;
  /** Recordings made in the live transcriptions feeding it. */
  recordingCount: number;
  /** Streams it can record besides the microphone, oldest first. */
  audioSources: AudioSourceView[];
  transcriptions: Array<{ id: string; name: string }>;
  currentRecording: { recordingId: string; state: string; startedAt: string | null; transcriptionId: string | null } | null;
  /** The newest recording among those feeding it (archived ones included, as in `recordingCount`). */
  lastRecording: LastRecordingView | null;
  lastRecordedAt: string | null;
}

/** LastRecording: enough to show "last recorded … for … " and to open it, without reading the recording. */
export interface LastRecordingView {
  recordingId: string;
  transcriptionId: string;
  /** `live`, or `file` for one uploaded into a feeding transcription. */
  kind: string;
  name: string | null;
  state: string;
  lifecycle: string;
  startedAt: string;
  endedAt: string | null;
  /** Seconds of audio once finalized; null before. */
  durationS: number | null;
}

export interface BroadcastPage { items: BroadcastView[]; nextCursor: string | null }

interface BroadcastFields {
  name?: string;
  access?: Access;
  code?: string;
  password?: string | null;
  settings?: TranscriptionSettings;
  source?: CaptureSource;
}

function parseCode(value: unknown): string {
  if (typeof value !== 'string' || !CODE_PATTERN.test(value)) {
    throw errors.invalidOptions(
      'code must be 3 to 64 lower-case letters, digits and hyphens, starting and ending with a letter or digit.', { field: 'code' },
    );
  }
  return value;
}

function parsePassword(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.length < MIN_PASSWORD || value.length > MAX_PASSWORD) {
    throw errors.invalidOptions(`password must be a string of ${MIN_PASSWORD} to ${MAX_PASSWORD} characters.`, { field: 'password' });
  }
  return value;
}

/** CreateBroadcast (no extra properties) or its PATCH: each field checked and named when refused. */
export function parseBroadcastFields(body: unknown, kind: 'create' | 'patch'): BroadcastFields {
  if (!isObject(body)) {
    throw errors.invalidOptions(
      `The body must be a JSON object (${kind === 'create' ? 'CreateBroadcast' : 'the fields to change'}).`, { field: 'body' },
    );
  }
  const allowed: readonly string[] = kind === 'create' ? CREATE_FIELDS : PATCH_FIELDS;
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      throw errors.invalidOptions(
        kind === 'patch' && key === 'source' ? 'source is set at creation and never changed.' : `${key} is not a field of `
          + `${kind === 'create' ? 'CreateBroadcast' : 'a broadcast change'} (${allowed.join(', ')}).`,
        { field: key },
      );
    }
  }
  const present = (field: string) => body[field] !== undefined && (kind === 'patch' || body[field] !== null);
  const out: BroadcastFields = {};
  if (kind === 'create' || present('name')) out.name = parseName(body.name);
  if (present('access')) {
    if (!(ACCESS_MODES as readonly unknown[]).includes(body.access)) {
      throw errors.invalidOptions('access must be public or private.', { field: 'access' });
    }
    out.access = body.access as Access;
  }
  if (present('code')) out.code = parseCode(body.code);
  if (body.password !== undefined) out.password = parsePassword(body.password);
  if (present('settings')) out.settings = parseSettings(body.settings);
  if (kind === 'create') out.source = parseCaptureSource(body.source);
  return out;
}

/** The body of `POST /v1/broadcasts/{id}/recordings`: a recording start's (`scriptText`) and `audioSource`, one of its sources' ids. */
export function parseBroadcastStart(body: unknown): { audioSourceId: string | null } {
  parseStartRecording(body, ['audioSource']);
  const audioSourceId = isObject(body) ? (body.audioSource ?? null) : null;
  if (audioSourceId !== null && typeof audioSourceId !== 'string') throw errors.invalidOptions('audioSource must be the id of one of the '
    + 'broadcast\'s audio sources, or null.', { field: 'audioSource' });
  return { audioSourceId };
}

/** A code from a name: its letters and digits (accents dropped), hyphen-joined, at most 48 characters. */
export function codeFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug.length >= 3 ? slug : `broadcast${slug ? `-${slug}` : ''}`;
}

async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  return `scrypt$${salt.toString('base64url')}$${(await scrypt(password, salt, 32)).toString('base64url')}`;
}

/** Whether `password` is the one behind a stored `scrypt$<salt>$<hash>` (compared in constant time). */
export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  const [scheme, salt, hash] = passwordHash.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const given = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length);
  return crypto.timingSafeEqual(given, expected);
}

type BroadcastRow = Prisma.BroadcastGetPayload<{}>;

/** The live transcriptions feeding a broadcast: their recordings are the broadcast's (`recordingCount`, listing, last). */
/** A transcription's newest recording (or newest in flight), as the batched read of broadcast views has it. */
interface NewestRecording {
  id: string; transcriptionId: string; kind: string; name: string | null; state: string; lifecycle: string; createdAt: Date;
  endedAt: Date | null; durationS: number | null;
}

const feedingWhere = (accountId: string, broadcastId: string): Prisma.TranscriptionWhereInput => ({
  accountId, kind: 'live', broadcastIds: { array_contains: [broadcastId] },
});

export class BroadcastsService {
  private readonly checks: AudioSourceCheckCache;
  /** Checks running in this process, by source: a second caller waits for the same answer rather than opening it again. */
  private readonly checking = new Map<string, Promise<AudioSourceCheck>>();

  constructor(
    private readonly deps: ServiceDeps, private readonly transcriptions: TranscriptionsService,
    private readonly liveRecordings: LiveRecordingsService,
  ) {
    this.checks = new AudioSourceCheckCache(deps.config.redisUrl, deps.config.redisPrefix);
  }

  async close(): Promise<void> {
    await this.checks.close();
  }

  /** Where listeners open a broadcast: the listener page at `/b/{code}` on the server's public address. */
  shareUrl(code: string, baseUrl: string): string {
    return `${baseUrl}/b/${encodeURIComponent(code)}`;
  }

  private async owned(accountId: string, id: string): Promise<BroadcastRow> {
    const row = await this.deps.prisma.broadcast.findFirst({ where: { id, accountId } });
    if (!row) throw errors.notFound('The broadcast');
    return row;
  }

  async get(accountId: string, id: string, baseUrl: string): Promise<BroadcastView> {
    return this.view(await this.owned(accountId, id), baseUrl);
  }

  /**
   * POST /v1/broadcasts (CreateBroadcast). A `code` given and taken is `409 conflict`; one derived from `name` that
   * is taken gets a short random suffix instead. A private broadcast needs a password.
   */
  async create(actor: { accountId: string; principalId: string }, body: unknown, baseUrl: string): Promise<BroadcastView> {
    const fields = parseBroadcastFields(body, 'create');
    if (fields.settings) await this.transcriptions.checkSpokenLanguage(fields.settings);
    const access = fields.access ?? 'public';
    if (access === 'private' && !fields.password) {
      throw errors.invalidOptions('password is required for a private broadcast.', { field: 'password' });
    }
    if (fields.source?.kind === 'stream') this.transcriptions.refuseUnfetchable(fields.source.url, 'source.url');
    const passwordHash = fields.password ? await hashPassword(fields.password) : null;
    const id = newId('brd');
    const derived = codeFromName(fields.name!);
    for (let attempt = 0; ; attempt++) {
      const code =
        fields.code ?? (attempt === 0 ? derived : `${derived.slice(0, 43)}-${crypto.randomBytes(3).toString('hex').slice(0, 4)}`);
      try {
        await this.deps.prisma.$transaction(async (tx) => {
          await tx.broadcast.create({
            data: {
              id, accountId: actor.accountId, ownerPrincipalId: actor.principalId, name: fields.name!, code, access, passwordHash,
              settings: storedSettings(fields.settings ?? {}),
              source: fields.source as Prisma.InputJsonValue,
            },
          });
          await tx.broadcastCode.create({ data: { code, broadcastId: id } });
        });
        break;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (fields.code) throw errors.taken(`code "${fields.code}" is taken; choose another.`, { field: 'code' });
        if (attempt >= 5) throw errors.taken('No free code could be derived from the name; give one in `code`.', { field: 'code' });
      }
    }
    return this.get(actor.accountId, id, baseUrl);
  }

  async list(
    accountId: string, query: { cursor?: string | null; lifecycle?: string | null; limit?: number | null }, baseUrl: string,
  ): Promise<BroadcastPage> {
    const { rows, nextCursor } = await pageByLifecycle(query, (where, take) =>
      this.deps.prisma.broadcast.findMany({ where: { ...where, accountId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take }));
    return { items: await this.views(rows, baseUrl), nextCursor };
  }

  /**
   * PATCH: `name`, `access` (private needs a password, given now or already set), `password` (null clears it, only
   * on a public broadcast), `code` (the old one keeps opening it; a code taken by any broadcast is `409 conflict`),
   * `settings` (merged key by key; null clears a key).
   */
  async update(accountId: string, id: string, body: unknown, baseUrl: string): Promise<BroadcastView> {
    const fields = parseBroadcastFields(body, 'patch');
    const row = await this.owned(accountId, id);
    if (fields.settings) await this.transcriptions.checkSpokenLanguage(fields.settings);
    const access = fields.access ?? (row.access as Access);
    const data: Prisma.BroadcastUpdateInput = {};
    if (fields.name !== undefined) data.name = fields.name;
    if (fields.access !== undefined) data.access = fields.access;
    if (fields.password !== undefined) data.passwordHash = fields.password === null ? null : await hashPassword(fields.password);
    const hasPassword = fields.password !== undefined ? fields.password !== null : row.passwordHash !== null;
    if (access === 'private' && !hasPassword) {
      throw errors.invalidOptions(
        fields.password === null ? 'password cannot be cleared while the broadcast is private.' : 'password is required to make a '
          + 'broadcast private.',
        { field: 'password' },
      );
    }
    if (fields.settings !== undefined) data.settings = mergeSettings(row.settings, fields.settings);
    const newCode = fields.code !== undefined && fields.code !== row.code ? fields.code : null;
    if (newCode) data.code = newCode;
    try {
      await this.deps.prisma.$transaction(async (tx) => {
        if (newCode) {
          // A code this broadcast had before is its own again; any other broadcast's (now or once) is taken.
          const before = await tx.broadcastCode.findUnique({ where: { code: newCode } });
          if (before && before.broadcastId !== id) throw errors.taken(`code "${newCode}" is taken; choose another.`, { field: 'code' });
          if (!before) await tx.broadcastCode.create({ data: { code: newCode, broadcastId: id } });
        }
        await tx.broadcast.update({ where: { id }, data });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.taken(`code "${newCode}" is taken; choose another.`, { field: 'code' });
      throw error;
    }
    return this.get(accountId, id, baseUrl);
  }

  /** Hidden from the default listing and its links dead at once (every code answers 404); data kept. */
  async archive(accountId: string, id: string, baseUrl: string): Promise<BroadcastView> {
    const row = await this.owned(accountId, id);
    if (row.lifecycle !== 'archived') {
      await this.deps.prisma.broadcast.update({ where: { id }, data: { lifecycle: 'archived', archivedAt: new Date() } });
    }
    return this.get(accountId, id, baseUrl);
  }

  async restore(accountId: string, id: string, baseUrl: string): Promise<BroadcastView> {
    const row = await this.owned(accountId, id);
    if (row.lifecycle !== 'active') {
      await this.deps.prisma.broadcast.update({ where: { id }, data: { lifecycle: 'active', archivedAt: null, purgeAfter: null } });
    }
    return this.get(accountId, id, baseUrl);
  }

  /**
   * Irreversible; only an archived broadcast. Its codes go with it (free to take again); the live transcriptions
   * that fed it and their recordings stay.
   */
  async purge(accountId: string, id: string): Promise<{ id: string; purged: true }> {
    const row = await this.owned(accountId, id);
    if (row.lifecycle !== 'archived') {
      throw errors.invalidState('Only an archived broadcast can be purged; archive it first.', { state: row.lifecycle });
    }
    await this.deps.prisma.broadcast.delete({ where: { id } });
    return { id, purged: true };
  }

  /**
   * `PUT`/`DELETE /v1/transcriptions/{id}/broadcasts/{broadcast}`: the live transcription feeds the broadcast (or
   * stops). Both must be the caller's (404 otherwise); only a live, active transcription feeds, and only an active
   * broadcast is fed (409 `invalid_state`); detaching needs neither. Repeating either changes nothing. Moves on one
   * transcription serialise on its row, so concurrent attaches all land.
   */
  async feed(accountId: string, transcriptionId: string, broadcastId: string, attach: boolean): Promise<void> {
    await this.deps.prisma.$transaction(async (tx) => {
      const transcription = await lockTranscription(tx, accountId, transcriptionId);
      const broadcast = await tx.broadcast.findFirst({ where: { id: broadcastId, accountId } });
      if (!broadcast) throw errors.notFound('The broadcast');
      const ids = broadcastIdsOf(transcription);
      if (attach) {
        if (transcription.kind !== 'live') {
          throw errors.invalidState('Only a live transcription feeds a broadcast.', { kind: transcription.kind });
        }
        if (transcription.lifecycle !== 'active') {
          throw errors.invalidState('The transcription is archived; restore it first.', { state: transcription.lifecycle });
        }
        if (broadcast.lifecycle !== 'active') {
          throw errors.invalidState('The broadcast is archived; restore it first.', { state: broadcast.lifecycle });
        }
        if (!ids.includes(broadcastId)) {
          await tx.transcription.update({ where: { id: transcriptionId }, data: { broadcastIds: [...ids, broadcastId] } });
        }
      } else if (ids.includes(broadcastId)) {
        await tx.transcription.update({ where: { id: transcriptionId }, data: { broadcastIds: ids.filter((id) => id !== broadcastId) } });
      }
    });
  }

  /**
   * `POST /v1/broadcasts/{id}/recordings`: a recording made in a new live transcription that hears the broadcast's
   * capture (its settings and source) and feeds it, started with the publisher grant. Serialised on the broadcast's
   * row: while a feeding transcription has a recording `live` or `paused`, another start is `409 conflict` with
   * `details.takeover`. `audioSource` names one of its audio sources: the new transcription's source is then that
   * stream (`{kind: 'stream', url}`), which the server pulls, so the grant has no `streamUrl`; an id that is not one
   * of this broadcast's sources is 404 naming it.
   */
  async startRecording(actor: Actor, broadcastId: string, body: unknown, baseUrl: string): Promise<RecordingGrant> {
    const { audioSourceId } = parseBroadcastStart(body);
    const transcriptionId = newId('trn');
    return this.liveRecordings.start(actor, transcriptionId, body, baseUrl, {
      fields: ['audioSource'],
      before: async (tx) => {
        const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "Broadcast" WHERE id = ${broadcastId} AND "accountId" =
          ${actor.accountId} FOR UPDATE`;
        if (rows.length === 0) throw errors.notFound('The broadcast');
        const broadcast = await tx.broadcast.findUniqueOrThrow({ where: { id: broadcastId } });
        if (broadcast.lifecycle !== 'active') {
          throw errors.invalidState('The broadcast is archived; restore it first.', { state: broadcast.lifecycle });
        }
        let source = broadcast.source as Prisma.InputJsonValue;
        if (audioSourceId !== null) {
          const audioSource = await tx.audioSource.findFirst({ where: { id: audioSourceId, broadcastId } });
          if (!audioSource) {
            throw new ApiError(
              'not_found', 404, `audioSource ${audioSourceId} is not one of this broadcast's audio sources.`,
              { details: { field: 'audioSource' } },
            );
          }
          source = { kind: 'stream', url: audioSource.url };
        }
        const running = await tx.recording.findFirst({
          where: {
            kind: 'live', state: { in: ['live', 'paused'] },
            transcription: { accountId: actor.accountId, broadcastIds: { array_contains: [broadcastId] } },
          },
          orderBy: { createdAt: 'desc' },
        });
        if (running) {
          throw errors.conflict(
            'Another device is recording this broadcast; take it over with the publish token route.',
            { takeover: takeoverDetails(running) },
          );
        }
        await tx.transcription.create({
          data: {
            id: transcriptionId, accountId: actor.accountId, ownerPrincipalId: actor.principalId, kind: 'live', name: broadcast.name,
            // Without the confidence policy: the broadcast's applies to it while it feeds the broadcast (src/transcript/confidence.ts).
            settings: withoutConfidencePolicy(broadcast.settings) as Prisma.InputJsonValue, source, broadcastIds: [broadcastId],
          },
        });
      },
    });
  }

  // ---- audio sources ---------------------------------------------------------------------------------------------

  /**
   * `POST /v1/broadcasts/{id}/audio-sources` (CreateAudioSource): kept with the broadcast, listed oldest first; an
   * address the server does not fetch from is refused as a stream source's is (400 naming `url`), the same address
   * twice is `409 conflict`, and an archived broadcast takes none (`409 invalid_state`). Answers the broadcast.
   */
  async addAudioSource(accountId: string, broadcastId: string, body: unknown, baseUrl: string): Promise<BroadcastView> {
    const input = parseAudioSourceInput(body);
    this.transcriptions.refuseUnfetchable(input.url, 'url');
    const row = await this.owned(accountId, broadcastId);
    if (row.lifecycle !== 'active') throw errors.invalidState('The broadcast is archived; restore it first.', { state: row.lifecycle });
    try {
      await this.deps.prisma.audioSource.create({ data: { id: newId('aus'), broadcastId, name: input.name, url: input.url } });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.taken('url is already one of this broadcast\'s audio sources.', { field: 'url' });
      throw error;
    }
    return this.view(row, baseUrl);
  }

  /**
   * `DELETE /v1/broadcasts/{id}/audio-sources/{source}`: the source goes; recordings made from it stay (their
   * transcription keeps its own copy of the address, so one in flight goes on). Answers the broadcast.
   */
  async removeAudioSource(accountId: string, broadcastId: string, sourceId: string, baseUrl: string): Promise<BroadcastView> {
    const row = await this.owned(accountId, broadcastId);
    const removed = await this.deps.prisma.audioSource.deleteMany({ where: { id: sourceId, broadcastId } });
    if (removed.count === 0) throw this.noSuchSource(sourceId);
    return this.view(row, baseUrl);
  }

  /**
   * `GET /v1/broadcasts/{id}/audio-sources/{source}/check`: opens the source and answers AudioSourceCheck
   * (source-check.ts). The answer is cached (a minute when ready, 20 s when not) unless `fresh`; nothing is stored.
   */
  async checkAudioSource(accountId: string, broadcastId: string, sourceId: string, fresh: boolean): Promise<AudioSourceCheck> {
    await this.owned(accountId, broadcastId);
    const source = await this.deps.prisma.audioSource.findFirst({ where: { id: sourceId, broadcastId } });
    if (!source) throw this.noSuchSource(sourceId);
    if (!fresh) {
      const cached = await this.checks.get(sourceId);
      if (cached) return cached;
      const running = this.checking.get(sourceId);
      if (running) return running;
    }
    const check = checkSource(source.url, this.transcriptions.linkPolicy).then(async (answer) => {
      await this.checks.set(sourceId, answer);
      return answer;
    });
    this.checking.set(sourceId, check);
    try {
      return await check;
    } finally {
      if (this.checking.get(sourceId) === check) this.checking.delete(sourceId);
    }
  }

  private noSuchSource(sourceId: string): ApiError {
    return new ApiError('not_found', 404, `Audio source ${sourceId} is not one of this broadcast's.`, { details: { field: 'source' } });
  }

  /**
   * `GET /v1/broadcasts/{id}/recordings`: the recordings made in the live transcriptions feeding it (those counted in
   * `recordingCount`), newest first, by lifecycle (`active` by default, `archived`, `all`), paged with `cursor`.
   */
  async recordings(
    accountId: string, broadcastId: string, query: { cursor?: string | null; lifecycle?: string | null; limit?: number | null },
  ): Promise<RecordingPage> {
    await this.owned(accountId, broadcastId);
    const { rows, nextCursor } = await pageByLifecycle(query, (where, take) => this.deps.prisma.recording.findMany({
      where: { ...where, transcription: feedingWhere(accountId, broadcastId) },
      include: { captureSpans: true },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
    }));
    return { items: rows.map(recordingView), nextCursor };
  }

  /** BroadcastRef of the broadcasts a transcription feeds (purged ones left out), in the order they were attached. */
  async refs(accountId: string, broadcastIds: string[], baseUrl: string): Promise<BroadcastRefView[]> {
    if (broadcastIds.length === 0) return [];
    const rows = await this.deps.prisma.broadcast.findMany({ where: { id: { in: broadcastIds }, accountId } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return broadcastIds.flatMap((id) => {
      const row = byId.get(id);
      return row ? [{
        id: row.id, name: row.name, code: row.code, access: row.access as Access, shareUrl: this.shareUrl(row.code, baseUrl),
      }] : [];
    });
  }

  /** The broadcast as the API shows it; what feeds it from the live transcriptions that name it. */
  private async view(row: BroadcastRow, baseUrl: string): Promise<BroadcastView> {
    return (await this.views([row], baseUrl))[0]!;
  }

  /**
   * Broadcasts as the API shows them, read together: five queries for any number of them (the live transcriptions
   * feeding them, their audio sources, the recordings counted per transcription, and each transcription's newest
   * recording and newest one in flight), not five per broadcast.
   */
  private async views(rows: BroadcastRow[], baseUrl: string): Promise<BroadcastView[]> {
    if (rows.length === 0) return [];
    const [feeding, sources] = await Promise.all([
      this.deps.prisma.transcription.findMany({
        where: {
          accountId: { in: [...new Set(rows.map((row) => row.accountId))] }, kind: 'live',
          OR: rows.map((row) => ({ broadcastIds: { array_contains: [row.id] } })),
        },
        select: { id: true, name: true, accountId: true, broadcastIds: true },
        orderBy: { createdAt: 'asc' },
      }),
      this.deps.prisma.audioSource.findMany({
        where: { broadcastId: { in: rows.map((row) => row.id) } }, select: { id: true, name: true, url: true, broadcastId: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
    ]);
    const ids = feeding.map((transcription) => transcription.id);
    const [counts, newest, inFlight] = ids.length === 0 ? [[], [], []] : await Promise.all([
      this.deps.prisma.recording.groupBy({ by: ['transcriptionId'], where: { transcriptionId: { in: ids } }, _count: { _all: true } }),
      this.deps.prisma.$queryRaw<NewestRecording[]>`SELECT DISTINCT ON ("transcriptionId") "id", "transcriptionId", "kind", "name",
        "state", "lifecycle", "createdAt", "endedAt", "durationS" FROM "Recording" WHERE "transcriptionId" IN (${Prisma.join(ids)}) ORDER
          BY "transcriptionId", "createdAt" DESC, "id" DESC`,
      this.deps.prisma.$queryRaw<NewestRecording[]>`SELECT DISTINCT ON ("transcriptionId") "id", "transcriptionId", "kind", "name",
        "state", "lifecycle", "createdAt", "endedAt", "durationS" FROM "Recording" WHERE "transcriptionId" IN (${Prisma.join(ids)}) AND
          "kind" = 'live' AND "state" IN ('live', 'paused') ORDER BY "transcriptionId", "createdAt" DESC, "id" DESC`,
    ]);
    const countOf = new Map(counts.map((count) => [count.transcriptionId, count._count._all]));
    const newestOf = new Map(newest.map((recording) => [recording.transcriptionId, recording]));
    const inFlightOf = new Map(inFlight.map((recording) => [recording.transcriptionId, recording]));
    // The newest of several transcriptions' newest: by start, then id (as one ordered read of them all would give).
    const latest = (recordings: Array<NewestRecording | undefined>) => recordings.reduce<NewestRecording | null>((best, recording) => {
      if (!recording) return best;
      if (!best) return recording;
      const [a, b] = [new Date(recording.createdAt).getTime(), new Date(best.createdAt).getTime()];
      return a > b || (a === b && recording.id > best.id) ? recording : best;
    }, null);
    return rows.map((row) => {
      const transcriptions = feeding.filter(
        (transcription) => transcription.accountId === row.accountId && broadcastIdsOf(transcription).includes(row.id),
      );
      const current = latest(transcriptions.map((transcription) => inFlightOf.get(transcription.id)));
      const last = latest(transcriptions.map((transcription) => newestOf.get(transcription.id)));
      return {
        id: row.id,
        code: row.code,
        name: row.name,
        kind: 'broadcast',
        source: row.source as unknown as CaptureSource,
        access: row.access as Access,
        lifecycle: row.lifecycle as BroadcastView['lifecycle'],
        ownerPrincipalId: row.ownerPrincipalId,
        shareUrl: this.shareUrl(row.code, baseUrl),
        settings: row.settings as Record<string, unknown>,
        recordingCount: transcriptions.reduce((sum, transcription) => sum + (countOf.get(transcription.id) ?? 0), 0),
        audioSources: sources.filter((source) => source.broadcastId === row.id).map(({ id, name, url }) => ({ id, name, url })),
        transcriptions: transcriptions.map(({ id, name }) => ({ id, name })),
        currentRecording: current ? {
          recordingId: current.id, state: current.state, startedAt: new Date(current.createdAt).toISOString(),
          transcriptionId: current.transcriptionId,
        } : null,
        lastRecording: last && {
          recordingId: last.id, transcriptionId: last.transcriptionId, kind: last.kind, name: last.name, state: last.state,
          lifecycle: last.lifecycle,
          startedAt: new Date(last.createdAt).toISOString(), endedAt: last.endedAt ? new Date(last.endedAt).toISOString() : null,
          durationS: last.durationS,
        },
        lastRecordedAt: last ? new Date(last.createdAt).toISOString() : null,
        ...lifecycleTimes(row),
      };
    });
  }
}

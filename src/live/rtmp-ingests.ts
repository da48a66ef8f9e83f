/**
 * RTMP ingest, the account's side (`GET /v1/rtmp`, `POST /v1/rtmp/key`): one stream key per account, made on the
 * first read and shown in full only in that answer (and in a rotation's); kept only as a sha256 hash, later
 * answers carry `maskedStreamKey`. The key is bound to a live transcription of the account (made with the key,
 * source `{kind: 'stream', url: <serverUrl>}`, replaced on the next read or rotation if it was archived or
 * deleted); each publish records into it (src/live/transports/rtmp.ts). What comes in now (`audio`) and the monitor stream
 * are this process's: the RTMP server runs in the gateway process (src/entry/app.ts).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServiceDeps } from '../core/services.js';
import { errors } from '../core/errors.js';
import { signingSecret } from '../core/signing-secret.js';
import type { TranscriptionsService } from '../transcriptions/service.js';

declare module '../core/services.js' {
  interface Services {
    rtmp: RtmpService;
  }
}

/** The RTMP application name publishers use: `rtmp://host:port/live/<streamKey>`. */
export const RTMP_APP = 'live';
/** Monitor URLs are valid an hour (spec "Limits"). */
export const MONITOR_TTL_S = 3600;
const KEY_PREFIX = 'rk_';
/** The name of the live transcription a key is bound to when it is made. */
const TRANSCRIPTION_NAME = 'RTMP ingest';

/** What is coming in now on the account's key. */
export interface RtmpAudio {
  codec: string;
  sampleRate: number | null;
  channels: number | null;
  /** When this publish started. */
  since: string;
}

export interface RtmpStatus {
  serverUrl: string;
  /** The whole key: only in the answer that made it (the first read, a rotation). */
  streamKey: string | null;
  maskedStreamKey: string;
  transcriptionId: string | null;
  audio: RtmpAudio | null;
  monitorUrl: string;
  monitorExpiresAt: string;
}

/** A publish that may go on: whose key it is and the transcription it records into. */
export interface RtmpPublisher {
  accountId: string;
  transcriptionId: string;
}

/** The monitor stream of a live publish, as the RTMP server offers it. */
export type MonitorSource = (signal: AbortSignal) => AsyncIterable<Buffer>;

export function hashStreamKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function maskStreamKey(tail: string): string {
  return `${KEY_PREFIX}${'*'.repeat(24)}${tail}`;
}

function monitorSignature(secret: string, accountId: string, exp: number): string {
  return createHmac('sha256', secret).update(`rtmp-monitor:${accountId}:${exp}`).digest('base64url');
}

export class RtmpService {
  /** Where the RTMP server listens in this process (null: not running). */
  private port: number | null = null;
  private readonly live = new Map<string, { audio: RtmpAudio | null; monitor: MonitorSource }>();

  constructor(private readonly deps: ServiceDeps, private readonly transcriptions: Pick<TranscriptionsService, 'createLive'>) {}

  /** The RTMP server says where it listens (src/entry/app.ts), or that it stopped. */
  listening(port: number | null): void {
    this.port = port;
  }

  /** `rtmp://<host>:<port>/live`: RTMP_PUBLIC_URL when set, else the host clients reached the API at. */
  serverUrl(baseUrl: string): string {
    const configured = this.deps.config.rtmp.publicUrl;
    if (configured) return configured;
    const port = this.port ?? this.deps.config.rtmp.port ?? 1935;
    return `rtmp://${new URL(baseUrl).hostname}:${port}/${RTMP_APP}`;
  }

  /** GET /v1/rtmp: the account's ingest, made (with its key shown in full this once) on the first read. */
  async status(actor: { accountId: string; principalId: string }, baseUrl: string): Promise<RtmpStatus> {
    const row = await this.deps.prisma.rtmpIngest.findUnique({ where: { accountId: actor.accountId } });
    if (!row) return this.issue(actor, baseUrl);
    const transcriptionId = await this.boundTranscription(actor, row.transcriptionId, baseUrl);
    return this.view(actor.accountId, { key: null, tail: row.keyTail, transcriptionId }, baseUrl);
  }

  /** POST /v1/rtmp/key: a new key (shown in full in this answer only); the old one stops working at once. */
  async rotate(actor: { accountId: string; principalId: string }, baseUrl: string): Promise<RtmpStatus> {
    return this.issue(actor, baseUrl);
  }

  private async issue(actor: { accountId: string; principalId: string }, baseUrl: string): Promise<RtmpStatus> {
    const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    const tail = key.slice(-4);
    const existing = await this.deps.prisma.rtmpIngest.findUnique({ where: { accountId: actor.accountId } });
    const transcriptionId = await this.boundTranscription(actor, existing?.transcriptionId ?? null, baseUrl);
    await this.deps.prisma.rtmpIngest.upsert({
      where: { accountId: actor.accountId },
      create: { accountId: actor.accountId, keyHash: hashStreamKey(key), keyTail: tail, transcriptionId },
      update: { keyHash: hashStreamKey(key), keyTail: tail, transcriptionId },
    });
    return this.view(actor.accountId, { key, tail, transcriptionId }, baseUrl);
  }

  /** The bound live transcription if it is still active, else a new one (source: this server's RTMP address). */
  private async boundTranscription(
    actor: { accountId: string; principalId: string }, current: string | null, baseUrl: string,
  ): Promise<string> {
    if (current) {
      const found = await this.deps.prisma.transcription.findFirst({
        where: { id: current, accountId: actor.accountId, lifecycle: 'active' }, select: { id: true },
      });
      if (found) return found.id;
    }
    // Made as a microphone transcription (the link policy would refuse an rtmp:// source), then given its source.
    const made = await this.transcriptions.createLive(actor, { name: TRANSCRIPTION_NAME });
    await this.deps.prisma.transcription.update({
      where: { id: made.id }, data: { source: { kind: 'stream', url: this.serverUrl(baseUrl) } },
    });
    await this.deps.prisma.rtmpIngest.updateMany({ where: { accountId: actor.accountId }, data: { transcriptionId: made.id } });
    return made.id;
  }

  private async view(
    accountId: string, key: { key: string | null; tail: string; transcriptionId: string | null }, baseUrl: string,
  ): Promise<RtmpStatus> {
    const exp = Math.floor(Date.now() / 1000) + MONITOR_TTL_S;
    const sig = monitorSignature(await signingSecret(this.deps.config), accountId, exp);
    const query = new URLSearchParams({ account: accountId, exp: String(exp), sig });
    return {
      serverUrl: this.serverUrl(baseUrl),
      streamKey: key.key,
      maskedStreamKey: maskStreamKey(key.tail),
      transcriptionId: key.transcriptionId,
      audio: this.live.get(accountId)?.audio ?? null,
      monitorUrl: `${baseUrl}/v1/rtmp/monitor?${query.toString()}`,
      monitorExpiresAt: new Date(exp * 1000).toISOString(),
    };
  }

  /** The RTMP handshake's check: whose key this is, and the transcription it records into; null refuses it. */
  async publisherFor(key: string): Promise<RtmpPublisher | null> {
    if (!key.startsWith(KEY_PREFIX)) return null;
    const row = await this.deps.prisma.rtmpIngest.findUnique({ where: { keyHash: hashStreamKey(key) } });
    if (!row?.transcriptionId) return null;
    const transcription = await this.deps.prisma.transcription.findFirst({
      where: { id: row.transcriptionId, accountId: row.accountId, lifecycle: 'active' }, select: { id: true },
    });
    return transcription ? { accountId: row.accountId, transcriptionId: transcription.id } : null;
  }

  /** Whether the account publishes on this process now (one publish per key at a time). */
  publishing(accountId: string): boolean {
    return this.live.has(accountId);
  }

  /** The RTMP server reports a publish (and what its audio is once known), then its end. */
  published(accountId: string, monitor: MonitorSource): void {
    this.live.set(accountId, { audio: null, monitor });
  }

  heard(accountId: string, audio: RtmpAudio): void {
    const entry = this.live.get(accountId);
    if (entry) entry.audio = audio;
  }

  unpublished(accountId: string): void {
    this.live.delete(accountId);
  }

  /**
   * `GET /v1/rtmp/monitor`: the signature (account and expiry, an hour at most) is the credential. 403 for a bad or
   * expired one; 404 while nobody publishes on the account's key.
   */
  async monitor(query: { account?: unknown; exp?: unknown; sig?: unknown }): Promise<MonitorSource> {
    const accountId = typeof query.account === 'string' ? query.account : '';
    const exp = Number(query.exp);
    const now = Math.floor(Date.now() / 1000);
    const valid = typeof query.sig === 'string' && Number.isInteger(exp) && exp >= now && exp - now <= MONITOR_TTL_S;
    const expected = valid ? Buffer.from(monitorSignature(await signingSecret(this.deps.config), accountId, exp)) : null;
    const given = Buffer.from(typeof query.sig === 'string' ? query.sig : '');
    if (!expected || expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw errors.forbidden('This monitor URL is not valid or has expired; GET /v1/rtmp gives a new one.');
    }
    const entry = this.live.get(accountId);
    if (!entry) throw errors.notFound('A publish on this account\'s stream key');
    return entry.monitor;
  }
}

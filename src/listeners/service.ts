/**
 * Broadcast listeners: the people who open a broadcast's link (`/b/{code}`) and follow what it is fed.
 *
 * - `GET /v1/listen/{code}`: what the listener page needs to start — the broadcast by any code it ever had, whether
 *   this listener may follow it (public; or a listener token or share code of it), the recording in flight.
 * - `POST /v1/listen/{code}/token`: a private broadcast's password, proven once, becomes a listener token (access.ts).
 * - The subscribe socket's fan-out (fanout.ts) and `listenersNow`: who is on a broadcast's link now, across every
 *   gateway process (ListenerPresence, a Redis sorted set per broadcast).
 */
import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { requestRedis } from '../core/redis-client.js';
import { errors } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { RedisRateLimitStore } from '../core/rate-limit-store.js';
import type { Closable, ServiceDeps } from '../core/services.js';
import { isObject } from '../core/validate.js';
import { passwordMatches } from '../broadcasts/service.js';
import type { ShareLinksService } from '../share-links/service.js';
import type { ReaderCredentials, RecordingsService } from '../recordings/service.js';
import { ListenerAccess } from './access.js';
import { RecordingFanout, type SpeakSentence, type Subscriber, type SubscriberView } from './fanout.js';
import type { Frame } from '../core/pubsub.js';

declare module '../core/services.js' {
  interface Services {
    listeners: ListenersService;
  }
}

/** A presence is kept PRESENCE_TTL_MS after its process last vouched for it (every PRESENCE_REFRESH_MS). */
const PRESENCE_TTL_MS = 30_000;
const PRESENCE_REFRESH_MS = 10_000;
/**
 * Wrong passwords a minute (right ones are not counted: a crowd behind one address all typing it is fine): from one
 * address to one broadcast, enough for a person mistyping and too few to guess; and to one broadcast from everyone, a
 * higher ceiling against guessing from many addresses, which one guesser alone cannot reach.
 */
const WRONG_PASSWORDS_PER_ADDRESS = 10;
const WRONG_PASSWORDS_PER_BROADCAST = 100;

export interface ListenerRecording { recordingId: string; state: string; startedAt: string | null; transcriptionId: string | null }

/** A frame of a broadcast's events: `events.ready` (`broadcastId`, `currentRecording`), `recording.started`, `recording.state`. */
export type BroadcastEvent =
  | { type: 'events.ready'; broadcastId: string; currentRecording: ListenerRecording | null }
  | { type: string; recordingId: string; transcriptionId: string; state: string; at: string };

export interface ListenerBroadcastView {
  broadcastId: string;
  /** The broadcast's code now (the link opened may be an older one). */
  code: string;
  name: string;
  access: 'public' | 'private';
  /** This listener may follow it: public, or a valid listener token or share code of it was sent. */
  authorized: boolean;
  spokenLanguage: string | null;
  /** Languages the subscribe socket can be asked for (`lang`): the spoken one until translations exist. */
  languages: string[];
  /** Only when authorized. */
  currentRecording: ListenerRecording | null;
  lastRecording: ListenerRecording | null;
}

/**
 * Who is on which broadcast's link. Each process adds its listeners' presences (a page's id, or a socket's) to a
 * Redis sorted set per broadcast, scored by when they lapse, and vouches for them again every PRESENCE_REFRESH_MS;
 * a process that dies stops vouching and its listeners lapse within PRESENCE_TTL_MS. A page with two sockets open
 * (events and subscribe) sends one `presence` id on both and counts once.
 */
class ListenerPresence {
  private readonly local = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly redis: Redis, private readonly prefix: string) {
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), PRESENCE_REFRESH_MS);
    this.timer.unref();
  }

  private key(broadcastId: string): string {
    return `${this.prefix}listeners:${broadcastId}`;
  }

  add(broadcastIds: string[], member: string): void {
    for (const broadcastId of broadcastIds) {
      const members = this.local.get(broadcastId) ?? new Map<string, number>();
      members.set(member, (members.get(member) ?? 0) + 1);
      this.local.set(broadcastId, members);
      void this.redis.zadd(this.key(broadcastId), Date.now() + PRESENCE_TTL_MS, member).catch(() => undefined);
    }
  }

  remove(broadcastIds: string[], member: string): void {
    for (const broadcastId of broadcastIds) {
      const members = this.local.get(broadcastId);
      const left = (members?.get(member) ?? 1) - 1;
      if (left > 0) {
        members!.set(member, left);
        continue;
      }
      members?.delete(member);
      if (members?.size === 0) this.local.delete(broadcastId);
      void this.redis.zrem(this.key(broadcastId), member).catch(() => undefined);
    }
  }

  private async refresh(): Promise<void> {
    if (this.local.size === 0) return;
    const until = Date.now() + PRESENCE_TTL_MS;
    const batch = this.redis.pipeline();
    for (const [broadcastId, members] of this.local) {
      const key = this.key(broadcastId);
      batch.zadd(key, ...[...members.keys()].flatMap((member) => [until, member]));
      batch.pexpire(key, PRESENCE_TTL_MS * 2);
    }
    await batch.exec();
  }

  async count(broadcastId: string): Promise<number> {
    const key = this.key(broadcastId);
    const [, counted] = (await this.redis.pipeline().zremrangebyscore(key, '-inf', Date.now()).zcard(key).exec()) ?? [];
    return Number(counted?.[1] ?? 0);
  }

  close(): void {
    clearInterval(this.timer);
  }
}

export class ListenersService implements Closable {
  readonly access: ListenerAccess;
  readonly fanout: RecordingFanout;
  /** This gateway process, as `subscribe.ready` names it. */
  readonly instance = `gw_${crypto.randomBytes(6).toString('hex')}`;
  private redisClient: Redis | null = null;
  private presenceKeeper: ListenerPresence | null = null;

  constructor(
    private readonly deps: ServiceDeps,
    readonly recordings: RecordingsService,
    private readonly shareLinks: ShareLinksService,
    access: ListenerAccess,
    /** The languages translation serves (a listener may read in any of them: recordings/listener-languages.ts). */
    private readonly translationTargets: () => Promise<string[]> = async () => [],
    /** Speaks finished sentences for subscribers that ask for a `voice` (src/recordings/voice-tracks.ts). */
    speak?: SpeakSentence,
  ) {
    this.access = access;
    this.fanout = new RecordingFanout({
      prisma: deps.prisma, pubsub: deps.pubsub, instance: this.instance, logger: createLogger(deps.config.logLevel), speak,
    });
  }

  private get redis(): Redis {
    return (this.redisClient ??= requestRedis(this.deps.config.redisUrl, { name: 'listener presence', timeoutMs: 1_000 }));
  }

  get presence(): ListenerPresence {
    return (this.presenceKeeper ??= new ListenerPresence(this.redis, this.deps.config.redisPrefix));
  }

  /** People on a broadcast's link now, in every process; null when nobody (the field is left out). */
  async listenersNow(broadcastId: string): Promise<number | null> {
    // Redis away: nobody can be counted, and a broadcast read must not wait for it.
    const count = await this.presence.count(broadcastId).catch(() => 0);
    return count > 0 ? count : null;
  }

  /** The broadcast behind any code it ever had; 404 for an unknown code or an archived broadcast (links dead). */
  private async byCode(code: string) {
    const found = await this.deps.prisma.broadcastCode.findUnique({ where: { code: code.toLowerCase() }, include: { broadcast: true } });
    if (!found || found.broadcast.lifecycle !== 'active') throw errors.notFound('The broadcast');
    return found.broadcast;
  }

  async view(code: string, credentials: { listenerToken?: string | null; shareCode?: string | null }): Promise<ListenerBroadcastView> {
    const broadcast = await this.byCode(code);
    let authorized = broadcast.access === 'public';
    if (credentials.shareCode) {
      authorized = (await this.shareLinks.resolve(credentials.shareCode)).broadcastId === broadcast.id || authorized;
    }
    if (credentials.listenerToken) authorized = (await this.access.verify(credentials.listenerToken)).id === broadcast.id || authorized;
    const [current, last] = authorized ? await this.recordingsOf(broadcast.id) : [null, null];
    const settings = broadcast.settings as { spokenLanguage?: unknown };
    const spokenLanguage =
      (typeof settings.spokenLanguage === 'string' && settings.spokenLanguage !== 'auto' ? settings.spokenLanguage : null) ??
      current?.spokenLanguage ??
      last?.spokenLanguage ??
      null;
    return {
      broadcastId: broadcast.id,
      code: broadcast.code,
      name: broadcast.name,
      access: broadcast.access as ListenerBroadcastView['access'],
      authorized,
      spokenLanguage,
      // The spoken language first, then every language a listener may read it in.
      languages: [...new Set([...(spokenLanguage ? [spokenLanguage] : []), ...(await this.translationTargets().catch(() => []))])],
      currentRecording: current && listenerRecording(current),
      lastRecording: last && listenerRecording(last),
    };
  }

  /**
   * Who may open a broadcast's events socket: its owner (a credential), or a listener — anyone for a public
   * broadcast, a listener token or share code of it for a private one. Answers whether the caller is a listener
   * (counted on the link).
   */
  async eventsAccess(broadcastId: string, credentials: ReaderCredentials): Promise<{ listener: boolean }> {
    const broadcast = await this.deps.prisma.broadcast.findUnique({ where: { id: broadcastId } });
    if (!broadcast) throw errors.notFound('The broadcast');
    let listener = true;
    if (credentials.shareCode) {
      if ((await this.shareLinks.resolve(credentials.shareCode)).broadcastId !== broadcastId) throw errors.notFound('The broadcast');
    } else if (credentials.listenerToken) {
      if ((await this.access.verify(credentials.listenerToken)).id !== broadcastId) throw errors.notFound('The broadcast');
    } else if (credentials.accountId) {
      if (broadcast.accountId !== credentials.accountId) throw errors.notFound('The broadcast');
      listener = false;
    } else if (broadcast.access !== 'public') {
      throw errors.invalidToken('This broadcast is private: send a listenerToken (POST /v1/listen/{code}/token) or a shareCode.');
    }
    // Archived: its links are dead, for everyone but its owner.
    if (listener && broadcast.lifecycle !== 'active') throw errors.notFound('The broadcast');
    return { listener };
  }

  /**
   * A broadcast's events (`WS /v1/broadcasts/{id}/events`, the `broadcastEvents` subscription), once `eventsAccess`
   * let the caller in: `events.ready` with the recording in flight, then `recording.started` and `recording.state` as
   * they happen. The topic is subscribed before the recording in flight is read, so a start made meanwhile comes as
   * a frame after `events.ready` rather than being lost (clients compare recordingId). Ending it (`return`) ends the
   * topic's subscription at once, even while no frame comes.
   */
  broadcastEvents(broadcastId: string): AsyncIterableIterator<BroadcastEvent> {
    const frames = this.deps.pubsub.subscribe(`broadcast:${broadcastId}`);
    const first = frames.next();
    const events = async function* (this: ListenersService): AsyncGenerator<BroadcastEvent> {
      yield { type: 'events.ready', broadcastId, currentRecording: await this.currentRecording(broadcastId) };
      for (let next = first; ; next = frames.next()) {
        const { value, done } = await next;
        if (done) return;
        yield {
          type: value.type, recordingId: value.recordingId as string, transcriptionId: value.transcriptionId as string,
          state: value.state as string, at: value.at as string,
        };
      }
    }.call(this);
    return {
      next: () => events.next(),
      return: async () => {
        await frames.return?.();
        return events.return(undefined);
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  /** The recording in flight among those the broadcast's listeners can read. */
  async currentRecording(broadcastId: string): Promise<ListenerRecording | null> {
    const [current] = await this.recordingsOf(broadcastId);
    return current && listenerRecording(current);
  }

  /** The recording in flight and the newest one among those a listener of the broadcast can read. */
  private async recordingsOf(broadcastId: string) {
    const where = {
      lifecycle: 'active', transcription: { lifecycle: 'active', kind: 'live', broadcastIds: { array_contains: [broadcastId] } },
    };
    return Promise.all([
      this.deps.prisma.recording.findFirst({ where: { ...where, state: { in: ['live', 'paused'] } }, orderBy: { createdAt: 'desc' } }),
      this.deps.prisma.recording.findFirst({ where, orderBy: { createdAt: 'desc' } }),
    ]);
  }

  /**
   * `POST /v1/listen/{code}/token`: a listener token for this broadcast. A private broadcast needs its `password`
   * (403 `forbidden` naming `password` when wrong; wrong ones limited per caller address and per broadcast, 429
   * past them); a public one
   * answers a token without one, so clients treat both alike.
   */
  async issueToken(code: string, body: unknown, clientAddress = 'unknown'): Promise<{
    listenerToken: string; broadcastId: string; expiresAt: string;
  }> {
    const { password } = parseTokenRequest(body);
    const broadcast = await this.byCode(code);
    if (broadcast.access === 'private') {
      if (!password) throw errors.invalidOptions('password is required: this broadcast is private.', { field: 'password' });
      // Each try is counted before the password is checked (parallel guesses each take a place) and forgiven when right.
      // Redis away: the try is let through uncounted, as the request budget does (the password is still checked).
      const store = new RedisRateLimitStore(this.redis);
      const key = `${this.deps.config.redisPrefix}listen-password:${broadcast.id}`;
      const uncounted = { allowed: true, count: 0, resetMs: 0, forgive: async () => {} };
      const fromAddress = await store.tryCounted(`${key}:${clientAddress}`, 60_000, WRONG_PASSWORDS_PER_ADDRESS).catch(() => uncounted);
      if (!fromAddress.allowed) throw errors.rateLimited(Math.max(1, Math.ceil(fromAddress.resetMs / 1000)), { field: 'password' });
      const fromEveryone = await store.tryCounted(key, 60_000, WRONG_PASSWORDS_PER_BROADCAST).catch(() => uncounted);
      if (!fromEveryone.allowed) {
        await fromAddress.forgive().catch(() => {});
        throw errors.rateLimited(Math.max(1, Math.ceil(fromEveryone.resetMs / 1000)), { field: 'password' });
      }
      if (!broadcast.passwordHash || !(await passwordMatches(broadcast.passwordHash, password))) {
        throw errors.forbidden('password: wrong password for this broadcast.', { field: 'password' });
      }
      await Promise.all([fromAddress.forgive(), fromEveryone.forgive()]).catch(() => {});
    }
    const issued = await this.access.issue(broadcast);
    return { ...issued, broadcastId: broadcast.id };
  }

  /**
   * A recording's subscriber frames as an async iterator (the GraphQL subscription `recordingFrames`): the same hub
   * and frames as the subscribe socket, no live audio. Frames wait in a queue the consumer drains; past
   * SLOW_CONSUMER_BYTES queued it ends with an `error` frame `slow_consumer`, as a socket is closed.
   */
  async frames(
    recordingId: string, view: SubscriberView, after: number | null, lang: string | null = null,
  ): Promise<AsyncIterableIterator<Frame>> {
    if (after !== null && (!Number.isInteger(after) || after < -1)) throw errors.invalidOptions('after must be a cursor (an integer at or '
      + 'above -1).', { field: 'after' });
    const queue: Array<{ text: string }> = [];
    let queuedBytes = 0;
    let ended = false;
    let wake: (() => void) | null = null;
    const push = (text: string) => {
      if (ended) return;
      queue.push({ text });
      queuedBytes += text.length;
      wake?.();
    };
    const subscriber: Subscriber = {
      view,
      lang,
      audio: false,
      voice: null,
      sendText: push,
      sendBinary: () => undefined,
      buffered: () => queuedBytes,
      drop: (code, message) => {
        push(JSON.stringify({ type: 'error', code, message, retryable: true }));
        ended = true;
      },
    };
    const leave = await this.fanout.join(recordingId, subscriber, after);
    const finish = () => {
      ended = true;
      leave();
      wake?.();
    };
    const iterator: AsyncIterableIterator<Frame> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
        const item = queue.shift();
        if (!item) {
          finish();
          return { done: true, value: undefined };
        }
        queuedBytes -= item.text.length;
        return { done: false, value: JSON.parse(item.text) as Frame };
      },
      return: async () => {
        finish();
        return { done: true, value: undefined };
      },
    };
    return iterator;
  }

  async close(): Promise<void> {
    this.fanout.close();
    this.presenceKeeper?.close();
    this.redisClient?.disconnect();
  }
}

/** The body of `POST /v1/listen/{code}/token`: `{password}` (a string; left out for a public broadcast), nothing else. */
export function parseTokenRequest(body: unknown): { password: string | null } {
  if (body === undefined || body === null) return { password: null };
  if (!isObject(body)) throw errors.invalidOptions('The body must be a JSON object: {"password": "..."}.', { field: 'body' });
  for (const key of Object.keys(body)) if (key !== 'password') throw errors.invalidOptions(`${key} is not a field of this request `
    + `(password).`, { field: key });
  const password = (body as { password?: unknown }).password;
  if (password !== undefined && password !== null && typeof password !== 'string') {
    throw errors.invalidOptions('password must be a string.', { field: 'password' });
  }
  return { password: password ?? null };
}

function listenerRecording(row: { id: string; state: string; createdAt: Date; transcriptionId: string }): ListenerRecording {
  return { recordingId: row.id, state: row.state, startedAt: row.createdAt.toISOString(), transcriptionId: row.transcriptionId };
}

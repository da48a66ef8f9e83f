/**
 * The listener sockets' protocol, transport-free of the router (rest/routes/listeners.ts declares them): the subscribe
 * socket that follows one recording (`WS /v1/recordings/{id}/subscribe`: the upgrade's check, then replay and live
 * frames through the fanout, `subscribe.update` answered in order, presence on the broadcasts it reaches) and a
 * broadcast's events socket (`WS /v1/broadcasts/{id}/events`: which recording to follow next).
 */
import crypto from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Context } from '../core/context.js';
import { errors, toApiError } from '../core/errors.js';
import { readerOf, type ReaderCredentials } from '../recordings/service.js';
import type { Subscriber } from './fanout.js';

/** What the subscribe upgrade's check decided, for the connection that follows it. */
export interface SubscribePlan {
  view: Subscriber['view'];
  lang: string | null;
  broadcastIds: string[];
  after: number | null;
  audio: boolean;
  voice: string | null;
  presence: string;
  credentials: ReaderCredentials;
}

/** What the events upgrade's check decided: whether the caller counts as a listener, and its presence id. */
export interface BroadcastEventsPlan {
  listener: boolean;
  presence: string;
}

/** The socket's credential from its query: a share code or listener token there, else the Authorization header (never a key in the URL). */
function socketCredentials(ctx: Context, query: URLSearchParams): ReaderCredentials {
  return readerOf(ctx, { shareCode: query.get('shareCode'), listenerToken: query.get('listenerToken') });
}

/** A page's presence id (shared by its sockets so it counts once on the link), or one of this socket's own. */
function presenceOf(query: URLSearchParams): string {
  const given = query.get('presence');
  if (given === null) return `sock_${crypto.randomBytes(9).toString('base64url')}`;
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(given)) {
    throw errors.invalidOptions('presence must be 8 to 64 letters, digits, "-" or "_".', { field: 'presence' });
  }
  return `page_${given}`;
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  throw errors.invalidOptions(`${name} must be true or false.`, { field: name });
}

function parseAfter(query: URLSearchParams): number | null {
  const value = query.get('after');
  if (value === null || value === '') return null;
  const after = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(after) || after < -1) throw errors.invalidOptions('after must be a cursor (an '
    + 'integer at or above -1).', { field: 'after' });
  return after;
}

const errorFrame = (error: unknown) => {
  const { code, message, retryable, details } = toApiError(error);
  return JSON.stringify({ type: 'error', code, message, retryable, details });
};

function subscriberOn(ws: WebSocket, plan: SubscribePlan): Subscriber {
  return {
    view: plan.view,
    lang: plan.lang,
    audio: false,
    voice: plan.voice,
    sendText: (text) => ws.readyState === ws.OPEN && ws.send(text),
    sendBinary: (data) => ws.readyState === ws.OPEN && ws.send(data, { binary: true }),
    buffered: () => ws.bufferedAmount,
    drop: (code, message) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'error', code, message, retryable: true }));
      ws.close(1008, code);
      // A client that reads nothing never completes the close handshake either.
      setTimeout(() => ws.terminate(), 5_000).unref();
    },
  };
}

/** The subscribe upgrade's check (query and credential); its refusals answer the upgrade. */
export async function planSubscription(query: URLSearchParams, recordingId: string, ctx: Context): Promise<SubscribePlan> {
  const after = parseAfter(query);
  const audio = flag(query, 'audio');
  const voice = query.get('voice');
  if (voice !== null && audio) throw errors.invalidOptions('voice: a socket carries one audio stream, the live audio (audio=true) or '
    + 'the spoken sentences (voice).', { field: 'voice' });
  const presence = presenceOf(query);
  const credentials = socketCredentials(ctx, query);
  const { view, lang, broadcastIds } = await ctx.services.recordings.subscriber(recordingId, credentials, query.get('lang'));
  if (voice !== null) await ctx.services.voiceTracks.checkSubscriberVoice(recordingId, lang, voice);
  return { view, lang, broadcastIds, after, audio, voice, presence, credentials };
}

/** Serves a subscribe socket until it closes. */
export async function serveSubscription(ws: WebSocket, plan: SubscribePlan, recordingId: string, ctx: Context): Promise<void> {
  const { fanout, presence } = ctx.services.listeners;
  const subscriber = subscriberOn(ws, plan);
  subscriber.audio = plan.audio;
  presence.add(plan.broadcastIds, plan.presence);
  let leave: (() => void) | null = null;
  let closed = false;
  ws.on('close', () => {
    closed = true;
    leave?.();
    presence.remove(plan.broadcastIds, plan.presence);
  });
  // Client frames are answered one at a time, in the order sent.
  let updates: Promise<void> = Promise.resolve();
  ws.on('message', (data, isBinary) => {
    updates = updates.then(async () => {
      const update = isBinary ? null : (JSON.parse(data.toString()) as Record<string, unknown>);
      if (!update || typeof update !== 'object' || update.type !== 'subscribe.update') throw errors.invalidOptions('The only client frame '
        + 'is {"type":"subscribe.update", "lang"?: string, "audio"?: boolean}.', { field: 'type' });
      if (update.audio !== undefined && typeof update.audio !== 'boolean') {
        throw errors.invalidOptions('audio must be true or false.', { field: 'audio' });
      }
      if (update.lang !== undefined && update.lang !== null && typeof update.lang !== 'string') {
        throw errors.invalidOptions('lang must be a language code.', { field: 'lang' });
      }
      // The same check as at the upgrade: the credential may have died since, and the link must allow the language.
      // A new language applies to the frames after this answer; the client reads the snapshot again in it.
      if (update.audio === true && subscriber.voice) throw errors.invalidOptions('audio: this socket speaks sentences (voice); a '
        + 'socket carries one audio stream.', { field: 'audio' });
      if (update.lang !== undefined) {
        const { lang } = await ctx.services.recordings.subscriber(recordingId, plan.credentials, (update.lang as string | null) ?? null);
        // The socket's voice must speak the new language too (reopen with another voice, or auto, otherwise).
        if (subscriber.voice) await ctx.services.voiceTracks.checkSubscriberVoice(recordingId, lang, subscriber.voice, 'lang');
        subscriber.lang = lang;
      }
      if (typeof update.audio === 'boolean') fanout.setAudio(recordingId, subscriber, update.audio);
      subscriber.sendText(JSON.stringify({ type: 'subscribe.updated', lang: update.lang ?? null, audio: subscriber.audio }));
    }).catch((error: unknown) => {
      const refusal = error instanceof SyntaxError ? errors.invalidOptions('A client frame must be JSON.', { field: 'frame' }) : error;
      subscriber.sendText(errorFrame(refusal));
    });
  });
  leave = await fanout.join(recordingId, subscriber, plan.after);
  if (closed) leave();
}

/** The events upgrade's check. */
export async function planBroadcastEvents(query: URLSearchParams, broadcastId: string, ctx: Context): Promise<BroadcastEventsPlan> {
  const presence = presenceOf(query);
  const { listener } = await ctx.services.listeners.eventsAccess(broadcastId, socketCredentials(ctx, query));
  return { listener, presence };
}

/** Serves a broadcast's events socket until it closes. */
export async function serveBroadcastEvents(ws: WebSocket, plan: BroadcastEventsPlan, broadcastId: string, ctx: Context): Promise<void> {
  const events = ctx.services.listeners.broadcastEvents(broadcastId);
  const counted = plan.listener ? [broadcastId] : [];
  ctx.services.listeners.presence.add(counted, plan.presence);
  ws.on('close', () => {
    void events.return?.();
    ctx.services.listeners.presence.remove(counted, plan.presence);
  });
  for await (const event of events) {
    if (ws.readyState !== ws.OPEN) break;
    ws.send(JSON.stringify(event));
  }
}

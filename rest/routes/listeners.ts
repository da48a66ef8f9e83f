/**
 * Broadcast listeners: the listen view and listener tokens, the subscribe socket that follows one recording, and a
 * broadcast's events socket (which recording to follow next).
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import {
  CreateListenerTokenDocument, ListenerBroadcastDocument, ListenerBroadcastFieldsFragmentDoc, ListenerTokenFieldsFragmentDoc,
} from '../../src/generated/graphql.js';
import { errors, toApiError } from '../../src/core/errors.js';
import type { Context } from '../../src/core/context.js';
import { readerOf, type ReaderCredentials } from '../../src/recordings/service.js';
import { parseTokenRequest } from '../../src/listeners/service.js';
import type { Subscriber } from '../../src/listeners/index.js';
import { single } from '../query.js';
import { fragmentSchema } from '../shapes.js';
import { graphqlRoute, type RouteEntry } from '../types.js';

const listenerTokenParam = { name: 'listenerToken', in: 'query' as const, schema: { type: 'string' }, description: 'A private broadcast\'s listener token.' };
const shareCodeParam = { name: 'shareCode', in: 'query' as const, schema: { type: 'string' }, description: 'A share link of the broadcast.' };
const broadcastNotFound = { status: 404, code: 'not_found', description: 'No broadcast has ever had this code, or it is archived (its '
  + 'links are dead).' };

/** What the upgrade's check decided, for the connection that follows it. */
interface SubscribePlan { view: Subscriber['view']; lang: string | null; broadcastIds: string[]; after: number | null; audio: boolean; voice: string | null; presence: string; credentials: ReaderCredentials }
const plans = new WeakMap<IncomingMessage, SubscribePlan>();
const broadcastPlans = new WeakMap<IncomingMessage, { listener: boolean; presence: string }>();

/** The socket's credential from its query: a share code or listener token there, else the Authorization header (never a key in the URL). */
function socketCredentials(ctx: Context, query: URLSearchParams): ReaderCredentials {
  return readerOf(ctx, { shareCode: query.get('shareCode'), listenerToken: query.get('listenerToken') });
}

/** A page's presence id (shared by its sockets so it counts once on the link), or one of this socket's own. */
function presenceOf(query: URLSearchParams): string {
  const given = query.get('presence');
  if (given === null) return `sock_${crypto.randomBytes(9).toString('base64url')}`;
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(given)) throw errors.invalidOptions('presence must be 8 to 64 letters, digits, "-" or "_".', { field: 'presence' });
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
  const apiError = toApiError(error);
  return JSON.stringify({ type: 'error', code: apiError.code, message: apiError.message, retryable: apiError.retryable, details: apiError.details });
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

export const listenerRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/listen/{code}', operationId: 'getListenerBroadcast', tags: ['broadcasts'],
    auth: { mode: 'public', scopes: [] },
    parameters: [listenerTokenParam, shareCodeParam],
    document: ListenerBroadcastDocument,
    variables: ({ params, query }) => ({ code: params.code!, listenerToken: single(query.listenerToken), shareCode: single(query.shareCode) }),
    result: (data) => ({ status: 200, body: data.listenerBroadcast }),
    response: { status: 200, description: 'The broadcast.', schema: fragmentSchema(ListenerBroadcastFieldsFragmentDoc) },
    errors: [broadcastNotFound, { status: 401, code: 'invalid_token', description: 'The `listenerToken` is not valid (expired, or the '
      + 'password or access changed since).' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/listen/{code}/token', operationId: 'createListenerToken', tags: ['broadcasts'],
    auth: { mode: 'public', scopes: [] },
    document: CreateListenerTokenDocument,
    variables: ({ params, body }) => ({ code: params.code!, password: parseTokenRequest(body).password }),
    result: (data) => ({ status: 201, body: data.createListenerToken }),
    request: { schema: { type: 'object', additionalProperties: false, properties: { password: { type: 'string', nullable: true, description: 'Required for a private broadcast.' } } } },
    response: {
      status: 201, description: 'The token.',
      schema: fragmentSchema(ListenerTokenFieldsFragmentDoc),
    },
    errors: [
      broadcastNotFound,
      { status: 400, code: 'invalid_options', description: 'No `password` for a private broadcast, or an unknown field; `details.field` '
        + 'names it.' },
      { status: 403, code: 'forbidden', description: 'Wrong password (`details.field: password`).' },
      { status: 429, code: 'rate_limited', description: 'Too many wrong passwords in the last minute: 10 from this address, or 100 to '
        + 'this broadcast from everyone (right ones are not counted); `Retry-After`.' },
    ],
  }),
  {
    method: 'ws', path: '/v1/recordings/{id}/subscribe', operationId: 'subscribeRecording', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      { name: 'lang', in: 'query', schema: { type: 'string' }, description: 'Read translated (the spoken language until translations '
        + 'exist); through a share link another language needs `allowTranslate`.' },
      { name: 'voice', in: 'query', schema: { type: 'string' }, description: 'Spoken sentences as binary frames: `auto` (the recording\'s '
        + 'voice for the language: its `voiceByLang` pin, else the default) or a catalogue voice that speaks it '
        + '(`GET /v1/voices/available`).' },
      { name: 'after', in: 'query', schema: { type: 'integer', minimum: -1 }, description: 'Replay the frames after this cursor.' },
      { name: 'audio', in: 'query', schema: { type: 'boolean' }, description: 'Binary frames of live audio.' },
      { name: 'presence', in: 'query', schema: { type: 'string' } },
      shareCodeParam, listenerTokenParam,
    ],
    errors: [
      { status: 404, code: 'not_found', description: 'No such recording for this reader (a listener\'s broadcast does not reach it, the '
        + 'link is revoked or archived).' },
      { status: 401, code: 'invalid_token', description: 'No credential and no public broadcast reaches the recording, or a bad '
        + '`listenerToken`.' },
      { status: 400, code: 'invalid_options', description: 'A bad `after`, `audio`, `presence`, `lang` or `voice` (no voice speaks the '
        + 'language, a voice that does not speak it, `voice` with `audio=true`); `details.field` names it.' },
      { status: 403, code: 'forbidden', description: 'A `lang` a share link without `allowTranslate` may not read.' },
    ],
    frames: {
      server: [
        { type: 'subscribe.ready', description: 'First frame: `recordingId`, `lastSeq` (the cursor delivered so far), `state`, `instance` '
          + '(the gateway process).' },
        { type: 'transcript.committed', description: '`cursor`, `seq`, `segment`: append a segment.' },
        { type: 'transcript.amended', description: '`cursor`, `seq`, `segment`, `reason`: an engine rewrite of a committed segment in '
          + 'place.' },
        { type: 'transcript.corrected', description: '`cursor`, `seq`, `segment`: a person\'s correction in place.' },
        { type: 'transcript.sentence', description: '`cursor`, `sentenceId`, `sentence` (`id`, `speaker`, `start`, `end`, `text`, '
          + '`confidence`, `seqs`, `lastWordId`, `complete`, `unclear`/`suppressed`): replaces a whole sentence, in the same log step '
          + 'as the segment change that touched it; sentences whose id falls after `id` and at or before `lastWordId` were merged into '
          + 'it (drop them).' },
        { type: 'transcript.translated', description: '`cursor`, `seq`, `translations`.' },
        { type: 'recording.state', description: '`cursor`, `recordingId`, `state` (live, paused, ended, finalized).' },
        { type: 'noop', description: '`cursor`, `seq`, `reason`: a frame withheld from this subscriber so the cursor never skips. '
          + '`reason: unclear` (a broadcast listener, a line under the confidence policy: `seq` is its segment, shown as "Audio '
          + 'unclear"); `not_for_subscribers` (a log frame such as a job or ingest report; `seq` null).' },
        { type: 'subscribe.gap', description: '`cursor`, `after`: the frames between were not replayed; re-read the transcript with '
          + '`after=<your last cursor>`, then go on.' },
        { type: 'subscribe.updated', description: '`lang`, `audio`: a `subscribe.update` took effect (re-read the snapshot after a '
          + 'language change).' },
        { type: 'error', description: '`code`, `message`, `retryable`: `slow_consumer` (then closed), or a refused `subscribe.update` '
          + '(the socket stays open).' },
      ],
      client: [{ type: 'subscribe.update', description: '`lang` (string) and/or `audio` (boolean): change language or live audio without '
        + 'reopening.' }],
    },
    authorize: async (req, params, ctx) => {
      const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
      const after = parseAfter(query);
      const audio = flag(query, 'audio');
      const voice = query.get('voice');
      if (voice !== null && audio) throw errors.invalidOptions('voice: a socket carries one audio stream, the live audio (audio=true) or '
        + 'the spoken sentences (voice).', { field: 'voice' });
      const presence = presenceOf(query);
      const credentials = socketCredentials(ctx, query);
      const { view, lang, broadcastIds } = await ctx.services.recordings.subscriber(params.id!, credentials, query.get('lang'));
      if (voice !== null) await ctx.services.voiceTracks.checkSubscriberVoice(params.id!, lang, voice);
      plans.set(req, { view, lang, broadcastIds, after, audio, voice, presence, credentials });
    },
    onConnection: async (ws, req, params, ctx) => {
      const plan = plans.get(req)!;
      const recordingId = params.id!;
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
          if (!update || typeof update !== 'object' || update.type !== 'subscribe.update') throw errors.invalidOptions('The only client frame is {"type":"subscribe.update", "lang"?: string, "audio"?: boolean}.', { field: 'type' });
          if (update.audio !== undefined && typeof update.audio !== 'boolean') throw errors.invalidOptions('audio must be true or false.', { field: 'audio' });
          if (update.lang !== undefined && update.lang !== null && typeof update.lang !== 'string') throw errors.invalidOptions('lang must be a language code.', { field: 'lang' });
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
        }).catch((error: unknown) => subscriber.sendText(errorFrame(error instanceof SyntaxError ? errors.invalidOptions('A client frame must be JSON.', { field: 'frame' }) : error)));
      });
      leave = await fanout.join(recordingId, subscriber, plan.after);
      if (closed) leave();
    },
  },
  {
    method: 'ws', path: '/v1/broadcasts/{id}/events', operationId: 'broadcastEvents', tags: ['broadcasts'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [shareCodeParam, listenerTokenParam, { name: 'presence', in: 'query', schema: { type: 'string' } }],
    errors: [
      { status: 404, code: 'not_found', description: 'No such broadcast for this caller (archived: its links are dead).' },
      { status: 401, code: 'invalid_token', description: 'A private broadcast without a listener token or share code, or a bad one.' },
    ],
    frames: {
      server: [
        { type: 'events.ready', description: 'First frame: `broadcastId`, `currentRecording` (`recordingId`, `state`, `startedAt`, '
          + '`transcriptionId`) or null.' },
        { type: 'recording.started', description: '`recordingId`, `transcriptionId`, `state`, `at`.' },
        { type: 'recording.state', description: '`recordingId`, `transcriptionId`, `state` (paused, live, ended, finalized), `at`.' },
      ],
    },
    authorize: async (req, params, ctx) => {
      const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
      const presence = presenceOf(query);
      const { listener } = await ctx.services.listeners.eventsAccess(params.id!, socketCredentials(ctx, query));
      broadcastPlans.set(req, { listener, presence });
    },
    onConnection: async (ws, req, params, ctx) => {
      const plan = broadcastPlans.get(req)!;
      const broadcastId = params.id!;
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
    },
  },
];

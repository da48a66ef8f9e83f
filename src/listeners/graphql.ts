/**
 * Broadcast listeners in GraphQL: what the listener page reads before following (`listenerBroadcast`), the listener
 * token for a private broadcast (`createListenerToken`), and `Broadcast.listenersNow`.
 */
import { builder } from '../core/builder.js';
import { Access, BroadcastType, CurrentRecordingType } from '../broadcasts/graphql.js';
import { recordingReaderArgs } from '../recordings/graphql.js';
import { readerOf } from '../recordings/service.js';
import type { BroadcastEvent, ListenerBroadcastView } from './service.js';

const ListenerBroadcastType = builder.objectRef<ListenerBroadcastView>('ListenerBroadcast').implement({
  description: 'A broadcast as its listeners see it, by any code it ever had.',
  fields: (t) => ({
    broadcastId: t.exposeID('broadcastId'),
    code: t.exposeString('code', { description: 'The broadcast\'s code now (the one opened may be older).' }),
    name: t.exposeString('name'),
    access: t.field({ type: Access, resolve: (view) => view.access }),
    authorized: t.exposeBoolean('authorized', {
      description: 'This listener may follow it: public, or a valid `listenerToken` or `shareCode` of it was sent. A private '
        + 'broadcast\'s listener without one proves the password at `POST /v1/listen/{code}/token`.',
    }),
    spokenLanguage: t.exposeString('spokenLanguage', { nullable: true }),
    languages: t.exposeStringList('languages', {
      description: 'What `lang` may ask for on the subscribe socket: the spoken language first, then every language translation serves.',
    }),
    currentRecording: t.field({
      type: CurrentRecordingType, nullable: true, description: 'The recording in flight (only when authorized).',
      resolve: (view) => view.currentRecording,
    }),
    lastRecording: t.field({ type: CurrentRecordingType, nullable: true, description: 'The newest recording a listener can read (only '
      + 'when authorized).', resolve: (view) => view.lastRecording }),
  }),
});

const ListenerTokenType = builder.objectRef<{ listenerToken: string; broadcastId: string; expiresAt: string }>('ListenerToken').implement({
  fields: (t) => ({
    listenerToken: t.exposeString('listenerToken', { description: 'Sent as `listenerToken` on the subscribe socket, transcript, export '
      + 'and media reads of the broadcast\'s recordings.' }),
    broadcastId: t.exposeID('broadcastId'),
    expiresAt: t.exposeString('expiresAt', { description: 'A day after issue; a password or access change ends it sooner.' }),
  }),
});

builder.queryFields((t) => ({
  listenerBroadcast: t.field({
    type: ListenerBroadcastType,
    description: 'The broadcast behind a code, for its listeners (no credential). 404 for an unknown code or an archived broadcast.',
    authScopes: { public: true },
    args: { code: t.arg.string({ required: true }), listenerToken: t.arg.string(), shareCode: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.listeners.view(args.code, args),
  }),
}));

builder.mutationFields((t) => ({
  createListenerToken: t.field({
    type: ListenerTokenType,
    description: 'A listener token: a private broadcast\'s `password` proven once (403 `forbidden` when wrong; wrong ones limited per '
      + 'caller address, 10 a minute, and per broadcast, 100). A public broadcast answers one without a password.',
    authScopes: { public: true },
    args: { code: t.arg.string({ required: true }), password: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.listeners.issueToken(
      args.code, args.password === undefined || args.password === null ? {} : { password: args.password }, ctx.clientAddress,
    ),
  }),
}));

builder.objectField(BroadcastType, 'listenersNow', (t) =>
  t.field({
    type: 'Int',
    nullable: true,
    description: 'People on the link now (listener sockets, a page counted once), across every gateway process; null when nobody.',
    resolve: (broadcast, _args, ctx) => ctx.services.listeners.listenersNow(broadcast.id),
  }),
);

const BroadcastEventType = builder.objectRef<BroadcastEvent>('BroadcastEvent').implement({
  description: 'A frame of a broadcast\'s events: `events.ready` first (`broadcastId`, `currentRecording`), then `recording.started` and '
    + '`recording.state` (`recordingId`, `transcriptionId`, `state`, `at`).',
  fields: (t) => ({
    type: t.exposeString('type'),
    broadcastId: t.id({ nullable: true, resolve: (event) => ('broadcastId' in event ? event.broadcastId : null) }),
    currentRecording: t.field({
      type: CurrentRecordingType, nullable: true, description: 'events.ready: the recording in flight.',
      resolve: (event) => ('currentRecording' in event ? event.currentRecording : null),
    }),
    recordingId: t.id({ nullable: true, resolve: (event) => ('recordingId' in event ? event.recordingId : null) }),
    transcriptionId: t.id({ nullable: true, resolve: (event) => ('transcriptionId' in event ? event.transcriptionId : null) }),
    state: t.string({
      nullable: true, description: '`live`, `paused`, `ended`, `finalized`.', resolve: (event) => ('state' in event ? event.state : null),
    }),
    at: t.string({ nullable: true, resolve: (event) => ('at' in event ? event.at : null) }),
  }),
});

builder.subscriptionFields((t) => ({
  broadcastEvents: t.field({
    type: BroadcastEventType,
    description:
      'WS /v1/broadcasts/{id}/events as a subscription: `events.ready` with the recording in flight, then `recording.started` '
      + 'the moment a recording of a feeding transcription begins and `recording.state` on its moves. The owner (credential), '
      + 'a listener with a `listenerToken` or `shareCode` of a private broadcast, or nothing for a public one. Not counted in '
        + '`listenersNow`.',
    authScopes: { public: true },
    args: { broadcastId: t.arg.id({ required: true }), shareCode: t.arg.string(), listenerToken: t.arg.string() },
    subscribe: async (_root, args, ctx) => {
      const broadcastId = String(args.broadcastId);
      await ctx.services.listeners.eventsAccess(broadcastId, readerOf(ctx, args));
      return ctx.services.listeners.broadcastEvents(broadcastId);
    },
    resolve: (event) => event,
  }),
  recordingFrames: t.field({
    type: 'Frame',
    description:
      'WS /v1/recordings/{id}/subscribe as a subscription: `subscribe.ready`, then every durable frame in `cursor` order '
      + '(`noop` for one withheld from this reader), `subscribe.gap` when `after` is too far back. The owner (credential), '
      + 'a `shareCode`, a `listenerToken`, or nothing for a public broadcast\'s listener. No live audio (that is binary, on the socket).',
    authScopes: { public: true },
    args: recordingReaderArgs,
    subscribe: async (_root, args, ctx) => {
      const recordingId = String(args.recordingId);
      const { view, lang } = await ctx.services.recordings.subscriber(recordingId, readerOf(ctx, args), args.lang ?? null);
      return ctx.services.listeners.frames(recordingId, view, args.after ?? null, lang);
    },
    resolve: (frame) => frame,
  }),
}));

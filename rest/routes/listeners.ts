/**
 * Broadcast listeners: the listen view and listener tokens, the subscribe socket that follows one recording, and a
 * broadcast's events socket (which recording to follow next).
 */
import type { IncomingMessage } from 'node:http';
import {
  CreateListenerTokenDocument, ListenerBroadcastDocument, ListenerBroadcastFieldsFragmentDoc, ListenerTokenFieldsFragmentDoc,
} from '../../src/generated/graphql.js';
import { parseTokenRequest } from '../../src/listeners/service.js';
import {
  planBroadcastEvents, planSubscription, serveBroadcastEvents, serveSubscription, type BroadcastEventsPlan, type SubscribePlan,
} from '../../src/listeners/index.js';
import { single } from '../query.js';
import { fragmentSchema } from '../shapes.js';
import { graphqlRoute, type RouteEntry } from '../types.js';

const listenerTokenParam = { name: 'listenerToken', in: 'query' as const, schema: { type: 'string' }, description: 'A private broadcast\'s listener token.' };
const shareCodeParam = { name: 'shareCode', in: 'query' as const, schema: { type: 'string' }, description: 'A share link of the broadcast.' };
const broadcastNotFound = { status: 404, code: 'not_found', description: 'No broadcast has ever had this code, or it is archived (its '
  + 'links are dead).' };

/** What each upgrade's check decided, for the connection that follows it. */
const plans = new WeakMap<IncomingMessage, SubscribePlan>();
const broadcastPlans = new WeakMap<IncomingMessage, BroadcastEventsPlan>();

export const listenerRoutes: RouteEntry[] = [
  graphqlRoute({
    method: 'get', path: '/v1/listen/{code}', operationId: 'getListenerBroadcast', tags: ['broadcasts'],
    auth: { mode: 'public', scopes: [] },
    parameters: [listenerTokenParam, shareCodeParam],
    document: ListenerBroadcastDocument,
    variables: ({ params, query }) => ({ code: params.code!, listenerToken: single(query.listenerToken), shareCode: single(query.shareCode) }),
    result: (data) => ({ status: 200, body: data.listenerBroadcast }),
    response: { status: 200, description: 'The broadcast.', schema: fragmentSchema(ListenerBroadcastFieldsFragmentDoc) },
    errors: [broadcastNotFound, { status: 401, code: 'invalid_token' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/listen/{code}/token', operationId: 'createListenerToken', tags: ['broadcasts'],
    auth: { mode: 'public', scopes: [] },
    document: CreateListenerTokenDocument,
    variables: ({ params, body }) => ({ code: params.code!, password: parseTokenRequest(body).password }),
    result: (data) => ({ status: 201, body: data.createListenerToken }),
    request: { schema: { type: 'object', additionalProperties: false, properties: { password: { type: 'string', nullable: true, description: 'Required for a private broadcast.' } } } },
    response: { status: 201, description: 'The token.', schema: fragmentSchema(ListenerTokenFieldsFragmentDoc) },
    errors: [
      broadcastNotFound, { status: 400, code: 'invalid_options' }, { status: 403, code: 'forbidden' },
      { status: 429, code: 'rate_limited' },
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
      { status: 404, code: 'not_found' }, { status: 401, code: 'invalid_token' }, { status: 400, code: 'invalid_options' },
      { status: 403, code: 'forbidden' },
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
      plans.set(req, await planSubscription(new URL(req.url ?? '/', 'http://localhost').searchParams, params.id!, ctx));
    },
    onConnection: (ws, req, params, ctx) => serveSubscription(ws, plans.get(req)!, params.id!, ctx),
  },
  {
    method: 'ws', path: '/v1/broadcasts/{id}/events', operationId: 'broadcastEvents', tags: ['broadcasts'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [shareCodeParam, listenerTokenParam, { name: 'presence', in: 'query', schema: { type: 'string' } }],
    errors: [{ status: 404, code: 'not_found' }, { status: 401, code: 'invalid_token' }],
    frames: {
      server: [
        { type: 'events.ready', description: 'First frame: `broadcastId`, `currentRecording` (`recordingId`, `state`, `startedAt`, '
          + '`transcriptionId`) or null.' },
        { type: 'recording.started', description: '`recordingId`, `transcriptionId`, `state`, `at`.' },
        { type: 'recording.state', description: '`recordingId`, `transcriptionId`, `state` (paused, live, ended, finalized), `at`.' },
      ],
    },
    authorize: async (req, params, ctx) => {
      broadcastPlans.set(req, await planBroadcastEvents(new URL(req.url ?? '/', 'http://localhost').searchParams, params.id!, ctx));
    },
    onConnection: (ws, req, params, ctx) => serveBroadcastEvents(ws, broadcastPlans.get(req)!, params.id!, ctx),
  },
];

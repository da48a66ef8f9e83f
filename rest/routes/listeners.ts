/**
 * Broadcast listeners: the listen view and listener tokens, the subscribe socket that follows one recording, and a
 * broadcast's events socket (which recording to follow next).
 */
import type { IncomingMessage } from 'node:http';
import { CreateListenerTokenDocument, ListenerBroadcastDocument } from '../../src/generated/graphql.js';
import { parseTokenRequest } from '../../src/listeners/service.js';
import {
  planBroadcastEvents, planSubscription, serveBroadcastEvents, serveSubscription, type BroadcastEventsPlan, type SubscribePlan,
} from '../../src/listeners/index.js';
import { single } from '../query.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

const listenerTokenParam = { name: 'listenerToken', in: 'query' as const, schema: { type: 'string' },
  description: 'A private broadcast\'s listener token.' };
const shareCodeParam = { name: 'shareCode', in: 'query' as const, schema: { type: 'string' },
  description: 'A share link of the broadcast.' };
const broadcastNotFound = { status: 404, code: 'not_found', description: 'No broadcast has ever had this code, or it is archived (its '
  + 'links are dead).' };
const presenceParam = { name: 'presence', in: 'query' as const, schema: { type: 'string' } };

/** What each upgrade's check decided, for the connection that follows it. */
const plans = new WeakMap<IncomingMessage, SubscribePlan>();
const broadcastPlans = new WeakMap<IncomingMessage, BroadcastEventsPlan>();
const searchParams = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://localhost').searchParams;

export const listenerRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/listen/{code}', operationId: 'getListenerBroadcast', tags: ['broadcasts'],
    auth: { mode: 'public', scopes: [] },
    parameters: [listenerTokenParam, shareCodeParam],
    document: ListenerBroadcastDocument,
    variables: ({ params, query }) => ({
      code: params.code!, listenerToken: single(query.listenerToken), shareCode: single(query.shareCode),
    }),
    response: { status: 200, description: 'The broadcast.' },
    errors: [broadcastNotFound, { status: 401, code: 'invalid_token' }],
  }),
  graphqlRoute({
    method: 'post', path: '/v1/listen/{code}/token', operationId: 'createListenerToken', tags: ['broadcasts'],
    auth: { mode: 'public', scopes: [] },
    document: CreateListenerTokenDocument,
    variables: ({ params, body }) => ({ code: params.code!, password: parseTokenRequest(body).password }),
    request: { schema: {
      type: 'object', additionalProperties: false,
      properties: { password: { type: 'string', nullable: true, description: 'Required for a private broadcast.' } },
    } },
    response: { status: 201, description: 'The token.' },
    errors: [broadcastNotFound, { status: 400, code: 'invalid_options' }, { status: 403, code: 'forbidden' },
      { status: 429, code: 'rate_limited' }],
  }),
  {
    method: 'ws', path: '/v1/recordings/{id}/subscribe', operationId: 'subscribeRecording', tags: ['recordings'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [
      { name: 'lang', in: 'query', schema: { type: 'string' } }, { name: 'voice', in: 'query', schema: { type: 'string' } },
      { name: 'after', in: 'query', schema: { type: 'integer', minimum: -1 } }, { name: 'audio', in: 'query', schema: { type: 'boolean' } },
      presenceParam, shareCodeParam, listenerTokenParam,
    ],
    errors: [
      { status: 404, code: 'not_found' }, { status: 401, code: 'invalid_token' }, { status: 400, code: 'invalid_options' },
      { status: 403, code: 'forbidden' },
    ],
    frames: {
      server: [
        { type: 'subscribe.ready' }, { type: 'transcript.committed' }, { type: 'transcript.amended' }, { type: 'transcript.corrected' },
        { type: 'transcript.sentence' }, { type: 'transcript.translated' }, { type: 'recording.state' }, { type: 'noop' },
        { type: 'subscribe.gap' }, { type: 'subscribe.updated' }, { type: 'error' },
      ],
      client: [{ type: 'subscribe.update' }],
    },
    authorize: async (req, params, ctx) => {
      plans.set(req, await planSubscription(searchParams(req), params.id!, ctx));
    },
    onConnection: (ws, req, params, ctx) => serveSubscription(ws, plans.get(req)!, params.id!, ctx),
  },
  {
    method: 'ws', path: '/v1/broadcasts/{id}/events', operationId: 'broadcastEvents', tags: ['broadcasts'],
    auth: { mode: 'optional', scopes: ['read'] },
    parameters: [shareCodeParam, listenerTokenParam, presenceParam],
    errors: [{ status: 404, code: 'not_found' }, { status: 401, code: 'invalid_token' }],
    frames: { server: [{ type: 'events.ready' }, { type: 'recording.started' }, { type: 'recording.state' }] },
    authorize: async (req, params, ctx) => {
      broadcastPlans.set(req, await planBroadcastEvents(searchParams(req), params.id!, ctx));
    },
    onConnection: (ws, req, params, ctx) => serveBroadcastEvents(ws, broadcastPlans.get(req)!, params.id!, ctx),
  },
];

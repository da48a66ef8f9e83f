/** RTMP ingest: the account's stream key and status, its rotation, and the signed monitor stream (src/live/rtmp-ingests.ts). */
import { RotateRtmpKeyDocument, RtmpDocument } from '../../src/generated/graphql.js';
import { single } from '../query.js';
import { sendMonitorMp3 } from '../rtmp-monitor.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

export const rtmpRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/rtmp', operationId: 'getRtmp', tags: ['rtmp'],
    document: RtmpDocument, variables: () => ({}), response: { status: 200, description: 'The RTMP status record.' },
  }),
  graphqlRoute({
    method: 'post', path: '/v1/rtmp/key', operationId: 'rotateRtmpKey', tags: ['rtmp'],
    document: RotateRtmpKeyDocument, variables: () => ({}),
    response: { status: 200, description: 'The RTMP status record with the new `streamKey`.' },
  }),
  {
    method: 'get', path: '/v1/rtmp/monitor', operationId: 'getRtmpMonitor', tags: ['rtmp'],
    auth: { mode: 'public', scopes: [] },
    parameters: [
      { name: 'account', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
      { name: 'exp', in: 'query', required: true, schema: { type: 'integer', minimum: 0 } },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
    ],
    response: { status: 200, description: 'MP3 (mono, 64 kb/s) for as long as the publish lasts.', contentType: 'audio/mpeg' },
    errors: [{ status: 403, code: 'forbidden' }, { status: 404, code: 'not_found' }],
    handler: async (req, res, ctx) => {
      const { account, exp, sig } = req.query;
      sendMonitorMp3(res, await ctx.services.rtmp.monitor({ account: single(account), exp: single(exp), sig: single(sig) }));
    },
  },
];

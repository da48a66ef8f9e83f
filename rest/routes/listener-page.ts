/**
 * The listener page behind a broadcast's `shareUrl` (`<server>/b/<code>`) and its assets, served from
 * rest/pages/listener/ (serve.ts says how), outside the API's document.
 */
import { sendListenerPage, sendListenerPageAsset } from '../pages/listener/serve.js';
import type { RouteSpec } from '../types.js';

export const listenerPageRoutes: RouteSpec[] = [
  {
    method: 'get', path: '/b/{code}', operationId: 'getListenerPage', tags: ['broadcasts'], undocumented: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    handler: (req, res, ctx) => sendListenerPage(req, res, ctx.config.publicUrl),
  },
  {
    method: 'get', path: '/b/_assets/{asset}', operationId: 'getListenerPageAsset', tags: ['broadcasts'], undocumented: true,
    auth: { mode: 'public', scopes: [] },
    response: {
      status: 200, description: '`listener.js` and `sdk-subscribe.js` (ES modules) or `listener.css`.', contentType: 'text/javascript',
    },
    handler: ({ params }, res) => sendListenerPageAsset(res, String(params.asset)),
  },
];

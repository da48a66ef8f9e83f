/** GraphiQL's script, styles and editor workers, served from the npm package (src/core/graphiql.ts): no CDN at run time. */
import { errors } from '../../src/core/errors.js';
import { graphiqlAsset } from '../../src/core/graphiql.js';
import type { RouteSpec } from '../types.js';

export const graphiqlRoutes: RouteSpec[] = [
  {
    method: 'get', path: '/graphiql/{asset}', operationId: 'getGraphiqlAsset', tags: ['meta'], undocumented: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'A static asset.', contentType: 'application/octet-stream' },
    handler: async (req, res) => {
      const asset = await graphiqlAsset(String(req.params.asset));
      if (!asset) throw errors.notFound('GraphiQL asset');
      res.setHeader('Content-Type', asset.contentType);
      res.setHeader('Cache-Control', 'public, max-age=86400');
      res.status(200).end(asset.body);
    },
  },
];

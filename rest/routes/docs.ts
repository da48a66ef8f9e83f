/** The machine-readable description, its interactive reference, and RFC 9728 protected-resource metadata. */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { buildOpenApi } from '../openapi.js';
import { requestBaseUrl } from '../../src/core/base-url.js';
import { ProtectedResourceDocument } from '../../src/generated/graphql.js';
import { errors } from '../../src/core/errors.js';
import { graphqlRoute, type RouteEntry, type RouteSpec } from '../types.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerAssets = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
/** The allowed assets' bytes, read on first request and kept (the files of an installed package do not change). */
const swaggerAssetCache = new Map<string, Buffer>();

function swaggerAsset(asset: string): Buffer {
  let bytes = swaggerAssetCache.get(asset);
  if (!bytes) {
    bytes = fs.readFileSync(path.join(swaggerDir, asset));
    swaggerAssetCache.set(asset, bytes);
  }
  return bytes;
}

const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>speechgate API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui', deepLinking: true, validatorUrl: null });</script>
</body></html>`;

export const docsRoutes: RouteSpec[] = [
  {
    method: 'get', path: '/v1/openapi.json', operationId: 'getOpenApi', tags: ['meta'],
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'OpenAPI 3.0 document.', schema: { type: 'object' } },
    handler: (req, res, ctx) => {
      // The routes this app serves (createApp sets them; it may be given more than the table, e.g. in tests).
      const served = req.app.locals.routes as RouteEntry[];
      res.json(buildOpenApi(served, requestBaseUrl(req, ctx.config.publicUrl)));
    },
  },
  {
    method: 'get', path: '/docs', operationId: 'getDocs', tags: ['meta'], undocumented: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    handler: (_req, res) => {
      res.type('html').send(docsPage);
    },
  },
  {
    method: 'get', path: '/docs/{asset}', operationId: 'getDocsAsset', tags: ['meta'], undocumented: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'A static asset.', contentType: 'application/octet-stream' },
    handler: (req, res) => {
      const asset = String(req.params.asset);
      if (!swaggerAssets.has(asset)) throw errors.notFound('Documentation asset');
      res.type(path.extname(asset)).send(swaggerAsset(asset));
    },
  },
  graphqlRoute({
    method: 'get', path: '/.well-known/oauth-protected-resource', operationId: 'getProtectedResourceMetadata', tags: ['meta'],
    auth: { mode: 'public', scopes: [] },
    response: {
      status: 200, description: 'RFC 9728 metadata.',
      schema: {
        type: 'object', required: ['resource'],
        properties: { resource: { type: 'string' }, authorization_servers: { type: 'array', items: { type: 'string' } } },
      },
    },
    document: ProtectedResourceDocument,
    // RFC 9728 spells its fields in snake_case; GraphQL names them in camelCase.
    result: ({ protectedResource: metadata }) => ({
      status: 200,
      body: {
        resource: metadata.resource,
        authorization_servers: metadata.authorizationServers,
        bearer_methods_supported: metadata.bearerMethodsSupported,
        scopes_supported: metadata.scopesSupported,
        resource_documentation: metadata.resourceDocumentation,
        ...(metadata.localIssuer ? {
          'x-local-issuer': { issuer: metadata.localIssuer.issuer, jwks_uri: metadata.localIssuer.jwksUri },
        } : {}),
      },
    }),
  }),
];

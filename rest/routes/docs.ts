/** The machine-readable description, its interactive reference (rest/pages/docs), and RFC 9728 protected-resource metadata. */
import { buildOpenApi } from '../openapi.js';
import { requestBaseUrl } from '../../src/core/base-url.js';
import { ProtectedResourceDocument } from '../../src/generated/graphql.js';
import { sendDocsAsset, sendDocsPage } from '../pages/docs/reference.js';
import { graphqlRoute, type RouteEntry, type RouteSpec } from '../types.js';

export const docsRoutes: RouteSpec[] = [
  {
    method: 'get', path: '/v1/openapi.json', operationId: 'getOpenApi', tags: ['meta'], auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'OpenAPI 3.0 document.', schema: { type: 'object' } },
    handler: (req, res, ctx) => {
      // The routes this app serves (createApp sets them; it may be given more than the table, e.g. in tests).
      const served = req.app.locals.routes as RouteEntry[];
      res.json(buildOpenApi(served, requestBaseUrl(req, ctx.config.publicUrl)));
    },
  },
  {
    method: 'get', path: '/docs', operationId: 'getDocs', tags: ['meta'], undocumented: true, auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    handler: (_req, res) => sendDocsPage(res),
  },
  {
    method: 'get', path: '/docs/{asset}', operationId: 'getDocsAsset', tags: ['meta'], undocumented: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 200, description: 'A static asset.', contentType: 'application/octet-stream' },
    handler: (req, res) => sendDocsAsset(res, String(req.params.asset)),
  },
  graphqlRoute({
    method: 'get', path: '/.well-known/oauth-protected-resource', operationId: 'getProtectedResourceMetadata', tags: ['meta'],
    auth: { mode: 'public', scopes: [] }, document: ProtectedResourceDocument,
    response: {
      status: 200, description: 'RFC 9728 metadata.',
      schema: {
        type: 'object', required: ['resource'],
        properties: { resource: { type: 'string' }, authorization_servers: { type: 'array', items: { type: 'string' } } },
      },
    },
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

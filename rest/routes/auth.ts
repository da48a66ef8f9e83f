/** The built-in issuer's public keys, so other services can verify the tokens it signs. */
import { LocalIssuerJwksDocument } from '../../src/generated/graphql.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

export const authRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/auth/jwks.json', operationId: 'getLocalIssuerJwks', tags: ['auth'], auth: { mode: 'public', scopes: [] },
    document: LocalIssuerJwksDocument, response: { status: 200, description: 'JSON Web Key Set.', schema: {
      type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } },
    } },
    errors: [{ status: 404, code: 'not_found' }],
  }),
];

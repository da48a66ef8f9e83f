/** `GET /v1/search`: sentence search over the owner's transcriptions and broadcasts, or (a listener) broadcasts named by code. */
import { SearchDocument } from '../../src/generated/graphql.js';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY } from '../../src/search/service.js';
import { intParam, single } from '../query.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

export const searchRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/search', operationId: 'search', tags: ['search'],
    auth: { mode: 'optional', scopes: ['read'] }, textValues: { SEARCH_DEFAULT_LIMIT },
    parameters: [
      { name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: SEARCH_MAX_QUERY } },
      { name: 'lang', in: 'query', schema: { type: 'string' } }, { name: 'transcriptionId', in: 'query', schema: { type: 'string' } },
      { name: 'broadcast', in: 'query', schema: { type: 'string' } }, { name: 'listenerToken', in: 'query', schema: { type: 'string' } },
      { name: 'cursor', in: 'query', schema: { type: 'string' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_LIMIT } },
    ],
    document: SearchDocument,
    variables: ({ query }) => {
      const broadcast = single(query.broadcast);
      return {
        q: single(query.q) ?? '', lang: single(query.lang), transcriptionId: single(query.transcriptionId), cursor: single(query.cursor),
        broadcast: broadcast === undefined ? undefined : [broadcast], listenerToken: single(query.listenerToken),
        limit: intParam(query, 'limit', `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}.`,
          { minimum: 1, maximum: SEARCH_MAX_LIMIT }),
      };
    },
    response: { status: 200, description: 'One page of hits, best first.' },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 404, code: 'not_found' }],
  }),
];

/** The caller and the account's API keys. */
import {
  ApiKeysDocument, CreateApiKeyDocument, MeDocument, MeFieldsFragmentDoc, NewApiKeyFieldsFragmentDoc, RevokeApiKeyDocument,
} from '../../src/generated/graphql.js';
import { createApiKeyFields, MAX_KEY_NAME } from '../../src/account/service.js';
import { ref } from '../schemas.js';
import { fragmentSchema, inputSchema, listSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

export const accountRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/me', operationId: 'getMe', tags: ['account'], auth: { mode: 'userOrKey', scopes: [] }, document: MeDocument,
    response: { status: 200, description: 'The caller.', schema: fragmentSchema(MeFieldsFragmentDoc, {
      principal: ref('Principal'), principals: { type: 'array', items: ref('Principal') },
    }) },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/api-keys', operationId: 'listApiKeys', tags: ['account'],
    document: ApiKeysDocument, result: (data) => ({ status: 200, body: { apiKeys: data.apiKeys } }),
    response: { status: 200, description: 'The keys (never their secrets).', schema: listSchema('apiKeys', ref('ApiKey')) },
  }),
  graphqlRoute({
    method: 'post', path: '/v1/api-keys', operationId: 'createApiKey', tags: ['account'], idempotent: true, textValues: { MAX_KEY_NAME },
    document: CreateApiKeyDocument, variables: ({ body }) => ({ input: createApiKeyFields(body) }),
    request: { schema: inputSchema('CreateApiKeyInput') },
    response: { status: 201, description: 'The new key.', schema: fragmentSchema(NewApiKeyFieldsFragmentDoc, { apiKey: ref('ApiKey') }) },
    errors: [{ status: 400, code: 'invalid_options' }, { status: 403, code: 'forbidden' }, { status: 422, code: 'invalid_body' }],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/api-keys/{id}', operationId: 'revokeApiKey', tags: ['account'],
    document: RevokeApiKeyDocument, variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The revoked key.', schema: ref('ApiKey') },
    errors: [{ status: 403, code: 'forbidden' }, { status: 404, code: 'not_found' }],
  }),
];

/** The caller and the account's API keys. */
import {
  ApiKeysDocument, CreateApiKeyDocument, MeDocument, MeFieldsFragmentDoc, NewApiKeyFieldsFragmentDoc, RevokeApiKeyDocument,
} from '../../src/generated/graphql.js';
import { errors } from '../../src/core/errors.js';
import { MAX_KEY_NAME } from '../../src/account/service.js';
import { ref } from '../schemas.js';
import { fragmentSchema, inputSchema, listSchema } from '../shapes.js';
import { graphqlRoute, type RouteSpec } from '../types.js';

/** A body that is not a JSON object never gets here: the router refuses it first (400 `invalid_options` naming `body`). */
function createKeyInput(body: unknown) {
  if (body === undefined || body === null) return {};
  const { name, scopes, expiresAt, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) throw errors.invalidBody(`Unknown field: ${unknown[0]}.`, { field: unknown[0] });
  if (name !== undefined && name !== null && typeof name !== 'string') {
    throw errors.invalidBody('name must be a string.', { field: 'name' });
  }
  if (scopes !== undefined && scopes !== null && (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string'))) {
    throw errors.invalidBody('scopes must be an array of strings.', { field: 'scopes' });
  }
  if (expiresAt !== undefined && expiresAt !== null && (typeof expiresAt !== 'string' || Number.isNaN(Date.parse(expiresAt)))) {
    throw errors.invalidBody('expiresAt must be an RFC 3339 timestamp.', { field: 'expiresAt' });
  }
  return {
    name: name as string | null | undefined, scopes: scopes as string[] | null | undefined,
    expiresAt: expiresAt as string | null | undefined,
  };
}

export const accountRoutes: RouteSpec[] = [
  graphqlRoute({
    method: 'get', path: '/v1/me', operationId: 'getMe', tags: ['account'],
    auth: { mode: 'userOrKey', scopes: [] },
    document: MeDocument,
    response: {
      status: 200, description: 'The caller.',
      schema: fragmentSchema(MeFieldsFragmentDoc, { principal: ref('Principal'), principals: { type: 'array', items: ref('Principal') } }),
    },
  }),
  graphqlRoute({
    method: 'get', path: '/v1/api-keys', operationId: 'listApiKeys', tags: ['account'],
    auth: { mode: 'userOrKey', scopes: ['read'] },
    document: ApiKeysDocument,
    result: (data) => ({ status: 200, body: { apiKeys: data.apiKeys } }),
    response: { status: 200, description: 'The keys (never their secrets).', schema: listSchema('apiKeys', ref('ApiKey')) },
  }),
  graphqlRoute({
    method: 'post', path: '/v1/api-keys', operationId: 'createApiKey', tags: ['account'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: CreateApiKeyDocument,
    idempotent: true,
    variables: ({ body }) => ({ input: createKeyInput(body) }),
    request: { schema: inputSchema('CreateApiKeyInput') },
    response: { status: 201, description: 'The new key.', schema: fragmentSchema(NewApiKeyFieldsFragmentDoc, { apiKey: ref('ApiKey') }) },
    errors: [
      { status: 400, code: 'invalid_options', description: `An unknown scope or none, a blank name or one over ${MAX_KEY_NAME} `
        + `characters, or \`expiresAt\` not in the future; \`details.field\` names it.` },
      { status: 403, code: 'forbidden' }, { status: 422, code: 'invalid_body' },
    ],
  }),
  graphqlRoute({
    method: 'delete', path: '/v1/api-keys/{id}', operationId: 'revokeApiKey', tags: ['account'],
    auth: { mode: 'userOrKey', scopes: ['write'] },
    document: RevokeApiKeyDocument,
    variables: ({ params }) => ({ id: params.id! }),
    response: { status: 200, description: 'The revoked key.', schema: ref('ApiKey') },
    errors: [{ status: 403, code: 'forbidden' }, { status: 404, code: 'not_found' }],
  }),
];

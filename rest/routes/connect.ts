/**
 * Connect (OAuth 2.0 authorization code with PKCE → an API key): the consent page a signed-in person approves an
 * app on (rest/pages/connect/authorize.ts), the token endpoint that swaps the code for a key, and the
 * authorization-server metadata (RFC 8414) (rest/connect.ts).
 */
import { requestBaseUrl } from '../../src/core/base-url.js';
import { authorizationServerMetadata, redeemCode } from '../connect.js';
import { answerConsent, showConsent } from '../pages/connect/authorize.js';
import type { RouteSpec } from '../types.js';

export const connectRoutes: RouteSpec[] = [
  {
    method: 'get', path: '/connect/authorize', operationId: 'getConnectAuthorize', tags: ['connect'], undocumented: true,
    auth: { mode: 'public', scopes: [] }, response: { status: 200, description: 'HTML page.', contentType: 'text/html' },
    handler: showConsent,
  },
  {
    method: 'post', path: '/connect/authorize', operationId: 'postConnectAuthorize', tags: ['connect'], undocumented: true, ownBody: true,
    auth: { mode: 'public', scopes: [] },
    response: { status: 303, description: 'Back to the app\'s redirect_uri with `code` and `state`, or `error=access_denied`.' },
    handler: answerConsent,
  },
  {
    method: 'get', path: '/.well-known/oauth-authorization-server', operationId: 'getAuthorizationServerMetadata', tags: ['meta'],
    auth: { mode: 'public', scopes: [] },
    response: {
      status: 200, description: 'RFC 8414 metadata; `issuer` is this server\'s address.',
      schema: {
        type: 'object', required: ['issuer', 'authorization_endpoint', 'token_endpoint'],
        properties: { issuer: { type: 'string' }, authorization_endpoint: { type: 'string' }, token_endpoint: { type: 'string' } },
      },
    },
    handler: (req, res, ctx) => {
      res.json(authorizationServerMetadata(requestBaseUrl(req, ctx.config.publicUrl)));
    },
  },
  {
    method: 'post', path: '/v1/connect/token', operationId: 'redeemConnectCode', tags: ['connect'], ownBody: true,
    auth: { mode: 'public', scopes: [] },
    request: {
      contentType: 'application/x-www-form-urlencoded',
      schema: {
        type: 'object', required: ['grant_type', 'code', 'code_verifier', 'redirect_uri'],
        properties: {
          grant_type: { type: 'string', enum: ['authorization_code'] },
          code: { type: 'string', description: 'The `code` sent to the redirect_uri.' },
          code_verifier: { type: 'string', description: 'The PKCE verifier (43–128 characters) whose S256 is the `code_challenge`.' },
          redirect_uri: { type: 'string', description: 'Exactly the redirect_uri of the authorization request.' },
          client_id: { type: 'string', description: 'Optional; when given, exactly the client_id of the authorization request.' },
        },
      },
      alternatives: [{
        contentType: 'application/json',
        schema: {
          type: 'object', required: ['grant_type', 'code', 'code_verifier', 'redirect_uri'],
          properties: {
            grant_type: { type: 'string', description: '`authorization_code`.' }, code: { type: 'string' },
            code_verifier: { type: 'string' }, redirect_uri: { type: 'string' }, client_id: { type: 'string' },
          },
        },
      }],
    },
    response: {
      status: 200, description: 'The access token: a new API key (it does not expire; revoke it like any key).',
      schema: {
        type: 'object', required: ['access_token', 'token_type', 'scope'],
        properties: {
          access_token: { type: 'string' }, token_type: { type: 'string', enum: ['Bearer'] },
          scope: { type: 'string', description: 'The approved scopes, space-separated.' },
        },
      },
    },
    errors: [
      { status: 400, code: 'invalid_grant' }, { status: 400, code: 'invalid_request' }, { status: 400, code: 'unsupported_grant_type' },
      { status: 403, code: 'key_from_browser' },
    ],
    protocolError: {
      type: 'object', required: ['error', 'error_description'], additionalProperties: false, description: 'The OAuth 2.0 error form (RFC '
        + '6749 section 5.2).',
      properties: {
        error: { type: 'string', enum: ['invalid_grant', 'invalid_request', 'unsupported_grant_type', 'key_from_browser'] },
        error_description: { type: 'string' },
      },
    },
    handler: redeemCode,
  },
];

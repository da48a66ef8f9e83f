/**
 * `POST /v1/mcp`: the MCP server (src/mcp/server.ts) as a route of the table, so it is judged, run and described
 * like every other route. A request without a usable credential is answered 401 with the RFC 9728 challenge
 * (`useBearerChallenge`, mounted by the app before the router) that tells an MCP client where the
 * protected-resource metadata is (`GET /.well-known/oauth-protected-resource`, rest/routes/docs.ts).
 */
import type { RequestHandler } from 'express';
import { requestBaseUrl } from '../../src/core/base-url.js';
import { handleMcpRequest } from '../../src/mcp/index.js';
import type { RouteSpec } from '../types.js';

export const MCP_PATH = '/v1/mcp';
const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * Adds `WWW-Authenticate: Bearer resource_metadata="<base>/.well-known/oauth-protected-resource"` to the answer of a
 * request whose credential is missing or refused with a 401; the route's auth then answers the 401 envelope.
 */
export function useBearerChallenge(publicUrl: string | null): RequestHandler {
  return (req, res, next) => {
    const { identity, credentialError } = req.sg;
    if (!identity && (!credentialError || credentialError.status === 401)) {
      res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${requestBaseUrl(req, publicUrl)}${PROTECTED_RESOURCE_PATH}"`);
    }
    next();
  };
}

const mcpErrors = [
  { status: 400, code: 'jsonrpc', description: 'Not JSON or not a JSON-RPC message: a JSON-RPC error body (`-32700`), from the MCP SDK.' },
  { status: 406, code: 'jsonrpc', description: '`Accept` must list both `application/json` and `text/event-stream`.' },
  { status: 415, code: 'jsonrpc', description: 'The body must be `application/json`.' },
];

export const mcpRoutes: RouteSpec[] = [
  {
    method: 'post', path: MCP_PATH, operationId: 'mcp', tags: ['meta'],
    auth: { mode: 'userOrKey', scopes: [] },
    ownBody: true,
    request: { description: 'A JSON-RPC 2.0 message of MCP.', schema: { type: 'object', required: ['jsonrpc'] }, required: true },
    response: { status: 200, description: 'The JSON-RPC answer, as `application/json` or a `text/event-stream` of notifications then the '
      + 'answer.', contentType: 'text/event-stream' },
    errors: mcpErrors,
    protocolError: {
      type: 'object', required: ['jsonrpc', 'error'], additionalProperties: false, description: 'A JSON-RPC 2.0 error answer (from the '
        + 'MCP SDK).',
      properties: {
        jsonrpc: { type: 'string', enum: ['2.0'] },
        error: {
          type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
        },
        id: { oneOf: [{ type: 'string', nullable: true }, { type: 'integer' }], description: 'The request\'s id; null when it could not '
          + 'be read.' },
      },
    },
    handler: (req, res, ctx, run) => handleMcpRequest(req, res, ctx, run),
  },
];

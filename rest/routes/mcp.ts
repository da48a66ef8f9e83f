/**
 * `POST /v1/mcp`: the MCP server (src/mcp/server.ts) as a route of the table, so it is judged, run and described
 * like every other route. A request without a usable credential is answered 401 with the RFC 9728 challenge
 * (`useBearerChallenge`, rest/middleware/bearer-challenge.ts, mounted by the app before the router).
 */
import { handleMcpRequest } from '../../src/mcp/index.js';
import type { RouteSpec } from '../types.js';

export const MCP_PATH = '/v1/mcp';

export const mcpRoutes: RouteSpec[] = [
  {
    method: 'post', path: MCP_PATH, operationId: 'mcp', tags: ['meta'], ownBody: true, auth: { mode: 'userOrKey', scopes: [] },
    request: { description: 'A JSON-RPC 2.0 message of MCP.', schema: { type: 'object', required: ['jsonrpc'] }, required: true },
    response: { status: 200, description: 'The JSON-RPC answer, as `application/json` or a `text/event-stream` of notifications then the '
      + 'answer.', contentType: 'text/event-stream' },
    errors: [{ status: 400, code: 'jsonrpc' }, { status: 406, code: 'jsonrpc' }, { status: 415, code: 'jsonrpc' }],
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

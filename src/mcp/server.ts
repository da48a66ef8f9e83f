/**
 * `/v1/mcp`: the Model Context Protocol over Streamable HTTP (the official SDK's transport), stateless: every POST
 * gets its own server and transport built for that caller, so concurrent clients never share state and any gateway
 * process behind a load balancer answers any request (GET and DELETE, which only sessions use, are the SDK's 405).
 *
 * Served as a route of the REST table (rest/routes/mcp.ts), so the caller is judged as for every route (API keys,
 * and the access tokens of the OAuth connect flow, which are keys too) and operations run through the same runner
 * with the same context. Tools: src/mcp/tools.ts; transcripts as resources below.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../core/context.js';
import { toApiError } from '../core/errors.js';
import { requireScope } from '../core/identity/scopes.js';
import { RecordingTranscriptDocument, TranscriptionsDocument } from '../generated/graphql.js';
import type { Run } from './operations.js';
import { registerTools } from './tools.js';
import { transcriptText } from './transcript.js';
import { VERSION } from '../core/version.js';


/** The version this server reports in `initialize`. */
const SERVER_INFO = { name: 'speechgate', version: VERSION };
const TRANSCRIPT_URI = 'speechgate://recordings/{recordingId}/transcript';
/** Base64 grows a file by 4/3: a body holds an upload of this many bytes at most (below limits.maxUploadBytes). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A resource read that is refused: the JSON-RPC error carries the API's code and message. */
function resourceError(error: unknown): McpError {
  const refusal = toApiError(error);
  return new McpError(
    refusal.status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError, `${refusal.code}: ${refusal.message}`,
    { code: refusal.code, status: refusal.status },
  );
}

/** Transcripts as resources: listed from the caller's transcriptions (first page), read as text lines. */
function registerTranscripts(server: McpServer, ctx: Context, run: Run): void {
  const template = new ResourceTemplate(TRANSCRIPT_URI, {
    list: async () => {
      try {
        requireScope(ctx, 'read');
        const { transcriptions } = await run(TranscriptionsDocument, { limit: 100 });
        return {
          resources: transcriptions.items.filter((item) => item.recordingId).map((item) => ({
            uri: TRANSCRIPT_URI.replace('{recordingId}', item.recordingId!),
            name: item.name,
            mimeType: 'text/plain',
            description: `Transcript of "${item.name}" (${item.kind}, ${item.job?.state ?? 'live'})`,
          })),
          ...(transcriptions.nextCursor ? { nextCursor: transcriptions.nextCursor } : {}),
        };
      } catch (error) {
        throw resourceError(error);
      }
    },
  });
  server.registerResource('transcript', template, {
    title: 'Transcript of a recording', mimeType: 'text/plain', description: 'One line per sentence: time, speaker, text. Needs the '
      + '"read" scope.',
  }, async (uri, variables) => {
    try {
      requireScope(ctx, 'read');
      const { recordingTranscript } = await run(RecordingTranscriptDocument, { recordingId: String(variables.recordingId) });
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: transcriptText(recordingTranscript) }] };
    } catch (error) {
      throw resourceError(error);
    }
  });
}

/**
 * Answers one MCP request (a POST of JSON-RPC) for the caller of `ctx`, whose operations `run` executes; the body
 * is read and checked by the SDK's transport (bad JSON and bad JSON-RPC are its 400 errors).
 */
export async function handleMcpRequest(req: IncomingMessage, res: ServerResponse, ctx: Context, run: Run): Promise<void> {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {}, resources: {} } });
  registerTools(server, ctx, run);
  registerTranscripts(server, ctx, run);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: MAX_BODY_BYTES });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

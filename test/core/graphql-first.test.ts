/**
 * GraphQL first: every JSON route of the table runs a typed GraphQL operation; the handler routes are the
 * documented exceptions (binary media, redirects, the multipart upload that streams its file, documents and page
 * assets). Inputs are typed: `JSON` appears as an argument or input field only where the value is an open map.
 */
import { getNamedType, isInputObjectType, type GraphQLArgument, type GraphQLInputField } from 'graphql';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../rest/route-table.js';
import { schema } from '../../src/graphql-schema.js';

/** method + path of the routes served by a handler, and why (README "binary routes are the exceptions"). */
const HANDLER_EXCEPTIONS: Record<string, string> = {
  'post /v1/transcriptions': 'multipart upload streamed to storage, then CreateTranscription with it as `file` (the JSON url form runs it '
    + 'too)',
  'post /v1/transcriptions/{id}/recordings/upload': 'multipart upload streamed to storage, then UploadRecording with it as `file`',
  'get /v1/recordings/{id}/job/preview': 'binary media',
  'get /v1/recordings/{id}/export': 'binary file',
  'get /v1/recordings/{id}/audio': '302 redirect to a signed URL',
  'get /v1/media/{id}/{file}': 'binary media',
  'get /v1/recordings/{id}/audio/clip': 'binary WAV',
  'get /v1/openapi.json': 'the description of the REST table itself',
  'get /docs': 'HTML page',
  'get /docs/{asset}': 'page asset',
  'get /graphiql/{asset}': 'page asset',
  'get /b/{code}': 'HTML page (the listener page behind a broadcast\'s shareUrl)',
  'get /b/_assets/{asset}': 'page asset',
  'post /v1/voices': 'multipart upload: the sample streamed to storage, then CreateVoice with it as `sample`',
  'get /v1/voices/preview': 'binary audio',
  'get /v1/voices/{id}/preview': 'binary audio',
  'get /v1/voices/{id}/sample': 'binary audio with ranges',
  'get /v1/recordings/{id}/voice/{sentence}': 'binary audio',
  'get /v1/rtmp/monitor': 'live MP3 stream of the incoming RTMP audio',
  'get /connect/authorize': 'HTML page (the Connect consent page)',
  'post /connect/authorize': 'HTML form post answered with a 303 redirect to the app',
  'get /.well-known/oauth-authorization-server': 'RFC 8414 document (Connect)',
  'post /v1/connect/token': 'OAuth 2.0 token endpoint: form-encoded body, OAuth error form',
  'get /metrics': 'Prometheus text format for a scraper, not JSON; outside /v1',
  'get /v1/health/ready': 'readiness probe: its answer is 200 or 503 with the same body (a load balancer reads the status)',
  'post /v1/billing/webhooks/stripe': 'Stripe webhook: the signature covers the raw body bytes, verified before anything is parsed',
  'post /v1/mcp': 'MCP JSON-RPC over Streamable HTTP (the SDK reads the body); its tools run the GraphQL operations through `run`',
};

/** Input positions where JSON is the honest type: an open map. */
const OPEN_MAP_INPUTS = new Set([
  'RealtimeSessionOptionsInput.voiceByLang', 'SettingsPatchInput.voiceByLang', 'RecordingSettingsInput.voiceByLang',
]);

describe('GraphQL first', () => {
  it('every JSON route runs a GraphQL operation; handlers are the listed exceptions', () => {
    const handlers = routeTable.filter((route) => 'handler' in route).map((route) => `${route.method} ${route.path}`);
    expect(handlers.sort()).toEqual(Object.keys(HANDLER_EXCEPTIONS).sort());
    const realtime = routeTable.find((route) => route.method === 'post' && route.path === '/v1/realtime/sessions');
    expect(realtime && 'document' in realtime).toBe(true);
  });

  it('takes no untyped JSON input except open maps', () => {
    const positions: string[] = [];
    const check = (owner: string, input: GraphQLArgument | GraphQLInputField) => {
      if (getNamedType(input.type).name === 'JSON') positions.push(`${owner}.${input.name}`);
    };
    for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      for (const field of Object.values(root?.getFields() ?? {})) for (const arg of field.args) check(`${root!.name}.${field.name}`, arg);
    }
    for (const type of Object.values(schema.getTypeMap())) {
      if (isInputObjectType(type) && !type.name.startsWith('__')) {
        for (const field of Object.values(type.getFields())) check(type.name, field);
      }
    }
    expect(positions.filter((position) => !OPEN_MAP_INPUTS.has(position))).toEqual([]);
  });

  it('answers typed outputs: JSON only where it is argued (docs/architecture.md "GraphQL first")', () => {
    const untyped: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!('getFields' in type) || isInputObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values((type as { getFields(): Record<string, { type: GraphQLArgument['type'] }> }).getFields())) {
        if (getNamedType(field.type).name === 'JSON') untyped.push(`${type.name}.${(field as unknown as { name: string }).name}`);
      }
    }
    expect(untyped.sort()).toEqual([
      'ApiError.details', // free-form by the spec
      'Query.localIssuerJwks', // an RFC 7517 key set
    ]);
  });

  it('names the spec\'s fields on the typed inputs', () => {
    const fields = (name: string) => Object.keys((schema.getType(name) as { getFields(): Record<string, unknown> }).getFields()).sort();
    expect(fields('CreateShareLinkInput')).toEqual(['allowDownload', 'allowExport', 'allowTranslate', 'label']);
    expect(fields('CreateTranscriptionInput')).toEqual(['crop', 'durationS', 'endS', 'name', 'settings', 'shareLink', 'startS', 'url']);
    expect(fields('SettingsPatchInput')).toEqual(['confidencePolicy', 'speakerLabels', 'spokenLanguage', 'voiceByLang']);
    expect(fields('ConfidencePolicyInput')).toEqual(['hideBelow', 'lowThreshold', 'suppressCount']);
    expect(fields('CropWindowInput')).toEqual(['endS', 'startS']);
    expect(fields('RealtimeSessionOptionsInput')).toEqual([
      'latencyMode', 'llmFix', 'speakerLabels', 'spokenLanguage', 'translate', 'voice', 'voiceByLang',
    ]);
  });
});

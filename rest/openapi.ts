/**
 * `/v1/openapi.json` from the route table: OpenAPI 3.0, this host in `servers`, WebSocket frames under
 * `x-websocket`, and the two auth vendor extensions (`x-auth-mode`, `x-auth-scopes`) on every operation.
 */
import { components, ref } from './schemas.js';
import type { JsonSchema, RouteEntry } from './types.js';

const GENERIC_ERRORS: Record<string, string> = {
  '400': 'Bad request (`invalid_options`); the message names the field.',
  '401': '`invalid_token`, `key_expired`, `key_revoked`.',
  '403': '`forbidden` (names the missing scope), `key_from_browser`, `suspended`.',
  '429': '`rate_limited`: wait `Retry-After` seconds.',
  '500': '`internal`: logged on our side.',
};

const rateLimitHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

function errorResponse(description: string) {
  return { description, headers: rateLimitHeaders, content: { 'application/json': { schema: ref('ApiErrorBody') } } };
}

function operationFor(route: RouteEntry): JsonSchema {
  const responses: Record<string, unknown> = {};
  if (route.method === 'ws') {
    responses['101'] = { description: 'Switching Protocols: the socket is open; frames are listed under `x-websocket`.' };
  } else {
    const { response } = route;
    const contentType = 'contentType' in response && response.contentType ? response.contentType : 'application/json';
    responses[String(response.status)] = {
      description: response.description,
      headers: rateLimitHeaders,
      ...(response.schema ? { content: { [contentType]: { schema: response.schema } } } : {}),
    };
  }
  for (const [status, description] of Object.entries(GENERIC_ERRORS)) {
    if (route.auth.mode === 'public' && (status === '401' || status === '403')) continue;
    responses[status] = errorResponse(description);
  }
  for (const error of route.errors ?? []) {
    const key = String(error.status);
    const existing = responses[key] as { description: string } | undefined;
    const line = `\`${error.code}\`: ${error.description}`;
    responses[key] = errorResponse(existing ? `${existing.description} ${line}` : line);
  }
  // Path parameters are named by the path template itself; an entry describes one only to say more about it.
  const described = new Set((route.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name));
  const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)]
    .map((match) => match[1])
    .filter((name) => !described.has(name))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const parameters: unknown[] = [...pathParameters, ...(route.parameters ?? [])];
  if ('idempotent' in route && route.idempotent) {
    parameters.push({
      name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', format: 'uuid' },
      description: 'Repeated within 24 h with the same body: the first answer again, with `Idempotent-Replayed: true`. Keys are per account.',
    });
  }
  const operation: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(parameters.length ? { parameters } : {}),
    responses,
    security: route.auth.mode === 'public' ? [] : route.auth.mode === 'optional' ? [{}, { bearer: [] }] : [{ bearer: [] }],
    'x-auth-mode': route.auth.mode,
    'x-auth-scopes': route.auth.scopes,
  };
  if (route.method !== 'ws' && route.request) {
    operation.requestBody = {
      required: true,
      ...(route.request.description ? { description: route.request.description } : {}),
      content: { [route.request.contentType ?? 'application/json']: { schema: route.request.schema } },
    };
  }
  if (route.method === 'ws') operation['x-websocket'] = route.frames;
  return operation;
}

export function buildOpenApi(routes: RouteEntry[], baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if ('undocumented' in route && route.undocumented) continue;
    const method = route.method === 'ws' ? 'get' : route.method;
    (paths[route.path] ??= {})[method] = operationFor(route);
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'speechgate',
      version: '1.0.0',
      description: 'Self-hostable speech API. Every failure answers the error envelope (`ApiErrorBody`); every answer carries `X-Request-Id` and `RateLimit-*` headers.',
    },
    servers: [{ url: baseUrl }],
    tags: [...new Set(routes.flatMap((route) => route.tags))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`sg_live_...`, servers only) or a signed-in person\'s access token (JWT).' },
      },
      headers: {
        'RateLimit-Limit': { description: 'Requests allowed per window for this account.', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the window frees a request.', schema: { type: 'integer' } },
        'X-Request-Id': { description: 'This request\'s id; also in error envelopes as `requestId`.', schema: { type: 'string' } },
      },
    },
  };
}

/**
 * `/v1/openapi.json` from the route table: OpenAPI 3.0, this host in `servers`, WebSocket frames under
 * `x-websocket`, and the two auth vendor extensions (`x-auth-mode`, `x-auth-scopes`) on every operation.
 */
import { VERSION as PACKAGE_VERSION } from '../src/core/version.js';
import { components, ref } from './schemas.js';
import type { JsonSchema, RouteEntry } from './types.js';

/**
 * The error statuses an operation answers, derived from its entry: the request budget (429), an oversized request
 * head (431) and unexpected failures (500) everywhere; 400/413/415 where a JSON body, path or query parameters are read;
 * 401/403 unless it is public; 409/422 with `Idempotency-Key`; 404 on a plain GET of a socket. Entries add their own
 * with `errors` (a 404 where the path names something).
 */
function derivedErrors(route: RouteEntry): { status: number; line: string }[] {
  const out: { status: number; line: string }[] = [];
  const readsJson =
    route.method === 'post' || route.method === 'put' || route.method === 'patch' ? !('ownBody' in route && route.ownBody) : false;
  const readsQuery = (route.parameters ?? []).some((parameter) => parameter.in === 'query');
  const idempotent = 'idempotent' in route && !!route.idempotent;
  const readsPath = /\{\w+\}/.test(route.path);
  if (readsPath) out.push({ status: 400, line: '`invalid_options`: a path parameter holds a NUL character (`%00`), which no field '
    + 'accepts; `details.field` names it.' });
  if (readsQuery) out.push({ status: 400, line: '`invalid_options`: a query parameter is not of its declared type, range or values, is '
    + 'missing, or is given twice; `details.field` names it.' });
  // The router refuses a body that is not an object (null, an array, a scalar) where the schema is one (rest/router.ts).
  const takesObject = route.method !== 'ws' && route.request?.schema.type === 'object';
  if (readsJson) {
    out.push({ status: 400, line: `\`invalid_options\`: the body is not valid `
      + `JSON${takesObject ? ' or not a JSON object (null, an array, a scalar)' : ''}, or a field is invalid; the message and `
        + `\`details.field\` name it.` });
  }
  if (idempotent) out.push({ status: 400, line: '`invalid_options`: an `Idempotency-Key` longer than 255 characters.' });
  if (route.auth.mode !== 'public') {
    const credential =
      route.auth.mode === 'key' ? 'an API key' : route.auth.mode === 'user' ? 'a signed-in person\'s token' : 'a credential';
    out.push({
      status: 401,
      line: `\`invalid_token\` `
          + `(${route.auth.mode === 'optional' ? 'an unknown or malformed token; without one the answer depends on the '
        + 'other credentials this operation '
          + 'takes' : `no credential, or an unknown or malformed one; this operation needs ${credential}`}), \`key_expired\`, `
            + `\`key_revoked\`.`,
    });
    const who = route.auth.mode === 'key' ? ' (also a person\'s token: API keys '
      + 'only)' : route.auth.mode === 'user' ? ' (also an API key: signed-in persons only)' : '';
    const scopes = route.auth.scopes.length ? ` (needs ${route.auth.scopes.map((scope) => `\`${scope}\``).join(', ')})` : '';
    out.push({ status: 403, line: `\`forbidden\`: a missing scope${scopes}, the message names it${who}; \`key_from_browser\`: an API key `
      + `sent from a web page of another site or in a URL; \`suspended\`: the account is suspended.` });
  }
  if (route.method === 'ws') out.push({ status: 404, line: '`not_found`: a plain HTTP request without `Upgrade: websocket` (this path is '
    + 'a WebSocket).' });
  if (idempotent) {
    out.push({ status: 409, line: '`conflict`: a request with this `Idempotency-Key` is still running; retry after it finishes.' });
    out.push({ status: 422, line: '`idempotency_key_reused`: this `Idempotency-Key` was used with a different request body.' });
  }
  if (readsJson) {
    out.push({ status: 413, line: '`invalid_options`: the JSON body is larger than 1 MB.' });
    out.push({ status: 415, line: '`invalid_options`: a body that is not `application/json`, or in a charset other than UTF-8; '
      + '`details.field` is `Content-Type`.' });
  }
  out.push({ status: 431, line: 'The request line and headers are larger than the server takes (16 KB), e.g. a huge query string; the '
    + 'error envelope says which.' });
  out.push({ status: 429, line: '`rate_limited`: past the request budget of this account (of this address without a credential); wait '
    + '`Retry-After` seconds.' });
  out.push({ status: 500, line: '`internal`: an unexpected failure, logged on our side with the request id.' });
  return out;
}

const rateLimitHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

function errorResponse(description: string, protocolError?: JsonSchema) {
  const schema = protocolError ? { oneOf: [ref('ApiErrorBody'), protocolError] } : ref('ApiErrorBody');
  return { description, headers: rateLimitHeaders, content: { 'application/json': { schema } } };
}

function operationFor(route: RouteEntry): JsonSchema {
  const responses: Record<string, unknown> = {};
  if (route.method === 'ws') {
    responses['101'] = { description: 'Switching Protocols: the socket is open; frames are listed under `x-websocket`.' };
  } else {
    const answers: Array<{ status: number; description: string; schema?: JsonSchema; contentType?: string } | undefined> = [
      route.response, 'alternative' in route ? route.alternative : undefined,
    ];
    for (const response of answers) {
      if (!response) continue;
      const contentType = response.contentType ?? 'application/json';
      responses[String(response.status)] = {
        description: response.description,
        headers: rateLimitHeaders,
        ...(response.schema ? { content: { [contentType]: { schema: response.schema } } } : {}),
      };
    }
  }
  const lines = new Map<string, string[]>();
  const add = (status: number, line: string) => {
    const key = String(status);
    if (!lines.get(key)?.includes(line)) lines.set(key, [...(lines.get(key) ?? []), line]);
  };
  for (const error of route.errors ?? []) add(error.status, `\`${error.code}\`: ${error.description}`);
  for (const error of derivedErrors(route)) add(error.status, error.line);
  for (const key of [...lines.keys()].sort()) responses[key] = errorResponse(lines.get(key)!.join(' '), route.protocolError);
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
      description: 'Repeated within 24 h with the same body: the first answer again, with `Idempotent-Replayed: true`. Keys are per '
        + 'account.',
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
    const { request } = route;
    const content: Record<string, unknown> = { [request.contentType ?? 'application/json']: { schema: request.schema } };
    for (const alternative of request.alternatives ?? []) content[alternative.contentType] = { schema: alternative.schema };
    // Required when the schema requires a field (or the entry says so); otherwise the body may be left out.
    const requiresField = Array.isArray(request.schema.required) && request.schema.required.length > 0;
    operation.requestBody = {
      required: request.required ?? requiresField,
      ...(request.description ? { description: request.description } : {}),
      content,
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
      version: PACKAGE_VERSION,
      description: 'Self-hostable speech API. Every failure answers the error envelope (`ApiErrorBody`); every answer carries '
        + '`X-Request-Id` and `RateLimit-*` headers.',
    },
    servers: [{ url: baseUrl }],
    tags: [...new Set(routes.flatMap((route) => route.tags))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`sg_live_...`, servers only) or a signed-in person\'s access '
          + 'token (JWT).' },
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

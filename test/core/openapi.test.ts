/**
 * /v1/openapi.json is generated from the route table: valid OpenAPI 3.0, this host in `servers`, every route of
 * the table listed with its auth vendor extensions, WebSocket routes with their frames under `x-websocket`. What it
 * declares is what the server does: a walk of every JSON operation sends each declared enum value and each declared
 * string length (and one character more) in an otherwise valid request. Also /docs, its assets, and RFC 9728 metadata.
 */
import crypto from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { routeTable } from '../../rest/route-table.js';
import type { RouteEntry } from '../../rest/types.js';
import { errors } from '../../src/core/errors.js';
import { resolveSchema, type OpenApiDocument, type Operation, type Schema } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { upgradeRefusal } from '../helpers/sockets.js';

/** A test-only socket: echoes text frames after a `hello` frame; refuses ids starting with `gone`. */
const echoSocket: RouteEntry = {
  method: 'ws', path: '/v1/test/echo/{id}', operationId: 'testEcho', tags: ['test'], summary: 'Echo socket.',
  auth: { mode: 'userOrKey', scopes: ['read'] },
  frames: {
    server: [
      { type: 'hello', description: 'first frame', schema: { type: 'object', properties: { id: { type: 'string' } } } },
      { type: 'echo', description: 'what you sent' },
    ],
    client: [{ type: 'say', description: 'anything' }],
  },
  authorize: (_req, params, ctx) => {
    if (ctx.credentialError) throw ctx.credentialError;
    if (!ctx.identity) throw errors.invalidToken();
    if (params.id!.startsWith('gone')) throw errors.notFound('Echo');
  },
  onConnection: (socket, _req, params, ctx) => {
    socket.send(JSON.stringify({ type: 'hello', id: params.id, accountId: ctx.identity!.account.id }));
    socket.on('message', (data) => socket.send(JSON.stringify({ type: 'echo', data: data.toString() })));
  },
};

let server: TestServer;
let document: Record<string, any>;
beforeAll(async () => {
  server = await startTestServer({ routes: [...routeTable, echoSocket], workers: [] });
  const response = await server.request('/v1/openapi.json', { auth: null });
  expect(response.status).toBe(200);
  document = await response.json() as Record<string, any>;
});
afterAll(async () => { await server?.close(); });

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.0', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.0\./);
  });

  it('names this host in servers, and the package\'s version in info (as /v1/health does)', async () => {
    expect(document.servers).toEqual([{ url: server.url }]);
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect((document as unknown as { info: { version: string } }).info.version).toBe(version);
    expect(await (await fetch(`${server.url}/v1/health`)).json()).toMatchObject({ version });
  });

  it('lists every route of the table with both auth extensions', () => {
    const served = [...routeTable, echoSocket].filter((route) => !('undocumented' in route && route.undocumented));
    expect(served.length).toBeGreaterThan(8);
    for (const route of served) {
      const operation = document.paths[route.path]?.[route.method === 'ws' ? 'get' : route.method];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
      expect(operation['x-auth-mode']).toBe(route.auth.mode);
      expect(operation['x-auth-scopes']).toEqual(route.auth.scopes);
    }
    const listed = Object.values(document.paths).reduce((n: number, item: any) => n + Object.keys(item).length, 0);
    expect(listed).toBe(served.length);
  });

  it('describes WebSocket frames under x-websocket', () => {
    const operation = document.paths['/v1/test/echo/{id}'].get;
    expect(operation.responses['101']).toBeDefined();
    expect(operation['x-websocket'].server.map((frame: { type: string }) => frame.type)).toEqual(['hello', 'echo']);
  });

  it('marks idempotent creates with the Idempotency-Key header', () => {
    const parameters = document.paths['/v1/api-keys'].post.parameters as { name: string; in: string }[];
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
  });
});

describe('what the document declares is what the server does', () => {
  const declared = (path: string, method: string) => Object.keys(document.paths[path][method].responses);
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });

  it('derives auth, idempotency, body and socket errors from the entries', () => {
    expect(declared('/v1/api-keys', 'post')).toEqual(expect.arrayContaining(
      ['201', '400', '401', '403', '409', '413', '415', '422', '429'],
    ));
    expect(declared('/v1/transcriptions', 'post')).toEqual(expect.arrayContaining([
      '201', '400', '401', '403', '409', '413', '415', '422', '429',
    ]));
    expect(declared('/v1/health', 'get')).not.toContain('401');
    expect(declared('/v1/health', 'get')).toContain('429');
    expect(declared('/v1/transcriptions/{id}/events', 'get')).toEqual(expect.arrayContaining(['101', '401', '403', '404']));
    expect(declared('/v1/test/echo/{id}', 'get')).toContain('404');
    const conflict = document.paths['/v1/api-keys'].post.responses['409'].description as string;
    expect(conflict).toContain('Idempotency-Key');
  });

  it('declares the JSON url form of POST /v1/transcriptions beside multipart, and its constraints', () => {
    const body = document.paths['/v1/transcriptions'].post.requestBody;
    expect(Object.keys(body.content)).toEqual(['multipart/form-data', 'application/json']);
    const link = body.content['application/json'].schema;
    expect(link.required).toEqual(['url']);
    expect(link.properties.name).toMatchObject({ minLength: 1, maxLength: 300 });
    expect(link.properties.endS.description).toMatch(/greater than `startS`/);
    expect(link.additionalProperties).toBe(false);
  });

  it('describes a body that is not a JSON object as the 400 it is answered with, not a 422', async () => {
    const { responses } = document.paths['/v1/api-keys'].post;
    expect(responses['400'].description).toContain('not a JSON object (null, an array, a scalar)');
    expect(responses['422'].description).not.toContain('JSON object');
    for (const body of ['null', '[]', '3']) {
      expect(
        (await server.request('/v1/api-keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status, body,
      ).toBe(400);
    }
  });

  it('declares the ranges the server enforces, and enforces them naming the field', async () => {
    const limit = document.paths['/v1/transcriptions'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
    const after = document.paths['/v1/recordings/{id}/transcript'].get.parameters.find((p: { name: string }) => p.name === 'after');
    expect(after.schema).toMatchObject({ type: 'integer', minimum: -1, maximum: 2147483647 });
    for (const [pathname, field] of [
      ['/v1/recordings/rec_none/transcript?after=2147483648', 'after'],
      ['/v1/recordings/rec_none/events?after=-2', 'after'],
      ['/v1/transcriptions?limit=501', 'limit'],
      ['/v1/transcriptions?limit=1.5', 'limit'],
      ['/v1/transcriptions?lifecycle=deleted', 'lifecycle'],
      ['/v1/transcriptions?cursor=a&cursor=b', 'cursor'],
      ['/v1/recordings/rec_none/audio?kind=speech', 'kind'],
      ['/v1/recordings/rec_none/audio?kind=voice', 'lang'],
    ] as const) {
      const response = await server.request(pathname);
      const body = await response.json() as { code: string; message: string; data: { details: { field?: string } } };
      expect(response.status, pathname).toBe(400);
      expect(body.data.details.field, pathname).toBe(field);
      expect(body.message, pathname).toContain(field);
    }
  });

  it('declares every status a sample of real requests answers', async () => {
    const { key: readOnly } = await server.createKey(['read']);
    const idem = crypto.randomUUID();
    const userToken = (await server.createUser()).token;
    // One after another: the two Idempotency-Key requests must not race.
    const cases: [string, string, () => Promise<Response>, number][] = [
      ['/v1/api-keys', 'post', () => server.request('/v1/api-keys', json({ name: 'a' }, { 'idempotency-key': idem })), 201],
      ['/v1/api-keys', 'post', () => server.request('/v1/api-keys', json({ name: 'b' }, { 'idempotency-key': idem })), 422],
      ['/v1/api-keys', 'post', () => server.request('/v1/api-keys', { ...json({}), auth: readOnly }), 403],
      ['/v1/api-keys', 'post', () => server.request('/v1/api-keys', { ...json({}), auth: null }), 401],
      [
        '/v1/api-keys', 'post',
        () => server.request('/v1/api-keys', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 415,
      ],
      ['/v1/api-keys', 'post', () => server.request('/v1/api-keys', json({ name: 'x'.repeat(1_100_000) })), 413],
      ['/v1/api-keys', 'post', () => server.request('/v1/api-keys', json({ colour: 'red' })), 422],
      ['/v1/api-keys', 'post', () => server.request('/v1/api-keys', json({ expiresAt: '2000-01-01T00:00:00Z' })), 400],
      [
        '/v1/transcriptions', 'post',
        () => server.request('/v1/transcriptions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 415,
      ],
      ['/v1/transcriptions', 'post', () => server.request('/v1/transcriptions', json({ name: 'no url' })), 400],
      ['/v1/transcriptions/{id}', 'get', () => server.request('/v1/transcriptions/tr_none'), 404],
      ['/v1/transcriptions/{id}/events', 'get', () => server.request('/v1/transcriptions/tr_none/events'), 404],
      [
        '/v1/recordings/{id}/job/preview', 'get', () => server.request('/v1/recordings/rec_none/job/preview?media=nope', { auth: null }),
        401,
      ],
      ['/v1/realtime/sessions', 'post', () => server.request('/v1/realtime/sessions', { ...json({}), auth: userToken }), 403],
      ['/v1/mcp', 'post', () => server.request('/v1/mcp', { ...json({}), auth: null }), 401],
      [
        '/v1/mcp', 'post',
        () => server.request('/v1/mcp', {
          method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{',
        }),
        400,
      ],
    ];
    for (const [path, method, pending, status] of cases) {
      const response = await pending();
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(declared(path, method), `${method} ${path} answered ${status}`).toContain(String(status));
    }
  });
});

/** One field a request declares: where it sits (`settings.speakerLabels`; `[]` an array's items) and its schema. */
interface DeclaredField { in: 'body' | 'query'; path: string[]; schema: Schema }

const schemaOf = (schema: Schema | undefined) => resolveSchema(document as OpenApiDocument, schema);

/** The leaves of a body schema, objects and arrays walked into. */
function bodyFields(schema: Schema, path: string[] = []): DeclaredField[] {
  const resolved = schemaOf(schema);
  if (resolved.type === 'array' && resolved.items) return bodyFields(resolved.items, [...path, '[]']);
  if (resolved.properties) {
    return Object.entries(resolved.properties as Record<string, Schema>).flatMap(
      ([name, property]) => bodyFields(property, [...path, name]),
    );
  }
  return [{ in: 'body', path, schema: resolved }];
}

/** What the walk checks against the server: declared values (enums) and declared string lengths of a body. */
const hasEnum = (field: DeclaredField) => Array.isArray(field.schema.enum);
const hasMaxLength = (field: DeclaredField) =>
  field.in === 'body' && field.schema.type === 'string' && field.schema.maxLength !== undefined;

/** The field as the server names it in `details.field` and messages: `settings.speakerLabels`, `scopes`. */
const fieldName = (field: DeclaredField) => field.path.filter((part) => part !== '[]').join('.');

/** `body` with `value` at `path` (an array's items: a one-item array). */
function withValue(body: unknown, path: string[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (head === '[]') return [withValue(undefined, rest, value)];
  const object = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  return { ...object, [head]: withValue(object[head], rest, value) };
}

/** Values for required fields that are not enums, by name; an operation requiring another one has to add it here. */
const requiredExamples: Record<string, unknown> = {
  url: 'https://example.org/openapi-walk.mp3', label: 'openapi walk', name: 'openapi walk', lang: 'en', recordingId: 'rec_openapiwalk',
  speaker: 0, startDate: '2026-11-01', endDate: '2026-11-24', code: 'OPENAPI-WALK',
};

interface WalkedOperation {
  name: string; path: string; method: string; operation: Operation; fields: DeclaredField[]; body?: Record<string, unknown>;
  query: Record<string, string>;
}

/**
 * Every JSON operation of the document that declares an enum or a string length, with its body and query fields and
 * the smallest valid request: path ids that exist (named by the collection before them), required fields filled.
 */
function walkOperations(ids: Record<string, string>): WalkedOperation[] {
  const out: WalkedOperation[] = [];
  for (const [template, item] of Object.entries((document as OpenApiDocument).paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation['x-websocket']) continue;
      const name = `${method.toUpperCase()} ${template}`;
      const queryParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      const fields: DeclaredField[] = queryParameters.map((parameter) => ({
        in: 'query', path: [parameter.name], schema: schemaOf(parameter.schema),
      }));
      const json = operation.requestBody?.content['application/json'];
      const bodySchema = json ? schemaOf(json.schema) : undefined;
      if (bodySchema) fields.push(...bodyFields(bodySchema));
      if (!fields.some((field) => hasEnum(field) || hasMaxLength(field))) continue;

      const required = (field: string, schema: Schema | undefined) => {
        const resolved = schemaOf(schema);
        const value = Array.isArray(resolved.enum) ? resolved.enum[0] : requiredExamples[field];
        if (value === undefined) throw new Error(`${name} requires ${field}: add a valid value to requiredExamples`);
        return value;
      };
      const path = template.replace(/\/([^/{}]+)\/\{\w+\}/g, (_match, collection: string) => {
        if (!ids[collection]) throw new Error(`${name}: no ${collection} id to call it with`);
        return `/${collection}/${ids[collection]}`;
      });
      const query = Object.fromEntries(
        queryParameters.filter((parameter) => parameter.required).map((parameter) => [
          parameter.name, String(required(parameter.name, parameter.schema)),
        ]),
      );
      const body = bodySchema && Object.fromEntries(
        ((bodySchema.required ?? []) as string[]).map((field) => [field, required(field, bodySchema.properties?.[field])]),
      );
      out.push({ name, path, method, operation, fields, body, query });
    }
  }
  return out;
}

describe('every declared value is accepted, every declared length enforced', () => {
  let walked: WalkedOperation[];
  let userToken: string;
  beforeAll(async () => {
    const created = await server.postJson('/v1/transcriptions', { url: 'https://example.org/openapi-walk.mp3' });
    expect(created.status).toBe(201);
    const transcription = await created.json() as { id: string; recordingId: string; shareLink: { id: string } };
    const key = await server.createKey(['read']);
    const broadcast = await (await server.postJson('/v1/broadcasts', { name: 'openapi walk' })).json() as { id: string };
    walked = walkOperations({
      transcriptions: transcription.id, recordings: transcription.recordingId, 'share-links': transcription.shareLink.id,
      'api-keys': key.id, broadcasts: broadcast.id, speakers: '0', voice: '0.0', voices: 'voi_openapiwalk',
    });
    userToken = (await server.createUser()).token;
  });

  /** The operation's valid request with `field` set to `value`, with the credential its auth mode takes. */
  function send(walk: WalkedOperation, field: DeclaredField, value: unknown): Promise<Response> {
    const query = new URLSearchParams(walk.query);
    if (field.in === 'query') query.set(field.path[0]!, String(value));
    const search = query.size ? `?${query}` : '';
    const auth = walk.operation['x-auth-mode'] === 'user' ? userToken : undefined;
    if (!walk.body) return server.request(`${walk.path}${search}`, { method: walk.method.toUpperCase(), auth, redirect: 'manual' });
    const body = field.in === 'body' ? withValue(walk.body, field.path, value) : walk.body;
    return server.postJson(`${walk.path}${search}`, body, { method: walk.method.toUpperCase(), auth });
  }

  const refusal = async (response: Response) => {
    if (response.status !== 400 && response.status !== 422) return null;
    const envelope = await response.json() as { code: string; message: string; data: { details: { field?: string } } };
    return { status: response.status, code: envelope.code, field: envelope.data.details.field, message: envelope.message };
  };

  it('sends each enum value a body property or query parameter declares, and none is refused', async () => {
    const sent: string[] = [];
    for (const walk of walked) {
      for (const field of walk.fields.filter(hasEnum)) {
        for (const value of field.schema.enum as unknown[]) {
          const what = `${walk.name} ${field.in} ${fieldName(field)}=${JSON.stringify(value)}`;
          // The rest of the request is valid, so a refusal here is one of a value the document offers, except one that
          // names a sibling the value makes necessary (`source.kind` "stream" needs `source.url`, `access` "private"
          // needs `password`): the value itself was taken.
          const refused = await refusal(await send(walk, field, value));
          const parent = fieldName(field).split('.').slice(0, -1).join('.');
          const sameParent = (other: string) => (parent === '' ? !other.includes('.') : other.startsWith(`${parent}.`));
          const sibling = refused !== null && typeof refused.field === 'string' && refused.field !== fieldName(field) && sameParent(
            refused.field,
          );
          if (!sibling) expect(refused, what).toBeNull();
          sent.push(what);
        }
      }
    }
    expect(sent).toEqual(expect.arrayContaining([
      'POST /v1/realtime/sessions body speakerLabels="auto"',
      'POST /v1/transcriptions body settings.speakerLabels="auto"',
      'POST /v1/api-keys body scopes="recordings:publish"',
      'GET /v1/recordings/{id}/export query format="pdf"',
      'POST /v1/broadcasts body access="private"',
      'PATCH /v1/broadcasts/{id} body access="private"',
    ]));
    // Files and live audio are both labelled (classical diarization), so both take `on`.
    expect(sent).toContain('POST /v1/realtime/sessions body speakerLabels="on"');
    expect(sent).toContain('POST /v1/transcriptions body settings.speakerLabels="on"');
  });

  it('accepts each declared maxLength of a string body field and refuses one character more, naming the field', async () => {
    const checked: string[] = [];
    for (const walk of walked) {
      for (const field of walk.fields.filter(hasMaxLength)) {
        const what = `${walk.name} ${fieldName(field)}`;
        const longest = field.schema.maxLength as number;
        expect(await refusal(await send(walk, field, 'n'.repeat(longest))), `${what} of ${longest} characters`).toBeNull();
        expect(await refusal(await send(walk, field, 'n'.repeat(longest + 1))), `${what} of ${longest + 1} characters`).toMatchObject(
          { status: 400, field: fieldName(field) },
        );
        checked.push(`${what} ≤ ${longest}`);
      }
    }
    expect(checked).toEqual(expect.arrayContaining([
      'POST /v1/api-keys name ≤ 200',
      'POST /v1/transcriptions name ≤ 300',
      'PATCH /v1/transcriptions/{id} name ≤ 300',
      'POST /v1/transcriptions/{id}/share-links label ≤ 200',
      'PATCH /v1/share-links/{id} label ≤ 200',
      'POST /v1/broadcasts code ≤ 64',
      'PATCH /v1/broadcasts/{id} password ≤ 200',
    ]));
  });
});

describe('table sockets', () => {
  it('serves a socket route with the caller\'s identity and path parameters', async () => {
    const socket = new WebSocket(`${server.wsUrl}/v1/test/echo/abc`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    const upgradeRequestId = new Promise<string | undefined>((resolve) => socket.once(
      'upgrade', (res) => resolve(res.headers['x-request-id'] as string | undefined),
    ));
    const frames: Record<string, unknown>[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        frames.push(JSON.parse(data.toString()));
        if (frames.length === 1) socket.send('ping');
        if (frames.length === 2) resolve();
      });
      socket.on('error', reject);
    });
    socket.close();
    expect(frames).toEqual([{ type: 'hello', id: 'abc', accountId: server.accountId }, { type: 'echo', data: 'ping' }]);
    expect(await upgradeRequestId).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('answers a refused upgrade with the envelope (authorize throws)', async () => {
    const gone = await upgradeRefusal(`${server.wsUrl}/v1/test/echo/gone-1`, { authorization: `Bearer ${server.apiKey}` });
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body)).toMatchObject({ code: 'not_found', status: 404 });
    expect((await upgradeRefusal(`${server.wsUrl}/v1/test/echo/abc`)).status).toBe(401);
  });
});

describe('docs and metadata', () => {
  it('/docs renders the reference from /v1/openapi.json', async () => {
    const page = await server.request('/docs', { auth: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('/v1/openapi.json');
    const bundle = await server.request('/docs/swagger-ui-bundle.js', { auth: null });
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect((await server.request('/docs/../package.json', { auth: null })).status).toBe(404);
  });

  it('/graphql serves GraphiQL to a browser, speaking graphql-ws for subscriptions', async () => {
    const page = await server.request('/graphql', { auth: null, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('speechgate GraphiQL');
    expect(html).toMatch(/subscriptionsProtocol["']?\s*:\s*["']WS/);
  });

  it('serves RFC 9728 protected-resource metadata', async () => {
    const response = await server.request('/.well-known/oauth-protected-resource', { auth: null });
    expect(response.status).toBe(200);
    const metadata = await response.json() as { resource: string; bearer_methods_supported: string[]; scopes_supported: string[] };
    expect(metadata.resource).toBe(server.url);
    expect(metadata.bearer_methods_supported).toEqual(['header']);
    expect(metadata.scopes_supported).toContain('recordings:publish');
  });
});

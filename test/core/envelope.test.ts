/**
 * Every failure answers the spec's envelope with the request id (body and X-Request-Id), never a bare 500 or HTML:
 * 400, 401, 403, 404, 405, 415, 422, 500 — on REST routes, unknown paths and the upgrade path.
 */
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../rest/route-table.js';
import type { RouteEntry } from '../../rest/types.js';
import { ApiError, errors } from '../../src/core/errors.js';
import type { Logger } from '../../src/core/logger.js';
import { useTestServer } from '../helpers/server.js';
import { upgradeRefusal } from '../helpers/sockets.js';

/** Test-only routes: an unexpected exception in a handler and in a GraphQL route's result mapping. */
const failingRoutes: RouteEntry[] = [
  {
    method: 'get', path: '/v1/test/explode', operationId: 'testExplode', tags: ['test'], summary: 'Throws.',
    auth: { mode: 'public', scopes: [] }, response: { status: 200, description: 'never' },
    handler: () => { throw new Error('secret database detail'); },
  },
  {
    method: 'get', path: '/v1/test/explode-async', operationId: 'testExplodeAsync', tags: ['test'], summary: 'Rejects.',
    auth: { mode: 'public', scopes: [] }, response: { status: 200, description: 'never' },
    handler: async () => { await new Promise((r) => setTimeout(r, 5)); throw new TypeError('cannot read x of undefined'); },
  },
  // Sockets refused before the upgrade: the expected refusals of the realtime socket, and an unexpected failure.
  ...([
    ['unavailable', () => new ApiError('unavailable', 503, 'Every slot is busy.', { headers: { 'Retry-After': '5' } })],
    ['invalid-token', () => errors.invalidToken()],
    ['expired', () => new ApiError('session_expired', 410, 'The session token has expired.')],
    ['broken', () => new Error('secret socket detail')],
  ] as const).map(([name, refusal]): RouteEntry => ({
    method: 'ws', path: `/v1/test/sockets/${name}`, operationId: `testSocket_${name}`, tags: ['test'], summary: 'Refuses.',
    auth: { mode: 'public', scopes: [] }, frames: { server: [] },
    authorize: () => { throw refusal(); },
    onConnection: () => undefined,
  })),
];

/** Captures what the server logs, to see that a 500 is logged with its cause and request id. */
const logged: { level: string; fields: Record<string, unknown>; message: string }[] = [];
const capture = (level: string) => (fields: Record<string, unknown>, message: string) => { logged.push({ level, fields, message }); };
const logger: Logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') };

const server = useTestServer({ routes: [...routeTable, ...failingRoutes], logger });

async function expectEnvelope(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_[0-9a-f]{24}$/);
  expect(response.headers.get('ratelimit-limit')).not.toBeNull();
  const body = await response.json() as Record<string, unknown>;
  expect(body).toEqual({
    defined: true,
    code,
    status,
    message: expect.any(String),
    data: { retryable: expect.any(Boolean), details: expect.any(Object) },
    requestId,
  });
  return body as { message: string; data: { details: Record<string, unknown> } };
}

const json = (body: string, extra: Record<string, string> = {}) => ({
  method: 'POST', headers: { 'content-type': 'application/json', ...extra }, body,
});

describe('error envelope', () => {
  it('400 invalid_options on malformed JSON', async () => {
    await expectEnvelope(await server.request('/v1/api-keys', json('{"scopes": [')), 400, 'invalid_options');
  });

  it('422 invalid_body naming the field', async () => {
    const body = await expectEnvelope(await server.request('/v1/api-keys', json('{"colour": "red"}')), 422, 'invalid_body');
    expect(body.data.details.field).toBe('colour');
  });

  it('401 invalid_token', async () => {
    await expectEnvelope(await server.request('/v1/me', { auth: null }), 401, 'invalid_token');
  });

  it('403 forbidden', async () => {
    const { key } = await server.createKey(['read']);
    await expectEnvelope(await server.request('/v1/api-keys', { ...json('{}'), auth: key }), 403, 'forbidden');
  });

  it('404 not_found for unknown paths, with no HTML', async () => {
    await expectEnvelope(await server.request('/v1/nothing-here'), 404, 'not_found');
    await expectEnvelope(await server.request('/nothing-at-all', { headers: { accept: 'text/html' } }), 404, 'not_found');
    await expectEnvelope(await server.request('/v1/api-keys/key_missing', { method: 'DELETE' }), 404, 'not_found');
  });

  it('405 with Allow on a known path', async () => {
    const response = await server.request('/v1/health', { method: 'POST' });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    await expectEnvelope(response, 405, 'method_not_allowed');
  });

  it('415 when the body is not JSON', async () => {
    const response = await server.request('/v1/api-keys', {
      method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'scopes=read',
    });
    await expectEnvelope(response, 415, 'invalid_options');
  });

  it('500 internal for unexpected exceptions, without their message', async () => {
    for (const path of ['/v1/test/explode', '/v1/test/explode-async']) {
      const response = await server.request(path);
      const requestId = response.headers.get('x-request-id');
      const body = await expectEnvelope(response, 500, 'internal');
      expect(body.message).not.toMatch(/secret|undefined/);
      const entry = logged.find((line) => line.level === 'error' && line.fields.requestId === requestId);
      expect((entry?.fields.err as Error | undefined)?.message).toMatch(/secret database detail|cannot read x/);
    }
  });

  it('keeps a sane caller-supplied request id and replaces a hostile one', async () => {
    const kept = await server.request('/v1/me', { auth: null, headers: { 'x-request-id': 'client-trace-0001' } });
    expect(kept.headers.get('x-request-id')).toBe('client-trace-0001');
    expect(((await kept.json()) as { requestId: string }).requestId).toBe('client-trace-0001');
    const replaced = await server.request('/v1/health', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('success answers carry X-Request-Id too', async () => {
    const response = await server.request('/v1/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('a refused WebSocket upgrade answers the envelope', async () => {
    const answer = await upgradeRefusal(`${server.wsUrl}/v1/no-such-socket`);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_found', status: 404, requestId: answer.headers['x-request-id'] });
  });

  it('a socket route without path parameters is served (its refusal, not a 404)', async () => {
    expect((await upgradeRefusal(`${server.wsUrl}/v1/test/sockets/invalid-token`)).status).toBe(401);
  });

  it('expected upgrade refusals (401, 410, 503 unavailable) are not logged as errors; an unexpected failure is', async () => {
    const refusal = async (pathname: string) => {
      const { status, headers } = await upgradeRefusal(`${server.wsUrl}${pathname}`);
      return { status, retryAfter: headers['retry-after'], requestId: headers['x-request-id'] as string | undefined };
    };
    const upgradeLogs = (requestId: string | undefined) => logged.filter(
      (entry) => entry.fields.requestId === requestId && /upgrade/.test(entry.message),
    );

    const expected: [string, number][] = [
      ['/v1/test/sockets/unavailable', 503],
      ['/v1/test/sockets/invalid-token', 401],
      ['/v1/test/sockets/expired', 410],
      ['/v1/realtime/sessions/not-a-token/socket', 401], // the real realtime socket, refusing a bad stream token
    ];
    for (const [pathname, status] of expected) {
      const answer = await refusal(pathname);
      expect(answer.status).toBe(status);
      if (status === 503) expect(answer.retryAfter).toBe('5');
      const entries = upgradeLogs(answer.requestId);
      expect(entries.map((entry) => entry.level), pathname).not.toContain('error');
      expect(entries.map((entry) => entry.level), pathname).not.toContain('warn');
    }

    const broken = await refusal('/v1/test/sockets/broken');
    expect(broken.status).toBe(500);
    const entries = upgradeLogs(broken.requestId);
    expect(entries.map((entry) => entry.level)).toContain('error');
    expect(entries.find((entry) => entry.level === 'error')!.fields.err).toMatchObject({ message: 'secret socket detail' });
  });

  it('GraphQL input errors name the field: an int32 overflow in a variable, an input field or a literal', async () => {
    const ask = async (query: string, variables?: Record<string, unknown>) => {
      const response = await server.request('/graphql', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }),
      });
      expect(response.status).toBe(400);
      return ((await response.json()) as {
        errors: { message: string; extensions: { code: string; details: { field?: string } } }[];
      }).errors[0]!;
    };
    const byVariable = await ask('query ($limit: Int) { transcriptions(limit: $limit) { items { id } } }', { limit: 99_999_999_999 });
    expect(byVariable.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'limit' } });
    const byInputField = await ask('mutation ($i: CreateApiKeyInput!) { createApiKey(input: $i) { key } }', { i: { scopes: 7 } });
    expect(byInputField.extensions.details.field).toBe('i.scopes');
    const byLiteral = await ask('{ recordingTranscript(recordingId: "rec_x", after: 99999999999) { lastSeq } }');
    expect(byLiteral.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'after' } });
    expect(byLiteral.message).toMatch(/32-bit/);
  });

  it('GraphQL request errors carry the code in extensions and keep their HTTP status', async () => {
    const post = (body: string) => server.request('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const cases: [Promise<Response>, number, string][] = [
      [post('not json'), 400, 'invalid_options'],
      [post('{"query":"{ nope }"}'), 400, 'invalid_options'],
      [post('{"query":"{ health { "}'), 400, 'invalid_options'],
      [
        post('{"query":"mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { key } }","variables":{"i":{"scopes":7}}}'), 400,
        'invalid_options',
      ],
      [server.request('/graphql', { method: 'PUT' }), 405, 'method_not_allowed'],
    ];
    for (const [pending, status, code] of cases) {
      const response = await pending;
      expect(response.status).toBe(status);
      expect(response.headers.get('x-request-id')).toMatch(/^req_/);
      const body = await response.json() as { errors: { extensions: { code: string; status: number } }[] };
      expect(body.errors[0]!.extensions).toMatchObject({ code, status });
    }
  });
});

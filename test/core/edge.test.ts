/**
 * The HTTP edge as an outside fuzzer meets it: NUL characters in every kind of string input, requests Node's
 * parser refuses, GraphQL with an unknown content type, protocol errors on sockets, and the order of refusals
 * (no credential is 401 before anything the request sent is judged).
 */
import net from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let transcriptionId: string;
let recordingId: string;
beforeAll(async () => {
  // No voices model where this server looks: its preview answers 503 (whatever this machine has elsewhere).
  server = await startTestServer({ workers: [], env: { KOKORO_DIR: '/srv/no-models-here/kokoro' } });
  const created = await server.request('/v1/transcriptions', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.org/a.mp3' }),
  });
  const body = await created.json() as { id: string; recordingId: string };
  transcriptionId = body.id;
  recordingId = body.recordingId;
});
afterAll(async () => { await server?.close(); });

async function expectEnvelope(response: Response, status: number, code: string) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const body = JSON.parse(text);
  expect(body).toMatchObject({
    defined: true, code, status, message: expect.any(String), data: { retryable: expect.any(Boolean), details: expect.any(Object) },
  });
  expect(body.requestId).toBe(response.headers.get('x-request-id'));
  return body as { message: string; data: { details: Record<string, unknown> } };
}

/** Sends raw bytes and reads the whole answer (the server closes the connection after an error). */
function raw(bytes: string): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body: rest.join('\r\n\r\n') });
    });
    socket.setTimeout(20_000, () => socket.destroy());
    socket.write(bytes);
  });
}

describe('NUL characters in strings', () => {
  const nul = '%00';
  it('in path ids, query values and share codes: 400 invalid_options naming the field, never 500', async () => {
    const cases: [string, string][] = [
      [`/v1/transcriptions/a${nul}b`, 'id'],
      [`/v1/recordings/a${nul}b`, 'id'],
      [`/v1/recordings/a${nul}b/transcript`, 'id'],
      [`/v1/recordings/${recordingId}/transcript?shareCode=x${nul}`, 'shareCode'],
      [`/v1/transcriptions?cursor=a${nul}`, 'cursor'],
      [`/v1/transcriptions/probe?url=http://a${nul}.example/`, 'url'],
      [`/v1/recordings/${recordingId}/export?format=srt${nul}`, 'format'],
    ];
    for (const [path, field] of cases) {
      const envelope = await expectEnvelope(await server.request(path), 400, 'invalid_options');
      expect(envelope.data.details.field, path).toBe(field);
      expect(envelope.message).toContain(field);
    }
  });

  it('in JSON bodies, at any depth and in keys', async () => {
    const cases: [string, string, unknown, string][] = [
      ['PATCH', `/v1/transcriptions/${transcriptionId}`, { name: 'a\0b' }, 'name'],
      ['PATCH', `/v1/transcriptions/${transcriptionId}`, { settings: { spokenLanguage: 'e\0' } }, 'settings.spokenLanguage'],
      ['POST', '/v1/transcriptions', { url: 'https://example.org/\0.mp3' }, 'url'],
      ['POST', '/v1/api-keys', { name: '\0' }, 'name'],
      ['POST', `/v1/transcriptions/${transcriptionId}/share-links`, { label: 'x\0' }, 'label'],
      ['POST', `/v1/transcriptions/${transcriptionId}/share-links`, { ['la\0bel']: 'x' }, 'la\0bel'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await server.request(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const envelope = await expectEnvelope(res, 400, 'invalid_options');
      expect(envelope.data.details.field, `${method} ${path}`).toBe(field);
    }
  });

  it('in multipart options', async () => {
    const form = new FormData();
    form.append('options', JSON.stringify({ name: 'a\0' }));
    form.append('file', new Blob([new Uint8Array(16)]), 'a.wav');
    const envelope = await expectEnvelope(
      await server.request('/v1/transcriptions', { method: 'POST', body: form }), 400, 'invalid_options',
    );
    expect(envelope.data.details.field).toBe('name');
  });

  it('in GraphQL variables and literals', async () => {
    const ask = async (query: string, variables?: Record<string, unknown>) => {
      const res = await server.request('/graphql', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }),
      });
      expect(res.status).toBeLessThan(500);
      return (await res.json()) as { errors?: { message: string; extensions: { code: string; details: { field: string } } }[] };
    };
    const byVariable = await ask('query ($id: ID!) { transcription(id: $id) { id } }', { id: 'a\0' });
    expect(byVariable.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'id' } });
    const byLiteral = await ask('{ transcription(id: "a\\u0000") { id } }');
    expect(byLiteral.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'id' } });
  });
});

describe('no local folder in an answer', () => {
  it('the anonymous voice preview without its model is 503 naming the setting, not the folder', async () => {
    const preview = await server.request('/v1/voices/preview?voice=af_heart', { auth: null });
    const envelope = await expectEnvelope(preview, 503, 'unavailable');
    expect(envelope.message).toContain('KOKORO_DIR');
    expect(envelope.message).not.toContain('/srv/no-models-here');
  });
});

describe('values nested too deep', () => {
  /** `{"a":{"a":…1…}}`, `levels` objects deep, as text (the test never walks it either). */
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('a JSON body past 64 levels is 400 naming the top field and the limit, never 500: owner routes and anonymous ones', async () => {
    for (const levels of [65, 3000, 8000]) {
      const settings = await server.request(`/v1/transcriptions/${transcriptionId}`, {
        method: 'PATCH', headers: { 'content-type': 'application/json' }, body: `{"settings":${nested(levels)}}`,
      });
      const envelope = await expectEnvelope(settings, 400, 'invalid_options');
      expect(envelope.data.details).toMatchObject({ field: 'settings', limit: 64 });
      expect(envelope.message).toContain('64');
      const anonymous = await server.request('/v1/listen/some-code/token', {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: '' }, body: `{"password":${nested(levels)}}`,
      });
      expect((await expectEnvelope(anonymous, 400, 'invalid_options')).data.details).toMatchObject({ field: 'password', limit: 64 });
      const wholeBody = await server.request('/v1/api-keys', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: `[${nested(levels)}]`,
      });
      expect((await expectEnvelope(wholeBody, 400, 'invalid_options')).data.details).toMatchObject({ field: 'body', limit: 64 });
    }
    // 64 levels are judged as usual (here: settings has no field "a").
    const deepest = await server.request(`/v1/transcriptions/${transcriptionId}`, {
      method: 'PATCH', headers: { 'content-type': 'application/json' }, body: `{"settings":${nested(63)}}`,
    });
    expect(deepest.status).toBe(400);
    expect((await deepest.json()).message).not.toContain('levels deep');
  });

  it('in multipart options and GraphQL variables (over HTTP, anonymous too, and over the socket)', async () => {
    const form = new FormData();
    form.append('options', `{"settings":${nested(5000)}}`);
    form.append('file', new Blob([new Uint8Array(16)]), 'a.wav');
    expect(
      (await expectEnvelope(
        await server.request('/v1/transcriptions', { method: 'POST', body: form }), 400, 'invalid_options',
      )).data.details,
    ).toMatchObject({ field: 'settings', limit: 64 });

    const query = 'mutation ($id: ID!, $patch: UpdateTranscriptionInput!) { updateTranscription(id: $id, input: $patch) { id } }';
    for (const headers of [{}, { authorization: '' }] as Array<Record<string, string>>) {
      const res = await server.request('/graphql', {
        method: 'POST', headers: { 'content-type': 'application/json', ...headers },
        body: `{"query":${JSON.stringify(query)},"variables":{"id":"${transcriptionId}","patch":${nested(5000)}}}`,
      });
      expect(res.status).toBeLessThan(500);
      const body = (await res.json()) as { errors?: { extensions: { code: string; details: Record<string, unknown> } }[] };
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'patch', limit: 64 } });
    }

    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: {
      authorization: `Bearer ${server.apiKey}`,
    } });
    const messages: Array<{ type: string; payload?: unknown }> = [];
    await new Promise<void>((resolve, reject) => {
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string };
        messages.push(message);
        if (message.type === 'connection_ack') {
          socket.send(
            `{"id":"1","type":"subscribe","payload":{"query":${JSON.stringify(query)},"variables":{"id":"x","patch":${nested(5000)}}}}`,
          );
        }
        if (message.type === 'error' || message.type === 'next' || message.type === 'complete') resolve();
      });
      socket.on('close', () => reject(new Error(`closed: ${JSON.stringify(messages)}`)));
    });
    socket.close();
    const answer = JSON.stringify(messages.find((message) => message.type === 'next' || message.type === 'error'));
    expect(answer).toContain('invalid_options');
    expect(answer).toContain('"limit":64');
  });
});

describe('requests the HTTP parser refuses, as envelopes', () => {
  it('a 100 KB query string is 431 with the envelope', async () => {
    const answer = await raw(`GET /v1/health?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toMatchObject({
      defined: true, code: 'invalid_options', status: 431, data: { details: { field: 'headers' } },
    });
    expect(answer.head).toMatch(/X-Request-Id: req_/);
  });

  it('a control character in a header is 400 with the envelope', async () => {
    const answer = await raw('GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      defined: true, code: 'invalid_options', status: 400, data: { details: { field: 'headers' } },
    });
  });

  it('POST /graphql as text/plain is 415 with the envelope', async () => {
    const envelope = await expectEnvelope(
      await server.request('/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{ __typename }' }), 415,
      'invalid_options',
    );
    expect(envelope.data.details.field).toBe('Content-Type');
  });

  it('a WebSocket handshake the protocol refuses is the envelope: a bad version, a bad key, an upgrade on POST', async () => {
    const upgrade = (method: string, path: string, headers: Record<string, string>) =>
      raw(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: `
        + `websocket\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
    const key = 'dGhlIHNhbXBsZSBub25jZQ==';
    for (const path of ['/graphql', `/v1/recordings/${recordingId}/subscribe`]) {
      const version = await upgrade('GET', path, { 'Sec-WebSocket-Key': key, 'Sec-WebSocket-Version': '99' });
      expect(version.status).toBe(400);
      expect(JSON.parse(version.body)).toMatchObject({
        defined: true, code: 'invalid_options', data: { details: { field: 'Sec-WebSocket-Version' } },
      });
      expect(version.head).toMatch(/Sec-WebSocket-Version: 13/);
      const badKey = await upgrade('GET', path, { 'Sec-WebSocket-Key': 'short', 'Sec-WebSocket-Version': '13' });
      expect(JSON.parse(badKey.body)).toMatchObject({
        code: 'invalid_options', status: 400, data: { details: { field: 'Sec-WebSocket-Key' } },
      });
      const post = await upgrade('POST', path, { 'Sec-WebSocket-Key': key, 'Sec-WebSocket-Version': '13', 'Content-Length': '0' });
      expect(post.status).toBe(405);
      expect(JSON.parse(post.body)).toMatchObject({ defined: true, code: 'method_not_allowed', data: { details: { allow: ['GET'] } } });
      expect(post.head).toMatch(/Allow: GET/);
      expect(post.head).toMatch(/X-Request-Id: req_/);
    }
  });

  it('the server goes on answering', async () => {
    expect((await server.request('/v1/health')).status).toBe(200);
  });
});

describe('sockets', () => {
  /** The events socket of the test's transcription, once its first frame (`events.ready`) arrived. */
  const openEventsSocket = async () => {
    const ws = server.socket(`/v1/transcriptions/${transcriptionId}/events`);
    ws.on('error', () => undefined);
    await new Promise((resolve) => ws.once('message', resolve));
    return ws;
  };
  const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));

  it('a frame over the socket\'s limit closes that socket (1009), and the server lives on', async () => {
    const ws = await openEventsSocket();
    const code = closed(ws);
    ws.send(Buffer.alloc(1024 * 1024));
    expect(await code).toBe(1009);
    expect((await server.request('/v1/health')).status).toBe(200);
  });

  it('a malformed frame (a reserved opcode) closes that socket, and the server lives on', async () => {
    const ws = await openEventsSocket();
    const code = closed(ws);
    // A masked frame with opcode 0x3 (reserved): the server's parser refuses it with a protocol error.
    (ws as unknown as { _socket: net.Socket })._socket.write(Buffer.from([0x83, 0x80, 0, 0, 0, 0]));
    expect(await code).toBe(1002);
    expect((await server.request('/v1/health')).status).toBe(200);
  });

  it('a malformed %-escape in a socket path is 404 with the envelope', async () => {
    const answer = await raw(`GET /v1/transcriptions/%E0%A4%A/events HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: `
      + `websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer `
        + `${server.apiKey}\r\n\r\n`);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('the order of refusals', () => {
  it('without a credential, a protected route is 401 whatever else is wrong with the request', async () => {
    const cases: [string, string, RequestInit?][] = [
      ['GET', '/v1/transcriptions?limit=abc&lifecycle=nope'],
      ['GET', '/v1/transcriptions/a%00b'],
      ['POST', '/v1/transcriptions', { headers: { 'content-type': 'application/json' }, body: '{not json' }],
      ['POST', '/v1/transcriptions', { headers: { 'content-type': 'text/plain' }, body: 'x' }],
      ['PATCH', `/v1/transcriptions/${transcriptionId}`, { headers: { 'content-type': 'application/json' }, body: 'null' }],
      ['POST', '/v1/api-keys', { headers: { 'content-type': 'application/json' }, body: '[1]' }],
      ['POST', '/v1/realtime/sessions', { headers: { 'content-type': 'application/json' }, body: '{"latencyMode":"warp"}' }],
    ];
    for (const [method, path, init] of cases) {
      await expectEnvelope(await server.request(path, { method, ...init, auth: null }), 401, 'invalid_token');
      await expectEnvelope(await server.request(path, { method, ...init, auth: 'sg_live_nope_nope' }), 401, 'invalid_token');
    }
  });

  it('a key without the route\'s scope is 403 before its input is judged', async () => {
    const { key } = await server.createKey(['read']);
    await expectEnvelope(
      await server.request(`/v1/transcriptions/${transcriptionId}`, {
        method: 'PATCH', auth: key, headers: { 'content-type': 'application/json' }, body: '{"bogus":1}',
      }),
      403, 'forbidden',
    );
  });
});

describe('bodies and query parameters', () => {
  it('a null, array or scalar JSON body where an object is expected is 400 naming the body', async () => {
    for (const [method, path] of [['PATCH', `/v1/transcriptions/${transcriptionId}`], ['POST', '/v1/api-keys']]) {
      for (const body of ['null', '[]', '3', '"x"']) {
        const envelope = await expectEnvelope(
          await server.request(path!, { method: method!, headers: { 'content-type': 'application/json' }, body }), 400, 'invalid_options',
        );
        expect(envelope.data.details.field, `${method} ${path} ${body}`).toBe('body');
      }
    }
  });

  it('a repeated query parameter is refused by name', async () => {
    const envelope = await expectEnvelope(
      await server.request('/v1/transcriptions?lifecycle=all&lifecycle=active'), 400, 'invalid_options',
    );
    expect(envelope.data.details.field).toBe('lifecycle');
    expect(envelope.message).toContain('lifecycle');
  });

  it('a query parameter the route does not declare is refused by name, as an unknown body field is', async () => {
    const misspelt = await expectEnvelope(await server.request('/v1/transcriptions?limt=5'), 400, 'invalid_options');
    expect(misspelt.data.details.field).toBe('limt');
    expect(misspelt.message).toMatch(/limt is not a parameter of this route \(it takes .*limit/);
    const none = await expectEnvelope(await server.request('/v1/me?verbose=true'), 400, 'invalid_options');
    expect(none.message).toContain('it takes none');
    // Anonymous routes alike.
    expect((await expectEnvelope(await server.request('/v1/health?x=1', { auth: null }), 400, 'invalid_options')).data.details.field).toBe(
      'x',
    );
  });
});

describe('paths', () => {
  it('another method on a fixed path beside a parameter path is 405, not a lookup of an id', async () => {
    for (const method of ['PATCH', 'POST', 'DELETE']) {
      const res = await server.request('/v1/transcriptions/probe?url=https://example.org/', {
        method, headers: { 'content-type': 'application/json' }, body: method === 'DELETE' ? undefined : '{}',
      });
      await expectEnvelope(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe('names and languages', () => {
  it('an API key name is at most 200 characters', async () => {
    const envelope = await expectEnvelope(
      await server.request('/v1/api-keys', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'k'.repeat(201) }),
      }),
      400, 'invalid_options',
    );
    expect(envelope.data.details.field).toBe('name');
  });

  it('a spoken language the model does not know is refused at create and on update', async () => {
    const created = await server.request('/v1/transcriptions', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.org/b.mp3', settings: { spokenLanguage: 'xx-nope' } }),
    });
    expect((await expectEnvelope(created, 400, 'invalid_options')).data.details.field).toBe('settings.spokenLanguage');
    const updated = await server.request(`/v1/transcriptions/${transcriptionId}`, {
      method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { spokenLanguage: 'qq' } }),
    });
    expect((await expectEnvelope(updated, 400, 'invalid_options')).data.details.field).toBe('settings.spokenLanguage');
    const fine = await server.request(`/v1/transcriptions/${transcriptionId}`, {
      method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { spokenLanguage: 'en-US' } }),
    });
    expect(fine.status).toBe(200);
  });
});

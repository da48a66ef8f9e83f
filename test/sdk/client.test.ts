/**
 * The SDK against the real server, as a user's program would use it: typed REST calls, the spec's retry rules
 * (through a proxy that answers scripted 429s and 503s, then forwards), typed errors from real failures, uploads
 * with progress, and the GraphQL helper. Imported by the package's own `exports` name, as users import it.
 */
import fs from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, graphqlDocuments, SpeechgateError, type ClientOptions, type UploadProgress } from 'speechgate/sdk';
import { listenOnLoopback, serveWavOnLoopback, type Loopback } from '../helpers/loopback.js';
import { fixture } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { startFaultyProxy } from './faulty-proxy.js';

const server = useTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
const speechPath = fixture('goforward.wav');
let proxy: Awaited<ReturnType<typeof startFaultyProxy>>;
let files: Loopback;
/** The waits the SDK asked for, in ms (the test's `sleep` returns at once). */
const waits: number[] = [];

beforeAll(async () => {
  proxy = await startFaultyProxy(server.url);
  files = await serveWavOnLoopback(speechPath);
});
afterAll(async () => {
  await proxy?.close();
  await files?.close();
});
beforeEach(() => {
  proxy.reset();
  waits.length = 0;
});

function sdk(options: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl: proxy.url, apiKey: server.apiKey, sleep: async (ms) => void waits.push(ms), ...options } as ClientOptions);
}

async function failureOf(promise: Promise<unknown>): Promise<SpeechgateError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SpeechgateError);
  return error as SpeechgateError;
}

describe('typed REST calls', () => {
  it('creates a transcription from a link, reads it back and finds it in the list; the create carried a generated key', async () => {
    const client = sdk();
    const created = await client.POST('/v1/transcriptions', { body: { url: `${files.url}/speech.wav`, name: 'From a link' } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ kind: 'link', name: 'From a link', state: 'active' });
    const id = created.data!.id;
    expect(proxy.seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

    const read = await client.GET('/v1/transcriptions/{id}', { params: { path: { id } } });
    expect(read.data).toMatchObject({ id, kind: 'link', sourceUrl: `${files.url}/speech.wav` });
    const list = await client.GET('/v1/transcriptions', { params: { query: { limit: 50 } } });
    expect(list.data!.transcriptions.map((transcription) => transcription.id)).toContain(id);
    // Reads carry no key: only the operations the OpenAPI document marks idempotent get one.
    expect(proxy.seen.slice(1).map((request) => request.idempotencyKey)).toEqual([null, null]);
  });
});

describe('retry rules', () => {
  it('retries a 429 twice after Retry-After by default, then surfaces rate_limited', async () => {
    proxy.fail({ status: 429, retryAfter: '1' }, { status: 429, retryAfter: '1' }, { status: 429, retryAfter: '1' });
    const error = await failureOf(sdk().GET('/v1/transcriptions'));
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, requestId: 'req_proxy' });
    expect(proxy.seen).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('a 429 then a real answer: the call succeeds on its retry', async () => {
    proxy.fail({ status: 429, retryAfter: '0' });
    const list = await sdk().GET('/v1/transcriptions');
    expect(list.response.status).toBe(200);
    expect(proxy.seen.map((request) => request.answer)).toEqual(['fault', 200]);
  });

  it('`retries` sets how many: 0 surfaces the first 429', async () => {
    proxy.fail({ status: 429, retryAfter: '0' });
    expect(await failureOf(sdk({ retries: 0 }).GET('/v1/transcriptions'))).toMatchObject({ code: 'rate_limited', retryAfterMs: 0 });
    expect(proxy.seen).toHaveLength(1);
  });

  it('a Retry-After beyond maxRetryDelayMs is not waited out: the error surfaces at once', async () => {
    proxy.fail({ status: 429, retryAfter: '3600' });
    expect(await failureOf(sdk().GET('/v1/transcriptions'))).toMatchObject({ code: 'rate_limited', status: 429, retryAfterMs: 3_600_000 });
    expect(proxy.seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('retries a GET on 503 unavailable, and on a bare 503 with no envelope (1 s, then 2 s without Retry-After)', async () => {
    proxy.fail({ status: 503, retryAfter: '2' });
    expect((await sdk().GET('/v1/transcriptions')).response.status).toBe(200);
    expect(waits).toEqual([2000]);

    proxy.reset();
    waits.length = 0;
    proxy.fail({ status: 503, code: null }, { status: 503, code: null });
    expect((await sdk().GET('/v1/transcriptions')).response.status).toBe(200);
    expect(proxy.seen.map((request) => request.answer)).toEqual(['fault', 'fault', 200]);
    expect(waits).toEqual([1000, 2000]);
  });

  it('a bare 503 on every attempt surfaces as unavailable', async () => {
    proxy.fail({ status: 503, code: null }, { status: 503, code: null }, { status: 503, code: null });
    expect(await failureOf(sdk().GET('/v1/transcriptions'))).toMatchObject({ code: 'unavailable', status: 503, requestId: null });
    expect(proxy.seen).toHaveLength(3);
  });

  it('a 503 other than unavailable (engine_unavailable) is not retried', async () => {
    proxy.fail({ status: 503, code: 'engine_unavailable', retryAfter: '0' });
    expect(await failureOf(sdk().GET('/v1/transcriptions'))).toMatchObject({ code: 'engine_unavailable', status: 503 });
    expect(proxy.seen).toHaveLength(1);
  });

  it('a non-idempotent POST is not retried on 503, enveloped or bare; a 429 on it is', async () => {
    const pause = () => sdk().POST('/v1/recordings/{id}/pause', { params: { path: { id: 'rec_missing' } } });
    proxy.fail({ status: 503, retryAfter: '0' });
    expect(await failureOf(pause())).toMatchObject({ code: 'unavailable', status: 503 });
    proxy.fail({ status: 503, code: null });
    expect(await failureOf(pause())).toMatchObject({ code: 'unavailable', status: 503 });
    expect(proxy.seen.map((request) => request.idempotencyKey)).toEqual([null, null]);
    expect(proxy.seen).toHaveLength(2);

    proxy.reset();
    // Refused before it ran, so a 429 is retried on any call; the real server then answers 404.
    proxy.fail({ status: 429, retryAfter: '0' });
    expect(await failureOf(pause())).toMatchObject({ code: 'not_found', status: 404 });
    expect(proxy.seen.map((request) => request.answer)).toEqual(['fault', 404]);
  });

  it('a create whose answer was lost in a 503 is retried with the same key, and the server replays its first answer', async () => {
    const client = sdk();
    const name = `Replayed ${Date.now()}`;
    proxy.fail({ status: 503, retryAfter: '0', afterForwarding: true });
    const created = await client.POST('/v1/transcriptions/live', { body: { name } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('idempotent-replayed')).toBe('true');
    const [first, second] = proxy.seen;
    expect(proxy.seen).toHaveLength(2);
    expect(first).toMatchObject({ method: 'POST', answer: 'fault', serverStatus: 201, replayed: null });
    expect(second).toMatchObject({ method: 'POST', answer: 201, replayed: 'true', idempotencyKey: first!.idempotencyKey });
    expect(first!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

    const list = await client.GET('/v1/transcriptions', { params: { query: { limit: 100 } } });
    expect(
      list.data!.transcriptions.filter((transcription) => transcription.name === name).map((transcription) => transcription.id),
    ).toEqual([created.data!.id]);
  });

  it('a key the caller gives is kept', async () => {
    const key = crypto.randomUUID();
    await sdk().POST('/v1/transcriptions/live', { params: { header: { 'Idempotency-Key': key } }, body: { name: 'Own key' } });
    expect(proxy.seen[0]!.idempotencyKey).toBe(key);
  });
});

describe('typed errors', () => {
  it('a real 404 carries code, status, message and the request id of its X-Request-Id', async () => {
    let requestId: string | null = null;
    const client = createClient({
      baseUrl: server.url, apiKey: server.apiKey,
      fetch: async (request) => {
        const response = await fetch(request);
        requestId = response.headers.get('x-request-id');
        return response;
      },
    });
    const error = await failureOf(client.GET('/v1/transcriptions/{id}', { params: { path: { id: 'trn_missing' } } }));
    expect(error).toMatchObject({ name: 'SpeechgateError', code: 'not_found', status: 404, retryable: false });
    expect(error.message.length).toBeGreaterThan(0);
    expect(requestId).toBeTruthy();
    expect(error.requestId).toBe(requestId);
  });

  it('a real 422 (a key reused with another body) carries its code and details', async () => {
    const key = crypto.randomUUID();
    const client = sdk();
    await client.POST('/v1/transcriptions/live', { params: { header: { 'Idempotency-Key': key } }, body: { name: 'First body' } });
    const error = await failureOf(client.POST('/v1/transcriptions/live', {
      params: { header: { 'Idempotency-Key': key } }, body: { name: 'Second body' },
    }));
    expect(error).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    expect(error.requestId).toMatch(/\S/);
    expect(error.details).toBeTypeOf('object');
    expect(proxy.seen).toHaveLength(2);
  });

  it('a wrong credential answers invalid_token 401', async () => {
    expect(await failureOf(sdk({ apiKey: 'sg_live_not_a_key' }).GET('/v1/transcriptions'))).toMatchObject({
      code: 'invalid_token', status: 401,
    });
  });

  it('no answer at all is network_error, status 0, not retried', async () => {
    const closed = await listenOnLoopback(() => undefined);
    await closed.close();
    const error = await failureOf(createClient({ baseUrl: closed.url, apiKey: server.apiKey }).GET('/v1/transcriptions'));
    expect(error).toMatchObject({ code: 'network_error', status: 0, requestId: null });
  });
});

describe('uploads', () => {
  it('uploads a file path with byte progress up to the file size, and answers the transcription', async () => {
    const size = (await fs.stat(speechPath)).size;
    const progress: UploadProgress[] = [];
    const transcription = await sdk().transcriptions.upload(
      speechPath, { name: 'Uploaded', settings: { spokenLanguage: 'en' } }, { onProgress: (event) => progress.push(event) },
    );
    expect(transcription).toMatchObject({ kind: 'file', name: 'Uploaded', settings: { spokenLanguage: 'en' } });
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.every((event) => event.total === size)).toBe(true);
    const loaded = progress.map((event) => event.loaded);
    expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
    expect(loaded.at(-1)).toBe(size);
    expect(proxy.seen[0]).toMatchObject({ method: 'POST', path: '/v1/transcriptions', answer: 201 });
    expect(proxy.seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an upload refused with 503 is sent again whole under the same key, and the file name comes from a File', async () => {
    proxy.fail({ status: 503, retryAfter: '0' });
    const bytes = await fs.readFile(speechPath);
    const progress: number[] = [];
    const transcription = await sdk().transcriptions.upload(new File([bytes], 'speech.wav', { type: 'audio/wav' }), undefined, {
      onProgress: (event) => progress.push(event.loaded),
    });
    expect(transcription).toMatchObject({ kind: 'file', name: 'speech.wav' });
    // An in-memory file is one chunk to its stream: progress still moves in steps, and starts over on the retry.
    expect(progress.filter((loaded) => loaded === bytes.length)).toHaveLength(2);
    expect(progress.filter((loaded) => loaded > 0 && loaded < bytes.length).length).toBeGreaterThan(1);
    expect(proxy.seen.map((request) => request.answer)).toEqual(['fault', 201]);
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
  });

  it('a refused upload throws the server\'s error', async () => {
    const error = await failureOf(sdk().transcriptions.upload(
      new TextEncoder().encode('not audio at all'), { name: 'Noise' }, { fileName: 'noise.wav' },
    ));
    expect(error).toMatchObject({ code: 'invalid_audio', status: 400 });
  });
});

describe('GraphQL helper', () => {
  it('runs a query with variables and answers its data', async () => {
    const client = sdk();
    const created = await client.POST('/v1/transcriptions/live', { body: { name: 'Through GraphQL' } });
    const data = await client.graphql<{ transcription: { id: string; name: string } }>('query One($id: ID!) { transcription(id: $id) { id '
      + 'name } }', { id: created.data!.id });
    expect(data.transcription).toEqual({ id: created.data!.id, name: 'Through GraphQL' });
  });

  it('types a generated operation document: its variables and data', async () => {
    const client = sdk();
    const data = await client.graphql(graphqlDocuments.MeDocument);
    // `data.me` is typed MeQuery['me']: the key's own principal and account, as the server answers them.
    expect(data.me.apiKeyId).toMatch(/\S/);
    expect(data.me.principal.kind).toBe('api_key');
    const created = await client.graphql(graphqlDocuments.CreateLiveTranscriptionDocument, { input: { name: 'Typed document' } });
    expect(created.createLiveTranscription.name).toBe('Typed document');
  });

  it('maps a GraphQL error to a SpeechgateError with the same fields as the envelope', async () => {
    const error = await failureOf(sdk().graphql('query { transcription(id: "trn_missing") { id } }'));
    expect(error).toMatchObject({ code: 'not_found', status: 404, retryable: false });
    expect(error.requestId).toMatch(/\S/);
    const invalid = await failureOf(sdk().graphql('query { noSuchField }'));
    expect(invalid).toMatchObject({ code: 'invalid_options', status: 400 });
  });

  it('retries a query on 503 but not a mutation', async () => {
    proxy.fail({ status: 503, retryAfter: '0' });
    await sdk().graphql('query { transcriptions(limit: 1) { items { id } } }');
    expect(proxy.seen.map((request) => request.answer)).toEqual(['fault', 200]);

    proxy.reset();
    proxy.fail({ status: 503, retryAfter: '0' });
    const error = await failureOf(sdk().graphql('mutation { createLiveTranscription(input: { name: "Not twice" }) { id } }'));
    expect(error).toMatchObject({ code: 'unavailable', status: 503 });
    expect(proxy.seen).toHaveLength(1);
  });
});

/**
 * Uploads as an outside client sends them: truncated or malformed multipart bodies, parts in either order, more
 * parts than one transcription takes, and Idempotency-Key repeats whose bodies differ only in their bytes.
 */
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { goForward, json, uploadForm } from '../helpers/http.js';

const server = useTestServer({ workers: [] });

/** The recordings' media folders on disk: one per transcription kept, none for a refused upload. */
const storedMedia = () => readdir(path.join(server.env.DATA_DIR!, 'media')).catch(() => [] as string[]);

// Whatever a test sent, no stored file outlives the request that brought it unless a recording took it over.
afterEach(async () => {
  await eventually(async () => {
    const recordings = new Set((await server.prisma.recording.findMany({ select: { id: true } })).map((r) => r.id));
    expect((await storedMedia()).filter((dir) => !recordings.has(dir))).toEqual([]);
  });
});

/**
 * Sends raw bytes as an HTTP request and reads the whole answer (the server closes the connection after it). The
 * socket is not half-closed: like curl, the client waits for the answer with its side open.
 */
function rawRequest(bytes: Buffer | string, { hangUpAfterWrite = false } = {}): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      let body = rest.join('\r\n\r\n');
      // A chunked answer: keep the JSON between the size lines.
      if (/transfer-encoding: chunked/i.test(head)) body = body.split('\r\n').filter((_line, i) => i % 2 === 1).join('');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
    socket.write(bytes);
    if (hangUpAfterWrite) socket.destroy();
    else socket.setTimeout(20_000, () => socket.destroy());
  });
}

function multipartRequest(body: string | Buffer, extraHeaders = '') {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return Buffer.concat([
    Buffer.from(
      `POST /v1/transcriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.apiKey}\r\n`
      + `Content-Type: multipart/form-data; boundary=B\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n${extraHeaders}\r\n`,
    ),
    payload,
  ]);
}

describe('malformed multipart bodies', () => {
  it('a body that ends inside the file part is answered 400 and the server lives on', async () => {
    const answer = await rawRequest(multipartRequest('--B\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF'));
    expect(answer.status).toBe(400);
    const envelope = JSON.parse(answer.body);
    expect(envelope).toMatchObject({ code: 'invalid_options', status: 400, data: { details: { field: 'file' } } });
    expect((await server.request('/v1/health')).status).toBe(200);
    expect(await server.prisma.transcription.count()).toBe(0);
    expect(await storedMedia()).toEqual([]);
  });

  it('a connection dropped in the middle of the file leaves nothing behind and the server lives on', async () => {
    const head = '--B\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n';
    const partial = Buffer.concat([Buffer.from(head), goForward.subarray(0, 20_000)]);
    // Declare the whole length, send a part of it, then hang up.
    const request = multipartRequest(Buffer.concat([partial, Buffer.alloc(50_000)])).subarray(0, partial.length + 200);
    await rawRequest(request, { hangUpAfterWrite: true }).catch(() => null);
    // The server notices the hang-up and removes the part of the file it had stored.
    await eventually(async () => expect(await storedMedia()).toEqual([]));
    expect((await server.request('/v1/health')).status).toBe(200);
    expect(await server.prisma.transcription.count()).toBe(0);
  });

  it('a body that ends inside the options part, or before any part, is 400 naming the part', async () => {
    for (const body of ['--B\r\nContent-Disposition: form-data; name="options"\r\n\r\n{"name":', '--B\r\n', '']) {
      const answer = await rawRequest(multipartRequest(body));
      expect(answer.status, body).toBe(400);
      expect(JSON.parse(answer.body).code).toBe('invalid_options');
    }
    expect((await server.request('/v1/health')).status).toBe(200);
  });
});

describe('multipart parts', () => {
  it('accepts the options part after the file (curl -F file=@a -F options=…)', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(goForward)], { type: 'audio/wav' }), 'goforward.wav');
    form.append('options', JSON.stringify({ name: 'Options last', settings: { spokenLanguage: 'en' }, shareLink: false }));
    const res = await server.request('/v1/transcriptions', { method: 'POST', body: form });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ name: 'Options last', settings: { spokenLanguage: 'en' } });
    expect(body.shareLink ?? null).toBeNull();
  });

  it('refuses options after the file when they are invalid, keeping nothing', async () => {
    const before = await server.prisma.transcription.count();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(goForward)], { type: 'audio/wav' }), 'goforward.wav');
    form.append('options', JSON.stringify({ bogus: 1 }));
    const res = await server.request('/v1/transcriptions', { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'bogus' } } });
    expect(await server.prisma.transcription.count()).toBe(before);
    expect(await storedMedia()).toHaveLength(before);
  });

  it('refuses a second file part instead of ignoring it', async () => {
    const before = await server.prisma.transcription.count();
    const form = uploadForm(goForward);
    form.append('file', new Blob([new Uint8Array(goForward)], { type: 'audio/wav' }), 'again.wav');
    const res = await server.request('/v1/transcriptions', { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'file' } } });
    expect(await server.prisma.transcription.count()).toBe(before);
    expect(await storedMedia()).toHaveLength(before);
  });

  it('refuses a repeated options part', async () => {
    const form = new FormData();
    form.append('options', JSON.stringify({ name: 'a' }));
    form.append('options', JSON.stringify({ name: 'b' }));
    form.append('file', new Blob([new Uint8Array(goForward)], { type: 'audio/wav' }), 'goforward.wav');
    const res = await server.request('/v1/transcriptions', { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'options' } } });
  });
});

describe('Idempotency-Key on uploads', () => {
  /** The fixture with one sample changed: the same length, other bytes. */
  const variant = (n: number) => {
    const bytes = Buffer.from(goForward);
    bytes.writeInt16LE(n, bytes.length - 2);
    return bytes;
  };

  it('another file of the same length under the same key is 422 idempotency_key_reused', async () => {
    const key = crypto.randomUUID();
    const first = await server.request('/v1/transcriptions', {
      method: 'POST', body: uploadForm(variant(1)), headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const other = await server.request('/v1/transcriptions', {
      method: 'POST', body: uploadForm(variant(2)), headers: { 'idempotency-key': key },
    });
    expect(other.status).toBe(422);
    expect(await json(other)).toMatchObject({ code: 'idempotency_key_reused' });
    const options = await server.request('/v1/transcriptions', {
      method: 'POST', body: uploadForm(variant(1), { name: 'x' }), headers: { 'idempotency-key': key },
    });
    expect(options.status).toBe(422);
    const same = await server.request('/v1/transcriptions', {
      method: 'POST', body: uploadForm(variant(1)), headers: { 'idempotency-key': key },
    });
    expect(same.status).toBe(201);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(same)).id).toBe((await json(first)).id);
  });

  it('concurrent repeats with different bodies never get another body\'s answer', async () => {
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const res = await server.request('/v1/transcriptions', {
        method: 'POST', body: uploadForm(variant(i % 4 === 0 ? 7 : 100 + i)), headers: { 'idempotency-key': key },
      });
      return { i, status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await json(res) };
    }));
    const created = answers.filter((a) => a.status === 201);
    const ids = new Set(created.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    const winner = created.find((a) => a.replayed !== 'true') ?? created[0]!;
    const winnerBody = winner.i % 4 === 0 ? 'same' : `other:${winner.i}`;
    for (const answer of answers) {
      const body = answer.i % 4 === 0 ? 'same' : `other:${answer.i}`;
      if (answer.status === 201) expect(body, JSON.stringify(answer)).toBe(winnerBody);
      else expect([409, 422], JSON.stringify(answer)).toContain(answer.status);
    }
    const rows = await server.prisma.transcription.count({ where: { id: { in: [...ids] } } });
    expect(rows).toBe(1);
  });
});

describe('what can be known at create is refused at create', () => {
  it('startS at or past the end of the uploaded file', async () => {
    const before = await server.prisma.transcription.count();
    const res = await server.request('/v1/transcriptions', { method: 'POST', body: uploadForm(goForward, { startS: 30 }) });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'startS' } } });
    expect(await server.prisma.transcription.count()).toBe(before);
    expect(await storedMedia()).toHaveLength(before);
  });

  it('a file that is not audio, without the server\'s paths in the message', async () => {
    const res = await server.request('/v1/transcriptions', {
      method: 'POST', body: uploadForm(Buffer.from('plain text, not audio '.repeat(40)), undefined, 'notes.mp3'),
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ code: 'invalid_audio', data: { details: { field: 'file' } } });
    expect(JSON.stringify(body)).not.toContain(server.env.DATA_DIR!);
    expect(JSON.stringify(body)).not.toMatch(/\/(tmp|media|rec_)/);
  });
});

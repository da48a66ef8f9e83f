/**
 * Live transcriptions whose source is a stream the server pulls itself (`source: {kind: 'stream', url}`): an HTTP
 * audio stream that drops and is reopened, an HLS playlist (master → media playlist → MPEG-TS segments), and
 * sources that cannot be opened, which fail the recording with a reason. The streams are served by an HTTP server
 * on loopback, which the address policy lets through only because this suite names it in LINK_FETCH_ALLOW_HOSTS.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegPath } from '../../workers/engine/audio.js';
import { json } from '../helpers/http.js';
import { GO_FORWARD, GO_FORWARD_TEXT, normalise, sleep } from '../helpers/realtime.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let source: http.Server;
let base: string;
let hlsDir: string;
const connections: Record<string, number> = {};

beforeAll(async () => {
  hlsDir = mkdtempSync(path.join(tmpdir(), 'sg-hls-'));
  const made = spawnSync(ffmpegPath(), [
    '-nostdin', '-loglevel', 'error', '-i', GO_FORWARD, '-c:a', 'aac', '-b:a', '64k', '-f', 'hls', '-hls_time', '1', '-hls_list_size', '0',
    path.join(hlsDir, 'live.m3u8'),
  ]);
  expect(made.status, made.stderr?.toString()).toBe(0);
  const wav = readFileSync(GO_FORWARD);
  source = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    connections[url.pathname] = (connections[url.pathname] ?? 0) + 1;
    if (url.pathname === '/radio.wav') {
      // An internet radio that plays one sentence per connection, then drops it.
      res.writeHead(200, { 'Content-Type': 'audio/wav' });
      res.end(wav);
    } else if (url.pathname === '/hls/master.m3u8') {
      res.writeHead(200, { 'Content-Type': 'application/vnd.apple.mpegurl' });
      res.end('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"\nlive.m3u8\n');
    } else if (url.pathname === '/hls/live.m3u8') {
      // A live playlist: no ENDLIST, so the puller keeps asking for more.
      const playlist = readFileSync(path.join(hlsDir, 'live.m3u8'), 'utf8').replace('#EXT-X-ENDLIST\n', '');
      res.writeHead(200, { 'Content-Type': 'application/vnd.apple.mpegurl' });
      res.end(playlist);
    } else if (url.pathname.startsWith('/hls/') && readdirSync(hlsDir).includes(path.basename(url.pathname))) {
      res.writeHead(200, { 'Content-Type': 'video/mp2t' });
      res.end(readFileSync(path.join(hlsDir, path.basename(url.pathname))));
    } else if (url.pathname === '/page.html') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html><body>Not a stream</body></html>');
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('no such stream');
    }
  });
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  server = await startTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => source?.close(resolve));
  rmSync(hlsDir, { recursive: true, force: true });
});

async function recordStream(url: string) {
  const created = await server.postJson('/v1/transcriptions/live', {
    name: 'Radio', settings: { spokenLanguage: 'en' }, source: { kind: 'stream', url },
  });
  expect(created.status).toBe(201);
  const live = await created.json();
  const events = server.socket(`/v1/transcriptions/${live.id}/events`);
  const heard: Array<Record<string, unknown> & { type: string }> = [];
  events.on('message', (data) => heard.push(JSON.parse(data.toString())));
  await new Promise((resolve) => events.once('message', resolve));
  const response = await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {});
  const grant = await response.json();
  expect(response.status, JSON.stringify(grant)).toBe(201);
  // The server is the publisher: the grant has no socket for a client.
  expect(grant.streamUrl).toBeNull();
  expect(grant.recording.ingest).toMatchObject({ state: 'connecting', reconnects: 0 });
  return { live, id: grant.recording.id as string, heard, events };
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await sleep(250);
  }
}

const recording = async (id: string) => json(await server.request(`/v1/recordings/${id}`));
const transcriptText = async (id: string) => normalise(
  (await json(await server.request(`/v1/recordings/${id}/transcript`))).segments.map((s: { text: string }) => s.text).join(' '),
);

async function stopAndFinalize(id: string) {
  expect((await server.postJson(`/v1/recordings/${id}/pause`, {})).status).toBe(200);
  expect((await server.postJson(`/v1/recordings/${id}/stop`, {})).status).toBe(200);
  return until('finalized', async () => {
    const current = await recording(id);
    return current.state === 'finalized' && current;
  });
}

describe('stream sources', () => {
  it('an HTTP audio stream is pulled, transcribed and stored, and reopened with backoff when it drops', async () => {
    const { id, heard, events } = await recordStream(`${base}/radio.wav`);
    // Each connection plays one sentence and drops: the second one proves the reopen.
    const reopened = await until('a reopened stream and its words stored', async () => {
      const current = await recording(id);
      return (
        current.ingest.reconnects >= 1 && (connections['/radio.wav'] ?? 0) >= 2 && GO_FORWARD_TEXT.test(await transcriptText(id)) && current
      );
    }, 180_000);
    expect(connections['/radio.wav']).toBeGreaterThanOrEqual(2);
    expect(reopened.ingest).toMatchObject({ bytes: expect.any(Number), seconds: expect.any(Number) });
    expect(reopened.ingest.bytes).toBeGreaterThan(0);
    // Durable state changes and periodic progress on the transcription's events socket.
    await until('a stream.ingest frame', async () => heard.find((frame) => frame.type === 'stream.ingest'));
    const ingestStates = heard.filter((frame) => frame.type === 'recording.ingest').map((frame) => frame.state);
    expect(ingestStates).toContain('streaming');
    expect(ingestStates).toContain('reconnecting');
    expect(heard.find((frame) => frame.type === 'stream.ingest')).toMatchObject({
      recordingId: id, bytes: expect.any(Number), seconds: expect.any(Number), reconnects: expect.any(Number),
    });
    // No client publishes to a pulled recording.
    const token = await server.postJson(`/v1/recordings/${id}/publish-token`, {});
    expect(token.status).toBe(409);
    expect((await token.json()).code).toBe('invalid_state');

    const finalized = await stopAndFinalize(id);
    expect(finalized.durationS).toBeGreaterThan(2);
    const transcript = await json(await server.request(`/v1/recordings/${id}/transcript`));
    expect(transcript.segments.map((s: { seq: number }) => s.seq)).toEqual(transcript.segments.map((_: unknown, index: number) => index));
    events.close();
  }, 300_000);

  it('an HLS playlist (master, media playlist, MPEG-TS segments) is followed segment by segment', async () => {
    const { id } = await recordStream(`${base}/hls/master.m3u8`);
    await until('the HLS words stored', async () => GO_FORWARD_TEXT.test(await transcriptText(id)), 180_000);
    expect(connections['/hls/master.m3u8']).toBeGreaterThanOrEqual(1);
    expect(connections['/hls/live.m3u8']).toBeGreaterThanOrEqual(1);
    expect(connections['/hls/live0.ts']).toBeGreaterThanOrEqual(1);
    // A playlist that stops growing for six target durations has ended: the pull then reopens it.
    expect((await recording(id)).ingest).toMatchObject({
      state: expect.stringMatching(/^(streaming|reconnecting)$/), bytes: expect.any(Number),
    });
    await stopAndFinalize(id);
  }, 300_000);

  it.each([
    ['/missing.mp3', /HTTP 404/],
    ['/page.html', /not audio/],
  ])('a source that cannot be opened (%s) fails the recording with the reason, never a silent hang', async (pathname, reason) => {
    const { id, heard, events } = await recordStream(`${base}${pathname}`);
    const finalized = await until('the failed recording finalized', async () => {
      const current = await recording(id);
      return current.state === 'finalized' && current;
    }, 120_000);
    expect(finalized.ingest).toMatchObject({ state: 'failed', error: expect.stringMatching(reason) });
    expect(connections[pathname]).toBe(3);
    const ended = heard.find((frame) => frame.type === 'recording.state' && frame.state === 'ended');
    expect(ended).toMatchObject({ reason: 'source_failed', error: expect.stringMatching(reason) });
    const log = await json(await server.request(`/v1/recordings/${id}/events`));
    expect(log.events.map((event: { type: string }) => event.type)).toContain('recording.ingest');
    events.close();
  }, 180_000);
});

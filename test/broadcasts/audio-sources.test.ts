/**
 * A broadcast's audio sources through REST and GraphQL: kept with it (oldest first, name from the host), refused
 * when malformed or unfetchable, removed; the check opening them for real (an MP3 stream and an HLS playlist are
 * ready; a playlist file or a web page that names a stream is an error whose `fix` is that stream; HTTP errors,
 * non-audio, refused redirects, dead ports and silent streams each say so), its cache and `fresh`; and a recording
 * started from one, which the server pulls. The sources are served on loopback, which the address policy lets
 * through only because this suite names it in LINK_FETCH_ALLOW_HOSTS.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegPath } from '../../workers/engine/audio.js';
import { playlistEntries } from '../../src/broadcasts/source-check.js';
import { eventually } from '../helpers/fixtures.js';
import { expectInvalidOption, expectStatus, json } from '../helpers/http.js';
import { GO_FORWARD } from '../helpers/realtime.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sources: http.Server;
let base: string;
let encoded: string;
/** What `/switch.mp3` answers now: the cache test flips it. */
let switchPlays = false;

/** What each path of the loopback source server answers now: content type and body (null: headers, then silence), or 404. */
const answers: Record<string, () => { type: string; body: Buffer | string | null } | null> = {};

beforeAll(async () => {
  encoded = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-sources-'));
  const encode = (args: string[]) => {
    const made = spawnSync(ffmpegPath(), ['-nostdin', '-loglevel', 'error', '-i', GO_FORWARD, ...args]);
    expect(made.status, made.stderr?.toString()).toBe(0);
  };
  encode(['-c:a', 'libmp3lame', '-b:a', '64k', path.join(encoded, 'radio.mp3')]);
  encode(['-c:a', 'aac', '-b:a', '64k', '-f', 'hls', '-hls_time', '1', '-hls_list_size', '0', path.join(encoded, 'live.m3u8')]);
  const mp3 = fs.readFileSync(path.join(encoded, 'radio.mp3'));
  Object.assign(answers, {
    '/radio.mp3': () => ({ type: 'audio/mpeg', body: mp3 }),
    '/hls/live.m3u8': () => ({ type: 'application/vnd.apple.mpegurl', body: fs.readFileSync(path.join(encoded, 'live.m3u8')) }),
    '/list.m3u': () => ({ type: 'audio/x-mpegurl', body: '# a plain M3U: no #EXTM3U header, one relative entry\nradio.mp3\n' }),
    '/list.pls': () => ({
      type: 'audio/x-scpls',
      body: `[playlist]\nFile1=${base}/gone.mp3\nTitle1=Gone\nFile2=${base}/radio.mp3\nTitle2=Radio\nNumberOfEntries=2\nVersion=2\n`,
    }),
    '/player.html': () => ({ type: 'text/html; charset=utf-8', body: '<!doctype html><html><body><h1>Live</h1><audio controls><source '
      + 'src="/radio.mp3" type="audio/mpeg"></audio></body></html>' }),
    '/og.html': () => ({ type: 'text/html', body: `<html><head><meta property="og:audio" `
      + `content="${base}/radio.mp3"></head><body></body></html>` }),
    '/plain.html': () => ({ type: 'text/html', body: '<html><body>No stream here</body></html>' }),
    '/notes.txt': () => ({ type: 'text/plain', body: 'these are words, not sounds\n'.repeat(40) }),
    '/switch.mp3': () => (switchPlays ? { type: 'audio/mpeg', body: mp3 } : null),
    '/silent.mp3': () => ({ type: 'audio/mpeg', body: null }),
    '/broken.mp3': () => ({ type: 'audio/mpeg', body: 'broken' }),
  });
  sources = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/to-metadata') {
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data' });
      res.end();
      return;
    }
    const segment = /^\/hls\/(live\d+\.ts)$/.exec(url.pathname)?.[1];
    const answer = segment ? { type: 'video/mp2t', body: fs.readFileSync(path.join(encoded, segment)) } : answers[url.pathname]?.();
    if (!answer) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('no such stream');
      return;
    }
    res.writeHead(200, { 'Content-Type': answer.type });
    // A stream that answers and then says nothing: only the check's time limit ends it.
    if (answer.body === null) return void res.flushHeaders();
    // One whose connection breaks after the first bytes of audio.
    if (answer.body === 'broken') return void res.write(mp3.subarray(0, 2048), () => res.destroy());
    res.end(answer.body);
  });
  await once(sources.listen(0, '127.0.0.1'), 'listening');
  base = `http://127.0.0.1:${(sources.address() as AddressInfo).port}`;
  // Loopback is no address the server fetches from, but for this suite's own source server.
  server = await startTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  sources?.closeAllConnections();
  await new Promise((resolve) => sources?.close(resolve));
  fs.rmSync(encoded, { recursive: true, force: true });
});

async function broadcast(name = 'Radio hall') {
  return expectStatus(await server.postJson('/v1/broadcasts', { name }), 201);
}

const addSource = (broadcastId: string, body: unknown, auth?: string) => server.postJson(
  `/v1/broadcasts/${broadcastId}/audio-sources`, body, { auth },
);

/** A broadcast with one source at `pathname` on the loopback server; answers the source's id. */
async function sourceAt(pathname: string) {
  const created = await broadcast(`Check ${pathname}`);
  const added = await expectStatus(await addSource(created.id, { url: `${base}${pathname}` }), 201);
  return { broadcastId: created.id as string, sourceId: added.audioSources[0].id as string };
}

async function check(broadcastId: string, sourceId: string, query = '') {
  return expectStatus(await server.request(`/v1/broadcasts/${broadcastId}/audio-sources/${sourceId}/check${query}`), 200);
}

describe('audio sources', () => {
  it('are kept with the broadcast oldest first, named after the host when no name is given, and removed', async () => {
    const created = await broadcast();
    const first = await expectStatus(await addSource(created.id, { url: `${base}/radio.mp3`, name: 'Campus radio' }), 201);
    expect(first.id).toBe(created.id);
    expect(first.audioSources).toEqual([{ id: expect.stringMatching(/^aus_/), name: 'Campus radio', url: `${base}/radio.mp3` }]);
    const both = await expectStatus(await addSource(created.id, { url: `${base}/hls/live.m3u8`, name: null }), 201);
    expect(both.audioSources.map((source: { name: string }) => source.name)).toEqual(['Campus radio', new URL(base).host]);
    expect((await json(await server.request(`/v1/broadcasts/${created.id}`))).audioSources).toEqual(both.audioSources);
    // The same address twice is a mistake.
    expect((await expectStatus(await addSource(created.id, { url: `${base}/radio.mp3` }), 409, 'conflict')).data.details.field).toBe('url');

    const [radio, hls] = both.audioSources;
    const removed = await expectStatus(
      await server.request(`/v1/broadcasts/${created.id}/audio-sources/${radio.id}`, { method: 'DELETE' }), 200,
    );
    expect(removed.audioSources).toEqual([hls]);
    const again = await expectStatus(
      await server.request(`/v1/broadcasts/${created.id}/audio-sources/${radio.id}`, { method: 'DELETE' }), 404, 'not_found',
    );
    expect(again.data.details.field).toBe('source');
    // Gone with the broadcast when it is purged.
    await server.postJson(`/v1/broadcasts/${created.id}/archive`, {});
    await expectStatus(await server.postJson(`/v1/broadcasts/${created.id}/purge`, {}), 200);
    expect(await server.prisma.audioSource.count({ where: { broadcastId: created.id } })).toBe(0);
  });

  it.each([
    [{}, 'url'],
    [{ url: '' }, 'url'],
    [{ url: 42 }, 'url'],
    [{ url: 'not an address' }, 'url'],
    [{ url: 'ftp://radio.example.com/live' }, 'url'],
    [{ url: 'rtmp://live.example.com/app/key' }, 'url'],
    [{ url: 'http://10.1.2.3/stream' }, 'url'],
    [{ url: 'http://metadata.google.internal/' }, 'url'],
    [{ url: `https://radio.example.com/${'x'.repeat(2100)}` }, 'url'],
    [{ url: 'https://radio.example.com/live', name: '  ' }, 'name'],
    [{ url: 'https://radio.example.com/live', codec: 'mp3' }, 'codec'],
  ])('refuse %j naming %s', async (body, field) => {
    const created = await broadcast();
    await expectInvalidOption(await addSource(created.id, body), field);
  });

  it('refuse a body that is not an object, an archived broadcast, and other accounts (404, never a hint)', async () => {
    const created = await broadcast();
    await expectInvalidOption(await addSource(created.id, null), 'body');
    await expectInvalidOption(await addSource(created.id, ['https://radio.example.com/live']), 'body');
    const added = await expectStatus(await addSource(created.id, { url: 'https://radio.example.com/live' }), 201);
    const sourceId = added.audioSources[0].id;
    const accountId = await server.createAccount('Source stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    await expectStatus(await addSource(created.id, { url: 'https://radio.example.com/other' }, key), 404, 'not_found');
    await expectStatus(
      await server.request(`/v1/broadcasts/${created.id}/audio-sources/${sourceId}`, { method: 'DELETE', auth: key }), 404, 'not_found',
    );
    await expectStatus(
      await server.request(`/v1/broadcasts/${created.id}/audio-sources/${sourceId}/check`, { auth: key }), 404, 'not_found',
    );
    // A source id of another broadcast is not this one's.
    const other = await broadcast('Other hall');
    await expectStatus(await server.request(`/v1/broadcasts/${other.id}/audio-sources/${sourceId}/check`), 404, 'not_found');
    await expectStatus(
      await server.request(`/v1/broadcasts/${other.id}/audio-sources/${sourceId}`, { method: 'DELETE' }), 404, 'not_found',
    );
    await expectStatus(await server.request(`/v1/broadcasts/${created.id}/audio-sources/aus_missing/check`), 404, 'not_found');
    await expectStatus(await addSource('brd_missing', { url: 'https://radio.example.com/live' }), 404, 'not_found');
    await expectInvalidOption(await server.request(`/v1/broadcasts/${created.id}/audio-sources/${sourceId}/check?fresh=yes`), 'fresh');
    // Reading needs `read`, changing needs `write`.
    const { key: reader } = await server.createKey(['read']);
    await expectStatus(await addSource(created.id, { url: 'https://radio.example.com/third' }, reader), 403, 'forbidden');

    await server.postJson(`/v1/broadcasts/${created.id}/archive`, {});
    await expectStatus(await addSource(created.id, { url: 'https://radio.example.com/late' }), 409, 'invalid_state');
    // Removing one from an archived broadcast is tidying up, not a change listeners see: allowed.
    expect(
      (await expectStatus(
        await server.request(`/v1/broadcasts/${created.id}/audio-sources/${sourceId}`, { method: 'DELETE' }), 200,
      )).audioSources,
    ).toEqual([]);
  });

  it('through GraphQL too', async () => {
    const created = await broadcast('GraphQL hall');
    const add = await (await server.graphql('mutation($id: ID!, $input: CreateAudioSourceInput!) { '
      + 'createBroadcastAudioSource(broadcastId: $id, input: $input) { audioSources { id name url } } }', {
        id: created.id, input: { url: `${base}/radio.mp3` },
      })).json();
    expect(add.errors).toBeUndefined();
    const [source] = add.data.createBroadcastAudioSource.audioSources;
    expect(source).toMatchObject({ name: new URL(base).host, url: `${base}/radio.mp3` });
    const checked = await (await server.graphql('query($b: ID!, $s: ID!) { broadcastAudioSourceCheck(broadcastId: $b, sourceId: $s, '
      + 'fresh: true) { state problem fix { url } } }', { b: created.id, s: source.id })).json();
    expect(checked.data.broadcastAudioSourceCheck).toEqual({ state: 'ready', problem: null, fix: null });
    const refused = await (await server.graphql('mutation($id: ID!, $input: CreateAudioSourceInput!) { '
      + 'createBroadcastAudioSource(broadcastId: $id, input: $input) { id } }', {
        id: created.id, input: { url: 'gopher://old.example.com/' },
      })).json();
    expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_options', details: { field: 'url' } });
    const removed = await (await server.graphql('mutation($b: ID!, $s: ID!) { deleteBroadcastAudioSource(broadcastId: $b, sourceId: $s) { '
      + 'audioSources { id } } }', { b: created.id, s: source.id })).json();
    expect(removed.data.deleteBroadcastAudioSource.audioSources).toEqual([]);
  });
});

describe('the audio source check', () => {
  it('is ready for an MP3 stream and for an HLS playlist the pull follows, and records nothing', async () => {
    for (const pathname of ['/radio.mp3', '/hls/live.m3u8']) {
      const { broadcastId, sourceId } = await sourceAt(pathname);
      const answer = await check(broadcastId, sourceId);
      expect(answer, pathname).toEqual({
        state: 'ready', checkedAt: expect.any(String), problem: null, message: null, httpStatus: null, fix: null,
      });
      expect(Date.parse(answer.checkedAt)).not.toBeNaN();
      const after = await json(await server.request(`/v1/broadcasts/${broadcastId}`));
      expect(after).toMatchObject({ recordingCount: 0, transcriptions: [], currentRecording: null, lastRecording: null });
    }
  }, 60_000);

  it.each([
    ['/list.m3u', '/radio.mp3'],
    ['/list.pls', '/radio.mp3'],
  ])('answers a playlist file %s with problem playlist and the stream it lists as the fix', async (pathname, stream) => {
    const { broadcastId, sourceId } = await sourceAt(pathname);
    const answer = await check(broadcastId, sourceId);
    expect(answer).toMatchObject({
      state: 'error', problem: 'playlist', httpStatus: null, fix: { url: `${base}${stream}`, kind: 'playlist', label: expect.any(String) },
    });
    expect(answer.message).toMatch(/playlist/);
  }, 60_000);

  it.each(['/player.html', '/og.html'])('answers a web page %s with problem page and the audio it plays as the fix', async (pathname) => {
    const { broadcastId, sourceId } = await sourceAt(pathname);
    expect(await check(broadcastId, sourceId)).toMatchObject({
      state: 'error', problem: 'page', fix: { url: `${base}/radio.mp3`, kind: 'page' },
    });
  }, 60_000);

  it.each([
    ['/plain.html', { problem: 'page', httpStatus: null }],
    ['/nowhere.mp3', { problem: 'http_error', httpStatus: 404 }],
    ['/notes.txt', { problem: 'not_audio', httpStatus: null }],
    ['/to-metadata', { problem: 'address_refused', httpStatus: null }],
  ])('answers %s with %j and no fix', async (pathname, expected) => {
    const { broadcastId, sourceId } = await sourceAt(pathname);
    const answer = await check(broadcastId, sourceId);
    expect(answer).toMatchObject({ state: 'error', ...expected, fix: null });
    expect(answer.message).toEqual(expect.any(String));
  }, 60_000);

  it('answers a port nobody listens on or a connection that breaks with unreachable, and a stream that never sends audio with '
    + 'timeout', async () => {
    const created = await broadcast('Dead ends');
    const closed = http.createServer();
    await once(closed.listen(0, '127.0.0.1'), 'listening');
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const added = await expectStatus(await addSource(created.id, { url: `http://127.0.0.1:${deadPort}/live` }), 201);
    expect(await check(created.id, added.audioSources[0].id)).toMatchObject({
      state: 'error', problem: 'unreachable', httpStatus: null, fix: null,
    });
    const broken = await sourceAt('/broken.mp3');
    expect(await check(broken.broadcastId, broken.sourceId)).toMatchObject({ state: 'error', problem: 'unreachable', fix: null });
    const silent = await sourceAt('/silent.mp3');
    expect(await check(silent.broadcastId, silent.sourceId)).toMatchObject({ state: 'error', problem: 'timeout', fix: null });
  }, 60_000);

  it('reuses an answer until fresh=true opens the source again', async () => {
    switchPlays = false;
    const { broadcastId, sourceId } = await sourceAt('/switch.mp3');
    const failed = await check(broadcastId, sourceId);
    expect(failed).toMatchObject({ state: 'error', problem: 'http_error', httpStatus: 404 });
    switchPlays = true;
    // The source plays now, but the failed answer is still the cached one (20 s).
    expect(await check(broadcastId, sourceId)).toEqual(failed);
    expect(await check(broadcastId, sourceId, '?fresh=false')).toEqual(failed);
    const ready = await check(broadcastId, sourceId, '?fresh=true');
    expect(ready).toMatchObject({ state: 'ready', problem: null });
    expect(Date.parse(ready.checkedAt)).toBeGreaterThanOrEqual(Date.parse(failed.checkedAt));
    // The fresh answer is the cached one from now on (a minute), though the source broke again.
    switchPlays = false;
    expect(await check(broadcastId, sourceId)).toEqual(ready);
    expect(await check(broadcastId, sourceId, '?fresh=true')).toMatchObject({ state: 'error', httpStatus: 404 });
  }, 60_000);
});

describe('recording an audio source', () => {
  it('starts a recording in a new live transcription whose source is the stream, which the server pulls', async () => {
    const created = await expectStatus(
      await server.postJson('/v1/broadcasts', { name: 'Radio relay', settings: { spokenLanguage: 'en' } }), 201,
    );
    const added = await expectStatus(await addSource(created.id, { url: `${base}/radio.mp3`, name: 'Campus radio' }), 201);
    const sourceId = added.audioSources[0].id;
    const unknown = await expectStatus(
      await server.postJson(`/v1/broadcasts/${created.id}/recordings`, { audioSource: 'aus_missing' }), 404, 'not_found',
    );
    expect(unknown.data.details.field).toBe('audioSource');
    await expectInvalidOption(await server.postJson(`/v1/broadcasts/${created.id}/recordings`, { audioSource: 7 }), 'audioSource');
    // Another broadcast's source is not this one's.
    const other = await broadcast('Other relay');
    await expectStatus(await server.postJson(`/v1/broadcasts/${other.id}/recordings`, { audioSource: sourceId }), 404, 'not_found');

    const grant = await expectStatus(await server.postJson(`/v1/broadcasts/${created.id}/recordings`, { audioSource: sourceId }), 201);
    // The server is the publisher: no socket for a client.
    expect(grant.streamUrl).toBeNull();
    expect(grant.recording).toMatchObject({ kind: 'live', state: 'live', ingest: { state: expect.any(String) } });
    const transcription = await json(await server.request(`/v1/transcriptions/${grant.recording.transcriptionId}`));
    expect(transcription).toMatchObject({
      kind: 'live', name: 'Radio relay', source: { kind: 'stream', url: `${base}/radio.mp3` }, broadcasts: [{ id: created.id }],
    });
    const fed = await json(await server.request(`/v1/broadcasts/${created.id}`));
    expect(fed).toMatchObject({
      source: { kind: 'mic' }, currentRecording: { recordingId: grant.recording.id },
      lastRecording: { recordingId: grant.recording.id, transcriptionId: transcription.id },
    });

    // Removing the source leaves the recording made from it (and its transcription's copy of the address).
    await expectStatus(await server.request(`/v1/broadcasts/${created.id}/audio-sources/${sourceId}`, { method: 'DELETE' }), 200);
    expect((await json(await server.request(`/v1/recordings/${grant.recording.id}`))).id).toBe(grant.recording.id);
    expect((await json(await server.request(`/v1/transcriptions/${transcription.id}`))).source).toEqual({
      kind: 'stream', url: `${base}/radio.mp3`,
    });
    // The server pulls it: audio comes in, then the recording ends and is finalized as any other.
    await eventually(
      async () => expect((await json(await server.request(`/v1/recordings/${grant.recording.id}`))).ingest.bytes).toBeGreaterThan(0),
      120_000, 250,
    );
    await server.postJson(`/v1/recordings/${grant.recording.id}/pause`, {});
    await expectStatus(await server.postJson(`/v1/recordings/${grant.recording.id}/stop`, {}), 200);
    const finalized = await eventually(async () => {
      const current = await json(await server.request(`/v1/recordings/${grant.recording.id}`));
      expect(current.state).toBe('finalized');
      return current;
    }, 120_000, 250);
    expect(finalized.durationS).toBeGreaterThan(0);
  }, 300_000);
});

describe('playlistEntries', () => {
  const listAt = new URL('https://radio.example.com/lists/station.m3u');
  it('reads an M3U\'s addresses (comments skipped, relative ones resolved) and a PLS\'s FileN keys, http(s) only, once each', () => {
    expect(playlistEntries(
      '#EXTM3U\n#EXTINF:-1,Station\nlive.mp3\r\n/abs/aac\nhttps://cdn.example.net/s.ogg\nrtmp://x/y\nlive.mp3\n', listAt,
    )).toEqual([
      'https://radio.example.com/lists/live.mp3', 'https://radio.example.com/abs/aac', 'https://cdn.example.net/s.ogg',
    ]);
    expect(playlistEntries(
      '[playlist]\nNumberOfEntries=2\nFile1=http://a.example.com:8000/stream\nTitle1=A\nfile2 = b.mp3\nLength1=-1\n', listAt,
    )).toEqual([
      'http://a.example.com:8000/stream', 'https://radio.example.com/lists/b.mp3',
    ]);
    expect(playlistEntries('', listAt)).toEqual([]);
  });
});

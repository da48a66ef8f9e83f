/**
 * RTMP ingest (`GET /v1/rtmp`, `POST /v1/rtmp/key`, the RTMP server on RTMP_PORT): the stream key is shown once,
 * then masked; publishing a fixture with ffmpeg (`-f flv rtmp://…/live/<key>`) records it into the key's live
 * transcription and is transcribed; `audio` describes what comes in while it does; the monitor URL is signed; a
 * wrong key is refused at the publish and records nothing; another account's key is its own.
 */
import { spawn } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { GO_FORWARD, GO_FORWARD_TEXT, normalise, sleep } from '../helpers/realtime.js';
import { json } from '../helpers/http.js';
import { ffmpegPath } from '../../workers/engine/audio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

let server: TestServer;
/** The key from the first answer: only then is it shown in full. */
let streamKey: string;
let first: Record<string, any>;

beforeAll(async () => {
  server = await startTestServer({ env: { RTMP_PORT: '0' } });
  const response = await server.request('/v1/rtmp');
  expect(response.status).toBe(200);
  first = await json(response);
  streamKey = first.streamKey;
  // The bound transcription hears English (auto-detection on a three-second clip is not the point here).
  expect(
    (await server.postJson(
      `/v1/transcriptions/${first.transcriptionId}`, { settings: { spokenLanguage: 'en' } }, { method: 'PATCH' },
    )).status,
  ).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** ffmpeg publishing the fixture to `key`, as an encoder would (`-re`: at its own pace, so it is live while we look). */
function publish(key: string, options: { realtime?: boolean; loops?: number } = {}) {
  const port = new URL(first.serverUrl).port;
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', ...(options.realtime ? ['-re'] : []),
    ...(options.loops ? ['-stream_loop', String(options.loops)] : []), '-i', GO_FORWARD, '-c:a', 'aac', '-b:a', '64k', '-f', 'flv',
    `rtmp://127.0.0.1:${port}/live/${key}`,
  ];
  const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  return { child, exited };
}

/** Polls `probe` until it gives something (vi.waitFor retries while it throws). */
function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 120_000): Promise<T> {
  return vi.waitFor(async () => {
    const value = await probe();
    if (!value) throw new Error(`still waiting for ${what}`);
    return value;
  }, { timeout: timeoutMs, interval: 250 });
}

const recordings = async () => (await json(
  await server.request(`/v1/transcriptions/${first.transcriptionId}/recordings`),
)).recordings as Array<{ id: string; state: string }>;
const status = async () => json(await server.request('/v1/rtmp'));

describe('RTMP ingest', () => {
  it('shows the stream key in full only in the first answer, then masked', async () => {
    expect(first.serverUrl).toMatch(/^rtmp:\/\/127\.0\.0\.1:\d+\/live$/);
    expect(first.streamKey).toMatch(/^rk_[A-Za-z0-9_-]{32}$/);
    expect(first.maskedStreamKey).toBe(`rk_${'*'.repeat(24)}${streamKey.slice(-4)}`);
    expect(first.audio).toBeNull();
    expect(first.transcriptionId).toMatch(/^trn_/);
    const later = await status();
    expect(later.streamKey).toBeNull();
    expect(later.maskedStreamKey).toBe(first.maskedStreamKey);
    expect(later.transcriptionId).toBe(first.transcriptionId);
    expect(JSON.stringify(later)).not.toContain(streamKey);
    // Kept hashed: the database never holds the key itself.
    const row = await server.prisma.rtmpIngest.findUniqueOrThrow({ where: { accountId: server.accountId } });
    expect(row.keyHash).not.toContain(streamKey);
    // The bound transcription's source is the RTMP address.
    const transcription = await json(await server.request(`/v1/transcriptions/${first.transcriptionId}`));
    expect(transcription.source).toEqual({ kind: 'stream', url: first.serverUrl });
  });

  it('another account has its own key and cannot read this one', async () => {
    const other = await server.createAccount('Other');
    const { key } = await server.createKey(['read'], { accountId: other });
    const theirs = await json(await server.request('/v1/rtmp', { auth: key }));
    expect(theirs.streamKey).toMatch(/^rk_/);
    expect(theirs.streamKey).not.toBe(streamKey);
    expect(theirs.transcriptionId).not.toBe(first.transcriptionId);
    expect(JSON.stringify(theirs)).not.toContain(streamKey);
    // A read-only key cannot rotate.
    expect((await server.postJson('/v1/rtmp/key', {}, { auth: key })).status).toBe(403);
    // And without a credential there is nothing.
    expect((await server.request('/v1/rtmp', { auth: null })).status).toBe(401);
  });

  it('a wrong key is refused at the publish and nothing is recorded', async () => {
    const before = (await recordings()).length;
    const { exited } = publish(`rk_${'x'.repeat(32)}`);
    const result = await exited;
    expect(result.code).not.toBe(0);
    await sleep(500);
    expect((await recordings()).length).toBe(before);
    expect((await status()).audio).toBeNull();
  }, 60_000);

  it('publishing records and transcribes the audio, reports it, offers a signed monitor, and stops the recording at the end', async () => {
    const { child, exited } = publish(streamKey, { realtime: true, loops: 2 });
    const live = await until('audio reported while publishing', async () => {
      const current = await status();
      return current.audio && current;
    }, 30_000);
    expect(live.audio).toMatchObject({ codec: 'aac', sampleRate: expect.any(Number), channels: 1, since: expect.any(String) });
    const recording = await until('a live recording', async () => (await recordings()).find((r) => r.state === 'live'), 30_000);

    // The monitor: a live MP3 stream by the signed URL; a tampered signature or account, or an expired URL, is 403.
    const monitorUrl = new URL(live.monitorUrl);
    expect(Number(monitorUrl.searchParams.get('exp')) - Date.now() / 1000).toBeLessThanOrEqual(3600);
    const controller = new AbortController();
    const monitor = await fetch(monitorUrl, { signal: controller.signal });
    expect(monitor.status).toBe(200);
    expect(monitor.headers.get('content-type')).toBe('audio/mpeg');
    const reader = monitor.body!.getReader();
    const chunk = await reader.read();
    expect(chunk.value!.length).toBeGreaterThan(0);
    controller.abort();
    const tampered = new URL(monitorUrl);
    tampered.searchParams.set('sig', `${monitorUrl.searchParams.get('sig')!.slice(0, -2)}xx`);
    expect((await fetch(tampered)).status).toBe(403);
    const otherAccount = new URL(monitorUrl);
    otherAccount.searchParams.set('account', 'acc_someone_else');
    expect((await fetch(otherAccount)).status).toBe(403);
    const expired = new URL(monitorUrl);
    expired.searchParams.set('exp', String(Math.floor(Date.now() / 1000) - 10));
    expect((await fetch(expired)).status).toBe(403);
    const tooLong = new URL(monitorUrl);
    tooLong.searchParams.set('exp', String(Math.floor(Date.now() / 1000) + 7200));
    expect((await fetch(tooLong)).status).toBe(403);

    // One publish per key at a time: a second encoder on the same key is refused.
    const second = await publish(streamKey).exited;
    expect(second.code).not.toBe(0);

    await until('the words stored', async () => {
      const transcript = await json(await server.request(`/v1/recordings/${recording.id}/transcript`));
      return GO_FORWARD_TEXT.test(normalise(transcript.segments.map((s: { text: string }) => s.text).join(' ')));
    }, 120_000);

    const ended = await exited;
    expect(ended.code, ended.stderr).toBe(0);
    expect(child.exitCode).toBe(0);
    // The publish ended: the recording is stopped (then finalized), nothing comes in, the monitor is gone.
    await until('the recording stopped', async () => {
      const current = await json(await server.request(`/v1/recordings/${recording.id}`));
      return (current.state === 'ended' || current.state === 'finalized') && current;
    }, 60_000);
    expect((await status()).audio).toBeNull();
    expect((await fetch(monitorUrl)).status).toBe(404);
  }, 300_000);

  it('a rotated key replaces the old one, which is refused from then on', async () => {
    const rotated = await json(await server.postJson('/v1/rtmp/key', {}));
    expect(rotated.streamKey).toMatch(/^rk_/);
    expect(rotated.streamKey).not.toBe(streamKey);
    expect(rotated.transcriptionId).toBe(first.transcriptionId);
    expect((await status()).streamKey).toBeNull();
    const before = (await recordings()).length;
    expect((await publish(streamKey).exited).code).not.toBe(0);
    expect((await recordings()).length).toBe(before);
  }, 60_000);
});

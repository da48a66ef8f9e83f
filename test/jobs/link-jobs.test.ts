/**
 * Link transcriptions through REST against a real HTTP server on loopback (allowed for this server only by
 * LINK_FETCH_ALLOW_HOSTS=127.0.0.1): fetching with its phases, failure with an errorCode (an error status, a hang-up
 * mid-body), retry, refusals that only show when fetching (DNS names, redirects), and the probe with its 60-a-minute
 * limit.
 */
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingMediaDir } from '../../src/transcript/media.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { goForward, json, waitForJob } from '../helpers/http.js';

let server: TestServer;
let media: http.Server;
let base: string;
let port: number;
let flakyCalls = 0;

beforeAll(async () => {
  media = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/speech.wav') {
      res.writeHead(200, {
        'content-type': 'audio/wav', 'content-length': goForward.length, 'content-disposition': 'attachment; filename="directions.wav"',
      });
      return res.end(goForward);
    }
    if (url.pathname === '/flaky.wav') {
      flakyCalls += 1;
      if (flakyCalls === 1) {
        res.writeHead(503);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': goForward.length });
      return res.end(goForward);
    }
    if (url.pathname === '/cut.wav') {
      // Content-Length promises the whole file; half of it is sent, then the connection is dropped mid-body.
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': goForward.length });
      return res.write(goForward.subarray(0, goForward.length >> 1), () => res.socket?.destroy());
    }
    if (url.pathname === '/notes.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('these are notes, not audio\n'.repeat(100));
    }
    if (url.pathname === '/to-localhost') {
      res.writeHead(302, { location: `http://localhost:${port}/speech.wav` });
      return res.end();
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  port = (media.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  server = await startTestServer({ env: { LINK_FETCH_ALLOW_HOSTS: '127.0.0.1', WORKER_SWEEP_MS: '1000' } });
});
afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => media.close(() => resolve()));
});

async function events(recordingId: string) {
  return (await json(await server.request(`/v1/recordings/${recordingId}/events?limit=500`))).events as Array<{
    type: string; frame: Record<string, any>;
  }>;
}

describe('link transcriptions', () => {
  it('fetches (phases fetching then extracting, with bytes), transcribes and reads back the text', async () => {
    const res = await server.postJson('/v1/transcriptions', { url: `${base}/speech.wav` });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created).toMatchObject({
      kind: 'link', sourceUrl: `${base}/speech.wav`, job: { state: 'fetching', source: `${base}/speech.wav` },
    });
    const job = await waitForJob(server, created.recordingId, ['done', 'failed']);
    expect(job.state).toBe('done');
    const log = await events(created.recordingId);
    const phases = log.filter((e) => e.type === 'job.progress' && e.frame.progress?.phase).map((e) => e.frame.progress);
    expect(phases[0]).toMatchObject({ phase: 'fetching', fetchedBytes: 0, fetchTotalBytes: goForward.length });
    expect(phases.find((p) => p.phase === 'fetching' && p.fetchedBytes === goForward.length)).toBeTruthy();
    expect(phases.at(-1)).toMatchObject({ phase: 'extracting' });
    expect(log.filter((e) => e.type === 'job.state').map((e) => e.frame.state)).toEqual(['fetching', 'queued', 'transcribing', 'done']);
    const transcript = await json(await server.request(`/v1/recordings/${created.recordingId}/transcript`));
    expect(transcript.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toContain('forward');
  });

  it('fails with error and errorCode when the link answers an error, and a retry fetches again and finishes', async () => {
    const created = await json(await server.postJson('/v1/transcriptions', { url: `${base}/flaky.wav`, name: 'Flaky' }));
    const failed = await waitForJob(server, created.recordingId, ['failed', 'done']);
    expect(failed).toMatchObject({ state: 'failed', errorCode: 'link_http_error' });
    expect(failed.error).toContain('503');
    const notFailed = await server.request(`/v1/recordings/${created.recordingId}/job/start`, { method: 'POST' });
    expect(notFailed.status).toBe(409);
    const retried = await json(await server.request(`/v1/recordings/${created.recordingId}/job/retry`, { method: 'POST' }));
    expect(retried).toMatchObject({ state: 'fetching', error: null, errorCode: null });
    const done = await waitForJob(server, created.recordingId, ['failed', 'done']);
    expect(done.state).toBe('done');
    expect(flakyCalls).toBe(2);
    const again = await server.request(`/v1/recordings/${created.recordingId}/job/retry`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect((await json(again)).code).toBe('invalid_state');
  });

  it('opens cropping after the fetch with a ten-minute preview of the fetched copy, then transcribes the window', async () => {
    const created = await json(await server.postJson('/v1/transcriptions', { url: `${base}/speech.wav`, crop: true }));
    const cropping = await waitForJob(server, created.recordingId, ['cropping', 'failed']);
    expect(cropping.state).toBe('cropping');
    expect(cropping.preview.peaks.length).toBeGreaterThan(100);
    const ttlMs = Date.parse(cropping.preview.expiresAt) - Date.now();
    expect(ttlMs).toBeGreaterThan(9 * 60_000);
    expect(ttlMs).toBeLessThanOrEqual(10 * 60_000);
    expect((await server.request(`/v1/recordings/${created.recordingId}/job/preview`)).status).toBe(200);
    await server.postJson(`/v1/recordings/${created.recordingId}/job/start`, { startS: 0, endS: 2 });
    const done = await waitForJob(server, created.recordingId, ['done', 'failed']);
    expect(done).toMatchObject({ state: 'done', window: { startS: 0, endS: 2 } });
    const transcript = await json(await server.request(`/v1/recordings/${created.recordingId}/transcript`));
    expect(transcript.durationS).toBeCloseTo(2, 1);
    expect(transcript.sentences.map((s: { text: string }) => s.text).join(' ').toLowerCase()).toContain('forward');
  });

  it('fails with link_unreachable when the link hangs up in the middle of the body, keeping nothing, and the gateway answers '
    + 'on', async () => {
    const created = await json(await server.postJson('/v1/transcriptions', { url: `${base}/cut.wav` }));
    const failed = await waitForJob(server, created.recordingId, ['failed', 'done']);
    expect(failed).toMatchObject({ state: 'failed', errorCode: 'link_unreachable' });
    expect(failed.error).toMatch(/stopped answering after \d+ bytes/);
    await expect(stat(path.join(recordingMediaDir(server.app.config.dataDir, created.recordingId), 'source'))).rejects.toThrow();
    expect((await server.request('/v1/health')).status).toBe(200);
    expect((await json(await server.request(`/v1/transcriptions/${created.id}`))).job).toMatchObject({
      state: 'failed', errorCode: 'link_unreachable',
    });
  });

  it('fails a link that is not audio with invalid_audio', async () => {
    const created = await json(await server.postJson('/v1/transcriptions', { url: `${base}/notes.txt` }));
    const failed = await waitForJob(server, created.recordingId, ['failed', 'done']);
    expect(failed).toMatchObject({ state: 'failed', errorCode: 'invalid_audio' });
  });

  it('refuses internal host names at once, and redirects to them while fetching', async () => {
    const byName = await server.postJson('/v1/transcriptions', { url: `http://localhost:${port}/speech.wav` });
    expect(byName.status).toBe(400);
    expect(await json(byName)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'url', problem: 'link_refused' } } });
    // The first hop is allowed (127.0.0.1 is on this server's allow-list); its redirect to localhost is not.
    const created = await json(await server.postJson('/v1/transcriptions', { url: `${base}/to-localhost` }));
    const failed = await waitForJob(server, created.recordingId, ['failed', 'done']);
    expect(failed).toMatchObject({ state: 'failed', errorCode: 'link_refused' });
    expect(failed.error).toContain('localhost');
  });
});

describe('GET /v1/transcriptions/probe', () => {
  it('answers the probe record and refuses internal addresses', async () => {
    const record = await json(await server.request(`/v1/transcriptions/probe?url=${encodeURIComponent(`${base}/speech.wav`)}`));
    expect(record).toMatchObject({ kind: 'file', ok: true, problem: null, media: [], bytes: goForward.length });
    const text = await json(await server.request(`/v1/transcriptions/probe?url=${encodeURIComponent(`${base}/notes.txt`)}`));
    expect(text).toMatchObject({ kind: 'unknown', ok: false });
    const refused = await server.request(`/v1/transcriptions/probe?url=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`);
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({ code: 'invalid_options', data: { details: { field: 'url', problem: 'link_refused' } } });
    expect((await server.request('/v1/transcriptions/probe')).status).toBe(400);
  });

  it('allows 60 probes a minute per account', async () => {
    const account = await server.createAccount('prober');
    const { key } = await server.createKey(['read'], { accountId: account });
    const probe = () => server.request(`/v1/transcriptions/probe?url=${encodeURIComponent(`${base}/speech.wav`)}`, { auth: key });
    for (let i = 0; i < 60; i++) expect((await probe()).status).toBe(200);
    const limited = await probe();
    expect(limited.status).toBe(429);
    expect(await json(limited)).toMatchObject({ code: 'rate_limited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

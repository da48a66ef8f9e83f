/**
 * Live recordings are durable across processes (issue "Live transcriptions and recordings"), with real gateway
 * processes (`src/entry/main.ts`, each its own OS process) on one PostgreSQL database and one Redis:
 *
 * - a recording started on gateway A and moved through gateway B: the control reaches A's publisher over Redis and
 *   B's events socket hears `recording.started` and every `recording.state`;
 * - gateway A killed (SIGKILL) mid-recording: the publisher re-attaches through gateway B and the stored transcript
 *   goes on with gapless `seq`, nothing committed before the kill lost;
 * - the Redis server restarted mid-recording: the publisher's session goes on, every commit it was sent is stored,
 *   and pause controls and events work again once Redis is back;
 * - a stream source's pulling process killed: another process claims the recording and pulls on.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { streamFile, type CommittedSegment, type RealtimeConnection } from '../helpers/realtime-client.js';
import { gatewayProcesses, speak, stopChild, type Gateway, type Grant, type OwnRedis } from '../helpers/gateways.js';
import { json } from '../helpers/http.js';
import { committedSeqsOf } from '../helpers/live.js';
import { expectGapless, fileChunks, GO_FORWARD, GO_FORWARD_TEXT, LECTURE, normalise, sleep } from '../helpers/realtime.js';

/** No workers (no finalize runs here) unless a test asks; `until` polls every 100 ms, failures show 4000 characters of output. */
const {
  apiKey, redisPrefix, createDatabase, tempDir, startGateway, startGateways, redisServer,
  call, expectStatus, until, tail, publisherOn, stopAll,
} = gatewayProcesses({ realtimeSecret: 'durability-suite-secret-0123456789abcdef', pollMs: 100, tailChars: 4000 });

let a: Gateway;
let b: Gateway;
let sharedDataDir: string;

beforeAll(async () => {
  await createDatabase();
  // One media folder for both gateways, as a deployment shares it: the capture audio is the recording's time line.
  sharedDataDir = await tempDir('sg-durable-');
  [a, b] = await startGateways({ env: { DATA_DIR: sharedDataDir } }, { env: { DATA_DIR: sharedDataDir } });
}, 300_000);

afterAll(() => stopAll(), 120_000);

// ---- the public interface, on a given gateway ------------------------------------------------------------------

/** A live English transcription, created through `gateway`: its id. */
async function createLive(gateway: Gateway, name: string): Promise<string> {
  const created = await fetch(`${gateway.url}/v1/transcriptions/live`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, settings: { spokenLanguage: 'en' } }),
  });
  return (await expectStatus(created, 201)).id as string;
}

/** A live transcription and a recording of it, started on `gateway`: the recording id and its grant. */
async function startLiveRecording(gateway: Gateway, name: string): Promise<{ transcriptionId: string; recordingId: string; grant: Grant }> {
  const transcriptionId = await createLive(gateway, name);
  return { transcriptionId, ...(await startOn(gateway, transcriptionId)) };
}

async function startOn(gateway: Gateway, transcriptionId: string): Promise<{ recordingId: string; grant: Grant }> {
  const grant = (await expectStatus(await call(gateway, `/v1/transcriptions/${transcriptionId}/recordings`, 'POST'), 201)) as Grant;
  return { recordingId: grant.recording.id, grant };
}

const move = async (gateway: Gateway, recordingId: string, action: 'pause' | 'resume' | 'stop') =>
  expectStatus(await call(gateway, `/v1/recordings/${recordingId}/${action}`, 'POST'), 200);

const storedTranscript = async (gateway: Gateway, recordingId: string) =>
  (await expectStatus(await call(gateway, `/v1/recordings/${recordingId}/transcript`), 200)) as {
    segments: CommittedSegment[]; lastSeq: number;
  };

/** `WS /v1/transcriptions/{id}/events` on `gateway` (API key in Authorization); resolves after `events.ready`. */
async function eventsSocket(gateway: Gateway, transcriptionId: string): Promise<{
  socket: WebSocket; frames: Array<Record<string, unknown>>;
}> {
  const socket = new WebSocket(`${gateway.url.replace(/^http/, 'ws')}/v1/transcriptions/${transcriptionId}/events`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const frames: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`events socket refused: ${res.statusCode}`)));
  });
  expect(frames[0]).toMatchObject({ type: 'events.ready', transcriptionId });
  return { socket, frames };
}

// ---- what the publisher was sent and what is stored ------------------------------------------------------------

/** The publisher's `recording.state` frame for `state` (the n-th one, counting from 1). */
const publisherState = (publisher: RealtimeConnection, state: string, nth = 1) =>
  publisher.result.frames.filter(
    ({ frame }) => frame.type === 'recording.state' && (frame as { state?: string }).state === state,
  )[nth - 1]?.frame;

/** Every commit a publisher was sent is stored with the same seq, text and times. */
function expectStored(stored: CommittedSegment[], sent: CommittedSegment[]): void {
  const bySeq = new Map(stored.map((segment) => [segment.seq, segment]));
  for (const segment of sent) {
    expect(bySeq.get(segment.seq), `seq ${segment.seq} is stored`).toMatchObject({
      seq: segment.seq, text: segment.text, start: segment.start, end: segment.end,
    });
  }
}

/**
 * Stops the (paused) recording through `gateway`: the stop ends the publisher's session wherever its socket is
 * (`session.done`, no error), and the stored transcript, read through `gateway`, is exactly what it was sent.
 */
async function stopAndReadBack(gateway: Gateway, recordingId: string, publisher: RealtimeConnection) {
  expect(await move(gateway, recordingId, 'stop')).toMatchObject({ state: 'ended' });
  const result = await publisher.closed;
  expect(result.errors).toEqual([]);
  expect(result.done?.reason).toBe('eof');
  expectGapless(result.commits);
  const transcript = await storedTranscript(gateway, recordingId);
  expectGapless(transcript.segments);
  expect(transcript.segments.map((s) => [s.seq, s.text, s.start, s.end])).toEqual(
    result.commits.map((s) => [s.seq, s.text, s.start, s.end]),
  );
  return transcript;
}

// ---- the tests ---------------------------------------------------------------------------------------------------

describe('live recordings across gateway processes', () => {
  it('a recording started on A is moved through B: the controls reach A\'s publisher over Redis, B\'s events socket hears it '
    + 'all', async () => {
    const lecture = await fileChunks(LECTURE);
    const transcriptionId = await createLive(b, 'Two gateways');
    const events = await eventsSocket(b, transcriptionId);

    const { recordingId, grant } = await startOn(a, transcriptionId);
    // The grant's socket is on the gateway that started the recording.
    expect(new URL(grant.streamUrl).port).toBe(new URL(a.url).port);
    const publisher = await publisherOn(grant);
    const speaking = speak(publisher, lecture);
    await until('a commit on A', () => publisher.result.commits.length > 0, 180_000, tail(a));

    // Paused through B: A's publisher hears it (the control went through Redis), B's events socket too.
    expect(await move(b, recordingId, 'pause')).toMatchObject({ state: 'paused' });
    await until('recording.state paused on the publisher at A', () => publisherState(publisher, 'paused'), 60_000, tail(a));
    await until('recording.started and recording.state paused on B\'s events socket', () =>
      events.frames.some((frame) => frame.type === 'recording.state' && frame.state === 'paused'), 60_000, tail(b));
    expect(events.frames.find((frame) => frame.type === 'recording.started')).toMatchObject({ recordingId, state: 'live' });
    expect(events.frames.find((frame) => frame.type === 'recording.state')).toMatchObject({ recordingId, state: 'paused' });

    // Resumed, paused and stopped through B: the publisher at A hears each, and the stop ends its session.
    expect(await move(b, recordingId, 'resume')).toMatchObject({ state: 'live' });
    await until('recording.state live on the publisher at A', () => publisherState(publisher, 'live'), 60_000, tail(a));
    expect(await move(b, recordingId, 'pause')).toMatchObject({ state: 'paused' });
    await until('a second recording.state paused on the publisher at A', () => publisherState(publisher, 'paused', 2), 60_000, tail(a));
    speaking.stop();
    // What A committed is read back from B, as the publisher was sent it.
    const transcript = await stopAndReadBack(b, recordingId, publisher);
    // How much of the lecture was said before the pause depends on the machine's speed: only that some was.
    expect(transcript.segments.length).toBeGreaterThan(0);
    await until(
      'recording.state ended on B\'s events socket', () => events.frames.some((frame) => frame.state === 'ended'), 60_000, tail(b),
    );
    expect(events.frames.filter((frame) => frame.type === 'recording.state').map((frame) => [frame.recordingId, frame.state])).toEqual(
      ['paused', 'live', 'paused', 'ended'].map((state) => [recordingId, state]),
    );
    events.socket.close();
  }, 600_000);

  it('gateway A killed mid-recording: the publisher re-attaches through B and nothing committed is lost or repeated', async () => {
    const lecture = await fileChunks(LECTURE);
    const { recordingId, grant } = await startLiveRecording(a, 'Killed gateway');
    const first = await publisherOn(grant);
    speak(first, lecture);
    await until('a commit on A', () => first.result.commits.length > 0, 180_000, tail(a));
    await stopChild(a.child, 'SIGKILL');
    const beforeKill = [...first.result.commits];
    await first.closed;

    // The dead publisher's last report is fresh for up to 15 s: until then B answers 409 with how to take over, then
    // it is taken for gone and a plain publish token is granted.
    const reattach = await until('a publish token on B once the dead publisher is taken for gone', async () => {
      const response = await call(b, `/v1/recordings/${recordingId}/publish-token`, 'POST');
      const body = await json(response);
      if (response.status === 409) {
        expect(body).toMatchObject({
          code: 'conflict',
          data: { details: { takeover: { recordingId, publishToken: `/v1/recordings/${recordingId}/publish-token?takeover=true` } } },
        });
        await sleep(1000);
        return undefined;
      }
      expect(response.status, JSON.stringify(body)).toBe(201);
      return body as Grant;
    }, 120_000, tail(b));
    expect(new URL(reattach.streamUrl).port).toBe(new URL(b.url).port);

    const second = await streamFile(reattach.streamUrl, GO_FORWARD, { realtime: false });
    expect(second.errors).toEqual([]);
    expect(second.done?.reason).toBe('eof');
    expect(second.commits.length).toBeGreaterThan(0);
    expect(normalise(second.commits.map((s) => s.text).join(' '))).toMatch(GO_FORWARD_TEXT);

    const transcript = await storedTranscript(b, recordingId);
    // seq 0..n, none missing, none repeated; what the first publisher was sent before the kill is all there, and
    // the second goes on after whatever A stored before it died.
    expectGapless(transcript.segments);
    expectStored(transcript.segments, beforeKill);
    expectStored(transcript.segments, second.commits);
    expect(second.commits.map((s) => s.seq)).toEqual(second.commits.map((_s, i) => transcript.segments.length - second.commits.length + i));
    expect(second.commits[0]!.seq).toBeGreaterThanOrEqual(beforeKill.length);

    // The re-attach is an `attach` capture span, starting where A's capture audio ends: the time line goes on.
    const recording = await expectStatus(await call(b, `/v1/recordings/${recordingId}`), 200);
    expect(recording.state).toBe('live');
    expect(recording.captureSpans.map((span: { reason: string }) => span.reason)).toEqual(['start', 'attach']);
    const [start, attach] = recording.captureSpans as Array<{ mediaStart: number; mediaEnd: number | null; wallEnd: number | null }>;
    expect(start!.mediaEnd).toBe(attach!.mediaStart);
    expect(attach!.mediaStart).toBeGreaterThan(0);
    const storedBeforeKill = transcript.segments.filter((s) => s.seq < second.commits[0]!.seq);
    expect(attach!.mediaStart).toBeGreaterThanOrEqual(storedBeforeKill.at(-1)!.end - 0.5);
    expect(second.commits[0]!.start).toBeGreaterThanOrEqual(attach!.mediaStart);
  }, 600_000);
});

describe('a Redis restart mid-recording', () => {
  let ownRedis: OwnRedis;
  let redisUrl: string;
  let redis: ChildProcess | undefined;

  beforeAll(async () => {
    ownRedis = await redisServer();
    redisUrl = ownRedis.url;
    redis = await ownRedis.start();
  }, 120_000);

  it('loses no committed segment, keeps the publisher\'s session, and controls and events work again once Redis is back', async () => {
    // Two minutes of speech: commits still come while Redis is down however late the first one was.
    const lecture = await fileChunks(LECTURE);
    lecture.push(...lecture);
    const gateway = await startGateway({ DATA_DIR: await tempDir('sg-durable-redis-'), REDIS_URL: redisUrl });
    const { transcriptionId, recordingId, grant } = await startLiveRecording(gateway, 'Redis restart');
    const events = await eventsSocket(gateway, transcriptionId);
    const publisher = await publisherOn(grant);
    const speaking = speak(publisher, lecture);
    await until('a commit before the restart', () => publisher.result.commits.length > 0, 180_000, tail(gateway));

    await stopChild(redis!, 'SIGKILL');
    const beforeOutage = publisher.result.commits.length;
    // Redis is gone: the session goes on transcribing and storing (commits are PostgreSQL's), and REST still answers.
    await until('a commit while Redis is down', () => publisher.result.commits.length > beforeOutage, 180_000, tail(gateway));
    expect(publisher.ws.readyState).toBe(WebSocket.OPEN);
    expect(gateway.child.exitCode, tail(gateway)()).toBeNull();
    expect((await expectStatus(await call(gateway, `/v1/recordings/${recordingId}`), 200)).state).toBe('live');

    redis = await ownRedis.start();
    // Back on the same port: the gateway's subscriber connects again and subscribes again to the publisher's
    // control topic and the events socket's topic.
    const probe = new Redis(redisUrl);
    try {
      const channels = [`${redisPrefix}recording:${recordingId}`, `${redisPrefix}transcription:${transcriptionId}`];
      await until('the gateway subscribed again to its topics', async () => {
        const counts = (await probe.pubsub('NUMSUB', ...channels)) as Array<string | number>;
        return channels.every((_channel, i) => Number(counts[i * 2 + 1]) >= 1);
      }, 120_000, tail(gateway));
    } finally {
      probe.disconnect();
    }

    expect(await move(gateway, recordingId, 'pause')).toMatchObject({ state: 'paused' });
    await until(
      'recording.state paused on the publisher after the restart', () => publisherState(publisher, 'paused'), 60_000, tail(gateway),
    );
    await until('recording.state paused on the events socket after the restart', () =>
      events.frames.some((frame) => frame.type === 'recording.state' && frame.state === 'paused'), 60_000, tail(gateway));
    speaking.stop();
    // Every commit the publisher was sent, before, during and after the outage, is stored: same seq, text, times.
    const transcript = await stopAndReadBack(gateway, recordingId, publisher);
    const result = publisher.result;
    const log = await expectStatus(await call(gateway, `/v1/recordings/${recordingId}/events?limit=500`), 200);
    expect(committedSeqsOf(log)).toEqual(result.commits.map((s) => s.seq));
    expect(gateway.child.exitCode, tail(gateway)()).toBeNull();
    events.socket.close();
  }, 600_000);

  // Redis pub/sub delivers at most once: a move made while Redis is down is stored (state, event log), but its
  // control frame may never reach the publisher (queued by the publishing client, it can go out before the
  // subscriber has subscribed again). The publisher's heartbeat reads its recording back and catches up.
  it('a pause made while Redis is down reaches the publisher all the same', async () => {
    const lecture = await fileChunks(LECTURE);
    const gateway = await startGateway({ DATA_DIR: await tempDir('sg-durable-redis-pause-'), REDIS_URL: redisUrl });
    const { recordingId, grant } = await startLiveRecording(gateway, 'Pause without Redis');
    const publisher = await publisherOn(grant);
    const speaking = speak(publisher, lecture);
    try {
      await stopChild(redis!, 'SIGKILL');
      expect(await move(gateway, recordingId, 'pause')).toMatchObject({ state: 'paused' });
      await until(
        'recording.state paused on the publisher with Redis down', () => publisherState(publisher, 'paused'), 60_000, tail(gateway),
      );
    } finally {
      speaking.stop();
      redis = await ownRedis.start();
    }
    expect(gateway.child.exitCode, tail(gateway)()).toBeNull();
  }, 600_000);
});

describe('a stream source whose pulling process dies', () => {
  it('is claimed by another process, which goes on with the same recording and time line', async () => {
    // A radio on loopback that plays the lecture to each connection (let through by LINK_FETCH_ALLOW_HOSTS).
    const wav = await fs.readFile(LECTURE);
    const radio = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'audio/wav' });
      res.end(wav);
    });
    await new Promise<void>((resolve) => radio.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(radio.address() as AddressInfo).port}/radio.wav`;
      // Stream pulls run where the background workers do: the first process alone pulls at first.
      const pulling = { RUN_WORKERS: 'true', LINK_FETCH_ALLOW_HOSTS: '127.0.0.1', DATA_DIR: sharedDataDir };
      const first = await startGateway(pulling);
      const created = await fetch(`${first.url}/v1/transcriptions/live`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Radio', settings: { spokenLanguage: 'en' }, source: { kind: 'stream', url } }),
      });
      const transcriptionId = (await expectStatus(created, 201)).id as string;
      const { recordingId, grant } = await startOn(first, transcriptionId);
      expect(grant.streamUrl).toBeNull();
      await until(
        'a commit pulled by the first process', async () => (await storedTranscript(first, recordingId)).segments.length > 0, 240_000,
        tail(first),
      );

      await stopChild(first.child, 'SIGKILL');
      const before = (await storedTranscript(b, recordingId)).segments.length;
      const second = await startGateway(pulling);
      // Its sweep claims the recording once the dead puller has been silent for 15 s, and pulls on.
      await until(
        'commits pulled by the second process', async () => (await storedTranscript(second, recordingId)).segments.length > before, 240_000,
        tail(second),
      );
      const recording = await expectStatus(await call(second, `/v1/recordings/${recordingId}`), 200);
      expect(recording.state).toBe('live');
      expect(recording.captureSpans.map((span: { reason: string }) => span.reason)).toEqual(expect.arrayContaining(['start', 'attach']));
      const transcript = await storedTranscript(second, recordingId);
      expectGapless(transcript.segments);
      await move(second, recordingId, 'pause');
      await move(second, recordingId, 'stop');
      await stopChild(second.child, 'SIGKILL');
    } finally {
      await new Promise((resolve) => radio.close(resolve));
    }
  }, 600_000);
});

/**
 * The SDK's realtime sessions (src/sdk/realtime.ts): a real session through `client.realtime.connect` transcribes
 * the fixture and `finish()` resolves with `session.done`, every frame valid against the OpenAPI document's
 * `RealtimeServerFrame`; the spec's ready deadline against loopback sockets that say nothing, or only
 * `session.loading`; an `error` frame before `session.ready`; refusals and sockets that never open; and
 * backpressure: `sendAudio` waits while the socket's `bufferedAmount` is over the high-water mark (a fake socket
 * whose peer never reads).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import {
  connectRealtime, createClient, MAX_CHUNK_SAMPLES, SpeechgateError, type RealtimeServerFrame, type WebSocketConstructor,
} from 'speechgate/sdk';
import { fileChunks, GO_FORWARD, GO_FORWARD_TEXT, sleep } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';
import { loadFrameSchemas, ScriptedSocket, type FrameSchemas } from './sockets.js';

const server = useTestServer();
let schemas: FrameSchemas;

beforeAll(async () => {
  schemas = await loadFrameSchemas(server.url);
});

/** What `promise` was rejected with: a SpeechgateError, or the test fails. */
async function refusalOf(promise: Promise<unknown>): Promise<SpeechgateError> {
  return promise.then((value) => expect.fail(`resolved with ${String(value)}`), (caught: unknown) => {
    expect(caught).toBeInstanceOf(SpeechgateError);
    return caught as SpeechgateError;
  });
}

describe('a real session', () => {
  it('transcribes the fixture: audio split into the spec\'s chunks, typed commits, finish() resolves with session.done', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: server.apiKey, WebSocket });
    const frames: RealtimeServerFrame[] = [];
    const stream = await client.realtime.connect({ latencyMode: 'accuracy' }, { onFrame: (frame) => frames.push(frame) });
    expect(stream.sessionId).toMatch(/\S/);
    expect(stream.readyFrame).toMatchObject({ type: 'session.ready', sessionId: stream.sessionId });
    const seen: string[] = [];
    const stop = stream.on((frame) => seen.push(frame.type));

    stream.update({ latencyMode: 'fast' });
    // The whole file in one call: longer than the server takes in one frame (2 s), so the SDK must split it.
    const chunks = await fileChunks(GO_FORWARD);
    const audio = new Float32Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    chunks.reduce((offset, chunk) => (audio.set(chunk, offset), offset + chunk.length), 0);
    expect(audio.length).toBeGreaterThan(2 * 16_000);
    await stream.sendAudio(audio);
    const done = await stream.finish();

    expect(done).toMatchObject({ type: 'session.done', reason: 'eof' });
    expect(done.stats.audioS).toBeCloseTo(audio.length / 16_000, 1);
    expect(await stream.done).toBe(done);
    expect(stream.commits.map((segment) => segment.seq)).toEqual(stream.commits.map((_segment, index) => index));
    expect(stream.commits.map((segment) => segment.text).join(' ').toLowerCase()).toMatch(GO_FORWARD_TEXT);
    // No refusal of a frame (a chunk over the limit would be `invalid_audio`), and the update was answered.
    expect(frames.filter((frame) => frame.type === 'error')).toEqual([]);
    expect(seen).toContain('session.updated');
    expect(seen).toContain('transcript.committed');
    stop();
    schemas.expectValid('RealtimeServerFrame', frames);
    // Over: nothing more is sent.
    expect(await refusalOf(stream.sendAudio(new Float32Array(10)))).toMatchObject({ code: 'invalid_state' });
  });

  it('a refused upgrade fails with its envelope\'s code (ws reads it), a socket that cannot open with network_error', async () => {
    expect(await refusalOf(connectRealtime(`${server.wsUrl}/v1/realtime/sessions/not-a-token/socket`, { WebSocket }))).toMatchObject(
      { code: 'invalid_token', status: 401 },
    );
    const closedPort = await silentServer(() => undefined);
    await closedPort.close();
    expect(await refusalOf(connectRealtime(closedPort.url, { WebSocket }))).toMatchObject({
      code: 'network_error', status: 0, retryable: true,
    });
  });
});

/** A loopback WebSocket server that does `onConnection` with each socket; `close()` ends them all. */
async function silentServer(onConnection: (socket: import('ws').WebSocket) => void) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', onConnection);
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/socket`,
    close: () => new Promise<void>((resolve) => {
      for (const client of wss.clients) client.terminate();
      wss.close(() => resolve());
    }),
  };
}

describe('the ready deadline and failures before ready', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(servers.map((opened) => opened.close()));
  });
  async function loopback(onConnection: (socket: import('ws').WebSocket) => void) {
    const opened = await silentServer(onConnection);
    servers.push(opened);
    return opened.url;
  }

  it('a socket that says nothing: capacity_exceeded (every engine slot busy)', async () => {
    const url = await loopback(() => undefined);
    expect(await refusalOf(connectRealtime(url, { WebSocket, readyTimeoutMs: 300 }))).toMatchObject({
      code: 'capacity_exceeded', retryable: true,
    });
  });

  it('loading frames, then silence: engine_unavailable; each frame restarts the wait', async () => {
    const url = await loopback((socket) => {
      // Three heartbeats closer together than the deadline, then nothing.
      let sent = 0;
      const beat = setInterval(() => {
        if (sent === 3 || socket.readyState !== socket.OPEN) return clearInterval(beat);
        socket.send(JSON.stringify({ type: 'session.loading', stage: sent === 0 ? 'download' : 'model' }));
        sent += 1;
      }, 100);
    });
    const frames: RealtimeServerFrame[] = [];
    const error = await refusalOf(connectRealtime(url, { WebSocket, readyTimeoutMs: 1_000, onFrame: (frame) => frames.push(frame) }));
    expect(error).toMatchObject({ code: 'engine_unavailable', retryable: true });
    expect(frames.map((frame) => frame.type)).toEqual(['session.loading', 'session.loading', 'session.loading']);
    schemas.expectValid('RealtimeServerFrame', frames);
  });

  it('an error frame before session.ready fails with its code', async () => {
    const refusal = { type: 'error', code: 'insufficient_credit', message: 'Add credit.', retryable: false };
    const url = await loopback((socket) => socket.send(JSON.stringify(refusal)));
    expect(await refusalOf(connectRealtime(url, { WebSocket }))).toMatchObject({
      code: 'insufficient_credit', message: 'Add credit.', retryable: false,
    });
    expect(schemas.problem('RealtimeServerFrame', refusal)).toBeNull();
  });

  it('a socket dropped after session.ready rejects done with network_error', async () => {
    const url = await loopback((socket) => {
      socket.send(JSON.stringify({ type: 'session.ready', sessionId: 'rt_loopback' }));
      setTimeout(() => socket.terminate(), 50);
    });
    const stream = await connectRealtime(url, { WebSocket });
    expect(stream.sessionId).toBe('rt_loopback');
    expect(await refusalOf(stream.done)).toMatchObject({ code: 'network_error' });
  });
});

/** A WebSocket whose peer never reads: `bufferedAmount` is what the test says; it answers eof as the server does. */
class StalledSocket extends ScriptedSocket {
  constructor(url: string) {
    super(url);
    // After connectRealtime has set its handlers.
    setTimeout(() => this.frame({ type: 'session.ready', sessionId: 'rt_stalled' }));
  }

  override send(data: string | ArrayBuffer | ArrayBufferView): void {
    super.send(data);
    if (data === JSON.stringify({ type: 'eof' })) {
      this.frame({ type: 'session.done', reason: 'eof', stats: { audioS: 2.5, processingS: 1, realtimeFactor: 0.4 } });
    }
  }
}

describe('backpressure', () => {
  it('sendAudio waits while bufferedAmount is over the high-water mark, then sends in order; eof goes after the audio', async () => {
    const stream = await connectRealtime('ws://stalled.invalid/socket', {
      WebSocket: StalledSocket as unknown as WebSocketConstructor, highWaterMarkBytes: 64_000,
    });
    const socket = ScriptedSocket.made.at(-1)!;
    socket.bufferedAmount = 64_001;
    let sent = false;
    const first = stream.sendAudio(new Float32Array(MAX_CHUNK_SAMPLES * 2 + 1_000).fill(0.5)).then(() => (sent = true));
    const second = stream.sendAudio(new Float32Array(100));
    const finished = stream.finish();
    // However long it waits, nothing goes out while the socket is full.
    for (let look = 0; look < 10; look += 1) {
      await sleep(30);
      expect(sent).toBe(false);
      expect(socket.sent).toEqual([]);
    }
    socket.bufferedAmount = 0;
    await first;
    await second;
    const done = await finished;
    expect(done).toMatchObject({ type: 'session.done', reason: 'eof' });
    // Split into the spec's largest chunk (16,000 bytes) and sent in call order, eof last.
    expect(socket.sent.map((frame) => (typeof frame === 'string' ? frame : frame.byteLength))).toEqual([
      16_000, 16_000, 4_000, 400, JSON.stringify({ type: 'eof' }),
    ]);
    expect(await refusalOf(stream.sendAudio(new Float32Array(10)))).toMatchObject({ code: 'invalid_state' });
  });
});

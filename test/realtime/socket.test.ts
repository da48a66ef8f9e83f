/**
 * The realtime socket with real speech: committed text and gapless seq, loading then ready, eof vs cancel,
 * session.update mid-stream, a clock gap becoming gapBefore, a slow consumer, and HTTP staying responsive
 * while sessions stream (inference runs on engine threads, not the event loop).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from '../../bench/realtime.js';
import { RealtimeConnection, SAMPLE_RATE, streamFile, type CommittedSegment, type ServerFrame } from '../helpers/realtime-client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createStreamUrl, expectGapless, fileChunks, GO_FORWARD, GO_FORWARD_TEXT, LECTURE, normalise, sleep } from '../helpers/realtime.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    workers: [],
    env: { REALTIME_SECRET: 'socket-suite-secret-0123456789abcdef', REALTIME_MAX_SESSIONS: '3', REALTIME_SLOW_CONSUMER_S: '3' },
  });
});

afterAll(async () => {
  await server?.app.services.realtime.close();
  await server?.close();
});

const types = (frames: { frame: ServerFrame }[]) => frames.map(({ frame }) => frame.type);

describe('streaming real speech', () => {
  it('loads, gets ready, commits the spoken words with gapless seq and ends with eof', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'accuracy' });
    const result = await streamFile(streamUrl, GO_FORWARD, { clock: true });

    // First session of this process: the engine thread warms before the session is ready.
    const seen = types(result.frames);
    const readyAt = seen.indexOf('session.ready');
    expect(readyAt).toBeGreaterThan(0);
    expect(seen.slice(0, readyAt).every((type) => type === 'session.loading')).toBe(true);
    expect(result.frames[0]!.frame).toMatchObject({ type: 'session.loading', stage: 'model' });

    expect(normalise(result.commits.map((segment) => segment.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    expectGapless(result.commits);
    for (const segment of result.commits) {
      expect(segment.speaker).toBe(-1);
      expect(segment.language).toBe('en');
      expect(segment.decoder).toBe('accuracy');
      expect(segment.catchup).toBeUndefined();
      expect(segment.latencyS).toBeGreaterThan(0);
      expect(segment.words.length).toBeGreaterThan(0);
      expect(segment.confidence).toBeGreaterThan(0);
      expect(segment.confidence).toBeLessThanOrEqual(1);
      expect(segment.end).toBeGreaterThan(segment.start);
      expect(segment.gapBefore).toBeUndefined();
    }
    expect(result.done).toMatchObject({ type: 'session.done', reason: 'eof' });
    expect(result.done!.stats.audioS).toBeCloseTo(2.786, 1);
    expect(result.done!.stats.processingS).toBeGreaterThan(0);
    expect(result.done!.stats.realtimeFactor).toBeCloseTo(result.done!.stats.processingS / result.done!.stats.audioS, 2);
    expect(seen[seen.length - 1]).toBe('session.done');
    expect(result.closeCode).toBe(1000);
  });

  it('cancel stops at once with reason cancelled; nothing of the rest is transcribed', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en' });
    let cancelled = false;
    const result = await streamFile(streamUrl, GO_FORWARD, {
      noEof: true,
      afterChunk: (connection, sentS) => {
        if (sentS >= 1.4 && !cancelled) {
          cancelled = true;
          connection.cancel();
        }
      },
    });
    expect(result.done).toMatchObject({ reason: 'cancelled' });
    // Audio sent after the cancel frame is dropped: the session counted only what came before it.
    expect(result.done!.stats.audioS).toBeCloseTo(1.4, 1);
    expect(normalise(result.commits.map((segment) => segment.text).join(' '))).not.toContain('meters');
    expectGapless(result.commits);
    expect(types(result.frames).at(-1)).toBe('session.done');
  });

  it('session.update mid-stream: switches to the fast decoder, ignores an unsupported language, refuses bad fields', async () => {
    const streamUrl = await createStreamUrl(server, {
      spokenLanguage: 'en', latencyMode: 'accuracy', translate: ['es'], voiceByLang: { de: 'anna' },
    });
    let updated = false;
    const result = await streamFile(streamUrl, GO_FORWARD, {
      afterChunk: (connection, sentS) => {
        if (sentS >= 0.4 && !updated) {
          updated = true;
          connection.update({ latencyMode: 'fast', spokenLanguage: 'xx', translate: ['ca', 'es'], voiceByLang: {}, llmFix: false });
          connection.update({ llmFix: true });
          connection.update({ translate: ['zz'] });
          connection.update({ speakerLabels: 'always' });
        }
      },
    });
    const frames = result.frames.map(({ frame }) => frame);
    const applied = frames.find((frame) => frame.type === 'session.updated') as Record<string, any> | undefined;
    expect(applied?.options).toMatchObject({
      latencyMode: 'fast', spokenLanguage: 'en', translate: ['ca', 'es'], voiceByLang: {}, llmFix: false,
    });
    expect(applied?.ignored.map((entry: { field: string }) => entry.field)).toEqual(['spokenLanguage']);

    const refusals = frames.filter((frame) => frame.type === 'error') as { code: string; message: string; retryable: boolean }[];
    expect(refusals).toHaveLength(3);
    expect(refusals[0]).toMatchObject({ code: 'invalid_options', retryable: false });
    expect(refusals[0]!.message).toContain('llmFix');
    expect(refusals[1]).toMatchObject({ code: 'invalid_options', retryable: false });
    expect(refusals[1]!.message).toContain('translate[0]');
    expect(refusals[2]).toMatchObject({ code: 'invalid_options' });
    expect(refusals[2]!.message).toContain('speakerLabels');
    // Only one session.updated: the refused frames changed nothing.
    expect(frames.filter((frame) => frame.type === 'session.updated')).toHaveLength(1);

    // Everything committed after the switch came from the fast decoder, marked as the spec says.
    const switchIndex = frames.indexOf(applied as ServerFrame);
    const afterSwitch = frames.slice(switchIndex).filter((frame) => frame.type === 'transcript.committed').map(
      (frame) => (frame as { segment: CommittedSegment }).segment,
    );
    expect(afterSwitch.length).toBeGreaterThan(0);
    for (const segment of afterSwitch) expect(segment).toMatchObject({ decoder: 'fast', catchup: true });
    expect(normalise(result.commits.map((segment) => segment.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    expectGapless(result.commits);
    expect(result.done?.reason).toBe('eof');
  });

  it('auto commits accurately while it keeps up and hands over to the fast decoder (catchup) when audio outruns it', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'auto' });
    const connection = new RealtimeConnection(streamUrl);
    await connection.ready();
    const silence = (seconds: number) => new Float32Array(Math.round(seconds * SAMPLE_RATE));
    // Keeping up: a sentence and a pause, then a little more audio each time a pass has answered, so the
    // backlog never exceeds 0.4 s however slow this machine is, until the whole sentence is committed (a busy
    // machine may commit it in more than one piece).
    const passesAnswered = () => connection.result.frames.filter(
      ({ frame }) => frame.type === 'transcript.draft' || frame.type === 'transcript.committed',
    ).length;
    // Two frames of under 2 s: whichever part a pass misses, the backlog stays below the hand-over threshold.
    const sentence = await fileChunks(GO_FORWARD);
    const opening = new Float32Array([...sentence.flatMap((chunk) => [...chunk]), ...silence(1)]);
    const half = Math.ceil(opening.length / 2);
    connection.sendPcm(opening.subarray(0, half));
    connection.sendPcm(opening.subarray(half));
    const sentenceCommitted = () => GO_FORWARD_TEXT.test(normalise(connection.result.commits.map((segment) => segment.text).join(' ')));
    for (let round = 0; round < 20 && !sentenceCommitted(); round++) {
      const answered = passesAnswered();
      while (passesAnswered() === answered && connection.ws.readyState === connection.ws.OPEN) await sleep(50);
      if (!sentenceCommitted()) connection.sendPcm(silence(0.4));
    }
    const keptUp = connection.result.commits.length;
    // Outrun: the lecture at ten times real time, far faster than beam search decodes it.
    for (const chunk of (await fileChunks(LECTURE)).slice(0, 120)) {
      connection.sendPcm(chunk);
      await sleep(20);
    }
    connection.eof();
    const result = await connection.closed;

    expectGapless(result.commits);
    expect(result.done?.reason).toBe('eof');
    const early = result.commits.slice(0, keptUp);
    expect(normalise(early.map((segment) => segment.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    for (const segment of early) {
      expect(segment.decoder).toBe('accuracy');
      expect(segment.catchup).toBeUndefined();
    }
    const late = result.commits.slice(keptUp);
    expect(late.map((segment) => segment.decoder)).toContain('fast');
    for (const segment of late) {
      if (segment.decoder === 'fast') expect(segment.catchup).toBe(true);
      else expect(segment.catchup).toBeUndefined();
    }
    // The hand-over replays the uncommitted audio: nothing is lost or said twice.
    const text = normalise(late.map((segment) => segment.text).join(' '));
    expect(text.match(/dublin/g)).toHaveLength(1);
    expect(text).toMatch(/political philosophy/);
  });

  it('clock frames that reveal lost capture audio put gapBefore on the next segment', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast' });
    const before = await fileChunks(GO_FORWARD);
    const after = (await fileChunks(LECTURE)).slice(0, 20); // "And says, how do I get to Dublin?"
    const connection = new RealtimeConnection(streamUrl);
    await connection.ready();
    let captured = 0;
    const send = async (chunks: Float32Array[]) => {
      for (const chunk of chunks) {
        connection.sendPcm(chunk);
        captured += chunk.length;
        connection.clock(captured, captured / SAMPLE_RATE);
        await sleep(50);
      }
    };
    await send(before);
    const lossAtS = captured / SAMPLE_RATE;
    // The microphone captured 2 s that never reached the server (a dropped buffer), then speech again.
    captured += 2 * SAMPLE_RATE;
    connection.clock(captured, captured / SAMPLE_RATE);
    await send(after);
    connection.eof();
    const result = await connection.closed;

    expectGapless(result.commits);
    const withGap = result.commits.filter((segment) => segment.gapBefore !== undefined);
    expect(withGap).toHaveLength(1);
    expect(withGap[0]!.gapBefore).toBeCloseTo(2, 2);
    // It is the first segment that ends after the loss, and it holds the speech sent after it ("And says, how
    // do I get to Dublin?" — how much of it depends on where a commit step ended), none of the speech before.
    expect(withGap[0]!.end).toBeGreaterThan(lossAtS);
    expect(normalise(withGap[0]!.text)).toMatch(/^(and|says|how)\b/);
    expect(normalise(withGap[0]!.text)).not.toMatch(/forward|meters/);
    const beforeLoss = result.commits.filter((segment) => segment.end <= lossAtS);
    expect(normalise(beforeLoss.map((segment) => segment.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    expect(beforeLoss.every((segment) => segment.gapBefore === undefined)).toBe(true);
  });
});

describe('backpressure and isolation', () => {
  it('a client that stops reading gets slow_consumer and is closed; commits before it are all delivered', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast' });
    const chunks = await fileChunks(LECTURE);
    const connection = new RealtimeConnection(streamUrl);
    await connection.ready();
    let paused = false;
    for (const chunk of chunks.slice(0, 100)) {
      if (connection.ws.readyState !== connection.ws.OPEN) break;
      connection.sendPcm(chunk);
      if (!paused && connection.result.commits.length > 0) {
        // Stop reading (TCP reads paused: frames and pings pile up unread) while audio keeps flowing.
        paused = true;
        connection.ws.pause();
        setTimeout(() => connection.ws.resume(), 7000);
      }
      await sleep(200);
    }
    const result = await connection.closed;
    expect(paused).toBe(true);
    const last = result.frames.at(-1)!.frame as { type: string; code?: string; retryable?: boolean };
    expect(last).toMatchObject({ type: 'error', code: 'slow_consumer', retryable: false });
    expect(result.closeCode).toBe(1008);
    expect(result.commits.length).toBeGreaterThan(0);
    expectGapless(result.commits);
    expect(result.done).toBeNull();
  });

  it('HTTP answers quickly while sessions stream (inference is off the event loop)', async () => {
    const sessions = await Promise.all([
      createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'accuracy' }),
      createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'accuracy' }),
    ]);
    let streaming = true;
    const streams = Promise.all(sessions.map((url) => streamFile(url, LECTURE, { realtime: false, durationS: 20 }))).finally(
      () => (streaming = false),
    );
    const latencies: number[] = [];
    await sleep(1000);
    while (streaming && latencies.length < 200) {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/health`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      expect(response.status).toBe(200);
      await sleep(50);
    }
    const results = await streams;
    for (const result of results) {
      expect(result.done?.reason).toBe('eof');
      expect(result.commits.length).toBeGreaterThan(0);
      expectGapless(result.commits);
    }
    // Both sessions kept the engine busy for the whole measurement (20 s of audio each, sent at once).
    expect(latencies.length).toBeGreaterThan(10);
    expect(percentile(latencies, 95)).toBeLessThan(300);
  });
});

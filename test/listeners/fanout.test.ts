/**
 * The fan-out of one gateway process, driven with subscribers of our own on a real recording (real database, real
 * Redis): a slow consumer is dropped without holding the others, frames Redis never brought are read from the durable
 * log, and a resuming subscriber is replayed from memory, from the log, or told of a gap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingFanout, type Subscriber } from '../../src/listeners/fanout.js';
import { appendEvents } from '../../src/transcript/events.js';
import { TX_OPTIONS } from '../../src/core/db/transactions.js';
import { json } from '../helpers/http.js';
import { sleep } from '../helpers/realtime.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { REALTIME_SECRET: 'fanout-suite-secret-0123456789abcdef' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** A subscriber that keeps what it is sent; `buffered` says how much its socket would hold unsent. */
function fakeSubscriber(view: Subscriber['view'] = 'full', buffered = () => 0) {
  const frames: Array<Record<string, unknown>> = [];
  const dropped: string[] = [];
  const subscriber: Subscriber = {
    view,
    lang: null,
    audio: false,
    voice: null,
    sendText: (text) => frames.push(JSON.parse(text)),
    sendBinary: () => undefined,
    buffered,
    drop: (code) => dropped.push(code),
  };
  return { subscriber, frames, dropped };
}

async function liveRecording(): Promise<string> {
  const live = await json(await server.postJson('/v1/transcriptions/live', { name: 'Fan-out', settings: { spokenLanguage: 'en' } }));
  const grant = await json(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}));
  return grant.recording.id as string;
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Log frames written without being published: as if Redis had lost them on the way. */
async function appendUnpublished(recordingId: string, count: number) {
  await server.app.prisma.$transaction(
    (tx) => appendEvents(
      tx, recordingId,
      Array.from({ length: count }, () => ({ type: 'recording.ingest', audience: 'log' as const, body: { state: 'streaming' } })),
    ),
    TX_OPTIONS,
  );
}

const cursors = (frames: Array<Record<string, unknown>>) => frames.filter((f) => typeof f.cursor === 'number').map(
  (f) => f.cursor as number,
);

describe('the fan-out', () => {
  it('drops a subscriber that does not drain and goes on delivering to the others', async () => {
    const fanout = new RecordingFanout({ prisma: server.app.prisma, pubsub: server.app.pubsub, instance: 'gw_test' });
    try {
      const recordingId = await liveRecording();
      let backlog = 0;
      const slow = fakeSubscriber('full', () => backlog);
      const fast = fakeSubscriber('listener');
      await fanout.join(recordingId, slow.subscriber, null);
      await fanout.join(recordingId, fast.subscriber, null);
      expect(fast.frames[0]).toMatchObject({ type: 'subscribe.ready', recordingId, state: 'live', instance: 'gw_test' });
      backlog = 2 << 20;
      await server.postJson(`/v1/recordings/${recordingId}/pause`, {});
      await server.postJson(`/v1/recordings/${recordingId}/resume`, {});
      await until('both moves delivered', () => fast.frames.filter((f) => f.type === 'recording.state').length === 2);
      expect(fast.frames.filter((f) => f.type === 'recording.state').map((f) => f.state)).toEqual(['paused', 'live']);
      expect(slow.dropped).toEqual(['slow_consumer']);
      expect(slow.frames.filter((f) => f.type === 'recording.state')).toEqual([]);
      expect(fanout.size).toBe(1);
    } finally {
      fanout.close();
    }
  });

  it('reads what Redis never brought from the durable log, in order, once', async () => {
    const fanout = new RecordingFanout({ prisma: server.app.prisma, pubsub: server.app.pubsub, instance: 'gw_test' }, { pollMs: 100 });
    try {
      const recordingId = await liveRecording();
      const follower = fakeSubscriber('listener');
      await fanout.join(recordingId, follower.subscriber, null);
      const start = follower.frames[0]!.lastSeq as number;
      // Three frames nobody published: the poll finds them. Then a published move: its cursor follows theirs.
      await appendUnpublished(recordingId, 3);
      await until('the lost frames', () => cursors(follower.frames).length === 3);
      await server.postJson(`/v1/recordings/${recordingId}/pause`, {});
      await until('the published move', () => cursors(follower.frames).length === 4);
      expect(cursors(follower.frames)).toEqual([start + 1, start + 2, start + 3, start + 4]);
      // A listener gets log frames it has no use for as noop, so its cursor never skips.
      expect(follower.frames.slice(1, 4).every((f) => f.type === 'noop' && f.reason === 'not_for_subscribers' && f.seq === null)).toBe(
        true,
      );
      expect(follower.frames[4]).toMatchObject({ type: 'recording.state', state: 'paused', cursor: start + 4 });
    } finally {
      fanout.close();
    }
  });

  it('replays a resuming subscriber from memory or the log, and past maxReplay sends subscribe.gap', async () => {
    const fanout = new RecordingFanout({ prisma: server.app.prisma, pubsub: server.app.pubsub, instance: 'gw_test' }, {
      ringSize: 2, maxReplay: 6, pollMs: 100,
    });
    try {
      const recordingId = await liveRecording();
      const first = fakeSubscriber();
      await fanout.join(recordingId, first.subscriber, null);
      const start = first.frames[0]!.lastSeq as number;
      await appendUnpublished(recordingId, 8);
      await until('eight frames', () => cursors(first.frames).length === 8);
      const last = start + 8;
      // From memory (the ring holds the last two).
      const near = fakeSubscriber();
      await fanout.join(recordingId, near.subscriber, last - 2);
      expect(near.frames[0]).toMatchObject({ type: 'subscribe.ready', lastSeq: last });
      expect(cursors(near.frames.slice(1))).toEqual([last - 1, last]);
      // From the log (older than the ring).
      const far = fakeSubscriber();
      await fanout.join(recordingId, far.subscriber, last - 5);
      expect(cursors(far.frames.slice(1))).toEqual([last - 4, last - 3, last - 2, last - 1, last]);
      // Further back than maxReplay: a gap (the subscriber re-reads the transcript with after=), then live frames.
      const gone = fakeSubscriber();
      await fanout.join(recordingId, gone.subscriber, -1);
      expect(gone.frames.slice(1), JSON.stringify({ start, last, gone: gone.frames, far: far.frames })).toEqual([{
        type: 'subscribe.gap', cursor: last, after: -1,
      }]);
    } finally {
      fanout.close();
    }
  });
});

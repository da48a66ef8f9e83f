/**
 * Broadcast listeners across gateway processes (`WS /v1/recordings/{id}/subscribe`, src/listeners/fanout.ts), with
 * real gateway processes (`src/entry/main.ts`, each its own OS process) on one PostgreSQL database and one Redis:
 *
 * - the publisher attached through gateway A, its listeners on gateway B: B hears the recording's durable frames over
 *   Redis (`recording:<id>:log`), a listener joining mid-recording included, A's `listenersNow` counts B's
 *   listeners, and at `finalized` every listener shows exactly the owner's transcript with gapless cursors;
 * - the Redis server (one of this file's own, never the shared one) killed and started again mid-recording while
 *   the publisher goes on speaking: commits made while it is down still reach the listeners (the hubs read the
 *   recording's cursor from the database), listeners join (on B and on A) and a cut socket resumes while it is down,
 *   and after the restart everything goes on — nothing lost, nothing doubled, the recording finalized.
 *   While Redis is down a broadcast still answers at once (`listenersNow` left out: nobody can be counted).
 *
 * Each listener is a `Follower` (test/helpers/follower.ts): it follows the spec's procedure and throws on a cursor
 * that jumps; the checks below also compare the raw cursors each socket was sent, so a frame sent twice would show.
 */
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Follower } from '../helpers/follower.js';
import { gatewayProcesses, speak, stopChild, stopGateways, type Gateway, type Grant, type OwnRedis } from '../helpers/gateways.js';
import { fileChunks, LECTURE } from '../helpers/realtime.js';

const {
  sharedRedis, redisPrefix, createDatabase, tempDir, startGateways, redisServer,
  call, expectStatus, until, tail, publisherOn, closePublishers, stopAll,
} = gatewayProcesses({
  realtimeSecret: 'gateways-listeners-secret-0123456789abcdef',
  // The finalize job's catch-up reads the whole recording again: whisper-tiny keeps it short, as test servers do.
  env: { MODEL_ACCURATE: process.env.MODEL_ACCURATE ?? 'whisper-tiny' },
  pollMs: 200,
  tailChars: 3000,
});

/** The listeners started here, cut in afterAll whatever happened. */
const followers: Follower[] = [];

function closeClients(): void {
  for (const follower of followers.splice(0)) follower.cut();
  closePublishers();
}

afterAll(async () => {
  closeClients();
  await stopAll();
}, 120_000);

beforeAll(async () => {
  await createDatabase();
}, 120_000);

// ---- the public interface, on a given gateway ------------------------------------------------------------------

interface Transcript { lastSeq: number; segments: Array<{ seq: number; text: string; suppressed?: true }> }

/** A public broadcast (anyone may follow it), made through `gateway`. */
async function createBroadcast(gateway: Gateway, name: string): Promise<{ id: string; code: string; access: string }> {
  const broadcast = await expectStatus(
    await call(gateway, '/v1/broadcasts', 'POST', {
      name: `${name} ${crypto.randomBytes(3).toString('hex')}`, settings: { spokenLanguage: 'en' },
    }),
    201,
  );
  expect(broadcast.access).toBe('public');
  return broadcast;
}

/** A recording of the broadcast started through `gateway`: its grant's socket is on that gateway. */
async function startRecording(gateway: Gateway, broadcastId: string): Promise<Grant> {
  const grant = (await expectStatus(await call(gateway, `/v1/broadcasts/${broadcastId}/recordings`, 'POST'), 201)) as Grant;
  expect(new URL(grant.streamUrl).port).toBe(new URL(gateway.url).port);
  return grant;
}

const ownerTranscript = async (gateway: Gateway, recordingId: string) =>
  (await expectStatus(await call(gateway, `/v1/recordings/${recordingId}/transcript`), 200, tail(gateway))) as Transcript;

const recordingState = async (gateway: Gateway, recordingId: string) =>
  (await expectStatus(await call(gateway, `/v1/recordings/${recordingId}`), 200, tail(gateway))).state as string;

const listenersNow = async (gateway: Gateway, broadcastId: string) =>
  (await expectStatus(await call(gateway, `/v1/broadcasts/${broadcastId}`), 200, tail(gateway))).listenersNow as number | null | undefined;

/**
 * Pause, stop and wait for `finalized` (the finalize job runs on the gateway with RUN_WORKERS), all through `gateway`;
 * then until each of `followers` has followed it to `finalized`.
 */
async function finish(
  gateway: Gateway, recordingId: string, context: () => string, followers: Record<string, Follower> = {},
): Promise<void> {
  expect(await expectStatus(await call(gateway, `/v1/recordings/${recordingId}/pause`, 'POST'), 200, context)).toMatchObject({
    state: 'paused',
  });
  expect(await expectStatus(await call(gateway, `/v1/recordings/${recordingId}/stop`, 'POST'), 200, context)).toMatchObject({
    state: 'ended',
  });
  await until('the recording finalized', async () => (await recordingState(gateway, recordingId)) === 'finalized', 240_000, context);
  for (const [name, follower] of Object.entries(followers)) await follower.until(
    `${name} finalized`, () => follower.state === 'finalized', 60_000,
  );
}

/** An anonymous listener of the recording on `gateway`, with a presence id of its own. */
function listenerOn(gateway: Gateway, recordingId: string): Follower {
  const follower = new Follower({
    baseUrl: gateway.url, recordingId, query: { presence: `listener-${crypto.randomBytes(6).toString('hex')}` },
  });
  followers.push(follower);
  return follower;
}

// ---- waiting and failure messages ------------------------------------------------------------------------------

/** What a listener has reached, for failure messages. */
const progress = (named: Record<string, Follower>) =>
  Object.entries(named).map(([name, follower]) => `${name}: cursor ${follower.lastCursor}, state ${follower.state}, `
    + `${follower.lines.size} lines, open ${follower.isOpen}`).join('; ');

/** Subscribers of `channels` on the Redis at `redisUrl` (PUBSUB NUMSUB), in order. */
async function numsub(redisUrl: string, channels: string[]): Promise<number[]> {
  const probe = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    const counts = (await probe.pubsub('NUMSUB', ...channels)) as Array<string | number>;
    return channels.map((_channel, i) => Number(counts[i * 2 + 1]));
  } finally {
    probe.disconnect();
  }
}

/** The transcript as an anonymous listener reads it (lines under the confidence policy blank and `suppressed`). */
const listenerTranscript = async (gateway: Gateway, recordingId: string) => {
  const response = await fetch(`${gateway.url}/v1/recordings/${recordingId}/transcript`);
  return (await expectStatus(response, 200, tail(gateway))) as Transcript;
};

/**
 * The end state every listener must reach: exactly the owner's lines (same order, same text; a line the confidence
 * policy withholds from listeners blank, as their own snapshot shows it), every cursor after its snapshot applied
 * once and in order up to the owner's last, and the raw cursors the socket was sent after the snapshot exactly those
 * (nothing skipped, nothing sent twice).
 */
function expectFollowedExactly(name: string, follower: Follower, owner: Transcript, seen: Transcript): void {
  const hidden = new Set(seen.segments.filter((segment) => segment.suppressed).map((segment) => segment.seq));
  expect(seen.segments.map((segment) => segment.seq)).toEqual(owner.segments.map((segment) => segment.seq));
  expect(follower.texts(), `${name}'s lines`).toEqual(owner.segments.map((segment) => (hidden.has(segment.seq) ? '' : segment.text)));
  expect(follower.state, `${name}'s state`).toBe('finalized');
  expect(follower.lastCursor, `${name}'s last cursor`).toBe(owner.lastSeq);
  const first = follower.applied[0]!;
  expect(follower.applied.length, `${name} applied frames from its socket`).toBeGreaterThan(0);
  expect(follower.applied, `${name}'s applied cursors`).toEqual(follower.applied.map((_cursor, i) => first + i));
  const sent = follower.frames.filter((frame) => typeof frame.cursor === 'number' && (frame.cursor as number) >= first).map(
    (frame) => frame.cursor as number,
  );
  expect(sent, `${name}: the cursors its socket was sent after its snapshot`).toEqual(follower.applied);
  expect(
    follower.frames.some((frame) => frame.type === 'subscribe.gap' || frame.type === 'error'), `${name} was sent no gap or error`,
  ).toBe(false);
}

/** Every listener against the owner's transcript read through `owners` and the listener's view read through `listeners`. */
async function expectAllFollowedExactly(
  named: Record<string, Follower>, owners: Gateway, listeners: Gateway, recordingId: string,
): Promise<Transcript> {
  const owner = await ownerTranscript(owners, recordingId);
  const seen = await listenerTranscript(listeners, recordingId);
  expect(owner.segments.length).toBeGreaterThan(3);
  expect(seen.lastSeq).toBe(owner.lastSeq);
  for (const [name, follower] of Object.entries(named)) expectFollowedExactly(name, follower, owner, seen);
  return owner;
}

// ---- the tests ---------------------------------------------------------------------------------------------------

describe('listeners on another gateway process than the publisher', () => {
  let a: Gateway;
  let b: Gateway;

  beforeAll(async () => {
    const dataDir = await tempDir('sg-gateways-');
    // A holds the publisher and runs the workers (the finalize job); B only serves listeners.
    [a, b] = await startGateways({ name: 'A', env: { DATA_DIR: dataDir, RUN_WORKERS: 'true' } }, { name: 'B', env: { DATA_DIR: dataDir } });
  }, 300_000);

  afterAll(async () => {
    closeClients();
    await stopGateways(a, b);
  }, 60_000);

  it('hear the publisher on A through Redis, are counted on A, and end with exactly the owner\'s transcript', async () => {
    const named: Record<string, Follower> = {};
    const context = () => `${progress(named)}\n${tail(a, b)()}`;
    const broadcast = await createBroadcast(a, 'Two gateways');
    const grant = await startRecording(a, broadcast.id);
    const recordingId = grant.recording.id;

    // Two listeners on B before a word is said: the hub on B subscribes to the recording's log topic on Redis.
    named.first = listenerOn(b, recordingId);
    named.second = listenerOn(b, recordingId);
    await named.first.start();
    await named.second.start();
    expect(named.first.ready).toMatchObject({
      type: 'subscribe.ready', recordingId, state: 'live', instance: expect.stringMatching(/^gw_/),
    });
    expect(named.first.lines.size).toBe(0);
    await until('B subscribed to the recording\'s log topic on Redis', async () =>
      (await numsub(sharedRedis, [`${redisPrefix}recording:${recordingId}:log`]))[0]! >= 1, 30_000, context);

    const publisher = await publisherOn(grant);
    const chunks = await fileChunks(LECTURE);
    const half = Math.floor(chunks.length / 2);
    for (const chunk of chunks.slice(0, half)) publisher.sendPcm(chunk);
    await until('a first commit on A', async () => (await ownerTranscript(a, recordingId)).segments.length > 0, 180_000, context);
    await until(
      'the first commit reaching B\'s listeners', () => named.first!.lines.size > 0 && named.second!.lines.size > 0, 30_000, context,
    );

    // Mid-recording: a third listener on B, its snapshot has lines already.
    named.late = listenerOn(b, recordingId);
    await named.late.start();
    expect(named.late.lines.size).toBeGreaterThan(0);
    // One hub per recording per process: every listener on B is served by the same instance.
    expect(new Set(Object.values(named).map((follower) => follower.ready!.instance)).size).toBe(1);
    // The broadcast's listeners are counted in every process: read through A, B's three sockets.
    await until('listenersNow 3 read through A', async () => (await listenersNow(a, broadcast.id)) === 3, 30_000, context);

    for (const chunk of chunks.slice(half)) publisher.sendPcm(chunk);
    const before = (await ownerTranscript(a, recordingId)).lastSeq;
    await until('a commit after the late join', async () => (await ownerTranscript(a, recordingId)).lastSeq > before, 180_000, context);
    await until('the late listener hearing a frame from its socket', () => named.late!.applied.length > 0, 30_000, context);

    await finish(a, recordingId, context, named);
    publisher.close();

    const owner = await expectAllFollowedExactly(named, a, b, recordingId);
    // The early listeners' snapshot was empty: every line reached them over the socket, from B's hub.
    for (const follower of [named.first, named.second]) {
      const committed = new Set(follower.frames.filter(
        (frame) => frame.type === 'transcript.committed' || (frame.type === 'noop' && frame.reason === 'unclear'),
      ).map((frame) => frame.seq));
      expect(owner.segments.filter((segment) => !committed.has(segment.seq)).map((segment) => segment.seq)).toEqual([]);
    }

    // Gone from B, gone from the count read through A.
    for (const follower of Object.values(named)) follower.close();
    await until('listenersNow gone, read through A', async () => (await listenersNow(a, broadcast.id)) == null, 30_000, context);
    expect(a.child.exitCode, tail(a)()).toBeNull();
    expect(b.child.exitCode, tail(b)()).toBeNull();
  }, 290_000);
});

describe('a Redis restart during a live recording', () => {
  let ownRedis: OwnRedis;
  let redisUrl: string;
  let redis: ChildProcess | undefined;
  let a: Gateway;
  let b: Gateway;

  beforeAll(async () => {
    ownRedis = await redisServer();
    redisUrl = ownRedis.url;
    redis = await ownRedis.start();
    const dataDir = await tempDir('sg-gateways-redis-');
    [a, b] = await startGateways({ name: 'A', env: { DATA_DIR: dataDir, REDIS_URL: redisUrl, RUN_WORKERS: 'true' } }, {
      name: 'B', env: { DATA_DIR: dataDir, REDIS_URL: redisUrl },
    });
  }, 300_000);

  afterAll(async () => {
    closeClients();
    await stopGateways(a, b);
    if (redis) await stopChild(redis);
  }, 60_000);

  it('loses no committed line for listeners on B (or on A, joined during the outage), doubles none, and they end with exactly the '
    + 'owner\'s transcript', async () => {
    const named: Record<string, Follower> = {};
    const context = () => `${progress(named)}\n${tail(a, b)()}`;
    // Three minutes of speech at real time (stopped once done): commits still come while Redis is down and after it
    // is back, however late the first one was.
    const once = await fileChunks(LECTURE);
    const lecture = [...once, ...once, ...once];
    const broadcast = await createBroadcast(a, 'Redis restart');
    const grant = await startRecording(a, broadcast.id);
    const recordingId = grant.recording.id;
    const logChannel = `${redisPrefix}recording:${recordingId}:log`;
    const controlChannel = `${redisPrefix}recording:${recordingId}`;

    named.first = listenerOn(b, recordingId);
    named.second = listenerOn(b, recordingId);
    await named.first.start();
    await named.second.start();
    const publisher = await publisherOn(grant);
    const speaking = speak(publisher, lecture);
    try {
      await until('a commit before the outage', () => publisher.result.commits.length > 0, 180_000, context);
      await until(
        'the commit reaching the listeners on B', () => named.first!.lines.size > 0 && named.second!.lines.size > 0, 30_000, context,
      );
      await until('listenersNow 2 read through A', async () => (await listenersNow(a, broadcast.id)) === 2, 30_000, context);

      // Redis gone while the publisher goes on speaking.
      await stopChild(redis!, 'SIGKILL');
      const killedAt = Date.now();
      const beforeOutage = (await ownerTranscript(a, recordingId)).lastSeq;
      // The commits are PostgreSQL's: the session goes on, and B's hub finds them by reading the recording's cursor.
      await until(
        'a commit while Redis is down', async () => (await ownerTranscript(a, recordingId)).lastSeq > beforeOutage, 120_000, context,
      );
      const duringOutage = (await ownerTranscript(a, recordingId)).lastSeq;
      await until('B\'s listeners reaching the commits made while Redis is down', () =>
        named.first!.lastCursor >= duringOutage && named.second!.lastCursor >= duringOutage, 30_000, context);
      // Listeners joining while Redis is down: on B, which has the recording's hub already, and on A, whose hub for
      // it is made now (its subscription to the log topic waits for Redis; the cursor poll serves it meanwhile).
      named.joinedInOutage = listenerOn(b, recordingId);
      await named.joinedInOutage.start();
      expect(named.joinedInOutage.lines.size).toBeGreaterThan(0);
      named.onAInOutage = listenerOn(a, recordingId);
      await named.onAInOutage.start();
      expect(named.onAInOutage.ready!.instance).not.toBe(named.first.ready!.instance);
      // A socket cut while Redis is down resumes from its last cursor on the same gateway.
      named.second.cut();
      const outageCut = (await ownerTranscript(a, recordingId)).lastSeq;
      await until(
        'a commit while the second listener is cut', async () => (await ownerTranscript(a, recordingId)).lastSeq > outageCut, 120_000,
        context,
      );
      await named.second.resume();
      // The broadcast reads without waiting for Redis to come back (that happens only below: a read that waited would
      // never answer); its listeners cannot be counted meanwhile, so listenersNow is left out.
      expect(await listenersNow(a, broadcast.id)).toBeNull();
      // A few seconds of outage in all, the publisher still attached and both gateways alive.
      await until('five seconds of outage', () => Date.now() - killedAt > 5_000, 10_000);
      expect(publisher.ws.readyState, context()).toBe(WebSocket.OPEN);
      expect(a.child.exitCode, tail(a)()).toBeNull();
      expect(b.child.exitCode, tail(b)()).toBeNull();

      redis = await ownRedis.start();
      // Back on the same port (empty): A subscribes again to the recording's control topic, both to its log topic.
      await until('the gateways subscribed again to the recording\'s topics', async () =>
        (await numsub(redisUrl, [logChannel, controlChannel])).every((count, i) => count >= [2, 1][i]!), 120_000, context);
      // Presence was lost with Redis' memory: each process vouches for its listeners again (every 10 s).
      await until(
        'listenersNow 4 read through A after the restart', async () => (await listenersNow(a, broadcast.id)) === 4, 60_000, context,
      );
      const afterRestart = (await ownerTranscript(a, recordingId)).lastSeq;
      await until(
        'a commit after the restart', async () => (await ownerTranscript(a, recordingId)).lastSeq > afterRestart, 120_000, context,
      );
      const latest = (await ownerTranscript(a, recordingId)).lastSeq;
      await until('every listener reaching the commits after the restart', () =>
        Object.values(named).every((follower) => follower.lastCursor >= latest), 30_000, context);
    } finally {
      speaking.stop();
    }

    await finish(a, recordingId, context, named);
    publisher.close();

    await expectAllFollowedExactly(named, a, b, recordingId);
    expect(a.child.exitCode, tail(a)()).toBeNull();
    expect(b.child.exitCode, tail(b)()).toBeNull();
  }, 290_000);
});

/**
 * Following a broadcast: the listen view and listener tokens (REST and GraphQL, with their refusals), the subscribe
 * socket's procedure — a listener that joins mid-recording ends with exactly the owner's transcript, a cut socket
 * resumes gapless with `after=`, a line under the confidence policy reaches listeners as `noop` — the broadcast's
 * events socket, live audio on request, and `listenersNow`.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealtimeConnection } from '../helpers/realtime-client.js';
import { isUnclearSegment } from '../../src/transcript/sentences.js';
import { Follower } from '../helpers/follower.js';
import { expectInvalidOption, expectStatus, json } from '../helpers/http.js';
import { fileChunks, LECTURE, GO_FORWARD, sleep } from '../helpers/realtime.js';
import { upgradeRefusal as rawRefusal } from '../helpers/sockets.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { REALTIME_SECRET: 'listeners-suite-secret-0123456789abcdef' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** An upgrade the server must refuse, its envelope parsed. */
async function upgradeRefusal(url: string, headers: Record<string, string> = {}) {
  const refused = await rawRefusal(url, headers);
  return { status: refused.status, body: JSON.parse(refused.body) };
}

const unique = () => Math.random().toString(36).slice(2, 8);

async function createBroadcast(body: Record<string, unknown> = {}) {
  return expectStatus(
    await server.postJson('/v1/broadcasts', { name: `Hall ${unique()}`, settings: { spokenLanguage: 'en' }, ...body }), 201,
  );
}

/** Starts a recording on the broadcast and attaches a publisher to it. */
async function startPublishing(broadcastId: string) {
  const grant = await expectStatus(await server.postJson(`/v1/broadcasts/${broadcastId}/recordings`, {}), 201);
  const publisher = new RealtimeConnection(grant.streamUrl);
  await publisher.ready();
  return { recordingId: grant.recording.id as string, publisher };
}

async function ownerTranscript(recordingId: string) {
  return expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript`), 200);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** Pause, stop, and wait for finalize; the owner's transcript then is the final word. */
async function finish(recordingId: string) {
  await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/pause`, {}), 200);
  await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/stop`, {}), 200);
  await until('finalized', async () => (await json(await server.request(`/v1/recordings/${recordingId}`))).state === 'finalized', 180_000);
}

describe('the listen view and listener tokens', () => {
  it('open a broadcast by any code it had; a private one asks its password once and the token opens it', async () => {
    const open = await createBroadcast();
    const view = await expectStatus(await server.request(`/v1/listen/${open.code}`, { auth: null }), 200);
    expect(view).toMatchObject({
      broadcastId: open.id, code: open.code, name: open.name, access: 'public', authorized: true, spokenLanguage: 'en',
      languages: ['en', 'ca', 'es', 'gl'], currentRecording: null, lastRecording: null,
    });
    await expectStatus(await server.request(`/v1/listen/no-such-code-${unique()}`, { auth: null }), 404, 'not_found');

    const password = 'open sesame';
    const closed = await createBroadcast({ access: 'private', password });
    const locked = await expectStatus(await server.request(`/v1/listen/${closed.code}`, { auth: null }), 200);
    expect(locked).toMatchObject({ access: 'private', authorized: false, currentRecording: null });
    const tokenOf = (body: unknown, code = closed.code) => server.postJson(`/v1/listen/${code}/token`, body, { auth: null });
    expect((await expectStatus(await tokenOf({ password: 'wrong' }), 403, 'forbidden')).data.details.field).toBe('password');
    await expectInvalidOption(await tokenOf({}), 'password');
    await expectInvalidOption(await tokenOf({ password: 4 }), 'password');
    await expectInvalidOption(await tokenOf({ password, extra: true }), 'extra');
    await expectInvalidOption(await tokenOf([password]), 'body');
    const issued = await expectStatus(await tokenOf({ password }), 201);
    expect(issued).toMatchObject({ broadcastId: closed.id, listenerToken: expect.stringMatching(/^lt_/) });
    expect(Date.parse(issued.expiresAt)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const opened = await expectStatus(
      await server.request(`/v1/listen/${closed.code}?listenerToken=${issued.listenerToken}`, { auth: null }), 200,
    );
    expect(opened).toMatchObject({ authorized: true, broadcastId: closed.id });
    // A tampered token is not ours; another broadcast's token does not open this one.
    await expectStatus(
      await server.request(`/v1/listen/${closed.code}?listenerToken=${issued.listenerToken.slice(0, -2)}xx`, { auth: null }), 401,
      'invalid_token',
    );
    const publicToken = await expectStatus(await tokenOf({}, open.code), 201);
    expect(
      (await json(await server.request(`/v1/listen/${closed.code}?listenerToken=${publicToken.listenerToken}`, { auth: null }))).authorized,
    ).toBe(false);

    // A new code: the old one keeps opening the broadcast, and the view answers the code it has now.
    const renamed = `${closed.code}-new`;
    await expectStatus(
      await server.request(`/v1/broadcasts/${closed.id}`, {
        method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code: renamed }),
      }),
      200,
    );
    expect((await expectStatus(await server.request(`/v1/listen/${closed.code}`, { auth: null }), 200)).code).toBe(renamed);
    // A password change ends every token issued before it.
    await expectStatus(
      await server.request(`/v1/broadcasts/${closed.id}`, {
        method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: 'another one' }),
      }),
      200,
    );
    await expectStatus(
      await server.request(`/v1/listen/${renamed}?listenerToken=${issued.listenerToken}`, { auth: null }), 401, 'invalid_token',
    );
    // Archived: every link is dead.
    await expectStatus(await server.postJson(`/v1/broadcasts/${open.id}/archive`, {}), 200);
    await expectStatus(await server.request(`/v1/listen/${open.code}`, { auth: null }), 404, 'not_found');
    await expectStatus(await tokenOf({}, open.code), 404, 'not_found');
  });

  it('are served through GraphQL with no credential', async () => {
    const closed = await createBroadcast({ access: 'private', password: 'letmein' });
    const wrong = await json(await server.graphql('mutation($code: String!) { createListenerToken(code: $code, password: "nope") { '
      + 'listenerToken } }', { code: closed.code }, { auth: null }));
    expect(wrong.errors[0].extensions).toMatchObject({ code: 'forbidden' });
    const right = await json(await server.graphql('mutation($code: String!) { createListenerToken(code: $code, password: "letmein") { '
      + 'listenerToken broadcastId } }', { code: closed.code }, { auth: null }));
    expect(right.data.createListenerToken.broadcastId).toBe(closed.id);
    const view = await json(await server.graphql('query($code: String!, $t: String) { listenerBroadcast(code: $code, listenerToken: $t) { '
      + 'authorized access name } }', { code: closed.code, t: right.data.createListenerToken.listenerToken }, { auth: null }));
    expect(view.data.listenerBroadcast).toEqual({ authorized: true, access: 'private', name: closed.name });
  });
});

describe('the subscribe socket', () => {
  it('lets a listener who joins mid-recording end with exactly the owner\'s transcript, resuming a cut socket gapless', async () => {
    const broadcast = await createBroadcast();
    const { recordingId, publisher } = await startPublishing(broadcast.id);
    const events = new Follower({ baseUrl: server.url, recordingId, query: { presence: `page-${unique()}${unique()}` } });
    const chunks = await fileChunks(LECTURE);
    const half = Math.floor(chunks.length / 2);
    for (const chunk of chunks.slice(0, half)) publisher.sendPcm(chunk);
    await until('a first commit', async () => (await ownerTranscript(recordingId)).segments.length > 0);

    // Mid-recording: the snapshot has lines already, the socket brings the rest.
    const listener = new Follower({ baseUrl: server.url, recordingId });
    await listener.start();
    expect(listener.ready).toMatchObject({ type: 'subscribe.ready', recordingId, state: 'live', instance: expect.stringMatching(/^gw_/) });
    expect(listener.lines.size).toBeGreaterThan(0);
    await events.start();
    // The broadcast shows who is on its link now.
    await until('listenersNow', async () => (await json(await server.request(`/v1/broadcasts/${broadcast.id}`))).listenersNow === 2);
    const listenerView = await json(await server.request(`/v1/listen/${broadcast.code}`, { auth: null }));
    expect(listenerView.currentRecording).toMatchObject({ recordingId, state: 'live' });

    // A listener exports only once the recording has ended.
    expect(
      (await expectStatus(
        await server.request(`/v1/recordings/${recordingId}/export?format=srt`, { auth: null }), 403, 'forbidden',
      )).data.details.state,
    ).toBe('live');

    const quarter = half + Math.floor((chunks.length - half) / 2);
    for (const chunk of chunks.slice(half, quarter)) publisher.sendPcm(chunk);
    const before = (await ownerTranscript(recordingId)).segments.length;
    await until('a commit after the join', async () => (await ownerTranscript(recordingId)).segments.length > before);
    // Cut one listener as a network would while commits keep coming, then resume from its last cursor.
    events.cut();
    for (const chunk of chunks.slice(quarter)) publisher.sendPcm(chunk);
    await until('more commits while cut', async () => (await ownerTranscript(recordingId)).lastSeq > events.lastCursor + 1);
    await events.resume();
    await finish(recordingId);
    await listener.until('finalized', () => listener.state === 'finalized');
    await events.until('finalized', () => events.state === 'finalized');
    publisher.close();

    const owner = await ownerTranscript(recordingId);
    const ownerLines = owner.segments.map((s: { text: string }) => s.text);
    expect(ownerLines.length).toBeGreaterThan(3);
    // Both follow as listeners: the owner's lines, but a line under the default policy's hideBelow (0.60) withheld
    // as unclear (the accurate model's catch-up can leave one there).
    const listenerLines = owner.segments.map(
      (s: { text: string; words: unknown; confidence: number | null }) => (isUnclearSegment(s) ? '' : s.text),
    );
    expect(listenerLines.filter(Boolean).length).toBeGreaterThan(3);
    expect(listener.texts()).toEqual(listenerLines);
    expect(events.texts()).toEqual(listenerLines);
    // Sentences kept from the snapshot and `transcript.sentence` frames are the final snapshot's, merges and all.
    const listenerSentences = (await expectStatus(
      await server.request(`/v1/recordings/${recordingId}/transcript`, { auth: null }), 200,
    )).sentences.map((s: { text: string }) => s.text);
    expect(listener.sentenceTexts()).toEqual(listenerSentences);
    expect(events.sentenceTexts()).toEqual(listenerSentences);
    const sentenceFrames = listener.frames.filter((f) => f.type === 'transcript.sentence');
    expect(sentenceFrames.length).toBeGreaterThan(0);
    // The last one closes what was open: the recording ended.
    expect(sentenceFrames.at(-1)).toMatchObject({ sentence: { complete: true } });
    // Every cursor after the snapshot exactly once, in order, across the cut.
    for (const follower of [listener, events]) {
      const first = follower.applied[0]!;
      expect(follower.applied).toEqual(follower.applied.map((_c, i) => first + i));
      expect(follower.lastCursor).toBe(owner.lastSeq);
    }
    // Ended: the listener's export reads as the listener's lines (unclear ones blank), and the delivery audio is theirs
    // to hear (not the source).
    const exported = await server.request(`/v1/recordings/${recordingId}/export?format=json`, { auth: null });
    expect(exported.status).toBe(200);
    expect((await exported.json()).segments.map((s: { text: string }) => s.text)).toEqual(listenerLines);
    const delivery = await server.request(`/v1/recordings/${recordingId}/audio?kind=delivery`, { auth: null, redirect: 'manual' });
    expect(delivery.status).toBe(302);
    await expectStatus(
      await server.request(`/v1/recordings/${recordingId}/audio?kind=source`, { auth: null, redirect: 'manual' }), 403, 'forbidden',
    );
    await expectStatus(await server.request(`/v1/recordings/${recordingId}/media-token`, { auth: null }), 401);
    // No drafts on this socket; unknown log frames came as noop.
    expect(listener.frames.some((f) => f.type === 'transcript.draft')).toBe(false);
    await until('listeners gone', async () => {
      listener.close();
      events.close();
      return (await json(await server.request(`/v1/broadcasts/${broadcast.id}`))).listenersNow === null;
    });
  }, 400_000);

  it('withholds a line under the confidence policy from listeners as noop, and keeps it for the owner', async () => {
    // hideBelow 1: every line is unclear.
    const broadcast = await createBroadcast({ settings: { spokenLanguage: 'en', confidencePolicy: { hideBelow: 1 } } });
    const { recordingId, publisher } = await startPublishing(broadcast.id);
    const listener = new Follower({ baseUrl: server.url, recordingId });
    const owner = new Follower({ baseUrl: server.url, recordingId, authorization: `Bearer ${server.apiKey}` });
    await listener.start();
    await owner.start();
    for (const chunk of await fileChunks(GO_FORWARD)) publisher.sendPcm(chunk);
    await finish(recordingId);
    await listener.until('finalized', () => listener.state === 'finalized');
    await owner.until('finalized', () => owner.state === 'finalized');
    publisher.close();

    const stored = await ownerTranscript(recordingId);
    expect(stored.segments.length).toBeGreaterThan(0);
    expect(owner.texts()).toEqual(stored.segments.map((s: { text: string }) => s.text));
    const noops = listener.frames.filter((f) => f.type === 'noop' && f.reason === 'unclear');
    expect(noops.map((f) => f.seq)).toEqual(stored.segments.map((s: { seq: number }) => s.seq));
    expect(listener.frames.some((f) => f.type === 'transcript.committed')).toBe(false);
    // Sentences come blank and `suppressed` to the listener, whole and `unclear` to the owner.
    const sentencesOf = (follower: Follower) => follower.frames.filter((f) => f.type === 'transcript.sentence').map(
      (f) => f.sentence as { text: string; unclear?: boolean; suppressed?: boolean },
    );
    expect(sentencesOf(listener).length).toBeGreaterThan(0);
    expect(sentencesOf(listener).every((s) => s.suppressed && s.text === '')).toBe(true);
    expect(sentencesOf(owner).every((s) => s.unclear && s.text.length > 0)).toBe(true);
    expect([...listener.lines.values()].every((line) => line.unclear && line.text === '')).toBe(true);
    expect(listener.lastCursor).toBe(owner.lastCursor);
    // The listener's snapshot blanks the same lines; the owner's keeps them, flagged unclear.
    const seen = await expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript`, { auth: null }), 200);
    expect(seen.segments.every(
      (s: { text: string; suppressed: boolean; words: unknown[] }) => s.suppressed && s.text === '' && s.words.length === 0,
    )).toBe(true);
    expect(seen.sentences.every((s: { text: string; suppressed: boolean }) => s.suppressed && s.text === '')).toBe(true);
    expect(stored.sentences.every((s: { unclear: boolean; text: string }) => s.unclear && s.text.length > 0)).toBe(true);
  }, 300_000);

  it('refuses who may not follow before the upgrade, and takes subscribe.update', async () => {
    const closed = await createBroadcast({ access: 'private', password: 'secret-words' });
    const { recordingId, publisher } = await startPublishing(closed.id);
    const path = `/v1/recordings/${recordingId}/subscribe`;
    const ws = server.wsUrl;
    expect(await upgradeRefusal(`${ws}${path}`)).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
    expect(await upgradeRefusal(`${ws}${path}?listenerToken=lt_bogus.bogus`)).toMatchObject({
      status: 401, body: { code: 'invalid_token' },
    });
    const other = await createBroadcast();
    const otherToken = (await expectStatus(await server.postJson(`/v1/listen/${other.code}/token`, {}, { auth: null }), 201)).listenerToken;
    expect(await upgradeRefusal(`${ws}${path}?listenerToken=${otherToken}`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await upgradeRefusal(`${ws}${path}?after=soon`)).toMatchObject({
      status: 400, body: { code: 'invalid_options', data: { details: { field: 'after' } } },
    });
    expect(await upgradeRefusal(`${ws}${path}?presence=x`)).toMatchObject({
      status: 400, body: { data: { details: { field: 'presence' } } },
    });
    const token = (await expectStatus(
      await server.postJson(`/v1/listen/${closed.code}/token`, { password: 'secret-words' }, { auth: null }), 201,
    )).listenerToken;
    expect(await upgradeRefusal(`${ws}${path}?listenerToken=${token}&lang=fr`)).toMatchObject({
      status: 400, body: { data: { details: { field: 'lang' } } },
    });
    // Another account's key reads nothing of it.
    const stranger = await server.createKey(['*'], { accountId: await server.createAccount('Stranger') });
    expect(await upgradeRefusal(`${ws}${path}`, { Authorization: `Bearer ${stranger.key}` })).toMatchObject({ status: 404 });

    // A share link of the broadcast opens it too, with no password; the recording reads through either.
    const link = await expectStatus(await server.postJson(`/v1/broadcasts/${closed.id}/share-links`, { label: 'Press' }), 201);
    expect((await json(await server.request(`/v1/listen/${closed.code}?shareCode=${link.code}`, { auth: null }))).authorized).toBe(true);
    expect((await expectStatus(await server.request(`/v1/recordings/${recordingId}?listenerToken=${token}`, { auth: null }), 200)).id).toBe(
      recordingId,
    );
    const viaLink = new Follower({ baseUrl: server.url, recordingId, query: { shareCode: link.code } });
    await viaLink.start();
    expect(viaLink.ready).toMatchObject({ recordingId, state: 'live' });
    viaLink.close();
    await expectStatus(await server.request(`/v1/share-links/${link.id}`, { method: 'DELETE' }), 200);
    expect(await upgradeRefusal(`${ws}${path}?shareCode=${link.code}`)).toMatchObject({ status: 404 });

    const listener = new Follower({ baseUrl: server.url, recordingId, query: { listenerToken: token } });
    await listener.start();
    listener.send({ type: 'subscribe.update', lang: 'fr' });
    listener.send({ type: 'nonsense' });
    listener.send({ type: 'subscribe.update', audio: true });
    await listener.until('answers', () => listener.frames.filter((f) => f.type === 'error' || f.type === 'subscribe.updated').length >= 3);
    const answers = listener.frames.filter((f) => f.type === 'error' || f.type === 'subscribe.updated');
    expect(answers[0]).toMatchObject({ type: 'error', code: 'invalid_options', details: { field: 'lang' } });
    expect(answers[1]).toMatchObject({ type: 'error', code: 'invalid_options', details: { field: 'type' } });
    expect(answers[2]).toMatchObject({ type: 'subscribe.updated', audio: true });
    // Live audio as binary frames while asked for: what the publisher sends is relayed.
    const chunks = await fileChunks(GO_FORWARD);
    await until('live audio relayed', async () => {
      for (const chunk of chunks.slice(0, 5)) publisher.sendPcm(chunk);
      await sleep(300);
      return listener.binaryBytes > 0;
    }, 60_000);
    expect(listener.binaryBytes % 2).toBe(0);
    expect(listener.isOpen).toBe(true);
    listener.close();
    publisher.close();
    await finish(recordingId);
  }, 300_000);
});

describe('the recordingFrames subscription', () => {
  it('carries the subscribe socket\'s frames over graphql-ws, for a public broadcast\'s listener with no credential', async () => {
    const broadcast = await createBroadcast();
    const { recordingId, publisher } = await startPublishing(broadcast.id);
    const client = createClient({ url: `${server.wsUrl}/graphql`, webSocketImpl: WebSocket, lazy: true });
    const frames: Array<Record<string, unknown>> = [];
    const errors: unknown[] = [];
    const stop = client.subscribe<{ recordingFrames: Record<string, unknown> }>(
      { query: 'subscription($id: ID!) { recordingFrames(recordingId: $id) }', variables: { id: recordingId } },
      {
        next: (message) => message.data && frames.push(message.data.recordingFrames), error: (error) => errors.push(error),
        complete: () => undefined,
      },
    );
    try {
      await until('subscribe.ready', async () => frames.length > 0 || errors.length > 0, 30_000);
      expect(errors).toEqual([]);
      expect(frames[0]).toMatchObject({ type: 'subscribe.ready', recordingId, state: 'live' });
      for (const chunk of await fileChunks(GO_FORWARD)) publisher.sendPcm(chunk);
      await finish(recordingId);
      await until('finalized', async () => frames.some((f) => f.type === 'recording.state' && f.state === 'finalized'), 120_000);
      const owner = await ownerTranscript(recordingId);
      const lines = new Map<number, string>();
      for (const frame of frames) if (frame.type === 'transcript.committed' || frame.type === 'transcript.amended') lines.set(
        frame.seq as number, (frame.segment as { text: string }).text,
      );
      expect([...lines.entries()].sort(([a], [b]) => a - b).map(([, text]) => text)).toEqual(
        owner.segments.map((s: { text: string }) => s.text),
      );
      const cursors = frames.slice(1).map((f) => f.cursor as number);
      expect(cursors).toEqual(cursors.map((_c, i) => (frames[0]!.lastSeq as number) + 1 + i));
      // Another account's key finds nothing to follow.
      const stranger = await server.createKey(['*'], { accountId: await server.createAccount('Other') });
      const refused = await json(await server.graphql(
        'subscription($id: ID!) { recordingFrames(recordingId: $id) }', { id: recordingId }, { auth: stranger.key },
      ));
      expect(JSON.stringify(refused)).toContain('not_found');
    } finally {
      stop();
      await client.dispose();
      publisher.close();
    }
  }, 300_000);
});

describe('the broadcast events socket', () => {
  it('tells listeners the recording in flight and when a new one starts; private needs a token', async () => {
    const broadcast = await createBroadcast({ access: 'private', password: 'pass-word' });
    const path = `/v1/broadcasts/${broadcast.id}/events`;
    expect(await upgradeRefusal(`${server.wsUrl}${path}`, {})).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
    const token = (await expectStatus(
      await server.postJson(`/v1/listen/${broadcast.code}/token`, { password: 'pass-word' }, { auth: null }), 201,
    )).listenerToken;
    const socket = server.socket(`${path}?listenerToken=${token}`, { auth: null });
    const frames: Array<Record<string, unknown>> = [];
    socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
    // The same events as a GraphQL subscription (graphql-ws), the token as an argument; without it, refused.
    const client = createClient({ url: `${server.wsUrl}/graphql`, webSocketImpl: WebSocket, lazy: true });
    const query = 'subscription($id: ID!, $token: String) { broadcastEvents(broadcastId: $id, listenerToken: $token) { type broadcastId '
      + 'currentRecording { recordingId } recordingId transcriptionId state at } }';
    const events: Array<Record<string, unknown>> = [];
    const refusals: unknown[] = [];
    const stopEvents = client.subscribe<{ broadcastEvents: Record<string, unknown> }>(
      { query, variables: { id: broadcast.id, token } },
      {
        next: (message) => message.data && events.push(message.data.broadcastEvents), error: (error) => refusals.push(error),
        complete: () => undefined,
      },
    );
    const stopRefused = client.subscribe({ query, variables: { id: broadcast.id } }, {
      next: (message) => refusals.push(message.errors), error: (error) => refusals.push(error), complete: () => undefined,
    });
    await until('events.ready', async () => frames.length > 0 && events.length > 0 && refusals.length > 0, 30_000);
    expect(events[0]).toEqual({
      type: 'events.ready', broadcastId: broadcast.id, currentRecording: null, recordingId: null, transcriptionId: null, state: null,
      at: null,
    });
    expect(JSON.stringify(refusals[0])).toContain('invalid_token');
    expect(frames[0]).toEqual({ type: 'events.ready', broadcastId: broadcast.id, currentRecording: null });
    const { recordingId, publisher } = await startPublishing(broadcast.id);
    await until('recording.started', async () => frames.some((f) => f.type === 'recording.started'), 30_000);
    expect(frames.find((f) => f.type === 'recording.started')).toMatchObject({
      recordingId, state: 'live', transcriptionId: expect.any(String),
    });
    await finish(recordingId);
    await until('finalized frame', async () => frames.some((f) => f.type === 'recording.state' && f.state === 'finalized'), 60_000);
    expect(frames.filter((f) => f.type === 'recording.state').map((f) => f.state)).toEqual(['paused', 'ended', 'finalized']);
    await until(
      'the subscription\'s finalized', async () => events.some((e) => e.type === 'recording.state' && e.state === 'finalized'), 60_000,
    );
    expect(events.slice(1).map((e) => [e.type, e.recordingId, e.state])).toEqual(frames.slice(1).map(
      (f) => [f.type, f.recordingId, f.state],
    ));
    stopEvents();
    stopRefused();
    await client.dispose();
    // The owner opens it with the key; a stranger's key finds nothing.
    const owner = server.socket(path);
    const ownerFrames: Array<Record<string, unknown>> = [];
    owner.on('message', (data) => ownerFrames.push(JSON.parse(data.toString())));
    await until('owner events.ready', async () => ownerFrames.length > 0, 30_000);
    expect(ownerFrames[0]).toMatchObject({ type: 'events.ready', currentRecording: null });
    const stranger = await server.createKey(['*'], { accountId: await server.createAccount('Other') });
    expect(await upgradeRefusal(`${server.wsUrl}${path}`, { Authorization: `Bearer ${stranger.key}` })).toMatchObject({ status: 404 });
    socket.close();
    owner.close();
    publisher.close();
  }, 300_000);
});

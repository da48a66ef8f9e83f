/**
 * The SDK's subscribe procedure (src/sdk/subscribe.ts). Against the real server: a live broadcast recording (its
 * publisher on the SDK's realtime stream) followed by the owner (`client.recordings.subscribe`, the key in the
 * header) and a public listener, both joining mid-recording; the owner's socket is cut mid-way and resumes with
 * `after=`; both end, closed at `finalized`, with exactly the owner's transcript, every cursor after their snapshot
 * applied once and in order, every frame valid against the OpenAPI document's `SubscribeFrame`. The gap path
 * (`subscribe.gap`, reachable on the server only past its replay limit, which configuration does not set), a
 * language change and the frames' effects on lines are driven through a fake socket and a fake fetch.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  connectRealtime, createClient, subscribeRecording, SpeechgateError, type SubscribeFrame, type SubscriptionEvent,
  type WebSocketConstructor,
} from 'speechgate/sdk';
import { expectStatus } from '../helpers/http.js';
import { fileChunks, LECTURE } from '../helpers/realtime.js';
import { useTestServer } from '../helpers/server.js';
import { eventually, loadFrameSchemas, ScriptedSocket } from './sockets.js';

const server = useTestServer();

/** What a subscription reported: the frames it received and applied, snapshots, connection changes, audio bytes. */
function recorder() {
  const seen = {
    received: [] as SubscribeFrame[], applied: [] as number[], snapshots: [] as number[], statuses: [] as string[],
    errors: [] as SpeechgateError[], audioBytes: 0, sentences: [] as Array<{ id: string; text: string }>,
  };
  const onEvent = (event: SubscriptionEvent) => {
    if (event.type === 'received') seen.received.push(event.frame);
    else if (event.type === 'frame') seen.applied.push((event.frame as { cursor: number }).cursor);
    else if (event.type === 'snapshot') seen.snapshots.push(event.snapshot.lastSeq);
    else if (event.type === 'connection') seen.statuses.push(event.status);
    else if (event.type === 'error') seen.errors.push(event.error);
    else if (event.type === 'audio') seen.audioBytes += event.data.byteLength;
    else if (event.type === 'sentence') seen.sentences.push(event.sentence);
  };
  return Object.assign(seen, { onEvent });
}

describe('following a live recording on the real server', () => {
  it('the owner and a listener end with exactly the owner\'s transcript; a cut socket resumes with after=, nothing lost or '
    + 'doubled', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: server.apiKey, WebSocket });
    const broadcast = await expectStatus(
      await server.postJson('/v1/broadcasts', { name: `SDK hall ${Date.now()}`, settings: { spokenLanguage: 'en' } }), 201,
    );
    const grant = await expectStatus(await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {}), 201);
    const recordingId = grant.recording.id as string;
    const publisher = await connectRealtime(grant.streamUrl, { WebSocket });
    const transcript = async () => expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript`), 200);
    const chunks = await fileChunks(LECTURE);
    const publish = async (from: number, to: number) => {
      for (const chunk of chunks.slice(from, to)) await publisher.sendAudio(chunk);
    };
    const half = Math.floor(chunks.length / 2);
    const threeQuarters = half + Math.floor((chunks.length - half) / 2);
    await publish(0, half);
    await eventually('a first commit', async () => (await transcript()).segments.length > 0);

    // Both join mid-recording. The owner's reconnect waits for the test, so frames surely pass while it is cut.
    let allowReconnect!: () => void;
    const reconnectAllowed = new Promise<void>((resolve) => (allowReconnect = resolve));
    const owner = recorder();
    const ownerSubscription = client.recordings.subscribe(recordingId, {
      onEvent: owner.onEvent, shouldReconnect: async () => (await reconnectAllowed, true),
    });
    const listener = recorder();
    const listenerSubscription = subscribeRecording(
      { baseUrl: server.url, recordingId, WebSocket, audio: true, onEvent: listener.onEvent },
    );
    // A third reads in Spanish from a language change on the open socket (the snapshot is read again in it).
    const reader = recorder();
    const readerSubscription = subscribeRecording({ baseUrl: server.url, recordingId, WebSocket, onEvent: reader.onEvent });
    await Promise.all([ownerSubscription.ready, listenerSubscription.ready, readerSubscription.ready]);
    readerSubscription.update({ lang: 'es' });
    expect(ownerSubscription.segments.size).toBeGreaterThan(0);
    expect(ownerSubscription.state).toBe('live');
    expect(owner.received[0]).toMatchObject({ type: 'subscribe.ready', recordingId, state: 'live' });

    await publish(half, threeQuarters);
    const before = ownerSubscription.lastCursor;
    await eventually('a frame after the join', () => ownerSubscription.lastCursor > before);
    ownerSubscription.cut();
    await publish(threeQuarters, chunks.length);
    await eventually('frames while cut', async () => (await transcript()).lastSeq > ownerSubscription.lastCursor + 1);
    expect(ownerSubscription.status).toBe('reconnecting');
    allowReconnect();
    await eventually('the owner back', () => ownerSubscription.status === 'open');

    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/pause`, {}), 200);
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/stop`, {}), 200);
    // At finalized each subscription closes itself: nothing changes any more.
    await Promise.all([ownerSubscription.closed, listenerSubscription.closed, readerSubscription.closed]);
    publisher.close();

    const final = await transcript();
    const lines = final.segments.map((segment: { text: string }) => segment.text);
    expect(lines.length).toBeGreaterThan(3);
    // A listener's lines are the listener's snapshot: a line under the confidence policy is '' (withheld as unclear).
    const heard = await expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript`, { auth: null }), 200);
    const listenerLines = heard.segments.map((segment: { text: string; suppressed?: boolean }) => (segment.suppressed ? '' : segment.text));
    for (const [subscription, seen, expected] of [
      [ownerSubscription, owner, lines], [listenerSubscription, listener, listenerLines],
    ] as const) {
      expect(subscription.state).toBe('finalized');
      expect(subscription.status).toBe('closed');
      expect(subscription.texts()).toEqual(expected);
      expect(subscription.lastCursor).toBe(final.lastSeq);
      // Every cursor after the first snapshot exactly once, in order, across the cut.
      const first = seen.snapshots[0]! + 1;
      expect(seen.applied).toEqual(Array.from({ length: final.lastSeq - first + 1 }, (_cursor, index) => first + index));
      expect(seen.errors).toEqual([]);
    }
    // Sentences as they formed: the last frame of each id still standing is the final snapshot's sentence.
    const latest = new Map(owner.sentences.map((sentence) => [sentence.id, sentence.text]));
    for (const sentence of final.sentences as Array<{ id: string; text: string }>) if (latest.has(sentence.id)) expect(latest.get(
      sentence.id,
    )).toBe(sentence.text);
    expect(owner.sentences.length).toBeGreaterThan(0);
    expect(ownerSubscription.reconnects).toBe(1);
    expect(owner.statuses).toEqual(['open', 'reconnecting', 'open', 'closed']);
    expect(owner.snapshots).toHaveLength(1);
    // The reconnect resumed: its subscribe.ready came after the cut, no snapshot was read again.
    expect(owner.received.filter((frame) => frame.type === 'subscribe.ready')).toHaveLength(2);
    // The listener asked for live audio: 16-bit PCM frames came while the publisher spoke.
    expect(listener.audioBytes).toBeGreaterThan(0);
    expect(listener.audioBytes % 2).toBe(0);
    // The Spanish reader: its lines as a listener's Spanish snapshot has them, after one more full snapshot.
    const inSpanish = await expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript?lang=es`, { auth: null }), 200);
    expect(readerSubscription.lang).toBe('es');
    expect(readerSubscription.texts()).toEqual(inSpanish.segments.map((segment: {
      text: string; suppressed?: boolean; translations: Record<string, string>;
    }) => (segment.suppressed ? '' : segment.translations.es || segment.text)));
    expect(readerSubscription.texts().some((text, index) => text !== lines[index])).toBe(true);
    expect(readerSubscription.lastCursor).toBe(final.lastSeq);
    // Its first snapshot, the one in Spanish, and one after each line whose text changed untranslated (the finalize's amendments).
    expect(reader.snapshots.length).toBeGreaterThanOrEqual(2);
    expect(reader.received.some((frame) => frame.type === 'subscribe.updated')).toBe(true);
    const schemas = await loadFrameSchemas(server.url);
    schemas.expectValid('SubscribeFrame', [...owner.received, ...listener.received, ...reader.received]);
  }, 420_000);

  it('a recording the key cannot read: the refusal\'s envelope as an error event, ready rejects, closed', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: server.apiKey, WebSocket });
    const seen = recorder();
    const subscription = client.recordings.subscribe('rec_nothing_here', { onEvent: seen.onEvent });
    const error = await subscription.ready.then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(SpeechgateError);
    expect(error).toMatchObject({ code: 'not_found', status: 404 });
    await subscription.closed;
    expect(seen.errors.map((found) => found.code)).toEqual(['not_found']);
    expect(subscription.status).toBe('closed');
  });
});

// ---- the procedure against a fake server --------------------------------------------------------------------------

/** A fetch that answers each snapshot read with what the test gives, in order; the requests are kept. */
function fakeFetch() {
  const asked: URL[] = [];
  const authorizations: Array<string | null> = [];
  const answers: Array<(body: Record<string, unknown>) => void> = [];
  const fetch = (request: Request) => {
    asked.push(new URL(request.url));
    authorizations.push(request.headers.get('authorization'));
    return new Promise<Response>((resolve) => answers.push((body) => resolve(new Response(JSON.stringify(body), {
      status: 200, headers: { 'content-type': 'application/json' },
    }))));
  };
  return { fetch, asked, authorizations, answer: (body: Record<string, unknown>) => answers.shift()!(body) };
}

const segment = (seq: number, text: string, extra: Record<string, unknown> = {}) => ({
  seq, speaker: -1, start: seq, end: seq + 1, text, words: [], ...extra,
});
const committed = (cursor: number, seq: number, text: string) => ({
  type: 'transcript.committed', recordingId: 'rec_fake', cursor, seq, at: '2026-01-01T00:00:00Z', segment: segment(seq, text),
});

describe('the procedure, step by step (a fake server)', () => {
  it('snapshot then frames past it, lines from every frame kind, subscribe.gap re-read with after=, a language change, '
    + 'finalized', async () => {
    ScriptedSocket.made = [];
    const { fetch, asked, answer } = fakeFetch();
    const seen = recorder();
    const subscription = subscribeRecording({
      baseUrl: 'http://speech.test/', recordingId: 'rec_fake', listenerToken: 'lt_token', query: { presence: 'page-abcdefgh' },
      WebSocket: ScriptedSocket as unknown as WebSocketConstructor, fetch, reconnectDelayMs: () => 0, onEvent: seen.onEvent,
    });
    const first = ScriptedSocket.made[0]!;
    expect(new URL(first.url).pathname).toBe('/v1/recordings/rec_fake/subscribe');
    expect(Object.fromEntries(new URL(first.url).searchParams)).toEqual({ listenerToken: 'lt_token', presence: 'page-abcdefgh' });
    expect(first.options).toBeUndefined(); // no owner credential: no headers

    // Frames that come while the snapshot is read wait; those at or below its lastSeq are dropped.
    first.frame({ type: 'subscribe.ready', recordingId: 'rec_fake', lastSeq: 2, state: 'live', instance: 'gw_fake' });
    first.frame(committed(2, 1, 'two (in the snapshot)'));
    first.frame(committed(3, 2, 'three'));
    await eventually('the snapshot read', () => asked.length === 1);
    expect(asked[0]!.pathname).toBe('/v1/recordings/rec_fake/transcript');
    expect(Object.fromEntries(asked[0]!.searchParams)).toEqual({ listenerToken: 'lt_token' });
    expect(subscription.segments.size).toBe(0);
    answer({ recordingId: 'rec_fake', lastSeq: 2, state: 'live', segments: [segment(0, 'one'), segment(1, 'two')] });
    await subscription.ready;
    expect(subscription.texts()).toEqual(['one', 'two', 'three']);

    // A line withheld as unclear, a translation merged into its line, a settled speaker, a speaker's name (no line).
    first.frame({ type: 'noop', recordingId: 'rec_fake', cursor: 4, seq: 1, reason: 'unclear' });
    first.frame({
      type: 'transcript.translated', recordingId: 'rec_fake', cursor: 5, seq: 2, translations: { es: 'tres' },
      translationSources: { es: 'cache' },
    });
    first.frame({
      type: 'transcript.speaker', recordingId: 'rec_fake', cursor: 6, seq: 2, speaker: 1, speakerConfidence: 0.9, speakerProvisional: false,
    });
    first.frame({ type: 'transcript.speaker', recordingId: 'rec_fake', cursor: 7, seq: 7, speaker: 0, name: 'Ada' });
    first.onmessage?.({ data: new Uint8Array([1, 0, 2, 0]).buffer });
    expect(subscription.segments.get(1)).toMatchObject({ text: '', unclear: true });
    expect(subscription.segments.get(2)).toMatchObject({
      text: 'three', speaker: 1, speakerProvisional: false, translations: { es: 'tres' },
    });
    expect(subscription.segments.has(7)).toBe(false);
    expect(subscription.texts()).toEqual(['one', '', 'three']);
    expect(seen.audioBytes).toBe(4);

    // Cut: it reconnects with after=<last cursor>; the server could not replay that far (subscribe.gap).
    subscription.cut();
    expect(subscription.status).toBe('reconnecting');
    await eventually('a second socket', () => ScriptedSocket.made.length === 2);
    const second = ScriptedSocket.made[1]!;
    expect(new URL(second.url).searchParams.get('after')).toBe('7');
    second.frame({ type: 'subscribe.ready', recordingId: 'rec_fake', lastSeq: 40, state: 'live', instance: 'gw_other' });
    second.frame({ type: 'subscribe.gap', cursor: 40, after: 7 });
    second.frame(committed(41, 9, 'ten'));
    await eventually('the gap read', () => asked.length === 2);
    expect(Object.fromEntries(asked[1]!.searchParams)).toEqual({ listenerToken: 'lt_token', after: '7' });
    answer({ recordingId: 'rec_fake', lastSeq: 40, state: 'live', segments: [segment(2, 'three, amended'), segment(8, 'nine')] });
    await eventually('the frame after the gap', () => subscription.lastCursor === 41);
    // What changed after the cursor merged in by seq; the lines it did not name stay.
    expect(subscription.texts()).toEqual(['one', '', 'three, amended', 'nine', 'ten']);
    expect(seen.applied).toEqual([3, 4, 5, 6, 7, 41]);
    expect(seen.snapshots).toEqual([2, 40]);

    const inSpanish = {
      recordingId: 'rec_fake', lastSeq: 42, state: 'live',
      segments: [segment(0, 'one', { translations: { es: 'uno' } }), segment(10, 'eleven', { translations: { es: 'once' } })],
    };
    // A language: asked on the socket; once the server answers, the whole snapshot in it; frames wait meanwhile.
    subscription.update({ lang: 'es', audio: true });
    expect(second.sentFrames()).toEqual([{ type: 'subscribe.update', lang: 'es', audio: true }]);
    second.frame(committed(42, 10, 'eleven'));
    expect(subscription.lastCursor).toBe(41);
    second.frame({ type: 'subscribe.updated', lang: 'es', audio: true });
    await eventually('the snapshot in Spanish', () => asked.length === 3);
    expect(asked[2]!.searchParams.get('lang')).toBe('es');
    answer(inSpanish);
    await eventually('the Spanish lines', () => seen.snapshots.length === 3);
    expect(subscription.texts()).toEqual(['uno', 'once']);
    expect(subscription.lang).toBe('es');

    // A refused update is an error event; the socket and the language stay.
    subscription.update({ lang: 'xx' });
    second.frame({ type: 'error', code: 'invalid_options', message: 'lang is not served.', retryable: false, details: { field: 'lang' } });
    expect(seen.errors.map((error) => [error.code, error.details.field])).toEqual([['invalid_options', 'lang']]);
    expect(subscription.lang).toBe('es');
    // The lines are read again in it (a read under way when the change was asked for was dropped).
    await eventually('the snapshot read again', () => asked.length === 4);
    expect(asked[3]!.searchParams.get('lang')).toBe('es');
    answer(inSpanish);
    await eventually('the lines again', () => seen.snapshots.length === 4);

    // A line's text amended with no Spanish for it: what changed after the cursor before it is read (translated).
    second.frame({ ...committed(43, 10, 'eleven!'), type: 'transcript.amended', reason: 'catchup' });
    expect(subscription.texts()).toEqual(['uno', 'eleven!']);
    await eventually('the amended line read again', () => asked.length === 5);
    expect(Object.fromEntries(asked[4]!.searchParams)).toEqual({ listenerToken: 'lt_token', lang: 'es', after: '42' });
    answer({ recordingId: 'rec_fake', lastSeq: 43, state: 'live', segments: [segment(10, 'eleven!', { translations: { es: '¡once!' } })] });
    await eventually('the amended line in Spanish', () => seen.snapshots.length === 5);
    expect(subscription.texts()).toEqual(['uno', '¡once!']);

    // Finalized: closed by the subscription itself.
    second.frame({ type: 'recording.state', recordingId: 'rec_fake', cursor: 44, seq: 44, state: 'finalized' });
    await subscription.closed;
    expect(subscription.state).toBe('finalized');
    expect(second.readyState).toBe(3);
    expect(seen.statuses).toEqual(['open', 'reconnecting', 'open', 'closed']);
    const schemas = await loadFrameSchemas(server.url);
    schemas.expectValid('SubscribeFrame', seen.received);
  });

  it('the owner\'s credential goes in the Authorization header, never in the URL', async () => {
    ScriptedSocket.made = [];
    const { fetch, asked, authorizations } = fakeFetch();
    const client = createClient({
      baseUrl: 'https://speech.test', apiKey: 'sg_live_secret', WebSocket: ScriptedSocket as unknown as WebSocketConstructor, fetch,
    });
    const subscription = client.recordings.subscribe('rec_owned', { lang: 'de' });
    const socket = ScriptedSocket.made[0]!;
    expect(socket.url).toBe('wss://speech.test/v1/recordings/rec_owned/subscribe?lang=de');
    expect(socket.options?.headers).toMatchObject({ authorization: 'Bearer sg_live_secret' });
    socket.frame({ type: 'subscribe.ready', recordingId: 'rec_owned', lastSeq: -1, state: 'live', instance: 'gw_fake' });
    await eventually('the snapshot read', () => asked.length === 1);
    expect(asked[0]!.toString()).toBe('https://speech.test/v1/recordings/rec_owned/transcript?lang=de');
    expect(authorizations).toEqual(['Bearer sg_live_secret']);
    subscription.close();
    expect(subscription.status).toBe('closed');
    await expect(subscription.ready).rejects.toMatchObject({ code: 'closed' });
  });
});

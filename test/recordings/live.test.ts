/**
 * Live transcriptions and their recordings through the public interface: created idle, a recording started with a
 * publisher grant, real speech streamed through the grant's socket and read back from REST and GraphQL, the state
 * table's moves and refusals, a pause that drops audio and keeps segment times true, finalization, and events.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealtimeConnection, streamFile, type ServerFrame } from '../helpers/realtime-client.js';
import { catchUpSegments, overlayWords, type TimedWord } from '../../src/live/recordings.js';
import { expectInvalidOption, json, upload, uploadForm, goForward, waitForJob } from '../helpers/http.js';
import { expectGapless, fileChunks, GO_FORWARD, GO_FORWARD_TEXT, LECTURE, normalise, sleep } from '../helpers/realtime.js';
import { committedSeqsOf } from '../helpers/live.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture } from '../helpers/fixtures.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { REALTIME_SECRET: 'live-suite-secret-0123456789abcdef' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function createLive(body: Record<string, unknown> = { name: 'Morning meeting' }) {
  const response = await server.postJson('/v1/transcriptions/live', body);
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
  return (await response.json()) as {
    id: string; kind: string; recordingId: string | null; source: unknown; broadcasts: Array<{ id: string }>;
  };
}

interface Grant { sessionId: string; streamUrl: string; expiresAt: string; recording: { id: string; state: string; kind: string } }

async function startRecording(transcriptionId: string, body: unknown = {}): Promise<Grant> {
  const response = await server.postJson(`/v1/transcriptions/${transcriptionId}/recordings`, body);
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
  return (await response.json()) as Grant;
}

const move = (recordingId: string, action: 'pause' | 'resume' | 'stop', auth?: string) =>
  server.postJson(`/v1/recordings/${recordingId}/${action}`, {}, auth ? { auth } : {});

async function recording(recordingId: string) {
  return json(await server.request(`/v1/recordings/${recordingId}`));
}

async function waitForState(recordingId: string, state: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await recording(recordingId);
    if (current.state === state) return current;
    if (Date.now() > deadline) throw new Error(`recording ${recordingId} stayed ${current.state}, never ${state}`);
    await sleep(200);
  }
}

/** Waits for a frame of `type` (and `state`, when given) on a publisher connection. */
async function frameOf(connection: RealtimeConnection, type: string, state?: string, timeoutMs = 30_000): Promise<ServerFrame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = connection.result.frames.find(
      ({ frame }) => frame.type === type && (state === undefined || (frame as { state?: string }).state === state),
    );
    if (found) return found.frame;
    if (Date.now() > deadline) throw new Error(`no ${type} ${state ?? ''} frame`);
    await sleep(50);
  }
}

/** A recording of a new live transcription (English) whose publisher has sent one sentence and is still attached. */
async function recordOneSentence(name: string) {
  const live = await createLive({ name, settings: { spokenLanguage: 'en' } });
  const grant = await startRecording(live.id);
  const publisher = new RealtimeConnection(grant.streamUrl);
  await publisher.ready();
  const sentence = await fileChunks(GO_FORWARD);
  for (const chunk of sentence) publisher.sendPcm(chunk);
  return { id: grant.recording.id, publisher, sentence, sentenceS: sentence.reduce((sum, chunk) => sum + chunk.length, 0) / 16_000 };
}

describe('live transcriptions', () => {
  it('are created idle, with no recording, and listed with the file transcriptions', async () => {
    const broadcast = await json(await server.postJson('/v1/broadcasts', { name: 'Standup room' }));
    const created = await createLive({ name: '  Standup  ', settings: { spokenLanguage: 'en' }, broadcasts: [broadcast.id, broadcast.id] });
    expect(created).toMatchObject({ kind: 'live', recordingId: null, source: { kind: 'mic' }, name: 'Standup', state: 'active' });
    expect(created.broadcasts).toEqual([{
      id: broadcast.id, name: 'Standup room', code: broadcast.code, access: 'public', shareUrl: broadcast.shareUrl,
    }]);
    // Only the account's own active broadcasts: anything else is 404, naming the field.
    const unknown = await server.postJson('/v1/transcriptions/live', { name: 'x', broadcasts: ['brd_missing'] });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).data.details.field).toBe('broadcasts');
    const list = await json(await server.request('/v1/transcriptions'));
    expect(list.transcriptions.find((item: { id: string }) => item.id === created.id)).toMatchObject({ kind: 'live' });
    const again = await json(await server.request(`/v1/transcriptions/${created.id}`));
    expect(again).toMatchObject({ id: created.id, kind: 'live', job: null });
    const stream = await createLive({ name: 'Radio', source: { kind: 'stream', url: 'https://radio.example.com/live.mp3' } });
    expect(stream.source).toEqual({ kind: 'stream', url: 'https://radio.example.com/live.mp3' });
  });

  it.each([
    [{ name: 'x', extra: 1 }, 'extra'],
    [{}, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x', source: { kind: 'tape' } }, 'source.kind'],
    [{ name: 'x', source: { kind: 'stream' } }, 'source.url'],
    [{ name: 'x', source: { kind: 'stream', url: 'http://127.0.0.1/live' } }, 'source.url'],
    [{ name: 'x', source: { kind: 'stream', url: 'http://169.254.169.254/latest' } }, 'source.url'],
    [{ name: 'x', settings: { spokenLanguage: 'xx' } }, 'settings.spokenLanguage'],
    [{ name: 'x', broadcasts: 'brd_1' }, 'broadcasts'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await server.postJson('/v1/transcriptions/live', body);
    expect(response.status).toBe(400);
    const envelope = await response.json();
    expect(envelope.code).toBe('invalid_options');
    expect(envelope.data.details.field).toBe(field);
  });

  it('through GraphQL too', async () => {
    const response = await server.graphql('mutation($input: CreateLiveTranscriptionInput!) { createLiveTranscription(input: $input) { id '
      + 'kind recordingId source { ... on StreamSource { kind url } ... on MicSource { kind } } } }', {
      input: { name: 'From GraphQL', source: { kind: 'mic' } },
    });
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.createLiveTranscription).toMatchObject({ kind: 'live', recordingId: null, source: { kind: 'mic' } });
  });
});

describe('live recordings', () => {
  it('store what the publisher says: real speech streamed through the grant, read back from REST and GraphQL', async () => {
    const live = await createLive({ name: 'Go forward', settings: { spokenLanguage: 'en' } });
    // The events socket hears `recording.started` the moment the recording begins.
    const events = server.socket(`/v1/transcriptions/${live.id}/events`);
    const heard: Array<Record<string, unknown>> = [];
    events.on('message', (data) => heard.push(JSON.parse(data.toString())));
    await new Promise((resolve) => events.once('message', resolve));

    const grant = await startRecording(live.id, { scriptText: 'go forward ten meters' });
    expect(grant.streamUrl).toMatch(new RegExp(`^ws://.*/v1/recordings/${grant.recording.id}/publish/`));
    expect(grant.recording).toMatchObject({ kind: 'live', state: 'live' });

    const result = await streamFile(grant.streamUrl, GO_FORWARD, { realtime: false });
    expect(result.errors).toEqual([]);
    expect(result.done?.reason).toBe('eof');
    expectGapless(result.commits);
    expect(normalise(result.commits.map((segment) => segment.text).join(' '))).toMatch(GO_FORWARD_TEXT);

    // Every commit the publisher saw is stored, with the same seq and times.
    const transcript = await json(await server.request(`/v1/recordings/${grant.recording.id}/transcript`));
    expect(transcript.segments.map((s: { seq: number; text: string; start: number }) => [s.seq, s.text, s.start])).toEqual(
      result.commits.map((s) => [s.seq, s.text, s.start]),
    );
    const viaGraphql = await (await server.graphql('query($id: ID!) { recordingTranscript(recordingId: $id) { lastSeq segments { seq text '
      + '} } }', { id: grant.recording.id })).json();
    expect(viaGraphql.data.recordingTranscript.segments.map((s: { text: string }) => s.text)).toEqual(result.commits.map((s) => s.text));
    // The durable log has the commits in order.
    const log = await json(await server.request(`/v1/recordings/${grant.recording.id}/events`));
    expect(committedSeqsOf(log)).toEqual(result.commits.map((s) => s.seq));
    // The snapshot's lastSeq is the log's cursor it reflects (the recording's state frames count too).
    expect(log.lastSeq).toBeGreaterThanOrEqual(transcript.lastSeq);
    expect(transcript.lastSeq).toBeGreaterThanOrEqual(
      log.events.filter((e: { type: string }) => e.type === 'transcript.committed').at(-1).seq,
    );

    // A dropped connection does not end the recording; the transcription now names it.
    const after = await recording(grant.recording.id);
    expect(after).toMatchObject({ state: 'live', scriptText: 'go forward ten meters' });
    expect(after.captureSpans[0]).toMatchObject({ idx: 0, reason: 'start', mediaStart: 0 });
    expect((await json(await server.request(`/v1/transcriptions/${live.id}`))).recordingId).toBe(grant.recording.id);
    expect(heard.find((frame) => frame.type === 'recording.started')).toMatchObject({ recordingId: grant.recording.id, state: 'live' });
    events.close();
  });

  it('move through the state table: pause (idempotent), resume, stop only from paused, then finalized', async () => {
    const live = await createLive({ name: 'Moves' });
    const grant = await startRecording(live.id);
    const id = grant.recording.id;
    const refused = await move(id, 'stop');
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('invalid_state');
    expect((await move(id, 'resume')).status).toBe(409);

    expect(await json(await move(id, 'pause'))).toMatchObject({ state: 'paused' });
    expect(await json(await move(id, 'pause'))).toMatchObject({ state: 'paused' });
    expect(await json(await move(id, 'resume'))).toMatchObject({ state: 'live' });
    expect(await json(await move(id, 'pause'))).toMatchObject({ state: 'paused' });
    expect(await json(await move(id, 'stop'))).toMatchObject({ state: 'ended' });
    expect((await move(id, 'stop')).status).toBe(409);
    expect((await move(id, 'pause')).status).toBe(409);
    const finalized = await waitForState(id, 'finalized');
    expect(finalized.finalizedAt).toBeTruthy();
    expect(finalized.captureSpans.map((span: { reason: string }) => span.reason)).toEqual(['resume']);

    // The durable log tells the moves in order.
    const log = await json(await server.request(`/v1/recordings/${id}/events`));
    expect(
      log.events.filter((e: { type: string }) => e.type === 'recording.state').map((e: { frame: { state: string } }) => e.frame.state),
    ).toEqual(['paused', 'live', 'paused', 'ended', 'finalized']);
    // An ended recording takes no publisher.
    const late = new RealtimeConnection(grant.streamUrl);
    await expect(late.ready()).rejects.toMatchObject({ status: 409, code: 'invalid_state' });
  });

  it('a pause drops the audio sent while paused and keeps segment times on the media time line', async () => {
    const { id, publisher, sentence, sentenceS } = await recordOneSentence('Pause');

    expect(await json(await move(id, 'pause'))).toMatchObject({ state: 'paused' });
    await frameOf(publisher, 'recording.state', 'paused');
    // Said while paused: neither transcribed nor kept.
    for (const chunk of (await fileChunks(LECTURE)).slice(0, 40)) publisher.sendPcm(chunk);
    await sleep(300);
    expect(await json(await move(id, 'resume'))).toMatchObject({ state: 'live' });
    await frameOf(publisher, 'recording.state', 'live');
    for (const chunk of sentence) publisher.sendPcm(chunk);
    publisher.eof();
    const result = await publisher.closed;
    expect(result.errors).toEqual([]);
    expectGapless(result.commits);

    const transcript = await json(await server.request(`/v1/recordings/${id}/transcript`));
    const text = normalise(transcript.segments.map((s: { text: string }) => s.text).join(' '));
    expect(text.match(/forward/g)).toHaveLength(2);
    expect(text).not.toMatch(/dublin|philosophy/);
    // The second sentence starts where the first ended on the media time line: the paused audio is not on it.
    const second = transcript.segments.find(
      (s: { start: number; text: string }) => s.start > sentenceS * 0.5 && /go|forward/i.test(s.text),
    );
    expect(second.start).toBeGreaterThan(sentenceS - 1);
    expect(second.start).toBeLessThan(sentenceS + 1.5);

    expect(await json(await move(id, 'pause'))).toMatchObject({ state: 'paused' });
    await move(id, 'stop');
    const finalized = await waitForState(id, 'finalized');
    expect(finalized.durationS).toBeCloseTo(sentenceS * 2, 0);
    expect(finalized.captureSpans.map((span: { reason: string }) => span.reason)).toEqual(['start', 'resume']);
    expect(finalized.captureSpans[1].mediaStart).toBeCloseTo(sentenceS, 1);
    // The master made at finalization serves the audio.
    const audio = await server.request(`/v1/recordings/${id}/audio?kind=master&format=ogg`, { redirect: 'manual' });
    expect(audio.status).toBe(302);
  });

  it('a pause commits the last words said before it', async () => {
    const live = await createLive({ name: 'Last words', settings: { spokenLanguage: 'en' } });
    const grant = await startRecording(live.id);
    const publisher = new RealtimeConnection(grant.streamUrl);
    await publisher.ready();
    // Beam search all along (`auto` hands a backlog to the greedy decoder).
    const accurate = await server.request(`/v1/recordings/${grant.recording.id}/settings`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ latencyMode: 'accuracy' }),
    });
    expect(accurate.status).toBe(200);
    await frameOf(publisher, 'session.updated');
    // A read sentence ending "… more respectable than he was" and 3 s of silence, sent at once in 2 s frames (the
    // engine takes it in big bites, as a busy machine does): beam search ended its text at "than" (before decoding.ts
    // stopped as the reference does), and the pause's pass committed that much, never "he was".
    const take = [
      ...(await fileChunks(fixture('librivox/sense_and_sensibility_01_austen_64kb-0920.wav'), 2)),
      ...Array.from({ length: 3 }, () => new Float32Array(16_000)),
    ];
    for (const chunk of take) publisher.sendPcm(chunk);
    const paused = await json(await move(grant.recording.id, 'pause'));
    expect(paused).toMatchObject({ state: 'paused' });
    // Read once, right after the answer: the pause waited for its flush to be stored (no polling).
    const snapshot = await json(await server.request(`/v1/recordings/${grant.recording.id}/transcript`));
    expect(normalise(snapshot.segments.map((s: { text: string }) => s.text).join(' '))).toMatch(/more respectable than he was$/);
    expect(paused.lastSeq).toBe(snapshot.segments.at(-1).seq);
    publisher.eof();
    expect((await publisher.closed).errors).toEqual([]);
  }, 120_000);

  it('refuse a second device while one records (conflict with details.takeover), file transcriptions and archived ones', async () => {
    const live = await createLive({ name: 'Two devices' });
    const first = await startRecording(live.id);
    const [a, b] = await Promise.all([
      server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}), server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}),
    ]);
    for (const second of [a, b]) {
      expect(second.status).toBe(409);
      const envelope = await second.json();
      expect(envelope.code).toBe('conflict');
      expect(envelope.data.details.takeover).toMatchObject({ recordingId: first.recording.id });
    }
    const listed = await json(await server.request(`/v1/transcriptions/${live.id}/recordings`));
    expect(listed.recordings.map((r: { id: string }) => r.id)).toEqual([first.recording.id]);

    const file = await json(await upload(server, { name: 'a file' }));
    const onFile = await server.postJson(`/v1/transcriptions/${file.id}/recordings`, {});
    expect(onFile.status).toBe(409);
    expect((await onFile.json()).code).toBe('invalid_state');
    expect((await move(file.recordingId, 'pause')).status).toBe(409);

    const archived = await createLive({ name: 'Archived' });
    await server.postJson(`/v1/transcriptions/${archived.id}/archive`, {});
    const onArchived = await server.postJson(`/v1/transcriptions/${archived.id}/recordings`, {});
    expect(onArchived.status).toBe(409);
    expect((await onArchived.json()).code).toBe('invalid_state');

    const badBody = await server.postJson(`/v1/transcriptions/${live.id}/recordings`, { script: 'x' });
    expect(badBody.status).toBe(400);
    expect((await badBody.json()).data.details.field).toBe('script');
  });

  it('a publisher that drops re-attaches, and a second device takes over: same recording, time line and gapless seq', async () => {
    const live = await createLive({ name: 'Takeover', settings: { spokenLanguage: 'en' } });
    const grant = await startRecording(live.id);
    const id = grant.recording.id;
    // The first device publishes a sentence and drops its connection: the recording stays live.
    const first = await streamFile(grant.streamUrl, GO_FORWARD, { realtime: false });
    expect(first.commits.length).toBeGreaterThan(0);
    // Granted once the server has seen the first publisher go (its socket's close is handled asynchronously).
    let reattach: Response;
    const deadline = Date.now() + 30_000;
    do reattach = await server.postJson(`/v1/recordings/${id}/publish-token`, {});
    while (reattach.status === 409 && Date.now() < deadline && (await sleep(200), true));
    expect(reattach.status).toBe(201);
    const second = (await reattach.json()) as Grant;
    expect(second.recording.id).toBe(id);

    // The second device is attached; a third asking without takeover is refused, with what it needs to take over.
    const attached = new RealtimeConnection(second.streamUrl);
    await attached.ready();
    const refused = await server.postJson(`/v1/recordings/${id}/publish-token`, {});
    expect(refused.status).toBe(409);
    const envelope = await refused.json();
    expect(envelope.code).toBe('conflict');
    expect(envelope.data.details.takeover).toMatchObject({
      recordingId: id, publishToken: `/v1/recordings/${id}/publish-token?takeover=true`,
    });

    const takeover = await server.postJson(`/v1/recordings/${id}/publish-token?takeover=true`, {});
    expect(takeover.status).toBe(201);
    const third = (await takeover.json()) as Grant;
    // The demoted publisher hears why and is closed; its grant no longer opens the socket.
    const demoted = await attached.closed;
    expect(demoted.errors.map((error) => error.code)).toContain('conflict');
    const stale = new RealtimeConnection(second.streamUrl);
    await expect(stale.ready()).rejects.toMatchObject({ status: 409, code: 'conflict' });

    const last = await streamFile(third.streamUrl, GO_FORWARD, { realtime: false });
    expect(last.errors).toEqual([]);
    const transcript = await json(await server.request(`/v1/recordings/${id}/transcript`));
    expectGapless(transcript.segments);
    expect(last.commits[0]!.seq).toBe(first.commits.length);
    // The time line goes on: the third device's words come after the first's audio.
    const firstEnd = first.commits[first.commits.length - 1]!.end;
    expect(last.commits[0]!.start).toBeGreaterThanOrEqual(firstEnd - 0.5);
    const after = await recording(id);
    expect(after.captureSpans.map((span: { reason: string }) => span.reason)).toEqual(['start', 'attach', 'attach']);

    // An ended recording takes no grant.
    await move(id, 'pause');
    await move(id, 'stop');
    const ended = await server.postJson(`/v1/recordings/${id}/publish-token`, {});
    expect(ended.status).toBe(409);
    expect((await ended.json()).code).toBe('invalid_state');
  });

  it('another account sees none of it: 404, never a hint', async () => {
    const live = await createLive({ name: 'Private' });
    const grant = await startRecording(live.id);
    const accountId = await server.createAccount('Stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    for (const response of [
      await server.postJson(`/v1/transcriptions/${live.id}/recordings`, {}, { auth: key }),
      await server.request(`/v1/transcriptions/${live.id}/recordings`, { auth: key }),
      await move(grant.recording.id, 'pause', key),
      await move(grant.recording.id, 'stop', key),
      await server.postJson(`/v1/recordings/${grant.recording.id}/publish-token?takeover=true`, {}, { auth: key }),
    ]) {
      expect(response.status).toBe(404);
      expect((await response.json()).code).toBe('not_found');
    }
  });

  it('a publish grant opens only its own recording, and a realtime token no recording', async () => {
    const live = await createLive({ name: 'Tokens' });
    const grant = await startRecording(live.id);
    const other = await startRecording((await createLive({ name: 'Other' })).id);
    const token = grant.streamUrl.split('/publish/')[1]!;
    const wrongRecording = new WebSocket(other.streamUrl.replace(/\/publish\/.*/, `/publish/${token}`));
    const status = await new Promise<number>((resolve) => wrongRecording.on(
      'unexpected-response', (_req, res) => resolve(res.statusCode ?? 0),
    ));
    expect(status).toBe(401);
    const realtimeWithGrant = new WebSocket(
      grant.streamUrl.replace(/\/v1\/recordings\/.*\/publish\//, '/v1/realtime/sessions/') + '/socket',
    );
    const realtimeStatus = await new Promise<number>((resolve) => realtimeWithGrant.on(
      'unexpected-response', (_req, res) => resolve(res.statusCode ?? 0),
    ));
    expect(realtimeStatus).toBe(401);
  });
});

describe('the accurate model catching up at finalization', () => {
  it('lays its words over the live segments by time, keeping their seqs', () => {
    const word = (start: number, end: number, text: string) => ({ start, end, text, prob: 0.9 });
    const segments = [{ seq: 0, start: 0.5 }, { seq: 1, start: 3 }, { seq: 2, start: 6 }];
    const overlay = overlayWords(segments, [
      word(0.1, 0.4, 'Early'), word(0.6, 1, 'go'), word(2.8, 3.4, 'forward'), word(5, 5.5, 'ten'), word(6.2, 6.6, 'meters.'),
    ]);
    expect(overlay.get(0)!.map((w) => w.text)).toEqual(['Early', 'go']);
    // A word belongs where its middle falls: 'forward' (middle 3.1) to the second segment.
    expect(overlay.get(1)!.map((w) => w.text)).toEqual(['forward', 'ten']);
    expect(overlay.get(2)!.map((w) => w.text)).toEqual(['meters.']);
    expect(overlayWords([], [word(0, 1, 'x')]).size).toBe(0);
  });

  // Live finalize of the JFK clip stored "can do for for you": the accurate "for" (6.83–7.07 s, middle 6.95) went to
  // the segment before the live "for" (6.96–7.24 s), which got no word and kept its live text.
  it('gives a word to the segment whose live text has it when the two readings time it differently', () => {
    const word = (start: number, end: number, text: string) => ({ start, end, text, prob: 0.9 });
    const segments = [
      { seq: 7, start: 6.4, words: [word(6.4, 6.7, 'can'), word(6.7, 6.96, 'do')] },
      { seq: 8, start: 6.96, words: [word(6.96, 7.24, 'for')] },
      { seq: 9, start: 7.22, words: [word(7.22, 8.26, 'you,'), word(8.26, 8.6, 'ask')] },
    ];
    const overlay = overlayWords(segments, [
      word(6.25, 6.61, 'can'), word(6.61, 6.83, 'do'), word(6.83, 7.07, 'for'), word(7.07, 7.37, 'you,'), word(7.59, 8.49, 'ask'),
    ]);
    expect([...overlay.entries()].map(([seq, words]) => [seq, words.map((w) => w.text).join(' ')])).toEqual([
      [7, 'can do'], [8, 'for'], [9, 'you, ask'],
    ]);
  });

  it('only improves: a segment whose accurate reading lost speech its live text holds keeps the live text', async () => {
    const live = await createLive({ name: 'Catch-up guard', settings: { spokenLanguage: 'en' } });
    const grant = await startRecording(live.id);
    const id = grant.recording.id;
    const { publisherEpoch } = await server.prisma.recording.findUniqueOrThrow({ where: { id } });
    const word = (text: string, start: number, end: number): TimedWord => ({ text, start, end, prob: 0.9 });
    const liveSegments = [
      [word('go', 0.5, 0.8), word('forward', 0.8, 1.3)],
      [word('spills', 3, 3.4), word('over', 3.4, 3.6), word('into', 3.6, 3.8), word('normative', 3.8, 4.3), word('arguments', 4.3, 4.9)],
      [word('an', 6, 6.2), word('ill', 6.2, 6.5), word('disposed', 6.5, 7), word('man', 7, 7.4)],
    ];
    for (const words of liveSegments) {
      const text = words.map((w) => w.text).join(' ');
      await server.app.services.liveRecordings.storeCommit(id, publisherEpoch, 0, {
        start: words[0]!.start, end: words.at(-1)!.end, text, words, confidence: 0.9, language: 'en', decoder: 'fast', catchup: true,
      });
    }
    // The accurate reading lost the speech after "spills", its alignment stretching that word over it (as the lecture's
    // catch-up did: "spills" for "spills over into normative arguments made by other"); "ill-disposed" is one word
    // over two live ones.
    const heard = [
      word('Go', 0.5, 0.8), word('forward.', 0.8, 1.3), word('Spills', 3, 4.9), word('An', 6, 6.2), word('ill-disposed', 6.2, 7),
      word('man.', 7, 7.4),
    ];
    expect(await catchUpSegments({ prisma: server.prisma, pubsub: server.app.pubsub }, id, { words: heard, language: 'en' })).toBe(2);
    const transcript = await json(await server.request(`/v1/recordings/${id}/transcript`));
    expect(transcript.segments.map((s: { text: string; decoder: string }) => [s.text, s.decoder])).toEqual([
      ['Go forward.', 'accuracy'],
      ['spills over into normative arguments', 'fast'],
      ['An ill-disposed man.', 'accuracy'],
    ]);
    const amended = (await json(await server.request(`/v1/recordings/${id}/events`))).events.filter(
      (e: { type: string }) => e.type === 'transcript.amended',
    );
    expect(amended.map((e: { frame: { seq: number } }) => e.frame.seq)).toEqual([0, 2]);
  });
});

/** Bytes of samples in a WAV file (its `data` chunk's size; ffmpeg puts a LIST chunk before it). */
function wavDataBytes(wav: Buffer): number {
  const at = wav.indexOf('data', 12, 'latin1');
  expect(at).toBeGreaterThan(0);
  return wav.readUInt32LE(at + 4);
}

describe('a running capture', () => {
  const patchSettings = (recordingId: string, body: unknown) =>
    server.request(`/v1/recordings/${recordingId}/settings`, {
      method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });

  it('changes mode and language mid-recording from the next segment on, and serves clips of what was captured while open', async () => {
    const { id, publisher, sentence, sentenceS } = await recordOneSentence('Settings');

    // While open there is no master: a clip is cut from the capture as it stands.
    let clip: Response;
    const deadline = Date.now() + 60_000;
    do {
      clip = await server.request(`/v1/recordings/${id}/audio/clip?startS=0&endS=1`);
      if (clip.status === 200 || Date.now() > deadline) break;
      await sleep(200);
    } while (clip.status === 404);
    expect(clip.status).toBe(200);
    expect(clip.headers.get('content-type')).toBe('audio/wav');
    const wav = Buffer.from(await clip.arrayBuffer());
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wavDataBytes(wav)).toBe(16_000 * 2);
    const pastEnd = await server.request(`/v1/recordings/${id}/audio/clip?startS=3600`);
    expect(pastEnd.status).toBe(400);
    expect((await pastEnd.json()).data.details.field).toBe('startS');

    const changed = await patchSettings(id, { latencyMode: 'fast' });
    expect(changed.status).toBe(200);
    expect((await changed.json()).settings).toMatchObject({ spokenLanguage: 'en', latencyMode: 'fast' });
    // The publisher's session applies it wherever its socket is, and says so as after a session.update frame.
    const updated = await frameOf(publisher, 'session.updated');
    expect(updated).toMatchObject({ changed: ['latencyMode'], options: { latencyMode: 'fast', spokenLanguage: 'en' } });
    for (const chunk of sentence) publisher.sendPcm(chunk);
    publisher.eof();
    const result = await publisher.closed;
    expect(result.errors).toEqual([]);
    const later = result.commits.filter((segment) => segment.end > sentenceS + 0.5);
    expect(later.length).toBeGreaterThan(0);
    for (const segment of later) expect(segment).toMatchObject({ decoder: 'fast', catchup: true });

    // Through GraphQL, and a re-attached publisher's grant carries the settings as they now stand.
    const viaGraphql = await (await server.graphql('mutation($id: ID!, $input: RecordingSettingsInput!) { updateRecordingSettings(id: '
      + '$id, input: $input) { settings { latencyMode spokenLanguage } } }', {
        id, input: { latencyMode: 'accuracy', spokenLanguage: null },
      })).json();
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.updateRecordingSettings.settings).toMatchObject({ latencyMode: 'accuracy', spokenLanguage: null });
    const log = await json(await server.request(`/v1/recordings/${id}/events`));
    expect(
      log.events.filter((e: { type: string }) => e.type === 'recording.settings').map(
        (e: { frame: { settings: unknown } }) => e.frame.settings,
      ),
    ).toEqual([
      { latencyMode: 'fast' },
      { latencyMode: 'accuracy', spokenLanguage: null },
    ]);

    for (const [body, field] of [
      [{ language: 'en' }, 'language'],
      [{ spokenLanguage: 'xx' }, 'spokenLanguage'],
      [{ latencyMode: 'slow' }, 'latencyMode'],
      [{ speakerLabels: 'sometimes' }, 'speakerLabels'],
      [[], 'body'],
    ] as const) {
      const refused = await patchSettings(id, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect((await refused.json()).data.details.field).toBe(field);
    }

    await move(id, 'pause');
    await move(id, 'stop');
    const ended = await patchSettings(id, { latencyMode: 'fast' });
    expect(ended.status).toBe(409);
    expect((await ended.json()).code).toBe('invalid_state');
    const finalized = await waitForState(id, 'finalized', 180_000);
    // At finalization the accurate model caught up: what the fast model committed live is amended in place (same
    // seqs), each with a durable transcript.amended event.
    const caughtUp = await json(await server.request(`/v1/recordings/${id}/transcript`));
    expect(caughtUp.segments.map((s: { seq: number }) => s.seq)).toEqual(result.commits.map((s) => s.seq));
    for (const segment of caughtUp.segments) expect(segment.decoder).toBe('accuracy');
    expect(normalise(caughtUp.segments.map((s: { text: string }) => s.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    const amended = (await json(await server.request(`/v1/recordings/${id}/events`))).events.filter(
      (e: { type: string }) => e.type === 'transcript.amended',
    );
    expect(amended.length).toBeGreaterThan(0);
    expect(amended[0].frame).toMatchObject({ reason: 'catchup', segment: { decoder: 'accuracy' } });
    // Finalization encoded the delivery audio listeners play.
    const delivery = await server.request(`/v1/recordings/${id}/audio`, { redirect: 'manual' });
    expect(delivery.status).toBe(302);
    const ogg = await fetch(delivery.headers.get('location')!);
    expect(ogg.status).toBe(200);
    expect(Buffer.from(await ogg.arrayBuffer()).toString('latin1', 0, 4)).toBe('OggS');
    // Once finalized the clip comes from the master, on the same time line.
    const masterClip = await server.request(`/v1/recordings/${id}/audio/clip?startS=${(finalized.durationS - 1).toFixed(2)}`);
    expect(masterClip.status).toBe(200);
    expect(wavDataBytes(Buffer.from(await masterClip.arrayBuffer()))).toBeCloseTo(16_000 * 2, -3);

    const file = await json(await upload(server, { name: 'a file' }));
    const onFile = await patchSettings(file.recordingId, { latencyMode: 'fast' });
    expect(onFile.status).toBe(409);
    const accountId = await server.createAccount('Settings stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    const stranger = await server.request(`/v1/recordings/${id}/settings`, {
      method: 'PATCH', auth: key, headers: { 'Content-Type': 'application/json' }, body: '{}',
    });
    expect(stranger.status).toBe(404);
  }, 300_000);
});

describe('recordings uploaded into a live transcription', () => {
  const uploadInto = (transcriptionId: string, options?: Record<string, unknown>, auth?: string) =>
    server.request(`/v1/transcriptions/${transcriptionId}/recordings/upload`, {
      method: 'POST', body: uploadForm(goForward, options), auth,
    });

  it('are transcribed at full speed by the file-job path and listed with the live recordings', async () => {
    const live = await createLive({ name: 'Meeting with a take from a phone', settings: { spokenLanguage: 'en' } });
    const grant = await startRecording(live.id);
    // An upload is not a second device: it is taken while a live recording is open.
    const response = await uploadInto(live.id, { name: 'Phone take', settings: { speakerLabels: 'off' } });
    const created = await json(response);
    expect(response.status, JSON.stringify(created)).toBe(201);
    expect(created).toMatchObject({ id: live.id, kind: 'live', job: { state: expect.stringMatching(/queued|transcribing|done/) } });
    const recordingId = created.job.recordingId as string;
    expect(recordingId).not.toBe(grant.recording.id);
    expect(created.recordingId).toBe(recordingId);
    await waitForJob(server, recordingId, ['done'], 180_000);
    const transcript = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    expect(normalise(transcript.segments.map((s: { text: string }) => s.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    expect(transcript.segments[0].decoder).toBe('accuracy');
    const uploaded = await recording(recordingId);
    expect(uploaded).toMatchObject({
      kind: 'file', state: 'finalized', name: 'Phone take', transcriptionId: live.id, settings: { speakerLabels: 'off' },
    });
    const listed = await json(await server.request(`/v1/transcriptions/${live.id}/recordings`));
    expect(listed.recordings.map((r: { id: string; kind: string }) => [r.id, r.kind])).toEqual([
      [recordingId, 'file'], [grant.recording.id, 'live'],
    ]);
    // The live recording goes on beside it.
    expect(await recording(grant.recording.id)).toMatchObject({ state: 'live' });
  }, 240_000);

  it('refuse what a file transcription would, shareLink, file and archived transcriptions, and other accounts', async () => {
    const live = await createLive({ name: 'Refusals' });
    await expectInvalidOption(await uploadInto(live.id, { shareLink: true }), 'shareLink');
    await expectInvalidOption(await uploadInto(live.id, { startS: 5, crop: true }), 'startS');
    await expectInvalidOption(
      await server.postJson(`/v1/transcriptions/${live.id}/recordings/upload`, { url: 'http://127.0.0.1:1/a.wav' }), 'url',
    );
    await expectInvalidOption(
      await server.postJson(`/v1/transcriptions/${live.id}/recordings/upload`, { url: 'https://example.com/a.wav', shareLink: false }),
      'shareLink',
    );
    const notAudio = await server.request(`/v1/transcriptions/${live.id}/recordings/upload`, {
      method: 'POST', body: uploadForm(Buffer.from('not audio at all'), undefined, 'a.txt'),
    });
    expect(notAudio.status).toBe(400);
    expect((await notAudio.json()).code).toBe('invalid_audio');

    const file = await json(await upload(server, { name: 'a file' }));
    const onFile = await uploadInto(file.id);
    expect(onFile.status).toBe(409);
    expect((await onFile.json()).code).toBe('invalid_state');
    const archived = await createLive({ name: 'Archived uploads' });
    await server.postJson(`/v1/transcriptions/${archived.id}/archive`, {});
    const onArchived = await uploadInto(archived.id);
    expect(onArchived.status).toBe(409);
    expect((await onArchived.json()).code).toBe('invalid_state');

    const accountId = await server.createAccount('Upload stranger');
    const { key } = await server.createKey(['read', 'write'], { accountId });
    for (const response of [await uploadInto(live.id, undefined, key), await uploadInto('trn_missing')]) {
      expect(response.status).toBe(404);
      expect((await response.json()).code).toBe('not_found');
    }
    // Nothing refused was kept: the transcription has no recording.
    expect((await json(await server.request(`/v1/transcriptions/${live.id}/recordings`))).recordings).toEqual([]);
  }, 120_000);

  it('through GraphQL (a link)', async () => {
    const live = await createLive({ name: 'GraphQL upload' });
    const response = await server.graphql('mutation($id: ID!, $options: CreateTranscriptionInput) { uploadRecording(transcriptionId: $id, '
      + 'options: $options) { id job { recordingId state } } }', {
      id: live.id,
      options: { url: 'http://10.0.0.1/a.wav' },
    });
    const body = await response.json();
    expect(body.errors[0].extensions).toMatchObject({ code: 'invalid_options' });
  });
});

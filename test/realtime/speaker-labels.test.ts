/**
 * Speaker labels on live audio through the public interface, with the two-speaker fixture: a realtime session
 * with `speakerLabels: "on"` gets provisional labels on its commits and `transcript.speaker` frames that settle
 * every one; a live recording stores them (snapshot `speakerProvisional`, durable events, `after=`), and its
 * finalize job clusters them again from the whole audio, keeping the live numbers where they agree.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamFile, type ServerFrame } from '../helpers/realtime-client.js';
import { diarizationErrorRate, parseRttm } from '../../workers/engine/speakers/der.js';
import { json } from '../helpers/http.js';
import { undeclaredFrames } from '../helpers/openapi.js';
import { createStreamUrl, fileChunks, sleep } from '../helpers/realtime.js';
import { connectPublisher, startLiveRecording } from '../helpers/live.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { TWO_SPEAKERS } from '../helpers/speakers.js';

let server: TestServer;
const reference = parseRttm(readFileSync(TWO_SPEAKERS.rttm, 'utf8'));

beforeAll(async () => {
  server = await startTestServer({ env: { REALTIME_SECRET: 'speaker-labels-secret-0123456789abcdef' } });
}, 120_000);

afterAll(async () => {
  await server?.app.services.realtime.close();
  await server?.close();
});

type Labelled = { seq: number; start: number; end: number; speaker: number; speakerConfidence?: number; speakerProvisional?: boolean };

/** The reference voice that speaks most within the segments labelled `speaker`. */
function voiceOf(segments: Labelled[], speaker: number): string | number | undefined {
  const seconds = new Map<string | number, number>();
  for (const segment of segments.filter((s) => s.speaker === speaker)) {
    for (const turn of reference) {
      const overlap = Math.min(segment.end, turn.end) - Math.max(segment.start, turn.start);
      if (overlap > 0) seconds.set(turn.speaker, (seconds.get(turn.speaker) ?? 0) + overlap);
    }
  }
  return [...seconds].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const derOf = (segments: Labelled[]) => diarizationErrorRate(
  reference, segments.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker })), 0.25,
).der;

describe('speaker labels on live audio', () => {
  it('a realtime session labels each commit provisionally and settles every label with transcript.speaker frames', async () => {
    const capabilities = await json(await server.request('/v1/realtime/capabilities'));
    expect(capabilities.speakerLabelModes).toEqual(['auto', 'on', 'off']);
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast', speakerLabels: 'on' });
    // Twice as fast as spoken, held back whenever the server is 3 s behind: passes stay small on a busy machine too.
    const result = await streamFile(streamUrl, TWO_SPEAKERS.audio, { speed: 2, keepUpS: 3 });
    expect(result.done).toMatchObject({ type: 'session.done', reason: 'eof' });
    const commits = result.commits as unknown as Labelled[];
    expect(commits.length).toBeGreaterThan(3);
    for (const segment of commits) {
      expect(segment.speaker).toBeGreaterThanOrEqual(0);
      expect(segment.speakerProvisional).toBe(true);
      expect(segment.speakerConfidence).toBeGreaterThan(0);
      expect(segment.speakerConfidence).toBeLessThanOrEqual(1);
    }
    const frames = result.frames.map(({ frame }) => frame);
    const settled = frames.filter((frame) => frame.type === 'transcript.speaker') as unknown as Labelled[];
    // Every commit settled (a merge may settle one again), each after its commit, all before session.done.
    expect(new Set(settled.map((s) => s.seq))).toEqual(new Set(commits.map((s) => s.seq)));
    for (const frame of settled) {
      expect(frame).toMatchObject({ speakerProvisional: false });
      const committedAt = frames.findIndex(
        (f) => f.type === 'transcript.committed' && (f as { segment: { seq: number } }).segment.seq === frame.seq,
      );
      expect(committedAt).toBeLessThan(frames.indexOf(frame as unknown as ServerFrame));
    }
    expect(frames.findLastIndex((f) => f.type === 'transcript.speaker')).toBeLessThan(frames.findIndex((f) => f.type === 'session.done'));
    // Every frame it sent is in the document's list for this socket.
    expect(await undeclaredFrames(server.url, 'realtimeSocket', frames)).toEqual([]);
    const last = new Map(settled.map((s) => [s.seq, s.speaker]));
    const final = commits.map((s) => ({ ...s, speaker: last.get(s.seq)! }));
    // Both voices found. How well the labels follow them depends on where Whisper's segments end (a segment holding
    // both voices gets one label): quality is measured in `npm run bench -- speakers`.
    expect(new Set(final.map((s) => s.speaker)).size).toBeGreaterThanOrEqual(2);
    expect(derOf(final)).toBeLessThan(0.4);
  }, 240_000);

  it('off labels nothing and sends no transcript.speaker frame', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast' });
    const result = await streamFile(streamUrl, TWO_SPEAKERS.audio, { realtime: false, durationS: 10 });
    for (const segment of result.commits) {
      expect(segment.speaker).toBe(-1);
      expect((segment as Labelled).speakerProvisional).toBeUndefined();
    }
    expect(result.frames.some(({ frame }) => frame.type === 'transcript.speaker')).toBe(false);
  }, 120_000);

  it('a live recording stores the labels, settles them, and finalize clusters them again from the whole audio', async () => {
    const { recordingId, streamUrl } = await startLiveRecording(server, {
      name: 'Two voices', settings: { spokenLanguage: 'en', speakerLabels: 'on' },
    });
    const publisher = await connectPublisher(streamUrl);
    // Twice as fast as spoken, held back whenever the server is 3 s behind: passes take small bites, as with a microphone.
    let sentS = 0;
    for (const chunk of await fileChunks(TWO_SPEAKERS.audio)) {
      await publisher.heard(sentS - 3);
      publisher.sendPcm(chunk);
      sentS += chunk.length / 16_000;
      await sleep(100);
    }
    // Everything sent is committed and settled once the session flushes at the pause.
    const named = await server.request(`/v1/recordings/${recordingId}/speakers/0`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'First voice' }),
    });
    expect(named.status).toBe(200);
    expect((await server.postJson(`/v1/recordings/${recordingId}/pause`, {})).status).toBe(200);
    expect((await server.postJson(`/v1/recordings/${recordingId}/stop`, {})).status).toBe(200);

    const deadline = Date.now() + 200_000;
    while ((await json(await server.request(`/v1/recordings/${recordingId}`))).state !== 'finalized') {
      if (Date.now() > deadline) throw new Error('never finalized');
      await sleep(300);
    }
    const frames = publisher.result.frames.map(({ frame }) => frame);
    const commits = frames.filter((f) => f.type === 'transcript.committed').map((f) => (f as unknown as { segment: Labelled }).segment);
    expect(commits.length).toBeGreaterThan(3);
    for (const segment of commits) expect(segment).toMatchObject({ speakerProvisional: true });
    expect(new Set(frames.filter((f) => f.type === 'transcript.speaker').map((f) => (f as unknown as Labelled).seq))).toEqual(
      new Set(commits.map((s) => s.seq)),
    );

    const snapshot = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
    const segments = snapshot.segments as Labelled[];
    expect(segments.map((s) => s.seq)).toEqual(commits.map((s) => s.seq));
    for (const segment of segments) {
      expect(segment.speakerProvisional).toBe(false);
      expect(segment.speaker).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(segments.map((s) => s.speaker)).size).toBeGreaterThanOrEqual(2);
    expect(derOf(segments)).toBeLessThan(0.4);
    // The name given while live stays with its voice: the reference voice speaker 0 held live is the one it holds now
    // (not segments[0]'s label: a first segment that holds both voices may go either way).
    const settledLive = new Map(
      frames.filter((f) => f.type === 'transcript.speaker').map(
        (f) => [(f as unknown as Labelled).seq, (f as unknown as Labelled).speaker],
      ),
    );
    const live = commits.map((s) => ({ ...s, speaker: settledLive.get(s.seq)! }));
    expect(voiceOf(live, 0)).toBeDefined();
    expect(voiceOf(segments, 0)).toBe(voiceOf(live, 0));
    expect(snapshot.speakers).toEqual(expect.arrayContaining([expect.objectContaining({ index: 0, name: 'First voice' })]));

    // Durable: the settlements are in the event log, and a reader that was at a cursor before them gets the segments again.
    const events = (await json(await server.request(`/v1/recordings/${recordingId}/events?limit=500`))).events as Array<{
      type: string; frame: Labelled & { cursor: number };
    }>;
    const speakerEvents = events.filter((e) => e.type === 'transcript.speaker' && typeof e.frame.seq === 'number');
    expect(speakerEvents.length).toBeGreaterThanOrEqual(commits.length);
    const firstSettle = speakerEvents[0]!.frame.cursor;
    const after = await json(await server.request(`/v1/recordings/${recordingId}/transcript?after=${firstSettle - 1}`));
    expect(after.segments.map((s: Labelled) => s.seq)).toContain(speakerEvents[0]!.frame.seq);

    const graphql = await (await server.graphql('query($id: ID!) { recordingTranscript(recordingId: $id) { segments { seq speaker '
      + 'speakerConfidence speakerProvisional } } }', { id: recordingId })).json();
    expect(graphql.errors).toBeUndefined();
    for (const segment of graphql.data.recordingTranscript.segments) expect(segment).toMatchObject({
      speakerProvisional: false, speakerConfidence: expect.any(Number),
    });
    publisher.close();
  }, 300_000);
});

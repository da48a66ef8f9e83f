/**
 * Script following through the public interface: a live recording started with `scriptText` and real speech
 * (test/fixtures/goforward.wav, "Go forward, ten meters") published through its grant. Its stored segments read as
 * the script (REST and GraphQL snapshots, the durable log's `transcript.committed` frames, the publisher's own
 * socket) with `recognizedText` and `scriptFrom`/`scriptPos`; a recording with an unrelated script keeps what the
 * recognizer heard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamFile } from '../helpers/realtime-client.js';
import { json } from '../helpers/http.js';
import { GO_FORWARD, GO_FORWARD_TEXT, normalise } from '../helpers/realtime.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { REALTIME_SECRET: 'script-suite-secret-0123456789abcdef' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

interface StoredSegment { seq: number; text: string; recognizedText: string | null; scriptFrom: number | null; scriptPos: number | null }

/**
 * Records the fixture in a new live transcription whose recording follows `scriptText`; the stored transcript and what
 * the publisher saw.
 */
async function readFixture(scriptText: string) {
  const live = await json(await server.postJson('/v1/transcriptions/live', { name: 'Teleprompter', settings: { spokenLanguage: 'en' } }));
  const started = await server.postJson(`/v1/transcriptions/${live.id}/recordings`, { scriptText });
  expect(started.status).toBe(201);
  const grant = (await started.json()) as { streamUrl: string; recording: { id: string } };
  const published = await streamFile(grant.streamUrl, GO_FORWARD, { realtime: false });
  expect(published.errors).toEqual([]);
  const transcript = await json(await server.request(`/v1/recordings/${grant.recording.id}/transcript`));
  return { recordingId: grant.recording.id, published, segments: transcript.segments as StoredSegment[] };
}

describe('script following', () => {
  it('shows the script\'s words for what was read from it, with what the recognizer heard and the script positions', async () => {
    // The fixture's words with case and punctuation changed, one word different ("yards" for "meters") and more
    // script after them. Script words: GO(0) FORWARD,(1) ten(2) yards!(3) Then(4) stop.(5)
    const { recordingId, published, segments } = await readFixture('GO FORWARD, ten yards!  Then stop.');
    expect(segments.length).toBeGreaterThan(0);
    const matched = segments.filter((s) => s.scriptPos !== null);
    expect(matched.length).toBeGreaterThan(0);
    // What the recognizer heard is kept; the text is the script's, as written.
    expect(normalise(segments.map((s) => s.recognizedText ?? s.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    expect(segments.map((s) => s.text).join(' ').replace(/\s+/g, ' ')).toBe('GO FORWARD, ten yards!');
    for (const segment of matched) expect(segment.recognizedText).toEqual(expect.any(String));
    // The stretches run from the script's first word to after "yards!", one after the other.
    expect(matched[0]!.scriptFrom).toBe(0);
    expect(matched.at(-1)!.scriptPos).toBe(4);
    matched.slice(1).forEach((segment, i) => expect(segment.scriptFrom).toBe(matched[i]!.scriptPos));

    // The publisher's own socket, GraphQL and the durable log's committed frames say the same.
    expect(published.commits.map((c) => [c.seq, c.text, (c as unknown as StoredSegment).scriptPos ?? null])).toEqual(
      segments.map((s) => [s.seq, s.text, s.scriptPos]),
    );
    const viaGraphql = await (await server.graphql('query($id: ID!) { recordingTranscript(recordingId: $id) { segments { seq text '
      + 'recognizedText scriptFrom scriptPos } } }', { id: recordingId })).json();
    expect(viaGraphql.data.recordingTranscript.segments).toEqual(segments.map(
      ({ seq, text, recognizedText, scriptFrom, scriptPos }) => ({ seq, text, recognizedText, scriptFrom, scriptPos }),
    ));
    const log = await json(await server.request(`/v1/recordings/${recordingId}/events`));
    const committed = log.events.filter((e: { type: string }) => e.type === 'transcript.committed').map((e: {
      frame: { segment: Record<string, unknown> };
    }) => e.frame.segment);
    expect(
      committed.map((s: Partial<StoredSegment>) => [s.text, s.recognizedText ?? null, s.scriptFrom ?? null, s.scriptPos ?? null]),
    ).toEqual(segments.map((s) => [s.text, s.recognizedText, s.scriptFrom, s.scriptPos]));

    // Corrections judge a scripted line against what the recognizer heard: the script's "yards" was not heard.
    const [first] = matched;
    const correct = async (text: string) => json(await server.postJson(`/v1/recordings/${recordingId}/corrections`, {
      edits: [], lines: [{ seqs: [first!.seq], text }],
    }));
    expect((await correct('go forward ten meters')).corrections[0]).toMatchObject({ from: first!.text, voiced: true });
    expect((await correct('Go forward ten yards')).corrections[0]).toMatchObject({ voiced: false, notVoicedReason: 'rewrite' });
    const after = (await json(await server.request(`/v1/recordings/${recordingId}/transcript`))).segments.find(
      (s: StoredSegment) => s.seq === first!.seq,
    );
    expect(after).toMatchObject({
      text: 'Go forward ten yards', recognizedText: first!.recognizedText, scriptFrom: first!.scriptFrom, scriptPos: first!.scriptPos,
    });
  });

  it('leaves speech that is not the script as the recognizer heard it, without script fields', async () => {
    const { published, segments } = await readFixture('The quarterly review starts with revenue. Questions come at the end.');
    expect(segments.length).toBeGreaterThan(0);
    expect(normalise(segments.map((s) => s.text).join(' '))).toMatch(GO_FORWARD_TEXT);
    for (const segment of segments) expect(segment).toMatchObject({ recognizedText: null, scriptFrom: null, scriptPos: null });
    for (const commit of published.commits) expect(commit).not.toHaveProperty('scriptPos');
  });
});

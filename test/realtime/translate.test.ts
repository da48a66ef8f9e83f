/**
 * `translate` on live audio through the public interface, with the server's default provider (Apertium,
 * English→Spanish/Catalan): a realtime session gets a `transcript.translated` frame for each commit, after it and
 * before `session.done`, without commits waiting for it; `session.update` changes the targets mid-stream; a live
 * recording keeps its translations (snapshot, durable events) and a listener who follows in Spanish gets them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamFile, type ServerFrame } from '../helpers/realtime-client.js';
import { expectInvalidOption, expectStatus, json } from '../helpers/http.js';
import { undeclaredFrames } from '../helpers/openapi.js';
import { createStreamUrl, fileChunks, GO_FORWARD, LECTURE, sleep } from '../helpers/realtime.js';
import { Follower } from '../helpers/follower.js';
import { connectPublisher, patchRecordingSettings, publishThenPause, startLiveRecording } from '../helpers/live.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { REALTIME_SECRET: 'translate-suite-secret-0123456789abcdef' } });
}, 120_000);

afterAll(async () => {
  await server?.app.services.realtime.close();
  await server?.close();
});

type Translated = {
  type: 'transcript.translated'; seq: number; translations: Record<string, string>; translationSources: Record<string, string>;
};
const translatedFrames = (frames: ServerFrame[]) => frames.filter((f) => f.type === 'transcript.translated') as unknown as Translated[];

describe('translate on a realtime session', () => {
  it('sends transcript.translated for each commit, after it and before session.done', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast', translate: ['es'] });
    const result = await streamFile(streamUrl, GO_FORWARD, { realtime: false });
    const frames = result.frames.map(({ frame }) => frame);
    expect(result.done).toMatchObject({ type: 'session.done', reason: 'eof' });
    const translated = translatedFrames(frames);
    const withText = result.commits.filter((c) => c.text.trim() !== '');
    expect(translated.map((t) => t.seq).sort()).toEqual(withText.map((c) => c.seq).sort());
    for (const frame of translated) {
      expect(Object.keys(frame.translations)).toEqual(['es']);
      expect(['apertium', 'cache']).toContain(frame.translationSources.es);
      const committedAt = frames.findIndex(
        (f) => f.type === 'transcript.committed' && (f as unknown as { segment: { seq: number } }).segment.seq === frame.seq,
      );
      expect(committedAt).toBeLessThan(frames.indexOf(frame as unknown as ServerFrame));
    }
    expect(translated.map((t) => t.translations.es).join(' ').toLowerCase()).toMatch(/metros/);
    expect(frames.findLastIndex((f) => f.type === 'transcript.translated')).toBeLessThan(
      frames.findIndex((f) => f.type === 'session.done'),
    );
    expect(await undeclaredFrames(server.url, 'realtimeSocket', frames)).toEqual([]);
  }, 120_000);

  it('session.update replaces the targets from the next commit on; [] turns translation off', async () => {
    const streamUrl = await createStreamUrl(server, { spokenLanguage: 'en', latencyMode: 'fast', translate: ['es'] });
    let step = 0;
    // Held within 3 s of the server, and the second update only once a line was committed after the first took
    // effect: on a busy machine the server may lag, and both updates would otherwise land before any line between.
    const result = await streamFile(streamUrl, LECTURE, {
      durationS: 30,
      speed: 4,
      keepUpS: 3,
      afterChunk: (connection, sentS) => {
        const frames = connection.result.frames.map(({ frame }) => frame);
        if (sentS >= 8 && step === 0) {
          step = 1;
          connection.update({ translate: ['ca', 'es'] });
        } else if (step === 1) {
          const updatedAt = frames.findIndex((f) => f.type === 'session.updated');
          const committedSince = updatedAt >= 0 && frames.slice(updatedAt).some(
            (f) => f.type === 'transcript.committed' && (f as unknown as { segment: { text: string } }).segment.text.trim(),
          );
          if (committedSince) {
            step = 2;
            connection.update({ translate: [] });
          }
        }
      },
    });
    const frames = result.frames.map(({ frame }) => frame);
    const updates = frames.filter((f) => f.type === 'session.updated');
    expect(updates).toHaveLength(2);
    const [toBoth, toNone] = updates.map((u) => frames.indexOf(u));
    const commitsBetween = (from: number, to: number) => frames.slice(from, to).filter((f) => f.type === 'transcript.committed').map(
      (f) => (f as unknown as { segment: { seq: number; text: string } }).segment,
    );
    const translated = translatedFrames(frames);
    const of = (seq: number) => translated.find((t) => t.seq === seq);
    // Commits after the first update come in both languages; after the second, in none.
    const both = commitsBetween(toBoth!, toNone!).filter((c) => c.text.trim());
    expect(both.length).toBeGreaterThan(0);
    for (const commit of both) expect(Object.keys(of(commit.seq)?.translations ?? {}).sort()).toEqual(['ca', 'es']);
    for (const commit of commitsBetween(toNone!, frames.length)) expect(of(commit.seq)).toBeUndefined();
  }, 180_000);

  it('refuses a target no provider serves, at creation and on session.update', async () => {
    await expectInvalidOption(await server.postJson('/v1/realtime/sessions', { translate: ['de'] }), 'translate[0]');
  });
});

describe('translate on a live recording', () => {
  it('keeps each commit\'s translations: snapshot, durable events, and a listener following in Spanish', async () => {
    const broadcast = await json(await server.postJson('/v1/broadcasts', { name: 'Spanish room' }));
    const { recordingId, streamUrl } = await startLiveRecording(server, {
      name: 'Translated', settings: { spokenLanguage: 'en' }, broadcasts: [broadcast.id],
    });
    // The recording's capture settings carry the targets (a re-attached publisher keeps them).
    await patchRecordingSettings(server, recordingId, { translate: ['es'] });
    const listener = new Follower({ baseUrl: server.url, recordingId, query: { lang: 'es' } });
    await listener.start();
    const publisher = await publishThenPause(server, recordingId, streamUrl, GO_FORWARD);

    const deadline = Date.now() + 60_000;
    let snapshot: { segments: Array<{
      seq: number; text: string; translations: Record<string, string>; translationSources: Record<string, string>;
    }> };
    for (;;) {
      snapshot = await json(await server.request(`/v1/recordings/${recordingId}/transcript`));
      if (snapshot.segments.length > 0 && snapshot.segments.every((s) => !s.text.trim() || s.translations.es)) break;
      if (Date.now() > deadline) throw new Error(`translations never stored: ${JSON.stringify(snapshot.segments)}`);
      await sleep(200);
    }
    expect(snapshot.segments.map((s) => s.translations.es).join(' ').toLowerCase()).toMatch(/metros/);
    const publisherFrames = translatedFrames(publisher.result.frames.map(({ frame }) => frame));
    expect(publisherFrames.length).toBeGreaterThan(0);
    const events = (await json(await server.request(`/v1/recordings/${recordingId}/events`))).events as Array<{
      type: string; frame: Translated;
    }>;
    expect(events.filter((e) => e.type === 'transcript.translated').map((e) => e.frame.seq)).toEqual(publisherFrames.map((f) => f.seq));
    // The listener following in Spanish got them, filtered to Spanish.
    const heard = () => translatedFrames(listener.frames as unknown as ServerFrame[]);
    await listener.until('the translations', () => heard().length >= publisherFrames.length, 30_000);
    for (const frame of heard()) expect(Object.keys(frame.translations)).toEqual(['es']);
    listener.close();
    publisher.close();
  }, 120_000);

  it('a listener switches language mid-recording with subscribe.update: frames after the answer come in the new one', async () => {
    const broadcast = await json(await server.postJson('/v1/broadcasts', { name: 'Switching room' }));
    const { recordingId, streamUrl } = await startLiveRecording(server, {
      name: 'Switching', settings: { spokenLanguage: 'en' }, broadcasts: [broadcast.id],
    });
    const listener = new Follower({ baseUrl: server.url, recordingId, query: { lang: 'es' } });
    await listener.start();
    const publisher = await connectPublisher(streamUrl);
    const sentence = await fileChunks(GO_FORWARD);
    const heard = () => translatedFrames(listener.frames as unknown as ServerFrame[]);
    // The first sentence, flushed by a pause: heard in Spanish.
    for (const chunk of sentence) publisher.sendPcm(chunk);
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/pause`, {}), 200);
    await listener.until('a Spanish translation', () => heard().length > 0, 60_000);
    expect(heard().every((f) => Object.keys(f.translations).join() === 'es')).toBe(true);
    // Switch to Catalan, then say it again.
    listener.send({ type: 'subscribe.update', lang: 'ca' });
    await listener.until('subscribe.updated', () => listener.frames.some((f) => f.type === 'subscribe.updated'), 10_000);
    expect(listener.frames.find((f) => f.type === 'subscribe.updated')).toMatchObject({ lang: 'ca' });
    const before = heard().length;
    // Audio sent while paused is dropped: speak once the publisher hears that the recording is live again.
    const statesBefore = publisher.result.frames.filter(({ frame }) => frame.type === 'recording.state').length;
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/resume`, {}), 200);
    const deadline = Date.now() + 30_000;
    while (!publisher.result.frames.filter(({ frame }) => frame.type === 'recording.state').slice(statesBefore).some(
      ({ frame }) => (frame as { state?: string }).state === 'live',
    )) {
      if (Date.now() > deadline) throw new Error('the publisher never heard the resume');
      await sleep(50);
    }
    for (const chunk of sentence) publisher.sendPcm(chunk);
    await expectStatus(await server.postJson(`/v1/recordings/${recordingId}/pause`, {}), 200);
    await listener.until('a Catalan translation', () => heard().length > before, 60_000);
    for (const frame of heard().slice(before)) expect(Object.keys(frame.translations)).toEqual(['ca']);
    // The snapshot re-read in the new language has the sentences in Catalan.
    const snapshot = await json(await server.request(`/v1/recordings/${recordingId}/transcript?lang=ca`, { auth: null }));
    expect(snapshot.sentences.map((s: { translations: Record<string, string> }) => s.translations.ca).join(' ').toLowerCase()).toMatch(
      /metres|metros/,
    );
    listener.close();
    publisher.close();
  }, 180_000);
});

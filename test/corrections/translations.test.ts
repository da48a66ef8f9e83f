/**
 * Corrections keep stored translations honest: a segment with stored translations (made as a session would, with
 * `translateSegments`) that a correction batch or a revert changes is translated again into those languages by the
 * server's default provider (Apertium): stored, and a `transcript.translated` event in the durable log after the
 * `transcript.corrected` one. A language no provider serves fails its re-translation without failing the
 * correction, and is cleared (never a stale translation); segments without translations get none.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { translateSegments } from '../../src/recordings/translations.js';
import { expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { commitKnown } from '../helpers/segments.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
let recordingId = '';
let house = 0;
let dog = 0;

interface Event { seq: number; type: string; frame: Record<string, unknown> }

const segment = (seq: number) => server.prisma.segment.findUniqueOrThrow({
  where: { recordingId_seq: { recordingId, seq } }, select: { text: true, translations: true, translationSources: true },
});
const lastSeq = async () => (await expectStatus(
  await server.request(`/v1/recordings/${recordingId}/events?after=-1&limit=1`), 200,
)).lastSeq as number;
const eventsAfter = async (after: number): Promise<Event[]> => (await expectStatus(
  await server.request(`/v1/recordings/${recordingId}/events?after=${after}&limit=500`), 200,
)).events;

beforeAll(async () => {
  const created = await json(await upload(server, { name: 'Directions', settings: { spokenLanguage: 'en' } }));
  recordingId = created.recordingId;
  await waitForJob(server, recordingId, ['done'], 180_000);
  house = await commitKnown(server, recordingId, { text: 'The house is big.', start: 30 });
  dog = await commitKnown(server, recordingId, { text: 'I have a red car.', start: 40 });
  const ctx = {
    prisma: server.prisma, pubsub: server.app.pubsub,
    translate: server.app.services.translation.translate.bind(server.app.services.translation),
  };
  await translateSegments(ctx, recordingId, [house, dog], ['es']);
}, 200_000);

describe('a correction of a translated line', () => {
  it('stores the new translation and sends transcript.translated after transcript.corrected', async () => {
    expect((await segment(house)).translations).toMatchObject({ es: expect.stringMatching(/casa/i) });
    const before = await lastSeq();
    const batch = await expectStatus(
      await server.postJson(`/v1/recordings/${recordingId}/corrections`, { lines: [{ seqs: [house], text: 'The dog is big.' }] }), 201,
    );
    const stored = await segment(house);
    expect(stored.text).toBe('The dog is big.');
    expect(stored.translations).toEqual({ es: expect.stringMatching(/perro/i) });
    expect(stored.translationSources).toEqual({ es: 'apertium' });

    const events = await eventsAfter(before);
    const corrected = events.findIndex((e) => e.type === 'transcript.corrected' && e.frame.correctionId === batch.corrections[0].id);
    const translated = events.findIndex((e) => e.type === 'transcript.translated' && e.frame.seq === house);
    expect(corrected).toBeGreaterThanOrEqual(0);
    expect(translated).toBeGreaterThan(corrected);
    expect(events[translated]!.frame).toMatchObject({
      seq: house, translations: { es: stored.translations && (stored.translations as Record<string, string>).es },
    });
    // The untouched line keeps its translation and gets no frame.
    expect(events.some((e) => e.type === 'transcript.translated' && e.frame.seq === dog)).toBe(false);
    expect((await segment(dog)).translations).toMatchObject({ es: expect.stringMatching(/coche/i) });

    // The snapshot shows the corrected translation on the segment.
    const snapshot = await expectStatus(await server.request(`/v1/recordings/${recordingId}/transcript`), 200);
    expect(snapshot.segments.find((s: { seq: number }) => s.seq === house).translations).toEqual(stored.translations);

    // A revert brings the old text back, and its translation (from the cache: the cache keys on the text).
    const revertFrom = await lastSeq();
    await expectStatus(await server.postJson(`/v1/corrections/${batch.corrections[0].id}/revert`, {}), 200);
    expect(await segment(house)).toMatchObject({
      text: 'The house is big.', translations: { es: expect.stringMatching(/casa/i) }, translationSources: { es: 'cache' },
    });
    expect((await eventsAfter(revertFrom)).map((e) => e.type)).toEqual([
      'transcript.corrected', 'transcript.sentence', 'transcript.translated',
    ]);
  });

  it('a word edit re-translates too; a language that fails is cleared and the correction stands', async () => {
    // A translation into French stored earlier (a provider since removed): nothing serves en→fr now.
    await server.prisma.segment.update({
      where: { recordingId_seq: { recordingId, seq: dog } },
      data: {
        translations: { es: 'Tengo un coche rojo.', fr: "J'ai une voiture rouge." }, translationSources: { es: 'apertium', fr: 'google' },
      },
    });
    const before = await lastSeq();
    const words = (await server.prisma.segment.findUniqueOrThrow(
      { where: { recordingId_seq: { recordingId, seq: dog } } },
    )).words as Array<{ text: string }>;
    const car = words.findIndex((w) => /car/.test(w.text));
    await expectStatus(
      await server.postJson(`/v1/recordings/${recordingId}/corrections`, { edits: [{ seq: dog, wordIdx: car, to: 'house.' }] }), 201,
    );
    const stored = await segment(dog);
    expect(stored.text).toBe('I have a red house.');
    expect(stored.translations).toEqual({ es: expect.stringMatching(/casa/i) });
    expect(stored.translationSources).toEqual({ es: 'apertium' });
    const frames = (await eventsAfter(before)).filter((e) => e.type === 'transcript.translated');
    expect(frames.map((e) => Object.keys(e.frame.translations as object))).toEqual([['es']]);
  });

  it('a line without stored translations gets none', async () => {
    const fresh = await commitKnown(server, recordingId, { text: 'Is that clear?', start: 50 });
    const before = await lastSeq();
    await expectStatus(
      await server.postJson(`/v1/recordings/${recordingId}/corrections`, { lines: [{ seqs: [fresh], text: 'Is that right?' }] }), 201,
    );
    expect((await segment(fresh)).translations).toBeNull();
    expect((await eventsAfter(before)).map((e) => e.type)).toEqual(['transcript.corrected', 'transcript.sentence']);
  });
});

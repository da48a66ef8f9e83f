/**
 * Reading a recording in another language, through REST and GraphQL, with the server's default translation
 * provider (Apertium, English→Spanish here): the snapshot's sentences with `lang`, `GET .../translation` by
 * sentence id (translated once, then from the cache), the summary translated once and kept, and the refusals (no
 * `lang`, the spoken one, a language nobody serves, an unknown sentence, a share link without `allowTranslate`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/fixtures.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

let recordingId = '';
let transcriptionId = '';
let shareCode = '';

beforeAll(async () => {
  // goforward.wav: "Go forward 10 meters." (whisper-tiny writes the number as digits).
  const created = await json(await upload(server, { name: 'Directions', settings: { spokenLanguage: 'en' } }));
  recordingId = created.recordingId;
  transcriptionId = created.id;
  shareCode = created.shareLink.code;
  await waitForJob(server, recordingId, ['done'], 180_000);
}, 200_000);

const read = (path: string, auth?: string | null) => server.request(`/v1/recordings/${recordingId}/${path}`, { auth });

describe('a recording read in another language', () => {
  it('the snapshot with lang carries each sentence in Spanish; without lang, none', async () => {
    const plain = await expectStatus(await read('transcript'), 200);
    expect(plain.sentences.length).toBeGreaterThan(0);
    for (const sentence of plain.sentences) expect(sentence.translations).toEqual({});
    const spanish = await expectStatus(await read('transcript?lang=es'), 200);
    expect(spanish.sentences.map((s: { id: string }) => s.id)).toEqual(plain.sentences.map((s: { id: string }) => s.id));
    const text = spanish.sentences.map((s: { translations: Record<string, string> }) => s.translations.es).join(' ');
    expect(text.toLowerCase()).toMatch(/metros/);
    // The spoken language asked for by name is the untranslated snapshot.
    const english = await expectStatus(await read('transcript?lang=en'), 200);
    for (const sentence of english.sentences) expect(sentence.translations).toEqual({});
  });

  it('GET .../translation answers sentences by id, translated once and then from the cache', async () => {
    const first = await expectStatus(await read('translation?lang=es'), 200);
    expect(first).toMatchObject({ recordingId, lang: 'es', language: 'en' });
    expect(first.sentences.length).toBeGreaterThan(0);
    expect(first.sentences.map((s: { translation: string }) => s.translation).join(' ').toLowerCase()).toMatch(/metros/);
    for (const sentence of first.sentences) expect(['apertium', 'cache']).toContain(sentence.source);
    const id = first.sentences[0].id as string;
    const again = await expectStatus(await read(`translation?lang=es&sentences=${id}`), 200);
    expect(again.sentences).toHaveLength(1);
    expect(again.sentences[0]).toMatchObject({
      id, translation: first.sentences[0].translation, source: 'cache', text: first.sentences[0].text,
    });

    const graphql = await (await server.graphql('query($id: ID!, $s: [String!]) { recordingTranslation(recordingId: $id, lang: "es", '
      + 'sentences: $s) { lang sentences { id translation source } } }', { id: recordingId, s: [id] })).json();
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.recordingTranslation).toEqual({
      lang: 'es', sentences: [{ id, translation: first.sentences[0].translation, source: 'cache' }],
    });
  });

  it.each([
    ['translation', 'lang'],
    ['translation?lang=en', 'lang'],
    ['translation?lang=fr', 'lang'],
    ['translation?lang=not a language', 'lang'],
    ['translation?lang=es&sentences=99.0', 'sentences'],
    [`translation?lang=es&sentences=${Array.from({ length: 501 }, (_, i) => `${i}.0`).join(',')}`, 'sentences'],
    ['transcript?lang=fr', 'lang'],
  ])('refuses %s naming %s', async (path, field) => {
    await expectInvalidOption(await read(path), field);
  });

  it('through a share link: allowed by default, 403 without allowTranslate (never a silently untranslated answer)', async () => {
    expect((await expectStatus(await read(`translation?lang=es&shareCode=${shareCode}`, null), 200)).sentences.length).toBeGreaterThan(0);
    const closed = await json(await server.postJson(`/v1/transcriptions/${transcriptionId}/share-links`, {
      label: 'No translation', allowTranslate: false,
    }));
    for (const path of ['translation?lang=es', 'transcript?lang=es', 'summary?lang=es', 'export?format=srt&lang=es']) {
      await expectStatus(await read(`${path}&shareCode=${closed.code}`, null), 403, 'forbidden');
    }
    // The spoken language stays readable through it.
    await expectStatus(await read(`transcript?lang=en&shareCode=${closed.code}`, null), 200);
  });

  it('the summary in Spanish is translated once and kept with the summary it was made from', async () => {
    const summary = await eventually(async () => {
      const body = await expectStatus(await read('summary'), 200);
      expect(body.state).toBe('ready');
      return body;
    }, 60_000, 200);
    const spanish = await expectStatus(await read('summary?lang=es'), 200);
    expect(spanish).toMatchObject({ state: 'ready', lang: 'es', language: 'en', writtenAt: summary.writtenAt });
    expect(spanish.summary.toLowerCase()).toMatch(/metros/);
    const kept = await server.prisma.recording.findUniqueOrThrow({ where: { id: recordingId }, select: { summaryTranslations: true } });
    expect((kept.summaryTranslations as Record<string, { summary: string }>).es.summary).toBe(spanish.summary);
    expect(await expectStatus(await read('summary?lang=es'), 200)).toEqual(spanish);
  });
});

/**
 * The English pivot (issue 14): an Italian recording (espeak-it.wav, "Buongiorno. Oggi il tempo è molto bello e
 * andiamo al parco a giocare a calcio con i nostri amici.") on a server whose model is whisper-base, where no text
 * provider serves Italian (Apertium has en↔es, en↔ca, en↔gl here). `lang=en` is read from each sentence's audio
 * by Whisper's speech→English task (`source: whisper`, then `cache`: the audio is not read again); `lang=es` is
 * that English through Apertium; `lang=de` has no en→de provider and stays 400; TRANSLATION_SPEECH=off turns the
 * pivot off. whisper-base because whisper-tiny's speech translation is mostly invented (test/engine/translate.test.ts).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExecutable } from '../../src/core/config/translation.js';
import { fixture } from '../helpers/fixtures.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';
import { countOf } from '../engine/text.js';

const italian = await readFile(fixture('espeak-it.wav'));
const apertium = findExecutable('apertium', process.env.PATH) !== null;

/** Words of the clip's English (whisper-base, greedy and beam 5, in test/engine/translate.test.ts) and Spanish. */
const ENGLISH = ['good', 'morning', 'today', 'weather', 'very', 'nice', 'we', 'go', 'going', 'park', 'play', 'football', 'our', 'friends'];
const SPANISH = ['buenos', 'días', 'hoy', 'tiempo', 'parque', 'jugar', 'fútbol', 'nuestros', 'amigos'];
const ITALIAN = ['buongiorno', 'oggi', 'tempo', 'molto', 'andiamo', 'parco', 'calcio', 'nostri', 'amici'];

async function italianRecording(server: TestServer): Promise<string> {
  const created = await json(await upload(server, { name: 'Buongiorno', settings: { spokenLanguage: 'it' } }, italian));
  await waitForJob(server, created.recordingId, ['done'], 180_000);
  return created.recordingId as string;
}

interface Translated { id: string; text: string; translation: string; source: string }

describe.skipIf(!apertium)('the English pivot (whisper-base)', () => {
  const server = useTestServer({ env: { MODEL: 'whisper-base' } });
  let recordingId = '';
  const read = (path: string) => server.request(`/v1/recordings/${recordingId}/${path}`);

  beforeAll(async () => {
    recordingId = await italianRecording(server);
  }, 200_000);

  it('lang=en reads each sentence in English from its audio (`whisper`), then from the cache', async () => {
    const plain = await expectStatus(await read('transcript'), 200);
    expect(plain.language).toBe('it');
    expect(countOf(plain.sentences.map((s: { text: string }) => s.text).join(' '), ITALIAN)).toBeGreaterThanOrEqual(4);

    let started = Date.now();
    const first = await expectStatus(await read('translation?lang=en'), 200);
    const firstS = (Date.now() - started) / 1000;
    expect(first).toMatchObject({ recordingId, lang: 'en', language: 'it' });
    const sentences = first.sentences as Translated[];
    expect(sentences.map((s) => s.id)).toEqual(plain.sentences.map((s: { id: string }) => s.id));
    const english = sentences.map((s) => s.translation).join(' ');
    expect(countOf(english, ENGLISH), english).toBeGreaterThanOrEqual(5);
    expect(countOf(english, ITALIAN), english).toBe(0);
    for (const sentence of sentences) expect(sentence.source).toBe('whisper');

    started = Date.now();
    const again = await expectStatus(await read('translation?lang=en'), 200);
    const againS = (Date.now() - started) / 1000;
    expect((again.sentences as Translated[]).map((s) => [s.translation, s.source])).toEqual(sentences.map((s) => [s.translation, 'cache']));
    for (const s of sentences) console.info(`${s.id} "${s.text}" → "${s.translation}"`);
    console.info(`speech→English: ${sentences.length} sentences in ${firstS.toFixed(2)} s (${(firstS / sentences.length).toFixed(2)} s a `
      + `sentence), again from the cache in ${againS.toFixed(2)} s: ${english}`);

    // The snapshot and exports carry the same English; GraphQL answers the same.
    const snapshot = await expectStatus(await read('transcript?lang=en'), 200);
    expect(snapshot.sentences.map((s: { translations: Record<string, string> }) => s.translations.en)).toEqual(sentences.map(
      (s) => s.translation,
    ));
    const srt = await read('export?format=srt&lang=en');
    expect(srt.status).toBe(200);
    expect(countOf(await srt.text(), ENGLISH)).toBeGreaterThanOrEqual(4);
    const graphql = await (await server.graphql('query($id: ID!) { recordingTranslation(recordingId: $id, lang: "en") { lang sentences { '
      + 'translation source } } }', { id: recordingId })).json();
    expect(graphql.errors).toBeUndefined();
    expect(graphql.data.recordingTranslation.sentences).toEqual(sentences.map((s) => ({ translation: s.translation, source: 'cache' })));
  }, 120_000);

  it('lang=es goes through English: Spanish words, the English step from the cache', async () => {
    const first = await expectStatus(await read('translation?lang=es'), 200);
    const spanish = (first.sentences as Translated[]).map((s) => s.translation).join(' ');
    expect(countOf(spanish, SPANISH), spanish).toBeGreaterThanOrEqual(3);
    expect(countOf(spanish, ENGLISH), spanish).toBeLessThanOrEqual(1);
    // The English was kept by the test above: the text step is news (Apertium), or already cached.
    for (const sentence of first.sentences as Translated[]) expect(['apertium', 'cache']).toContain(sentence.source);
    const again = await expectStatus(await read('translation?lang=es'), 200);
    for (const sentence of again.sentences as Translated[]) expect(sentence.source).toBe('cache');
    const snapshot = await expectStatus(await read('transcript?lang=es'), 200);
    expect(snapshot.sentences.map((s: { translations: Record<string, string> }) => s.translations.es)).toEqual(
      (first.sentences as Translated[]).map((s) => s.translation),
    );
  }, 120_000);

  it('a two-step translation whose speech step is new reads `whisper`; a kept one reads the text step\'s source', async () => {
    const recording = await server.prisma.recording.findUniqueOrThrow({ where: { id: recordingId } });
    // A window no read has used yet: the speech is read now, then Apertium makes it Spanish.
    const window = [{ start: 1, end: 6, text: 'Oggi il tempo è molto bello.' }];
    const started = Date.now();
    const fresh = await server.app.services.speechTranslation.translate(recording, window, 'it', 'es');
    console.info(
      `speech→English→Spanish, 5 s of audio on a warm engine: ${((Date.now() - started) / 1000).toFixed(2)} s: ${fresh[0]!.text}`,
    );
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.source).toBe('whisper');
    expect(countOf(fresh[0]!.text, SPANISH), fresh[0]!.text).toBeGreaterThanOrEqual(2);
    const kept = await server.app.services.speechTranslation.translate(recording, window, 'it', 'es');
    expect(kept).toEqual([{ text: fresh[0]!.text, source: 'cache' }]);
  }, 60_000);

  it('a target no text provider serves from English stays 400 naming lang; so do the live and summary reads', async () => {
    for (const path of ['translation?lang=de', 'transcript?lang=de', 'export?format=srt&lang=fr']) await expectInvalidOption(
      await read(path), 'lang',
    );
    // The summary and the subscribe socket translate text, not audio: the pivot does not serve them.
    await expectInvalidOption(await read('summary?lang=en'), 'lang');
  });
});

describe.skipIf(!apertium)('TRANSLATION_SPEECH=off', () => {
  let server: TestServer;
  let recordingId = '';
  beforeAll(async () => {
    // whisper-tiny: this server never translates speech, it only transcribes the clip.
    server = await startTestServer({ env: { TRANSLATION_SPEECH: 'off' } });
    recordingId = await italianRecording(server);
  }, 200_000);
  afterAll(() => server?.close());

  it('leaves a pair no text provider serves 400, English included', async () => {
    for (const path of ['translation?lang=en', 'transcript?lang=en', 'translation?lang=es']) {
      await expectInvalidOption(await server.request(`/v1/recordings/${recordingId}/${path}`), 'lang');
    }
  });
});

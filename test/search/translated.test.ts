/**
 * Search across languages with the server's default translation provider (Apertium en↔es): the English pivot (an
 * English query finds a Spanish recording's sentence, the query translated into Spanish; a Spanish query with
 * `lang=es` finds an English sentence), results rendered into `lang` (`text`, `snippet`, `original`, the hit's
 * `lang`), through REST and GraphQL, and the refusal of a `lang` the server neither translates into nor finds spoken.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { commitKnown } from '../helpers/segments.js';
import { useTestServer } from '../helpers/server.js';

interface Hit {
  recordingId: string; sentenceId: string; text: string; snippet: string; language: string | null; lang: string | null;
  original: string | null;
}

const server = useTestServer();
const spanishAudio = await readFile(fixture('espeak-es.wav'));
let spanishRec = '';
let englishRec = '';

const search = async (params: Record<string, string>): Promise<Hit[]> =>
  (await expectStatus(await server.request(`/v1/search?${new URLSearchParams(params)}`), 200)).results;

beforeAll(async () => {
  // espeak-es.wav: "Buenos días. Hoy hace muy buen tiempo y vamos al parque a jugar al fútbol con nuestros amigos."
  const [es, en] = await Promise.all([
    json(await upload(server, { name: 'Parque', settings: { spokenLanguage: 'es' } }, spanishAudio)),
    json(await upload(server, { name: 'Directions', settings: { spokenLanguage: 'en' } })),
  ]);
  [spanishRec, englishRec] = [es.recordingId, en.recordingId];
  await Promise.all([waitForJob(server, spanishRec, ['done'], 180_000), waitForJob(server, englishRec, ['done'], 180_000)]);
  await commitKnown(server, spanishRec, { text: 'El faro brilla en la costa.', start: 30, language: 'es' });
  await commitKnown(server, englishRec, { text: 'The house is big.', start: 30 });
}, 200_000);

describe('the English pivot', () => {
  it('an English query finds a Spanish sentence of a real transcript, as spoken without lang', async () => {
    // whisper-tiny hears it as "Muy bien, y hoy vamos a empezar a jugar en todos los amigos."
    const hits = await search({ q: 'friends' });
    const hit = hits.find((h) => h.recordingId === spanishRec);
    expect(hit, JSON.stringify(hits)).toBeDefined();
    expect(hit!.text).toMatch(/amigos/i);
    expect(hit!).toMatchObject({ language: 'es', lang: 'es', original: null });
    // The words of the translated query are marked.
    expect(hit!.snippet).toMatch(/<mark>amigos\.?<\/mark>/i);
    // The sentence id is the snapshot's.
    const snapshot = await json(await server.request(`/v1/recordings/${spanishRec}/transcript`));
    expect(snapshot.sentences.find((s: { id: string }) => s.id === hit!.sentenceId).text).toBe(hit!.text);
  });

  it('with lang=en the Spanish hit reads in English, its spoken text kept as original', async () => {
    const hits = await search({ q: 'lighthouse', lang: 'en' });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ recordingId: spanishRec, language: 'es', lang: 'en', original: 'El faro brilla en la costa.' });
    expect(hits[0]!.text).toMatch(/lighthouse/i);
    expect(hits[0]!.snippet).toMatch(/<mark>lighthouse<\/mark>/i);
    // Without lang the same query finds it too, as spoken.
    expect((await search({ q: 'lighthouse' })).map((h) => h.text)).toEqual(['El faro brilla en la costa.']);
  });

  it('a Spanish query with lang=es finds an English sentence, rendered into Spanish', async () => {
    const hits = await search({ q: 'casa', lang: 'es' });
    const hit = hits.find((h) => h.recordingId === englishRec);
    expect(hit, JSON.stringify(hits)).toMatchObject({ language: 'en', lang: 'es', original: 'The house is big.' });
    expect(hit!.text).toMatch(/casa/i);
    expect(hit!.snippet).toMatch(/<mark>casa<\/mark>/i);
  });

  it('the literal half still finds Spanish words typed as they are', async () => {
    expect((await search({ q: 'faro' })).map((h) => h.recordingId)).toEqual([spanishRec]);
  });

  it('GraphQL answers the same, with lang and original', async () => {
    const body = await (await server.graphql('query { search(q: "lighthouse", lang: "en") { results { recordingId text lang original '
      + 'language } } }')).json();
    expect(body.errors).toBeUndefined();
    expect(body.data.search.results).toEqual([{
      recordingId: spanishRec, text: expect.stringMatching(/lighthouse/i), lang: 'en', original: 'El faro brilla en la costa.',
      language: 'es',
    }]);
  });

  it.each(['de', 'fr'])('refuses lang=%s (not a translation target, not spoken) naming lang', async (lang) => {
    await expectInvalidOption(await server.request(`/v1/search?${new URLSearchParams({ q: 'park', lang })}`), 'lang');
  });
});

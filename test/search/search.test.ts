/**
 * Search through REST and GraphQL, on PostgreSQL and on the embedded database: words, stems, phrases and misspelt
 * words in real transcriptions (goforward.wav and the political philosophy lecture), other accounts, listeners of
 * public and private broadcasts (and suppressed lines), corrected text, paging with a cursor, refusals.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures.js';
import { expectInvalidOption, expectStatus, json, upload, uploadForm, goForward, waitForJob } from '../helpers/http.js';
import { commitKnown } from '../helpers/segments.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Hit {
  recordingId: string; transcriptionId: string; sentenceId: string; start: number; end: number; speaker: number; text: string;
  snippet: string; score: number; unclear: boolean;
}
interface Page { results: Hit[]; nextCursor?: string | null }

const lecture = await readFile(fixture('political-philosophy-60s.wav'));

describe.each(['postgres', 'embedded'] as const)('search on %s', (database) => {
  let server: TestServer;
  let goForwardRec = '';
  let goForwardTx = '';
  let lectureRec = '';
  let publicBroadcast = { id: '', code: '' };
  let privateBroadcast = { id: '', code: '' };
  let publicRec = '';
  let privateRec = '';
  const password = 'open sesame';

  const search = async (params: Record<string, string>, auth?: string | null): Promise<Page> =>
    expectStatus(await server.request(`/v1/search?${new URLSearchParams(params)}`, { auth }), 200);
  const texts = (page: Page) => page.results.map((hit) => hit.text);

  /** A recording of goforward.wav in a live transcription fed to a new broadcast, its job done. */
  async function broadcastRecording(body: Record<string, unknown>) {
    const broadcast = await expectStatus(
      await server.postJson('/v1/broadcasts', {
        name: `Search ${Math.random().toString(36).slice(2, 8)}`, settings: { spokenLanguage: 'en' }, ...body,
      }),
      201,
    );
    const live = await expectStatus(
      await server.postJson('/v1/transcriptions/live', { name: 'Fed', settings: { spokenLanguage: 'en' } }), 201,
    );
    await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/broadcasts/${broadcast.id}`, {}, { method: 'PUT' }), 200);
    const response = await server.request(`/v1/transcriptions/${live.id}/recordings/upload`, {
      method: 'POST', body: uploadForm(goForward),
    });
    const recordingId: string = (await expectStatus(response, 201)).recordingId;
    await waitForJob(server, recordingId, ['done']);
    return { broadcast: { id: broadcast.id as string, code: broadcast.code as string }, recordingId };
  }

  beforeAll(async () => {
    server = await startTestServer({ database });
    const [a, b] = await Promise.all([
      json(await upload(server, { name: 'Go forward' })), json(await upload(server, { name: 'Lecture' }, lecture)),
    ]);
    goForwardRec = a.recordingId;
    goForwardTx = a.id;
    lectureRec = b.recordingId;
    const [open, closed] = await Promise.all([broadcastRecording({}), broadcastRecording({ access: 'private', password })]);
    [publicBroadcast, publicRec, privateBroadcast, privateRec] = [open.broadcast, open.recordingId, closed.broadcast, closed.recordingId];
    await Promise.all([waitForJob(server, goForwardRec, ['done']), waitForJob(server, lectureRec, ['done'], 180_000)]);
    await commitKnown(server, publicRec, { text: 'The lighthouse keeper waved at dawn.', start: 30 });
    await commitKnown(server, publicRec, { text: 'A foghorn sounded somewhere.', start: 40, prob: 0.3 });
    await commitKnown(server, privateRec, { text: 'The submarine captain gave the order.', start: 30 });
  }, 300_000);

  afterAll(async () => {
    await server?.close();
  });

  it('finds a word in a real transcription, with the sentence, times and a marked snippet', async () => {
    const page = await search({ q: 'Dublin' });
    expect(page.results.length).toBeGreaterThan(0);
    const hit = page.results[0]!;
    expect(hit).toMatchObject({ recordingId: lectureRec, unclear: false });
    expect(hit.text).toMatch(/Dublin/);
    expect(hit.snippet).toMatch(/<mark>Dublin<\/mark>/);
    expect(hit.end).toBeGreaterThan(hit.start);
    // The sentence id is the transcript snapshot's.
    const snapshot = await json(await server.request(`/v1/recordings/${lectureRec}/transcript`));
    expect(snapshot.sentences.find((s: { id: string }) => s.id === hit.sentenceId).text).toBe(hit.text);
    // A stem: "theory" finds "theories"; goforward's "meters" is found in its own recording.
    expect(texts(await search({ q: 'theory' })).some((text) => /theories/i.test(text))).toBe(true);
    expect((await search({ q: 'meters', transcriptionId: goForwardTx })).results.map((h) => h.recordingId)).toEqual([goForwardRec]);
  });

  it('finds a phrase, and not its words in another order', async () => {
    const page = await search({ q: '"political philosophy"' });
    expect(page.results.length).toBeGreaterThan(0);
    expect(page.results[0]!.snippet).toMatch(/<mark>political philosophy<\/mark>/);
    expect((await search({ q: '"philosophy political"' })).results).toEqual([]);
  });

  it('finds misspelt words by trigram similarity', async () => {
    expect(texts(await search({ q: 'philosphy' })).some((text) => /philosophy/.test(text))).toBe(true);
    const forward = await search({ q: 'forwrd' });
    expect(forward.results.map((h) => h.recordingId)).toContain(goForwardRec);
    expect(forward.results.find((h) => h.recordingId === goForwardRec)!.snippet).toMatch(/<mark>forward<\/mark>/);
  });

  it('answers through GraphQL the same', async () => {
    const answer = await json(await server.graphql('query($q: String!) { search(q: $q, limit: 5) { results { recordingId sentenceId '
      + 'snippet } nextCursor } }', { q: 'Dublin' }));
    expect(answer.errors).toBeUndefined();
    expect(answer.data.search.results[0]).toMatchObject({ recordingId: lectureRec, snippet: expect.stringContaining('<mark>') });
    const refused = await json(await server.graphql('query { search(q: "  ") { nextCursor } }'));
    expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_options', details: { field: 'q' } });
  });

  it('never shows another account\'s transcriptions', async () => {
    const other = await server.createKey(['*'], { accountId: await server.createAccount('Other') });
    expect((await search({ q: 'Dublin' }, other.key)).results).toEqual([]);
    expect((await search({ q: 'forward' }, other.key)).results).toEqual([]);
    await expectStatus(await server.request(`/v1/search?q=forward&transcriptionId=${goForwardTx}`, { auth: other.key }), 404, 'not_found');
    await expectStatus(
      await server.request(`/v1/search?q=lighthouse&broadcast=${publicBroadcast.code}`, { auth: other.key }), 404, 'not_found',
    );
  });

  it('lets a listener search a public broadcast by code, not a private one without its token, never a suppressed line', async () => {
    const found = await search({ q: 'lighthouse', broadcast: publicBroadcast.code }, null);
    expect(found.results.map((h) => [h.recordingId, h.text])).toEqual([[publicRec, 'The lighthouse keeper waved at dawn.']]);
    // The private broadcast's line is not there through the public code, and its code needs the token.
    expect((await search({ q: 'submarine', broadcast: publicBroadcast.code }, null)).results).toEqual([]);
    await expectStatus(
      await server.request(`/v1/search?q=submarine&broadcast=${privateBroadcast.code}`, { auth: null }), 401, 'invalid_token',
    );
    const { listenerToken } = await expectStatus(
      await server.postJson(`/v1/listen/${privateBroadcast.code}/token`, { password }, { auth: null }), 201,
    );
    const opened = await search({ q: 'submarine', broadcast: privateBroadcast.code, listenerToken }, null);
    expect(opened.results.map((h) => h.recordingId)).toEqual([privateRec]);
    // The low-confidence line: suppressed for listeners, unclear for the owner.
    expect((await search({ q: 'foghorn', broadcast: publicBroadcast.code }, null)).results).toEqual([]);
    expect((await search({ q: 'foghorn' })).results.map((h) => [h.recordingId, h.unclear])).toEqual([[publicRec, true]]);
    // The owner finds both broadcasts' lines, and narrows by code.
    expect((await search({ q: 'submarine' })).results.map((h) => h.recordingId)).toEqual([privateRec]);
    expect((await search({ q: 'submarine', broadcast: publicBroadcast.code })).results).toEqual([]);
    // A listener must name a broadcast; an unknown code is 404.
    await expectStatus(await server.request('/v1/search?q=lighthouse', { auth: null }), 401, 'invalid_token');
    await expectStatus(await server.request('/v1/search?q=lighthouse&broadcast=no-such-code-here', { auth: null }), 404, 'not_found');
  });

  it('searches the corrected text, never the old', async () => {
    const seq = await commitKnown(server, goForwardRec, { text: 'The quick brown fox jumped.', start: 50 });
    expect(texts(await search({ q: 'brown' }))).toContain('The quick brown fox jumped.');
    await expectStatus(
      await server.postJson(`/v1/recordings/${goForwardRec}/corrections`, { edits: [{ seq, wordIdx: 2, to: 'crimson' }] }), 201,
    );
    expect(texts(await search({ q: 'crimson' }))).toContain('The quick crimson fox jumped.');
    expect(texts(await search({ q: 'brown' }))).not.toContain('The quick brown fox jumped.');
    expect(texts(await search({ q: 'brown' })).some((text) => /brown/.test(text))).toBe(false);
  });

  it('pages with a cursor, without repeats', async () => {
    for (let i = 0; i < 12; i++) await commitKnown(server, lectureRec, { text: `Harbour bell number ${i} rang.`, start: 100 + i * 5 });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await search({ q: 'harbour', limit: '5', ...(cursor ? { cursor } : {}) });
      seen.push(...page.results.map((h) => `${h.recordingId}/${h.sentenceId}`));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);
  });

  it.each([
    [{}, 'q'],
    [{ q: '   ' }, 'q'],
    [{ q: '""' }, 'q'],
    [{ q: 'x'.repeat(201) }, 'q'],
    [{ q: 'dublin', limit: '0' }, 'limit'],
    [{ q: 'dublin', limit: '101' }, 'limit'],
    [{ q: 'dublin', cursor: 'not-a-cursor' }, 'cursor'],
    [{ q: 'dublin', lang: 'English!' }, 'lang'],
    [{ q: 'dublin', broadcast: ' , ' }, 'broadcast'],
  ])('refuses %j naming %s', async (params, field) => {
    await expectInvalidOption(await server.request(`/v1/search?${new URLSearchParams(params as Record<string, string>)}`), field);
  });

  it('refuses a cursor of another query, and a lang the server neither translates into nor finds spoken', async () => {
    const page = await search({ q: 'harbour', limit: '2' });
    await expectInvalidOption(await server.request(`/v1/search?q=bell&cursor=${page.nextCursor}`), 'cursor');
    await expectInvalidOption(await server.request(`/v1/search?q=forward&transcriptionId=${goForwardTx}&lang=de`), 'lang');
    expect((await search({ q: 'forward', transcriptionId: goForwardTx, lang: 'en' })).results.length).toBeGreaterThan(0);
  });
});

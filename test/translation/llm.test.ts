/**
 * The LLM provider (an OpenAI-compatible chat model, through the client summaries use) against the loopback fake of
 * that API (test/summaries/fake-chat.ts): the request (key, model, a JSON batch), translations in order, the cache in
 * front, a model that answers badly (a count that does not match, prose) and the API's failures (refused key,
 * rate limit, timeout) as clear `503 unavailable` errors with nothing cached; the languages it offers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { expectStatus } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { failure } from './helpers.js';
import { startFakeChat, type FakeChat, type FakeMode } from '../summaries/fake-chat.js';

const fake: FakeChat = await startFakeChat();
afterAll(() => fake.close());

/** A model that translates by marking each text with its target, as asked: `{"translations": [...]}` in order. */
const translatingModel = (body: any) => {
  const { to, texts } = JSON.parse(body.messages.at(-1).content) as { to: string; texts: string[] };
  return JSON.stringify({ translations: texts.map((text) => `<${to}> ${text}`) });
};
fake.answer = translatingModel;

const server = useTestServer({
  workers: [],
  env: {
    TRANSLATION_PROVIDERS: 'llm', TRANSLATION_LLM_URL: fake.url, TRANSLATION_LLM_KEY: 'sk-translate', TRANSLATION_LLM_MODEL: 'translator-1',
    TRANSLATION_LLM_TIMEOUT_MS: '800', TRANSLATION_LLM_LANGUAGES: 'de,fr,pt-BR',
  },
});

const translation = () => server.app.services.translation;

describe('LLM translation', () => {
  it('sends the batch as JSON to the chat-completions API with the key and model, and answers in order', async () => {
    fake.requests.length = 0;
    expect(await translation().translate(['One.', 'Two.', 'Three.'], 'en', 'fr')).toEqual([
      { text: '<fr> One.', source: 'llm' }, { text: '<fr> Two.', source: 'llm' }, { text: '<fr> Three.', source: 'llm' },
    ]);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request!.headers.authorization).toBe('Bearer sk-translate');
    expect(request!.body).toMatchObject({ model: 'translator-1', response_format: { type: 'json_object' } });
    expect(request!.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/"translations"/) });
    expect(JSON.parse(request!.body.messages[1].content)).toEqual({ from: 'en', to: 'fr', texts: ['One.', 'Two.', 'Three.'] });
  });

  it('a second call answers from the cache without asking the model; a regional code reaches a language it offers', async () => {
    const before = fake.requests.length;
    expect(await translation().translate(['Two.'], 'en', 'fr')).toEqual([{ text: '<fr> Two.', source: 'cache' }]);
    expect(fake.requests.length).toBe(before);
    expect(await translation().translate(['Two.'], null, 'pt-br')).toEqual([{ text: '<pt-BR> Two.', source: 'llm' }]);
    expect(JSON.parse(fake.requests.at(-1)!.body.messages[1].content)).toMatchObject({ from: 'auto', to: 'pt-BR' });
  });

  it('a model that answers a different number of translations is an error, not a silent misalignment; nothing is cached', async () => {
    fake.answer = (body) => JSON.stringify({ translations: JSON.parse(translatingModel(body)).translations.slice(1) });
    const error = await failure(translation().translate(['Alpha.', 'Beta.'], 'en', 'de'));
    expect(error).toMatchObject({ code: 'unavailable', status: 503, retryable: true, details: { provider: 'llm', reason: 'bad_answer' } });
    expect(error.message).toMatch(/answered 1 translations for 2 texts/);
    fake.answer = () => 'Sure! Here are your translations: Alpha, Beta.';
    expect((await failure(translation().translate(['Alpha.', 'Beta.'], 'en', 'de'))).message).toMatch(/not JSON/);
    fake.answer = () => '```json\n{"translations": ["Alfa.", 2]}\n```';
    expect((await failure(translation().translate(['Alpha.', 'Beta.'], 'en', 'de'))).message).toMatch(/list of strings/);
    fake.answer = translatingModel;
    expect(await server.prisma.translationCache.count({ where: { targetLang: 'de' } })).toBe(0);
    expect((await translation().translate(['Alpha.', 'Beta.'], 'en', 'de')).map((t) => t.source)).toEqual(['llm', 'llm']);
  });

  const failures: Array<[FakeMode, string, boolean, RegExp]> = [
    ['unauthorized', 'credentials', false, /401: Incorrect API key provided/],
    ['rate_limited', 'quota', true, /429: Rate limit reached/],
    ['server_error', 'failed', true, /500: The server had an error/],
    ['hang', 'timeout', true, /did not answer within 800 ms/],
  ];
  it.each(failures)('%s: a 503 unavailable (%s), retryable %s; nothing is cached', async (mode, reason, retryable, message) => {
    fake.mode = mode;
    const error = await failure(translation().translate([`Failure ${mode}.`], 'en', 'de'));
    fake.mode = 'ok';
    expect(error).toMatchObject({ code: 'unavailable', status: 503, retryable, details: { provider: 'llm', reason } });
    expect(error.message).toMatch(message);
    expect(await server.prisma.translationCache.count({ where: { translation: { contains: `Failure ${mode}.` } } })).toBe(0);
  });

  it('GET /v1/languages lists TRANSLATION_LLM_LANGUAGES; a target outside it is invalid_options', async () => {
    const body = await expectStatus(await server.request('/v1/languages'), 200);
    expect(body.translation.map((l: { code: string }) => l.code)).toEqual(['de', 'fr', 'pt-BR']);
    expect(await failure(translation().translate(['Hello'], 'en', 'ja'))).toMatchObject({ code: 'invalid_options', status: 400 });
  });
});

/**
 * The Google Cloud Translation v2 provider against a faithful fake of that API on loopback (fake-google.ts), through
 * `services.translation` and `GET /v1/languages`: the request (key, body), the answer in order, the cache in front
 * (a second call answers `cache` without asking Google), and each failure — spent quota, a refused key, a timeout —
 * as a clear `503 unavailable` with nothing cached, so the next call asks again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { googleProvider } from '../../src/translation/google.js';
import { expectStatus } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { failure, serviceWith } from './helpers.js';
import { startFakeGoogle, type FakeGoogle, type GoogleMode } from './fake-google.js';

const fake: FakeGoogle = await startFakeGoogle();
afterAll(() => fake.close());

const server = useTestServer({
  workers: [],
  env: {
    TRANSLATION_PROVIDERS: 'google', TRANSLATION_GOOGLE_URL: fake.url, TRANSLATION_GOOGLE_API_KEY: fake.key, TRANSLATION_TIMEOUT_MS: '800',
  },
});

const translation = () => server.app.services.translation;
const cacheRows = (text: string) => server.prisma.translationCache.count({ where: { translation: { contains: text } } });

describe('Google Cloud Translation v2', () => {
  it('translates a batch in one request (key in the query, q as an array, format text) and answers in order', async () => {
    fake.requests.length = 0;
    const texts = ['Good morning.', 'The bridge is open.', 'Good morning.'];
    expect(await translation().translate(texts, 'en', 'es')).toEqual([
      { text: '[es] Good morning.', source: 'google' },
      { text: '[es] The bridge is open.', source: 'google' },
      { text: '[es] Good morning.', source: 'google' },
    ]);
    const [request, ...more] = fake.translateRequests();
    expect(more).toEqual([]);
    expect(request!.path).toBe('/language/translate/v2');
    expect(request!.query.get('key')).toBe(fake.key);
    // A repeated text is asked once.
    expect(request!.body).toEqual({ q: ['Good morning.', 'The bridge is open.'], target: 'es', source: 'en', format: 'text' });
  });

  it('a second call answers from the cache without asking Google; a new text in the batch is asked alone', async () => {
    const before = fake.translateRequests().length;
    expect(await translation().translate(['The bridge is open.'], 'en', 'es')).toEqual([{
      text: '[es] The bridge is open.', source: 'cache',
    }]);
    expect(fake.translateRequests().length).toBe(before);

    const mixed = await translation().translate(['The bridge is open.', 'The river is high.'], 'en', 'es');
    expect(mixed.map((t) => t.source)).toEqual(['cache', 'google']);
    expect(fake.translateRequests().at(-1)!.body.q).toEqual(['The river is high.']);
    // The cache row names the provider that made it.
    expect(await server.prisma.translationCache.findMany({ where: { translation: '[es] The river is high.' } })).toEqual([
      expect.objectContaining(
        { sourceLang: 'en', targetLang: 'es', provider: 'google', textHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ),
    ]);
  });

  it('a pair is cached per source and target: another target or a detected source asks again', async () => {
    expect(await translation().translate(['The bridge is open.'], 'en', 'fr')).toEqual([{
      text: '[fr] The bridge is open.', source: 'google',
    }]);
    expect(await translation().translate(['The bridge is open.'], null, 'es')).toEqual([{
      text: '[es] The bridge is open.', source: 'google',
    }]);
    expect(fake.translateRequests().at(-1)!.body).toEqual({ q: ['The bridge is open.'], target: 'es', format: 'text' });
  });

  it('empty texts and a text already in the target language are not asked', async () => {
    const before = fake.requests.length;
    expect(await translation().translate(['  ', ''], 'en', 'es')).toEqual([{ text: '  ', source: 'none' }, { text: '', source: 'none' }]);
    expect(await translation().translate(['Hola'], 'ES', 'es')).toEqual([{ text: 'Hola', source: 'none' }]);
    expect(fake.requests.length).toBe(before);
  });

  it('a target Google does not list, or a malformed code, is the caller\'s 400 invalid_options', async () => {
    const unserved = await failure(translation().translate(['Hello'], 'en', 'ja'));
    expect(unserved).toMatchObject({ code: 'invalid_options', status: 400 });
    expect(unserved.message).toMatch(/en→ja/);
    expect(await failure(translation().translate(['Hello'], 'en', 'not a code!'))).toMatchObject({
      code: 'invalid_options', status: 400, details: { field: 'to' },
    });
  });

  const quota: Array<[GoogleMode, RegExp, number]> = [
    ['rate_limit', /403 \(userRateLimitExceeded\): User Rate Limit Exceeded/, 60],
    ['daily_limit', /403 \(dailyLimitExceeded\): Daily Limit Exceeded/, 3600],
    ['resource_exhausted', /429: Quota exceeded/, 60],
  ];
  it.each(quota)('spent quota (%s) is a retryable 503 unavailable with Retry-After; nothing is cached and the next call asks again', async (
    mode, message, retryAfterS,
  ) => {
    const text = `Quota test ${mode}.`;
    fake.mode = mode;
    const error = await failure(translation().translate([text], 'en', 'de'));
    fake.mode = 'ok';
    expect(error).toMatchObject({
      code: 'unavailable', status: 503, retryable: true, details: { provider: 'google', reason: 'quota', retryAfterS },
      headers: { 'Retry-After': String(retryAfterS) },
    });
    expect(error.message).toMatch(message);
    expect(await cacheRows(text)).toBe(0);
    expect(await translation().translate([text], 'en', 'de')).toEqual([{ text: `[de] ${text}`, source: 'google' }]);
  });

  it('a server that does not answer within TRANSLATION_TIMEOUT_MS is a retryable 503 unavailable (timeout); nothing is '
    + 'cached', async () => {
    fake.mode = 'hang';
    const started = Date.now();
    const error = await failure(translation().translate(['Hanging text.'], 'en', 'de'));
    fake.mode = 'ok';
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toMatchObject({ code: 'unavailable', status: 503, retryable: true, details: { provider: 'google', reason: 'timeout' } });
    expect(error.message).toMatch(/did not answer within 800 ms/);
    expect(await cacheRows('Hanging text.')).toBe(0);
  });

  it('a refused key is a 503 unavailable that retrying does not fix, naming the variable to fix; nothing is cached', async () => {
    const settings = { ...server.app.config.translation, google: { apiUrl: fake.url, apiKey: 'wrong-key' } };
    const service = serviceWith(server, googleProvider(settings));
    const error = await failure(service.translate(['Bad key text.'], 'en', 'es'));
    expect(error).toMatchObject({
      code: 'unavailable', status: 503, retryable: false, details: { provider: 'google', reason: 'credentials' },
    });
    expect(error.headers).toEqual({});
    expect(error.message).toMatch(/400 \(badRequest\): API key not valid.*TRANSLATION_GOOGLE_API_KEY/);
    expect(fake.requests.at(-1)!.query.get('key')).toBe('wrong-key');
    expect(await cacheRows('Bad key text.')).toBe(0);
    // Its languages cannot be listed: it offers none rather than failing the whole list.
    expect(await service.targets()).toEqual([]);
  });

  it('GET /v1/languages lists the targets Google really serves, with picker names', async () => {
    const body = await expectStatus(await server.request('/v1/languages'), 200);
    expect(body.translation).toEqual([
      { code: 'de', name: 'German', nativeName: 'Deutsch' },
      { code: 'en', name: 'English', nativeName: 'English' },
      { code: 'es', name: 'Spanish', nativeName: 'español' },
      { code: 'fr', name: 'French', nativeName: 'français' },
      { code: 'zh-CN', name: 'Chinese (China)', nativeName: '中文（中国）' },
    ]);
    expect(fake.requests.some(
      (r) => r.method === 'GET' && r.path === '/language/translate/v2/languages' && r.query.get('key') === fake.key,
    )).toBe(true);
  });
});

/**
 * Apertium, the local provider, on real text with the pairs installed on this machine (apertium-eng-spa,
 * apertium-eng-cat, apertium-en-gl): the default provider when its binary is on PATH, a batch in one process that
 * keeps its texts apart, the cache in front, `GET /v1/languages`, a clear error when the binary is missing. Then
 * the order of preference of TRANSLATION_PROVIDERS with Google (the loopback fake) behind it: a pair goes to the
 * first provider that serves it, and to the next when that one fails.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.js';
import { findExecutable } from '../../src/core/config/translation.js';
import { apertiumProvider, pairsOf } from '../../src/translation/apertium.js';
import { googleProvider } from '../../src/translation/google.js';
import { expectStatus } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { failure, serviceWith } from './helpers.js';
import { startFakeGoogle } from './fake-google.js';

const installed = findExecutable('apertium', process.env.PATH) !== null;
const fake = await startFakeGoogle();
afterAll(() => fake.close());

// No TRANSLATION_PROVIDERS: the default is Apertium, since its binary is on this PATH.
const server = useTestServer({ workers: [], env: { PATH: process.env.PATH } });
const translation = () => server.app.services.translation;


describe('mode names', () => {
  it('map Apertium\'s ISO 639-3 and 639-1 names to the API\'s codes, leaving variants out', () => {
    const pairs = pairsOf([
      'cat-eng', 'cat-eng_US', 'en-gl', 'eng-cat', 'eng-cat_valencia', 'eng-spa', 'gl-en', 'spa-eng', 'spa-eng_US', 'xyz-eng',
    ]);
    expect(Object.fromEntries(pairs)).toEqual({
      'ca>en': 'cat-eng', 'en>gl': 'en-gl', 'en>ca': 'eng-cat', 'en>es': 'eng-spa', 'gl>en': 'gl-en', 'es>en': 'spa-eng',
    });
  });
});

describe.skipIf(!installed)('Apertium on real text', () => {
  it('is the default provider when its binary is installed', () => {
    expect(translation().providerNames).toEqual(['apertium']);
  });

  it('translates en→es and es→en, a batch in one run, each text kept apart and in order', async () => {
    const english = ['The house is big.', 'I have a red car', 'Good morning', 'The house'];
    const spanish = await translation().translate(english, 'en', 'es');
    expect(spanish.map((t) => t.source)).toEqual(['apertium', 'apertium', 'apertium', 'apertium']);
    expect(spanish[0]!.text).toMatch(/\bcasa\b/);
    expect(spanish[1]!.text).toMatch(/\bcoche\b/);
    expect(spanish[2]!.text).toMatch(/buenos días/i);
    expect(spanish[3]!.text).toMatch(/^la casa$/i);

    const english2 = await translation().translate(['La casa es muy bonita.', 'Tengo un perro.'], 'es', 'en');
    expect(english2[0]).toMatchObject({ source: 'apertium', text: expect.stringMatching(/\bhouse\b/) });
    expect(english2[1]!.text).toMatch(/\bdog\b/);
  });

  it('a text\'s own line breaks do not split it; the cache answers a second call', async () => {
    const [one] = await translation().translate(['The dog\nis in the house.'], 'en', 'es');
    expect(one!.text).toMatch(/perro.*casa/);
    expect(await translation().translate(['The dog\nis in the house.'], 'en', 'es')).toEqual([{ text: one!.text, source: 'cache' }]);
  });

  it('Galician and Catalan go through their own modes (en-gl, eng-cat)', async () => {
    const [gl] = await translation().translate(['The house.'], 'en', 'gl');
    const [ca] = await translation().translate(['The house.'], 'en', 'ca');
    expect(gl!.text).toMatch(/casa/i);
    expect(ca!.text).toMatch(/casa/i);
  });

  it('serves only pairs it has, and only with a named source (it cannot detect one)', async () => {
    expect(await translation().serves('es', 'en')).toBe(true);
    expect(await translation().serves('en-GB', 'es')).toBe(true);
    expect(await translation().serves(null, 'es')).toBe(false);
    expect(await translation().serves('es', 'ca')).toBe(false);
    expect(await failure(translation().translate(['Hola'], 'es', 'ca'))).toMatchObject({ code: 'invalid_options', status: 400 });
  });

  it('GET /v1/languages lists the targets of the installed pairs', async () => {
    const body = await expectStatus(await server.request('/v1/languages'), 200);
    expect(body.translation.map((l: { code: string }) => l.code)).toEqual(['ca', 'en', 'es', 'gl']);
  });
});

describe('a missing or stuck Apertium binary', () => {
  it('stops the start when TRANSLATION_PROVIDERS names it', () => {
    expect(() => loadConfig({ TRANSLATION_PROVIDERS: 'apertium', PATH: '/nonexistent' })).toThrow(
      /names apertium, but "apertium" is not an executable on PATH/,
    );
  });

  it('fails a translation with a clear 503 (not installed, not retryable) when it disappears after the start', async () => {
    const gone = apertiumProvider({ apertium: { bin: '/nonexistent/apertium', path: null }, timeoutMs: 5000 });
    const service = serviceWith(server, gone);
    const error = await failure(service.translate(['The house.'], 'en', 'es'));
    expect(error).toMatchObject({
      code: 'unavailable', status: 503, retryable: false, details: { provider: 'apertium', reason: 'not_installed' },
    });
    expect(error.message).toMatch(/"\/nonexistent\/apertium" is not installed.*TRANSLATION_APERTIUM_BIN/);
    expect(await service.targets()).toEqual([]);
  });

  it('a run past TRANSLATION_TIMEOUT_MS is killed: a retryable 503 (timeout), nothing cached', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-stuck-'));
    const bin = path.join(dir, 'apertium');
    await fs.writeFile(bin, '#!/bin/sh\nif [ "$1" = -l ]; then echo "  eng-spa"; exit 0; fi\nexec sleep 30\n', { mode: 0o755 });
    const stuck = apertiumProvider({ apertium: { bin, path: bin }, timeoutMs: 300 });
    const service = serviceWith(server, stuck);
    const error = await failure(service.translate(['A stuck text.'], 'en', 'es'));
    await fs.rm(dir, { recursive: true, force: true });
    expect(error).toMatchObject(
      { code: 'unavailable', status: 503, retryable: true, details: { provider: 'apertium', reason: 'timeout' } },
    );
    expect(error.message).toMatch(/did not finish within 300 ms/);
    expect(await server.prisma.translationCache.count({ where: { provider: 'apertium', translation: { contains: 'stuck' } } })).toBe(0);
  });
});

describe.skipIf(!installed)('TRANSLATION_PROVIDERS=apertium,google: the order of preference', () => {
  const google = () => googleProvider({ google: { apiUrl: fake.url, apiKey: fake.key }, timeoutMs: 5000 });

  it('a pair goes to the first provider that serves it: Apertium for en→es, Google for en→fr and for a detected source', async () => {
    const service = serviceWith(server, apertiumProvider(server.app.config.translation), google());
    expect((await service.translate(['The window is open.'], 'en', 'es'))[0]).toMatchObject({
      source: 'apertium', text: expect.stringMatching(/ventana/),
    });
    expect(await service.translate(['The window is open.'], 'en', 'fr')).toEqual([{ text: '[fr] The window is open.', source: 'google' }]);
    expect(await service.translate(['The door is open.'], null, 'es')).toEqual([{ text: '[es] The door is open.', source: 'google' }]);
    expect(await service.targets()).toEqual(['ca', 'de', 'en', 'es', 'fr', 'gl', 'zh-CN']);
  });

  it('when the first fails, the next that serves the pair answers', async () => {
    const gone = apertiumProvider({ apertium: { bin: '/nonexistent/apertium', path: null }, timeoutMs: 5000 });
    const service = serviceWith(server, gone, google());
    expect(await service.translate(['The roof is red.'], 'en', 'es')).toEqual([{ text: '[es] The roof is red.', source: 'google' }]);
  });
});

/**
 * TRANSLATION_* settings: the providers in order, the default (Apertium when installed, else none), and every
 * mistake an operator can make stopping the start with one line that names the variable.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.js';

const withoutApertium = { PATH: '/nonexistent' };

describe('translation settings', () => {
  it('default: no provider without an apertium binary; `none` says none explicitly', () => {
    expect(loadConfig(withoutApertium).translation.providers).toEqual([]);
    expect(loadConfig({ ...withoutApertium, TRANSLATION_PROVIDERS: 'none' }).translation.providers).toEqual([]);
  });

  it('reads the providers in order of preference and each one\'s settings', () => {
    const { translation } = loadConfig({
      ...withoutApertium,
      TRANSLATION_PROVIDERS: ' Google , llm', TRANSLATION_GOOGLE_API_KEY: 'k', TRANSLATION_GOOGLE_URL: 'http://127.0.0.1:9/',
      TRANSLATION_LLM_URL: 'http://127.0.0.1:8/', TRANSLATION_LLM_LANGUAGES: 'DE, pt-br', TRANSLATION_TIMEOUT_MS: '2500',
    });
    expect(translation).toMatchObject({
      providers: ['google', 'llm'], timeoutMs: 2500,
      google: { apiKey: 'k', apiUrl: 'http://127.0.0.1:9' },
      llm: { apiUrl: 'http://127.0.0.1:8', apiKey: null, model: 'gpt-4o-mini', timeoutMs: 60_000, languages: ['de', 'pt-BR'] },
    });
  });

  it('the LLM falls back on the summaries\' API (with its key), never sending that key to another address', () => {
    const summaries = { SUMMARY_API_URL: 'http://llm.local', SUMMARY_API_KEY: 'sk-sum', SUMMARY_MODEL: 'm1', TRANSLATION_PROVIDERS: 'llm' };
    expect(loadConfig({ ...withoutApertium, ...summaries }).translation.llm).toMatchObject({
      apiUrl: 'http://llm.local', apiKey: 'sk-sum', model: 'm1',
    });
    expect(loadConfig({ ...withoutApertium, ...summaries, TRANSLATION_LLM_URL: 'http://other.local' }).translation.llm).toMatchObject(
      { apiUrl: 'http://other.local', apiKey: null },
    );
  });

  it.each([
    [{ TRANSLATION_PROVIDERS: 'apertium,deepl' }, /TRANSLATION_PROVIDERS: unknown provider "deepl"; known: apertium, google, llm/],
    [{ TRANSLATION_PROVIDERS: 'llm,llm', TRANSLATION_LLM_URL: 'http://x' }, /names a provider twice/],
    [{ TRANSLATION_PROVIDERS: 'google' }, /names google, which needs TRANSLATION_GOOGLE_API_KEY/],
    [{ TRANSLATION_PROVIDERS: 'llm' }, /names llm, which needs TRANSLATION_LLM_URL/],
    [{ TRANSLATION_PROVIDERS: 'apertium' }, /names apertium, but "apertium" is not an executable on PATH/],
    [{ TRANSLATION_LLM_LANGUAGES: 'de,not a code' }, /TRANSLATION_LLM_LANGUAGES: "not a code" is not a language code/],
    [{ TRANSLATION_TIMEOUT_MS: 'soon' }, /TRANSLATION_TIMEOUT_MS must be a non-negative integer/],
  ])('%j stops the start: %s', (env, message) => {
    expect(() => loadConfig({ ...withoutApertium, ...env })).toThrow(message);
  });
});

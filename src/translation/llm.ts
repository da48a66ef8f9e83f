/**
 * Translation by an OpenAI-compatible chat model, through the client summaries use (src/core/chat-completions.ts).
 * A batch goes as one JSON request `{from, to, texts}`; the model must answer `{"translations": [...]}`, one string
 * per text in order. Models do answer badly — prose, a merged or split line, a missing one — so anything but
 * exactly that many strings is an error (`bad_answer`, retryable), never a translation stored against the wrong
 * text. It offers the targets TRANSLATION_LLM_LANGUAGES lists, from any source (the model detects it).
 */
import { ChatError, chatCompletion, parseJsonContent } from '../core/chat-completions.js';
import type { TranslationSettings } from '../core/config/translation.js';
import { inBatches, offeredCode, providerError, type ProviderFailure, type TranslationProvider } from './provider.js';

/** Small batches: a long answer is where models lose count, and a failure wastes less. */
const MAX_TEXTS = 40;
const MAX_CHARS = 6_000;

const INSTRUCTIONS =
  'You are a translation engine. The user sends one JSON object {"from": <source language code, or "auto">, '
  + '"to": <target language code>, "texts": [<strings>]}. Answer with one JSON object only: {"translations": [<strings>]}, '
  + 'exactly one translation per text, in the same order, each written in the target language. Translate each text on '
  + 'its own: never merge, split, skip or explain. Keep names, numbers and punctuation; a text that needs no '
  + 'translation is returned as it is.';

/** The chat client's failure as this provider's error: a refused key is the operator's to fix, the rest passes. */
function asProviderError(error: ChatError) {
  let reason: ProviderFailure;
  if (error.kind === 'timeout') reason = 'timeout';
  else if (error.kind === 'network') reason = 'unreachable';
  else if (error.kind === 'body') reason = 'bad_answer';
  else if (error.status === 401 || error.status === 403) reason = 'credentials';
  else if (error.status === 429) reason = 'quota';
  else reason = 'failed';
  return providerError('llm', reason, `LLM translation failed: ${error.message}`, { cause: error });
}

/** The model's content as exactly `count` strings, else a `bad_answer` error. */
export function parseTranslations(content: unknown, count: number): string[] {
  let parsed: unknown;
  try {
    parsed = parseJsonContent(content);
  } catch (error) {
    throw asProviderError(error as ChatError);
  }
  const translations = (parsed as { translations?: unknown } | null)?.translations;
  if (!Array.isArray(translations) || translations.some((t) => typeof t !== 'string')) {
    throw providerError('llm', 'bad_answer', 'LLM translation failed: the answer has no "translations" list of strings.');
  }
  if (translations.length !== count) {
    throw providerError('llm', 'bad_answer', `LLM translation failed: the model answered ${translations.length} translations for ${count} `
      + `texts.`);
  }
  return translations as string[];
}

export function llmProvider(settings: Pick<TranslationSettings, 'llm'>, fetchImpl: typeof fetch = fetch): TranslationProvider {
  const { llm } = settings;
  const chat = { apiUrl: llm.apiUrl!, apiKey: llm.apiKey, model: llm.model, timeoutMs: llm.timeoutMs };

  async function translateBatch(texts: string[], from: string | null, to: string): Promise<string[]> {
    let content: unknown;
    try {
      content = await chatCompletion(chat, [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: JSON.stringify({ from: from ?? 'auto', to, texts }) },
      ], fetchImpl);
    } catch (error) {
      throw error instanceof ChatError ? asProviderError(error) : error;
    }
    return parseTranslations(content, texts.length);
  }

  return {
    name: 'llm',
    targets: async () => [...llm.languages],
    serves: async (_from, to) => offeredCode(to, llm.languages) !== null,
    translate: (texts, from, to) => inBatches(texts, MAX_TEXTS, MAX_CHARS, (batch) => translateBatch(batch, from, to)),
  };
}

/**
 * The OpenAI-compatible summariser: one chat-completions request (the shared client, src/core/chat-completions.ts)
 * asking the model for a JSON object `{"title", "summary"}` in the transcript's language. Works with OpenAI and with
 * servers that copy its API (vLLM, llama.cpp server, Ollama, LiteLLM…). Every failure — a non-2xx status (the error
 * body's `error.message` quoted), a timeout, a network error, an answer that is not that JSON — is a
 * `SummariserError`; the service stores the summary as failed (retryable with `summarize`).
 */
import { ChatError, chatCompletion, parseJsonContent } from '../core/chat-completions.js';
import type { SummarySettings } from '../core/config/summaries.js';
import { SummariserError, type Summariser, type SummaryInput, type SummaryText } from './summariser.js';

/** The transcript sent is cut to this many characters (about 12k tokens), whole sentences. */
export const MAX_TRANSCRIPT_CHARS = 48_000;

const INSTRUCTIONS =
  'You write a title and a short summary of a transcript. Answer with one JSON object only: '
  + '{"title": "<at most 10 words>", "summary": "<2 to 5 sentences>"}. Write both in the language of the transcript '
  + '(its code is given); say only what the transcript says.';

function transcriptText(sentences: string[]): string {
  const kept: string[] = [];
  let length = 0;
  for (const sentence of sentences) {
    if (length + sentence.length + 1 > MAX_TRANSCRIPT_CHARS) break;
    kept.push(sentence);
    length += sentence.length + 1;
  }
  return kept.join('\n');
}

/** The shared chat client's failures are stored as this summariser's own (`SummariserError`), same messages. */
function summariserError(error: unknown): unknown {
  return error instanceof ChatError ? new SummariserError(error.message) : error;
}

/** The model's content as `{title, summary}`: plain JSON, or JSON inside a ``` fence. */
export function parseSummaryAnswer(content: unknown): SummaryText {
  let parsed: unknown;
  try {
    parsed = parseJsonContent(content);
  } catch (error) {
    throw summariserError(error);
  }
  const { title, summary } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof title !== 'string' || !title.trim() || typeof summary !== 'string' || !summary.trim()) {
    throw new SummariserError('The chat answer lacks a non-empty "title" and "summary".');
  }
  return { title: title.trim(), summary: summary.trim() };
}

export function openAiSummariser(
  settings: Pick<SummarySettings, 'apiUrl' | 'apiKey' | 'model' | 'timeoutMs'>, fetchImpl: typeof fetch = fetch,
): Summariser {
  const chat = { apiUrl: settings.apiUrl!, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs };
  return {
    name: `openai:${settings.model}`,
    async summarise({ sentences, language }: SummaryInput): Promise<SummaryText> {
      let content: unknown;
      try {
        content = await chatCompletion(chat, [
          { role: 'system', content: INSTRUCTIONS },
          { role: 'user', content: `Language: ${language ?? 'unknown'}\nTranscript:\n${transcriptText(sentences)}` },
        ], fetchImpl);
      } catch (error) {
        throw summariserError(error);
      }
      return parseSummaryAnswer(content);
    },
  };
}

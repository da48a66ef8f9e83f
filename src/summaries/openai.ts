/**
 * The OpenAI-compatible summariser: one `POST {base}/v1/chat/completions` (`Authorization: Bearer <key>` when a key
 * is set) asking the model for a JSON object `{"title", "summary"}` in the transcript's language. Works with OpenAI
 * and with servers that copy its API (vLLM, llama.cpp server, Ollama, LiteLLM…). Every failure — a non-2xx status
 * (the error body's `error.message` quoted), a timeout, a network error, an answer that is not that JSON — is a
 * `SummariserError`; the service stores the summary as failed (retryable with `summarize`).
 */
import type { SummarySettings } from '../core/config/summaries.js';
import { SummariserError, type Summariser, type SummaryInput, type SummaryText } from './summariser.js';

/** The transcript sent is cut to this many characters (about 12k tokens), whole sentences. */
export const MAX_TRANSCRIPT_CHARS = 48_000;

const INSTRUCTIONS =
  'You write a title and a short summary of a transcript. Answer with one JSON object only: ' +
  '{"title": "<at most 10 words>", "summary": "<2 to 5 sentences>"}. Write both in the language of the transcript ' +
  '(its code is given); say only what the transcript says.';

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

/** The model's content as `{title, summary}`: plain JSON, or JSON inside a ``` fence. */
export function parseSummaryAnswer(content: unknown): SummaryText {
  if (typeof content !== 'string') throw new SummariserError('The chat answer has no message content.');
  const unfenced = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced);
  } catch {
    throw new SummariserError(`The chat answer is not JSON: ${content.slice(0, 120)}`);
  }
  const { title, summary } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof title !== 'string' || !title.trim() || typeof summary !== 'string' || !summary.trim()) {
    throw new SummariserError('The chat answer lacks a non-empty "title" and "summary".');
  }
  return { title: title.trim(), summary: summary.trim() };
}

export function openAiSummariser(settings: Pick<SummarySettings, 'apiUrl' | 'apiKey' | 'model' | 'timeoutMs'>, fetchImpl: typeof fetch = fetch): Summariser {
  // `{base}/v1/chat/completions`; a base given with its `/v1` is accepted as well.
  const endpoint = `${settings.apiUrl!.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/chat/completions`;
  return {
    name: `openai:${settings.model}`,
    async summarise({ sentences, language }: SummaryInput): Promise<SummaryText> {
      let response: Response;
      try {
        response = await fetchImpl(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
          body: JSON.stringify({
            model: settings.model,
            messages: [
              { role: 'system', content: INSTRUCTIONS },
              { role: 'user', content: `Language: ${language ?? 'unknown'}\nTranscript:\n${transcriptText(sentences)}` },
            ],
            temperature: 0.2,
            response_format: { type: 'json_object' },
          }),
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
      } catch (error) {
        const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
        throw new SummariserError(timedOut ? `The chat API did not answer within ${settings.timeoutMs} ms.` : `The chat API could not be reached: ${(error as Error).message}`);
      }
      const text = await response.text().catch(() => '');
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      if (!response.ok) {
        const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
        throw new SummariserError(`The chat API answered ${response.status}${typeof message === 'string' ? `: ${message}` : ''}.`);
      }
      if (!body) throw new SummariserError(`The chat API answered ${response.status} with a body that is not JSON.`);
      const choices = (body as { choices?: Array<{ message?: { content?: unknown } }> }).choices;
      return parseSummaryAnswer(Array.isArray(choices) ? choices[0]?.message?.content : undefined);
    },
  };
}

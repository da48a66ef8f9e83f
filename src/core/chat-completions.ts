/**
 * One client for OpenAI-compatible chat-completions APIs (OpenAI, vLLM, llama.cpp server, Ollama, LiteLLM…), shared
 * by the parts that ask a model for a JSON answer: recording summaries (src/summaries/openai.ts) and translation
 * (src/translation/llm.ts). It sends one `POST {base}/v1/chat/completions` (`Authorization: Bearer <key>` when a
 * key is set) and answers the first choice's content. Every failure — a non-2xx status (the error body's
 * `error.message` quoted), a timeout, a network error, a body that is not JSON — is a `ChatError` whose message
 * says which; each caller turns it into its own error (a stored summary failure, an ApiError).
 */

export interface ChatSettings {
  /** The API's base: `{base}/v1/chat/completions`; a base given with its `/v1` is accepted as well. */
  apiUrl: string;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Why a chat request failed: `status` is the HTTP status of an answer that was not 2xx, null otherwise. */
export class ChatError extends Error {
  override readonly name = 'ChatError';
  constructor(message: string, readonly kind: 'timeout' | 'network' | 'status' | 'body', readonly status: number | null = null) {
    super(message);
  }
}

export function chatEndpoint(apiUrl: string): string {
  return `${apiUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/chat/completions`;
}

/** Asks for a JSON object (`response_format: json_object`) and answers the message content as the model wrote it. */
export async function chatCompletion(settings: ChatSettings, messages: ChatMessage[], fetchImpl: typeof fetch = fetch): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchImpl(chatEndpoint(settings.apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({ model: settings.model, messages, temperature: 0.2, response_format: { type: 'json_object' } }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
    if (timedOut) throw new ChatError(`The chat API did not answer within ${settings.timeoutMs} ms.`, 'timeout');
    throw new ChatError(`The chat API could not be reached: ${(error as Error).message}`, 'network');
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
    throw new ChatError(
      `The chat API answered ${response.status}${typeof message === 'string' ? `: ${message}` : ''}.`, 'status', response.status,
    );
  }
  if (!body) throw new ChatError(`The chat API answered ${response.status} with a body that is not JSON.`, 'body', response.status);
  const choices = (body as { choices?: Array<{ message?: { content?: unknown } }> }).choices;
  return Array.isArray(choices) ? choices[0]?.message?.content : undefined;
}

/**
 * The model's content parsed as JSON: plain, or inside a ``` fence (models add one even when asked not to). Throws
 * a `ChatError` (`body`) naming what came instead.
 */
export function parseJsonContent(content: unknown): unknown {
  if (typeof content !== 'string') throw new ChatError('The chat answer has no message content.', 'body');
  const unfenced = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    return JSON.parse(unfenced);
  } catch {
    throw new ChatError(`The chat answer is not JSON: ${content.slice(0, 120)}`, 'body');
  }
}

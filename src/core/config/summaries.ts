/**
 * Settings of recording summaries (src/summaries), read by `loadConfig` into `config.summaries`. Every variable has
 * a row in docs/summaries.md.
 */
import { envInt as int, envString as str, type Env } from './env.js';

/** `builtin`: the extractive summariser in this process (no LLM); `openai`: an OpenAI-compatible chat API; `off`: none. */
export type SummaryProvider = 'builtin' | 'openai' | 'off';

export interface SummarySettings {
  /** SUMMARY_PROVIDER (default builtin). */
  provider: SummaryProvider;
  /** SUMMARY_API_URL: the API's base (`{base}/v1/chat/completions`); required with `openai`. */
  apiUrl: string | null;
  /** SUMMARY_API_KEY: sent as `Authorization: Bearer`; optional (local servers often need none). */
  apiKey: string | null;
  /** SUMMARY_MODEL: the chat model's name (default gpt-4o-mini). */
  model: string;
  /** SUMMARY_TIMEOUT_MS: one chat request's limit (default 60000). */
  timeoutMs: number;
  /**
   * SUMMARY_REWRITE_DELAY_MS: how long after a correction of a summarised recording its summary is written again
   * (default 5000); each further correction within it starts the wait again, so a burst of corrections is one rewrite.
   */
  rewriteDelayMs: number;
}

export function loadSummarySettings(env: Env): SummarySettings {
  const provider = (str(env, 'SUMMARY_PROVIDER') ?? 'builtin').toLowerCase();
  if (provider !== 'builtin' && provider !== 'openai' && provider !== 'off') {
    throw new Error(`SUMMARY_PROVIDER must be builtin, openai or off, got "${provider}"`);
  }
  const apiUrl = str(env, 'SUMMARY_API_URL')?.replace(/\/+$/, '') ?? null;
  if (provider === 'openai' && !apiUrl) throw new Error('SUMMARY_PROVIDER=openai needs SUMMARY_API_URL (the base of an OpenAI-compatible '
    + 'API)');
  return {
    provider,
    apiUrl,
    apiKey: str(env, 'SUMMARY_API_KEY'),
    model: str(env, 'SUMMARY_MODEL') ?? 'gpt-4o-mini',
    timeoutMs: Math.max(1, int(env, 'SUMMARY_TIMEOUT_MS', 60_000)),
    rewriteDelayMs: Math.max(0, int(env, 'SUMMARY_REWRITE_DELAY_MS', 5_000)),
  };
}

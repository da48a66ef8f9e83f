/**
 * The one small interface both summarisers implement: the built-in extractive one (extractive.ts) and the
 * OpenAI-compatible chat client (openai.ts). The service (service.ts) picks one from configuration.
 */
export interface SummaryInput {
  /** The corrected transcript's sentences, in order. */
  sentences: string[];
  /** The spoken language (BCP 47), null when unknown. */
  language: string | null;
}

export interface SummaryText {
  title: string;
  summary: string;
}

export interface Summariser {
  /** Stored as the summary's `provider`: `builtin`, `openai:<model>`. */
  readonly name: string;
  summarise(input: SummaryInput): Promise<SummaryText>;
}

/** A summariser that could not answer (the API refused, timed out, or answered something unusable). */
export class SummariserError extends Error {
  override readonly name = 'SummariserError';
}

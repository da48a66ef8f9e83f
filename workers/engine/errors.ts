/**
 * The engine's own refusals. The engine is a leaf that knows nothing of HTTP: it says what is wrong (the spec's
 * code and the field or file concerned) and the gateway maps it to its envelope (src/core/errors.ts `knownError`).
 */
export type EngineErrorCode = 'invalid_audio' | 'invalid_options' | 'unavailable';

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: EngineErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.details = details;
  }
}

export const engineErrors = {
  /** The input is not audio the engine can decode (or has no samples). */
  invalidAudio: (message: string, details: Record<string, unknown> = {}) => new EngineError('invalid_audio', message, details),
  /** An option the engine cannot honour (a language the model does not know); `details.field` names it. */
  invalidOptions: (message: string, details: Record<string, unknown> = {}) => new EngineError('invalid_options', message, details),
  /** The engine cannot take work now (no model loaded, shutting down); `details.retryAfterS` says when to ask again. */
  unavailable: (message: string, retryAfterS: number) => new EngineError('unavailable', message, {
    retryAfterS: Math.max(1, Math.ceil(retryAfterS)),
  }),
};

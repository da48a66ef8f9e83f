/**
 * Rendering failures as the spec's envelope. Every error answer of the HTTP surface goes through `sendError`;
 * the final error handler catches anything else (an unexpected exception becomes a logged `500 internal`), so
 * no path answers a bare 500 or an HTML page.
 */
import type { ErrorRequestHandler, Response } from 'express';
import { ApiError, errors, isExpectedError, toApiError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';

export function sendError(res: Response, error: ApiError, requestId: string | null) {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json(error.toEnvelope(requestId));
}

/** Errors express or body-parser raise on their own, mapped to the spec's codes. */
function fromHttpError(error: unknown): ApiError | null {
  const status = (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode;
  const type = (error as { type?: string }).type;
  if (type === 'entity.parse.failed') return errors.invalidOptions('The body is not valid JSON.', { field: 'body' });
  if (type === 'entity.too.large') return new ApiError('invalid_options', 413, 'The body is too large.', { details: { field: 'body' } });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new ApiError('invalid_options', 415, 'Unsupported body encoding.');
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError('invalid_options', status, (error as Error).message || 'Bad request.');
  }
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = error instanceof ApiError ? error : fromHttpError(error) ?? toApiError(error);
    const fields = { requestId: req.sg?.requestId, method: req.method, path: req.path };
    if (!isExpectedError(apiError)) logger.error({ ...fields, err: error }, 'request failed');
    else if (apiError.status >= 500) logger.info({ ...fields, code: apiError.code, status: apiError.status, reason: apiError.message }, 'request refused');
    sendError(res, apiError, req.sg?.requestId ?? null);
  };
}

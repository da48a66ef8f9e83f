/**
 * Rendering failures as the spec's envelope. Every error answer of the HTTP surface goes through `sendError`;
 * the final error handler catches anything else (an unexpected exception becomes a logged `500 internal`), so
 * no path answers a bare 500 or an HTML page.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorRequestHandler, Response } from 'express';
import { ApiError, errors, isExpectedError, rawHttpAnswer, toApiError } from '../src/core/errors.js';
import type { Logger } from '../src/core/logger.js';
import { newRequestId } from './middleware/request-id.js';
import { endAndRelease } from './connections.js';

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
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError('invalid_options', 415, 'Unsupported body encoding.');
  }
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
    else if (apiError.status >= 500) logger.info(
      { ...fields, code: apiError.code, status: apiError.status, reason: apiError.message }, 'request refused',
    );
    sendError(res, apiError, req.sg?.requestId ?? null);
  };
}

/** What Node's HTTP parser refuses before express sees a request, as the spec's codes. */
function fromParserError(error: NodeJS.ErrnoException): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('invalid_options', 431, 'The request line and headers are too large (at most 16 KiB together); send long values '
        + 'in the body.', { details: { field: 'headers' } });
    case 'HPE_URI_OVERFLOW':
      return new ApiError('invalid_options', 414, 'The URL is too long.', { details: { field: 'url' } });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('invalid_options', 408, 'The request was not sent in time.', { details: { field: 'body' } });
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_VALUE':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return errors.invalidOptions(
        'A header holds a character headers cannot carry (a control character, or a bad name).', { field: 'headers' },
      );
    default:
      return errors.invalidOptions(`The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`, { field: 'request' });
  }
}

/**
 * The HTTP server's `clientError` hook: a request Node's parser refuses (headers too large, a control character in
 * a header, malformed framing) gets the envelope with a fresh request id instead of Node's bare status line.
 */
export function answerClientError(logger: Logger) {
  return (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client gone mid-request has nobody to answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const apiError = fromParserError(error);
    const requestId = newRequestId();
    logger.info({ requestId, code: apiError.code, status: apiError.status, reason: error.code }, 'request refused by the HTTP parser');
    endAndRelease(socket, rawHttpAnswer(apiError, requestId));
  };
}

/**
 * The WebSocket handshake's own requirements (RFC 6455 §4.2.1), checked before the ws library checks them and answers
 * in plain text: a refusal here is the envelope like every other answer. GET only (405 with `Allow`), `Upgrade:
 * websocket`, a Sec-WebSocket-Key of 16 bytes in base64, Sec-WebSocket-Version 13 (or 8; 400 with the version served).
 * True when it answered (the socket is done).
 */
export function refuseBadHandshake(req: http.IncomingMessage, socket: Duplex, logger: Logger): boolean {
  const refusal = handshakeRefusal(req);
  if (!refusal) return false;
  const requestId = newRequestId();
  logger.info({ requestId, code: refusal.code, status: refusal.status, path: req.url }, 'WebSocket handshake refused');
  endAndRelease(socket, rawHttpAnswer(refusal, requestId));
  return true;
}

function handshakeRefusal(req: http.IncomingMessage): ApiError | null {
  if (req.method !== 'GET') {
    return new ApiError('method_not_allowed', 405, `A WebSocket opens with GET, not ${req.method}.`, {
      details: { allow: ['GET'] }, headers: { Allow: 'GET' },
    });
  }
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
    return errors.invalidOptions(
      `The Upgrade header must be websocket, not ${JSON.stringify(req.headers.upgrade ?? '')}.`, { field: 'Upgrade' },
    );
  }
  if (!/^[+/0-9A-Za-z]{22}==$/.test(req.headers['sec-websocket-key'] ?? '')) {
    return errors.invalidOptions('Sec-WebSocket-Key must be 16 random bytes in base64.', { field: 'Sec-WebSocket-Key' });
  }
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    return new ApiError('invalid_options', 400, `Sec-WebSocket-Version must be 13, not ${JSON.stringify(version ?? '')}.`, {
      details: { field: 'Sec-WebSocket-Version' }, headers: { 'Sec-WebSocket-Version': '13' },
    });
  }
  return null;
}

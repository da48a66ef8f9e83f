/**
 * JSON request bodies for routes that take one: anything but `application/json` is `415`, malformed JSON is
 * `400 invalid_options` (through the envelope's error handler).
 */
import express, { type RequestHandler } from 'express';
import { ApiError } from '../../src/errors.js';

export function useJsonBody(): RequestHandler {
  const parse = express.json({ limit: '1mb', strict: false });
  return (req, res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (!hasBody) {
      req.body = undefined;
      return next();
    }
    if (!req.is('application/json')) {
      return next(new ApiError('invalid_options', 415, `The body must be application/json, not ${req.get('content-type') ?? 'untyped'}.`, { details: { field: 'Content-Type' } }));
    }
    parse(req, res, next);
  };
}

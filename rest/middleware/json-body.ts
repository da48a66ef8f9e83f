/**
 * JSON request bodies for routes that take one: anything but `application/json` is `415`, malformed JSON is
 * `400 invalid_options` (through the envelope's error handler), a string holding a NUL character or a body nested
 * too deep is `400 invalid_options` naming its field (src/core/text-input.ts).
 */
import express, { type RequestHandler } from 'express';
import { ApiError } from '../../src/core/errors.js';
import { refuseBadInput } from '../../src/core/text-input.js';

export function useJsonBody(): RequestHandler {
  const parse = express.json({ limit: '1mb', strict: false });
  return (req, res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (!hasBody) {
      req.body = undefined;
      return next();
    }
    if (!req.is('application/json')) {
      return next(new ApiError(
        'invalid_options', 415, `The body must be application/json, not ${req.get('content-type') ?? 'untyped'}.`,
        { details: { field: 'Content-Type' } },
      ));
    }
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      try {
        refuseBadInput(req.body);
        next();
      } catch (refusal) {
        next(refusal);
      }
    });
  };
}

/** Request bodies as route entries take them: checked by their module's parser first, or read whole as bytes. */
import express, { type Request, type Response } from 'express';
import { errors } from '../src/core/errors.js';

/**
 * The body as sent, after `check` (the module's parser) accepted it: a bad field is refused naming it before GraphQL
 * coerces the body, and the operation still gets the body itself, not the parser's reading of it.
 */
export function checkedBody<T>(body: T, check: (body: T) => unknown): T {
  check(body);
  return body;
}

/** The body as sent, at most 1 MB (a webhook's signature is over the exact bytes); unreadable: 422 `invalid_body`. */
export function readRawBody(req: Request, res: Response): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => express.raw({ type: () => true, limit: '1mb' })(req, res, (error?: unknown) => (error
    ? reject(errors.invalidBody('The body could not be read (at most 1 MB).', { field: 'body' }))
    : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)))));
}

/**
 * `POST /graphql` bodies yoga reads: JSON (and `application/graphql+json`), multipart uploads and a bare
 * `application/graphql` query. Anything else is answered here as `415` with the envelope (yoga's own answer to it is
 * an empty 415); URL-encoded forms too, which yoga would read: a form is what another site's page can post without
 * the browser asking first, and no client of this API sends one.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '../../src/core/errors.js';

const READ_BY_YOGA = ['application/json', 'application/graphql+json', 'multipart/form-data', 'application/graphql'];

export function useGraphqlContentType(): RequestHandler {
  return (req, _res, next) => {
    if (req.method !== 'POST' || req.is(READ_BY_YOGA)) return next();
    next(new ApiError('invalid_options', 415, `POST /graphql takes ${READ_BY_YOGA.join(', ')}, not `
      + `${req.get('content-type') ?? 'an untyped body'}.`, { details: { field: 'Content-Type' } }));
  };
}

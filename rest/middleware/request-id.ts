/**
 * `X-Request-Id` on every response. A caller's own id is kept when it is a sane token (so their logs and ours
 * line up); otherwise one is made.
 */
import crypto from 'node:crypto';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function newRequestId() {
  return `req_${crypto.randomBytes(12).toString('hex')}`;
}

export function useRequestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SAFE_ID.test(incoming) ? incoming : newRequestId();
    req.sg = { requestId, identity: null, credentialError: null, clientAddress: req.ip };
    res.setHeader('X-Request-Id', requestId);
    next();
  };
}

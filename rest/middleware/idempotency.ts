/**
 * `Idempotency-Key` on create routes (spec, Errors). A route opts in with `idempotent: true` in its table entry.
 * The fingerprint covers the whole request: method, path and the parsed JSON body here; a route that streams its
 * own body (`ownBody`, multipart uploads) claims the key itself with `holdIdempotencyKey` once the body has been
 * read, fingerprinting the options and a hash of the uploaded bytes. The records live in IdempotencyService.
 *
 * A failed answer (4xx or 5xx) releases the key: nothing was created, so the corrected or retried request runs
 * (and a replayed error would carry a stale requestId).
 */
import type { Request, RequestHandler, Response } from 'express';
import { canonicalJson, fingerprintOf, type IdempotencyService } from '../../src/core/idempotency.js';

/** Response headers worth replaying (the body and status always are). */
const REPLAYED_HEADERS = ['location', 'content-type'];

/** The parts every fingerprint starts with: the same key on another route is another request. */
export const requestLine = (req: Request) => `${req.method} ${req.baseUrl}${req.path}`;

/**
 * Claims the request's Idempotency-Key (if it sent one) for `fingerprint`. Returns true when the request is
 * already answered (a replay); throws 422/409 as the service does; otherwise wraps `res.json` so the answer is
 * stored (or the key released on an error) before it is sent.
 */
export async function holdIdempotencyKey(service: IdempotencyService, req: Request, res: Response, fingerprint: string): Promise<boolean> {
  const key = req.get('idempotency-key');
  const accountId = req.sg.identity?.account.id;
  // Without a key there is nothing to do; without an account the operation itself refuses the request.
  if (!key || !accountId) return false;
  const claimed = await service.claim(accountId, key, fingerprint);
  if (claimed !== 'claimed') {
    for (const [name, value] of Object.entries(claimed.replay.headers)) res.setHeader(name, value);
    res.setHeader('Idempotent-Replayed', 'true');
    res.status(claimed.replay.status).json(claimed.replay.body);
    return true;
  }
  const sendJson = res.json.bind(res);
  res.json = (body: unknown) => {
    const status = res.statusCode;
    const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => {
      const value = res.getHeader(name);
      return value === undefined ? [] : [[name, String(value)]];
    }));
    const stored = status >= 400 ? service.release(accountId, key) : service.complete(accountId, key, { status, body, headers });
    // The answer waits for the record so a repeat arriving right after it sees `done`, never `running`.
    stored.catch(
      (error: unknown) => service.logger.warn({ err: error, requestId: req.sg.requestId }, 'idempotency record not stored'),
    ).finally(() => sendJson(body));
    return res;
  };
  return false;
}

/** For routes whose JSON body the router parsed: the fingerprint is the request line and the canonical body. */
export function useIdempotency(service: IdempotencyService): RequestHandler {
  return async (req, res, next) => {
    try {
      if (!(await holdIdempotencyKey(service, req, res, fingerprintOf([requestLine(req), canonicalJson(req.body)])))) next();
    } catch (error) {
      next(error);
    }
  };
}

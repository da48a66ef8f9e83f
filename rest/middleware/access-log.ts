/**
 * An access log, when ACCESS_LOG is on: one line per HTTP request once it is answered (or the client went away),
 * with its request id, so an operator can find the request a user reports by the `X-Request-Id` they were given.
 * The path is logged without its query string (which may carry a listener's share code or a media token), and no
 * header, body or credential is: who called is the principal's id.
 */
import type { RequestHandler } from 'express';
import type { Logger } from '../../src/core/logger.js';

export function useAccessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    let logged = false;
    const log = () => {
      if (logged) return;
      logged = true;
      logger.info(
        {
          requestId: req.sg?.requestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          bytes: Number(res.getHeader('content-length')) || undefined,
          principal: req.sg?.identity?.principal.id,
          client: req.ip,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    };
    res.once('finish', log);
    res.once('close', log);
    next();
  };
}

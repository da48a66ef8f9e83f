/**
 * A faithful fake of Google Cloud Translation's v2 REST API on loopback: `POST /language/translate/v2?key=` with a
 * JSON body (`q` a string or an array, `target`, `source`, `format`), answering `{data: {translations: [...]}}` in
 * the order of `q` (with `detectedSourceLanguage` when no source was given); `GET /language/translate/v2/languages`;
 * and Google's error envelope (`{error: {code, message, errors: [{message, domain, reason}], status}}`) for a bad
 * key, a missing or unsupported target, spent quota, or nothing at all (a hung server). Records every request.
 *
 * Its "translation" is marked, not real: `[es] Hello` for `Hello` into `es`, so a test sees which text went where.
 */
import type http from 'node:http';
import { listenOnLoopback } from '../helpers/loopback.js';

export type GoogleMode = 'ok' | 'rate_limit' | 'daily_limit' | 'resource_exhausted' | 'server_error' | 'hang';

export interface GoogleRequest { method: string; path: string; query: URLSearchParams; body: any }

export interface FakeGoogle {
  url: string;
  key: string;
  mode: GoogleMode;
  languages: string[];
  requests: GoogleRequest[];
  /** Translate requests only (not language listings). */
  translateRequests(): GoogleRequest[];
  close(): Promise<void>;
}

export const GOOGLE_KEY = 'AIza-test-key-123';

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const send = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
  }).end(JSON.stringify(body));
  const error = (
    res: http.ServerResponse, code: number, message: string, reason: string, domain = 'global', status?: string, details?: unknown[],
  ) =>
    send(res, code, { error: {
      code, message, errors: [{ message, domain, reason }], ...(status ? { status } : {}), ...(details ? { details } : {}),
    } });

  const loopback = await listenOnLoopback((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://fake');
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      fake.requests.push({ method: req.method!, path: url.pathname, query: url.searchParams, body });
      if (url.searchParams.get('key') !== fake.key) {
        return error(res, 400, 'API key not valid. Please pass a valid API key.', 'badRequest', 'global', 'INVALID_ARGUMENT', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
        ]);
      }
      switch (fake.mode) {
        case 'rate_limit': return error(res, 403, 'User Rate Limit Exceeded', 'userRateLimitExceeded', 'usageLimits');
        case 'daily_limit': return error(res, 403, 'Daily Limit Exceeded', 'dailyLimitExceeded', 'usageLimits');
        case 'resource_exhausted': return send(res, 429, { error: { code: 429, message: 'Quota exceeded for quota metric \'v2 and v3 '
          + 'general model characters\'.', status: 'RESOURCE_EXHAUSTED' } });
        case 'server_error': return error(res, 500, 'Internal error encountered.', 'backendError');
        case 'hang': return loopback.hang(res);
        case 'ok': break;
      }
      if (req.method === 'GET' && url.pathname === '/language/translate/v2/languages') {
        return send(res, 200, { data: { languages: fake.languages.map((language) => ({ language })) } });
      }
      if (req.method !== 'POST' || url.pathname !== '/language/translate/v2') return error(res, 404, 'Not Found', 'notFound');
      if (!body || typeof body !== 'object') return error(res, 400, 'Invalid JSON payload received.', 'parseError');
      if (!body.target) return error(res, 400, 'Missing required field target', 'required');
      if (!fake.languages.includes(body.target) || (body.source && !fake.languages.includes(body.source))) {
        return error(res, 400, 'Invalid Value', 'invalid');
      }
      const q: string[] = Array.isArray(body.q) ? body.q : [body.q];
      if (q.length > 128) return error(res, 400, 'Too many text segments', 'invalid');
      send(res, 200, {
        data: { translations: q.map((text) => ({
          translatedText: `[${body.target}] ${text}`, ...(body.source ? {} : { detectedSourceLanguage: 'en' }),
        })) },
      });
    });
  });
  const fake: FakeGoogle = {
    url: loopback.url,
    key: GOOGLE_KEY,
    mode: 'ok',
    languages: ['de', 'en', 'es', 'fr', 'zh-CN'],
    requests: [],
    translateRequests: () => fake.requests.filter((request) => request.method === 'POST'),
    close: loopback.close,
  };
  return fake;
}

/**
 * ACCESS_LOG=true: one line per HTTP request answered, with the request id the caller got, the path without its
 * query string, the status, the time and who called; nothing of credentials. Off (the default), none.
 */
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import { useTestServer } from '../helpers/server.js';

function capturingLogger() {
  const lines: { message: string; fields: Record<string, unknown> }[] = [];
  const capture = (fields: Record<string, unknown>, message: string) => void lines.push({ message, fields });
  const logger: Logger = { debug: capture, info: capture, warn: capture, error: capture };
  return { logger, requests: () => lines.filter((line) => line.message === 'request').map((line) => line.fields) };
}

const on = capturingLogger();
const server = useTestServer({ workers: [], logger: on.logger, env: { ACCESS_LOG: 'true' } });
const off = capturingLogger();
const quiet = useTestServer({ workers: [], logger: off.logger });

describe('the access log', () => {
  it('logs each request once it is answered: request id, method, path without query, status, time, principal', async () => {
    const me = await server.request('/v1/me');
    const meBody = (await me.json()) as { apiKeyId: string };
    const missing = await server.request('/v1/recordings/rec_nope?access_token=secret-value&x=1', { auth: null });
    await missing.text();
    await expect.poll(() => on.requests().length).toBeGreaterThanOrEqual(2);
    const [first, second] = on.requests().slice(-2);
    expect(first).toMatchObject({
      requestId: me.headers.get('x-request-id'), method: 'GET', path: '/v1/me', status: 200, principal: meBody.apiKeyId,
    });
    expect(first!.ms).toEqual(expect.any(Number));
    expect(second).toMatchObject({
      requestId: missing.headers.get('x-request-id'), method: 'GET', path: '/v1/recordings/rec_nope', status: missing.status,
    });
    expect(second!.principal).toBeUndefined();
    // Nothing of a credential or the query string reaches the log.
    const text = JSON.stringify(on.requests());
    expect(text).not.toContain('secret-value');
    expect(text).not.toContain(server.apiKey);
  });

  it('is off by default', async () => {
    await (await quiet.request('/v1/me')).text();
    expect(off.requests()).toEqual([]);
  });
});

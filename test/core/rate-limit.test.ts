/** RateLimit-* on every response; 429 rate_limited with Retry-After past the limit; budgets are per account. */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({
  env: { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_S: '60' },
  fieldRateLimits: [{ type: 'Query', field: 'languages', max: 1, window: '2m' }],
});

describe('rate limits', () => {
  it('counts down on every answer, errors included, then refuses with 429 and Retry-After', async () => {
    const { key } = await server.createKey(['*']);
    const seen: [number, string | null, string | null][] = [];
    for (const path of ['/v1/me', '/v1/nowhere', '/v1/health', '/v1/me']) {
      const response = await server.request(path, { auth: key });
      seen.push([response.status, response.headers.get('ratelimit-limit'), response.headers.get('ratelimit-remaining')]);
      expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    expect(seen).toEqual([[200, '4', '3'], [404, '4', '2'], [200, '4', '1'], [200, '4', '0']]);

    const limited = await server.request('/v1/me', { auth: key });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await limited.json()).toMatchObject({ code: 'rate_limited', status: 429, data: { retryable: true } });
  });

  it('a parallel burst is counted exactly: four pass, the rest get 429', async () => {
    const other = await server.createAccount();
    const { key } = await server.createKey(['*'], { accountId: other });
    const statuses = await Promise.all(Array.from({ length: 10 }, () => server.request('/v1/health', { auth: key }).then((r) => r.status)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
  });

  it('another account keeps its own budget', async () => {
    const other = await server.createAccount();
    const { key } = await server.createKey(['*'], { accountId: other });
    const response = await server.request('/v1/me', { auth: key });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-remaining')).toBe('3');
  });

  it('GraphQL requests count against the same budget', async () => {
    const other = await server.createAccount();
    const { key } = await server.createKey(['*'], { accountId: other });
    const response = await server.request('/graphql', {
      auth: key, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ me { scopes } }"}',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-remaining')).toBe('3');
  });

  it('a field with its own limit answers 429 past it, through REST and GraphQL', async () => {
    const other = await server.createAccount();
    const { key } = await server.createKey(['*'], { accountId: other });
    expect((await server.request('/v1/languages', { auth: key })).status).toBe(200);
    const limited = await server.request('/v1/languages', { auth: key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('120');
    expect(await limited.json()).toMatchObject({ code: 'rate_limited', status: 429 });

    const graphql = await server.request('/graphql', {
      auth: key, method: 'POST', headers: { 'content-type': 'application/json' },
      body: '{"query":"{ languages { transcription { code } } }"}',
    });
    const body = await graphql.json() as { errors: { extensions: { code: string; status: number } }[] };
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'rate_limited', status: 429 });
  });
});

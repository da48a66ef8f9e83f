/** The whole gateway on the embedded database (no DATABASE_URL): the start command's default. */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ database: 'embedded', workers: [] });

describe('embedded database', () => {
  it('serves identity, creates with idempotency and listings', async () => {
    expect(server.app.db.embedded).toBe(true);
    expect((await server.request('/v1/me')).status).toBe(200);
    const create = () => server.request('/v1/api-keys', {
      method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'embedded-1' }, body: '{"name":"embedded"}',
    });
    const [a, b] = [await create(), await create()];
    expect(a.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => server.request('/v1/api-keys')));
    expect(concurrent.map((r) => r.status)).toEqual(Array(8).fill(200));
  });
});

/** DataLoader batches per request: listing N keys with their creators costs the same few queries for any N. */
import { describe, expect, it } from 'vitest';
import { expectStatus, json, upload } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

/** Each of `n` new creator keys makes one key through the API, so every listed key has its own creator. */
async function addKeysWithCreators(n: number) {
  for (let i = 0; i < n; i++) {
    const { key } = await server.createKey(['*'], { name: `creator-${i}` });
    const response = await server.request('/v1/api-keys', {
      method: 'POST', auth: key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `made-by-${i}` }),
    });
    expect(response.status).toBe(201);
  }
}

async function listCountingQueries() {
  await server.request('/v1/me'); // the key's last-used stamp is written at most once a minute: get it out of the way
  const queries: string[] = [];
  const stop = server.app.db.onQuery((sql) => queries.push(sql));
  const response = await server.request('/v1/api-keys');
  stop();
  expect(response.status).toBe(200);
  const { apiKeys } = await response.json() as { apiKeys: { displayName: string; createdBy: { displayName: string } | null }[] };
  return { apiKeys, queries };
}

describe('DataLoader batching', () => {
  it('N keys → a constant number of queries', async () => {
    await addKeysWithCreators(3);
    const few = await listCountingQueries();
    await addKeysWithCreators(9);
    const many = await listCountingQueries();

    const made = (list: typeof few.apiKeys) => list.filter((key) => key.displayName.startsWith('made-by-'));
    expect(made(few.apiKeys)).toHaveLength(3);
    expect(made(many.apiKeys)).toHaveLength(12);
    for (const key of made(many.apiKeys)) expect(key.createdBy?.displayName).toBe(key.displayName.replace('made-by-', 'creator-'));

    expect(many.queries.length).toBe(few.queries.length);
    // the caller's key and its account, the listing, and one batched load of all twelve creators
    expect(many.queries.length).toBe(4);
    const creatorLoads = many.queries.filter((sql) => /"Principal"\."id" IN/.test(sql));
    expect(creatorLoads).toHaveLength(1);
    expect(creatorLoads[0]!.match(/\$\d+/g)!.length).toBe(12 + 1); // twelve ids and the OFFSET
  });
});

describe('a page of transcriptions', () => {
  /** `files` uploads (their jobs stay queued: no workers here) and `feeds` live transcriptions each feeding a new broadcast. */
  async function add(files: number, feeds: number) {
    for (let i = 0; i < files; i++) await expectStatus(await upload(server, { name: `queued ${i}` }), 201);
    for (let i = 0; i < feeds; i++) {
      const broadcast = await json(await server.postJson('/v1/broadcasts', { name: `Hall ${Math.random().toString(36).slice(2, 8)}` }));
      await expectStatus(await server.postJson('/v1/transcriptions/live', { name: `feed ${i}`, broadcasts: [broadcast.id] }), 201);
    }
  }

  async function listCountingQueries() {
    await server.request('/v1/me');
    const queries: string[] = [];
    const stop = server.app.db.onQuery((sql) => queries.push(sql));
    const listed = await expectStatus(await server.request('/v1/transcriptions?limit=100'), 200);
    stop();
    return {
      items: listed.transcriptions as Array<{
        id: string; job: { queue: { position: number } | null } | null; broadcasts: Array<{ id: string }>;
      }>,
      queries,
    };
  }

  it('reads queue positions and fed broadcasts together: the same queries for 3 as for 10', async () => {
    await add(2, 1);
    const few = await listCountingQueries();
    await add(4, 3);
    const many = await listCountingQueries();
    expect(few.items).toHaveLength(3);
    expect(many.items).toHaveLength(10);
    expect(many.queries.length).toBe(few.queries.length);
    // Newest first: the six queued jobs stand 6..1 in line, and each item reads as its own GET does.
    expect(many.items.filter((item) => item.job).map((item) => item.job!.queue?.position)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(many.items.filter((item) => item.broadcasts.length === 1)).toHaveLength(4);
    for (const item of many.items) expect(item).toEqual(await expectStatus(await server.request(`/v1/transcriptions/${item.id}`), 200));
  });
});

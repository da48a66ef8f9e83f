/**
 * A private broadcast's password (`POST /v1/listen/{code}/token`) against guessing without locking the audience out:
 * wrong passwords are limited per caller address (10 a minute) and per broadcast from everyone (100 a minute); right
 * ones are not counted, so a crowd behind one address all typing it is fine, and one guesser cannot lock the others
 * out. Parallel guesses are each counted. Addresses come from X-Forwarded-For, which the server trusts from loopback.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

async function privateBroadcast(): Promise<string> {
  const created = await server.postJson('/v1/broadcasts', { name: 'Board room', access: 'private', password: 'right horse battery' });
  expect(created.status).toBe(201);
  return ((await created.json()) as { code: string }).code;
}

const tryPassword = (code: string, password: string, address: string) =>
  server.request(`/v1/listen/${code}/token`, {
    auth: null, method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ password }),
  });

describe('private broadcast passwords', () => {
  it('one guesser is stopped after 10 wrong passwords, the right one included, while everyone else gets in', async () => {
    const code = await privateBroadcast();
    for (let i = 0; i < 10; i++) expect((await tryPassword(code, `guess ${i}`, '203.0.113.7')).status).toBe(403);
    const stopped = await tryPassword(code, 'right horse battery', '203.0.113.7');
    expect(stopped.status).toBe(429);
    expect(stopped.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await stopped.json()).toMatchObject({ code: 'rate_limited', data: { details: { field: 'password' } } });
    expect((await tryPassword(code, 'right horse battery', '198.51.100.20')).status).toBe(201);
  });

  it('right passwords are not counted: a crowd behind one address all gets in', async () => {
    const code = await privateBroadcast();
    for (let i = 0; i < 3; i++) expect((await tryPassword(code, 'a typo', '192.0.2.50')).status).toBe(403);
    // Five at a time: a try holds a place only while its password is checked, then a right one gives it back.
    for (let batch = 0; batch < 5; batch++) {
      const crowd = await Promise.all(Array.from({ length: 5 }, () => tryPassword(code, 'right horse battery', '192.0.2.50')));
      expect(crowd.map((answer) => answer.status)).toEqual(Array(5).fill(201));
    }
  });

  it('parallel guesses from one address are each counted: 10 are judged, the rest refused', async () => {
    const code = await privateBroadcast();
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => tryPassword(code, `burst ${i}`, '203.0.113.99')));
    const statuses = burst.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 403)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it('past 100 wrong passwords a minute from everyone, the broadcast refuses further tries', async () => {
    const code = await privateBroadcast();
    for (let address = 0; address < 10; address++) {
      const answers = await Promise.all(Array.from(
        { length: 10 }, (_, i) => tryPassword(code, `wrong ${address}.${i}`, `198.18.0.${address + 1}`),
      ));
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(403));
    }
    expect((await tryPassword(code, 'one more', '198.18.1.1')).status).toBe(429);
  }, 60_000);
});

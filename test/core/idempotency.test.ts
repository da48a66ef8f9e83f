/**
 * Idempotency-Key on creates: replay with Idempotent-Replayed, 422 on another body, 409 while the first runs,
 * per account.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../rest/route-table.js';
import type { RouteEntry } from '../../rest/types.js';
import { useTestServer } from '../helpers/server.js';

/** A test-only create that holds its answer until the test releases it, to catch a repeat mid-flight. */
let release: () => void = () => undefined;
let started: () => void = () => undefined;
let runs = 0;
const slowCreate: RouteEntry = {
  method: 'post', path: '/v1/test/slow-create', operationId: 'testSlowCreate', tags: ['test'], summary: 'Slow create.',
  auth: { mode: 'userOrKey', scopes: ['write'] }, idempotent: true,
  response: { status: 201, description: 'created' },
  handler: async (req, res) => {
    runs += 1;
    started();
    await new Promise<void>((resolve) => { release = resolve; });
    res.status(201).json({ run: runs, echo: req.body });
  },
};

const server = useTestServer({ routes: [...routeTable, slowCreate] });

const create = (key: string, body: unknown, auth?: string) => server.request('/v1/api-keys', {
  method: 'POST', auth, headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body),
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, and creates once', async () => {
    const key = crypto.randomUUID();
    const first = await create(key, { name: 'ci', scopes: ['read'] });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.json() as { key: string; apiKey: { id: string } };

    // Same body with keys in another order is the same body.
    const second = await create(key, { scopes: ['read'], name: 'ci' });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(firstBody);

    const named = await server.prisma.principal.count({ where: { accountId: server.accountId, displayName: 'ci' } });
    expect(named).toBe(1);
  });

  it('the same key with another body → 422 idempotency_key_reused', async () => {
    const key = crypto.randomUUID();
    expect((await create(key, { name: 'one' })).status).toBe(201);
    const reused = await create(key, { name: 'two' });
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
  });

  it('keys are per account', async () => {
    const key = crypto.randomUUID();
    const other = await server.createAccount();
    const { key: otherKey } = await server.createKey(['*'], { accountId: other });
    const mine = await create(key, { name: 'shared-key' });
    const theirs = await create(key, { name: 'shared-key' }, otherKey);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(((await theirs.json()) as { apiKey: { id: string } }).apiKey.id).not.toBe(
      ((await mine.json()) as { apiKey: { id: string } }).apiKey.id,
    );
  });

  it('a repeat while the first still runs → 409 conflict; after it, the replay', async () => {
    const key = crypto.randomUUID();
    const running = new Promise<void>((resolve) => { started = resolve; });
    const post = () => server.request('/v1/test/slow-create', {
      method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: '{"n":1}',
    });
    const first = post();
    await running;
    const repeat = await post();
    expect(repeat.status).toBe(409);
    expect(await repeat.json()).toMatchObject({ code: 'conflict', status: 409, data: { retryable: true } });
    release();
    const firstAnswer = await first;
    expect(firstAnswer.status).toBe(201);
    const firstBody = await firstAnswer.json();
    const after = await post();
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(await after.json()).toEqual(firstBody);
    expect(runs).toBe(1);
  });

  it('a refused request releases its key: the corrected request runs', async () => {
    const key = crypto.randomUUID();
    const refused = await create(key, { name: 'fixed', colour: 'red' });
    expect(refused.status).toBe(422);
    const corrected = await create(key, { name: 'fixed' });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    expect((await create(key, { name: 'fixed' })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys live 24 hours: past the window the key is free again, and the sweeper removes old records', async () => {
    const key = crypto.randomUUID();
    expect((await create(key, { name: 'day-one' })).status).toBe(201);
    const record = await server.prisma.idempotencyRecord.findFirstOrThrow({ where: { key } });
    const window = record.expiresAt.getTime() - record.createdAt.getTime();
    expect(Math.abs(window - 24 * 3600 * 1000)).toBeLessThan(5000);

    await server.prisma.idempotencyRecord.update({ where: { id: record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const nextDay = await create(key, { name: 'day-two' });
    expect(nextDay.status).toBe(201);
    expect(nextDay.headers.get('idempotent-replayed')).toBeNull();

    await server.prisma.idempotencyRecord.updateMany({ where: { key }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await server.app.services.idempotency.sweep();
    expect(await server.prisma.idempotencyRecord.count({ where: { key } })).toBe(0);
  });

  it('without the header every request runs', async () => {
    const before = await server.prisma.principal.count({ where: { displayName: 'no-key' } });
    for (let i = 0; i < 2; i++) {
      const response = await server.request('/v1/api-keys', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"no-key"}',
      });
      expect(response.status).toBe(201);
    }
    expect(await server.prisma.principal.count({ where: { displayName: 'no-key' } })).toBe(before + 2);
  });
});

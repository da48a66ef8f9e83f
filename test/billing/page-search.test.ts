/**
 * The link probe's web-page searches count against an hourly allowance (the interface's Limits): 2 on credit never
 * paid for, 10 on pay as you go, 20 with a plan; past it 429 rate_limited with retryAfterS. Files do not count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { billingEnv } from '../helpers/billing.js';
import { listenOnLoopback, type Loopback } from '../helpers/loopback.js';
import { PAGE_SEARCHES_PER_HOUR } from '../../src/billing/service.js';

let server: TestServer;
let site: Loopback;

beforeAll(async () => {
  site = await listenOnLoopback((req, res) => {
    if (req.url === '/page.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><audio src="/talk.mp3" title="A talk"></audio></body></html>');
    } else {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': '4' });
      res.end(Buffer.from([0xff, 0xfb, 0x90, 0x00]));
    }
  });
  server = await startTestServer({ env: { ...billingEnv(), LINK_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
});

afterAll(async () => {
  await server?.close();
  await site?.close();
});

async function probe(key: string, path: string) {
  const res = await server.request(`/v1/transcriptions/probe?url=${encodeURIComponent(`${site.url}${path}`)}`, { auth: key });
  return { status: res.status, body: await res.json() };
}

describe('page searches of the link probe', () => {
  it('allow 2 an hour on credit never paid for, then 429 with retryAfterS; files are not counted', async () => {
    const accountId = await server.createAccount('never paid');
    const { key } = await server.createKey(['*'], { accountId });
    for (let i = 0; i < PAGE_SEARCHES_PER_HOUR.neverPaid; i++) {
      const found = await probe(key, '/page.html');
      expect(found.status).toBe(200);
      expect(found.body.media).toHaveLength(1);
    }
    const refused = await probe(key, '/page.html');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', data: { details: { metric: 'page_searches', limit: 2 } } });
    expect(refused.body.data.details.retryAfterS).toBeGreaterThan(0);
    expect((await probe(key, '/talk.mp3')).body).toMatchObject({ kind: 'file', ok: true });
  });

  it('allow 10 on pay as you go once the account has paid', async () => {
    const accountId = await server.createAccount('paid');
    const { key } = await server.createKey(['*'], { accountId });
    await server.app.services.billing.account(accountId);
    await server.prisma.billingAccount.update({ where: { accountId }, data: { hasPaid: true } });
    const statuses = [];
    for (let i = 0; i <= PAGE_SEARCHES_PER_HOUR.payAsYouGo; i++) statuses.push((await probe(key, '/page.html')).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.at(-1)).toBe(429);
  });
});

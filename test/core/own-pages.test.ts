/**
 * The server's own pages take the printed API key, in Chromium: an operator pastes it into GraphiQL (/graphql) or into
 * the API reference's Authorize dialog (/docs) and runs requests. A key from a page of another site stays refused
 * (test/auth/auth-matrix.test.ts: the browser's fetch metadata decides).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
  return { page, problems };
}

describe('the printed API key on the server’s own pages', () => {
  it('GraphiQL: the key typed into the Headers tab, { me { scopes } } run from the editor', async () => {
    const { page, problems } = await open('/graphql');
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    // The editors are Monaco's: typed into as a person would (its closing brackets and quotes are typed over).
    await page.getByRole('button', { name: /^headers$/i }).click();
    await page.locator('.monaco-editor[data-uri*="headers"]').click();
    await page.keyboard.type(`{"Authorization": "Bearer ${server.apiKey}"}`);
    await page.locator('.graphiql-query-editor .monaco-editor').first().click();
    await page.keyboard.press('ControlOrMeta+KeyA');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ me { scopes } }');
    await page.keyboard.press('Escape');
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.graphiql-response .view-lines');
    await expect.poll(async () => ((await result.textContent()) ?? '').replace(/\s+/g, ''), { timeout: 30_000 }).toContain(
      '"scopes":["*"]',
    );
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('/docs: Authorize with the key, then Try it out on GET /v1/me answers 200', async () => {
    const { page, problems } = await open('/docs');
    await page.click('button.authorize', { timeout: 30_000 });
    await page.fill('.modal-ux input[type="text"], .modal-ux input[type="password"]', server.apiKey);
    await page.click('.modal-ux button.authorize');
    await page.click('.modal-ux button.btn-done');
    await page.click('#operations-account-getMe .opblock-summary');
    await page.click('#operations-account-getMe .try-out__btn');
    await page.click('#operations-account-getMe button.execute');
    const status = page.locator('#operations-account-getMe .live-responses-table tr.response .response-col_status').first();
    await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 30_000 }).toBe('200');
    const body = await page.locator(
      '#operations-account-getMe .live-responses-table tr.response .response-col_description pre',
    ).first().textContent();
    expect(JSON.parse(body ?? '{}')).toMatchObject({ apiKeyId: expect.any(String) });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

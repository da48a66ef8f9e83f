/**
 * The SDK in a browser, as a web app would ship it: src/sdk/index.ts bundled by esbuild for the browser (ESM), loaded
 * into chromium on a page of the server's own origin (through the faulty proxy of client.test.ts, so the calls are
 * same-origin and a test can script a 503), then a typed REST call and a file upload from a Blob. In a browser the
 * upload goes through XMLHttpRequest (a fetch body streams only over HTTP/2) and reports its progress from
 * `xhr.upload.onprogress`, under the same retry rules and Idempotency-Key as in Node.
 */
import fs from 'node:fs/promises';
import { build } from 'esbuild';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { fixture } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { startFaultyProxy } from './faulty-proxy.js';

type Sdk = typeof import('../../src/sdk/index.js');

/** What the page holds once the bundle is imported (set by `openSdkPage`). */
declare global {
  interface Window {
    __sdk: Sdk;
  }
}

const server = useTestServer();
let proxy: Awaited<ReturnType<typeof startFaultyProxy>>;
let browser: Browser;
let bundle: string;
let wavBase64: string;
/** A signed-in person's token: a web page calls as a person (the server refuses an API key from a browser, 403 `key_from_browser`). */
let accessToken: string;

beforeAll(async () => {
  const built = await build({
    entryPoints: ['src/sdk/index.ts'], bundle: true, format: 'esm', platform: 'browser', target: 'es2020', write: false, logLevel: 'silent',
  });
  bundle = built.outputFiles[0]!.text;
  wavBase64 = (await fs.readFile(fixture('goforward.wav'))).toString('base64');
  [proxy, browser, { token: accessToken }] = await Promise.all([startFaultyProxy(server.url), launchChromium(), server.createUser()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
});

beforeEach(() => proxy.reset());

interface SdkPage { page: Page; requests: Request[]; close(): Promise<void> }

/**
 * A page on the proxy's origin (its `/v1/health`, a JSON answer with no policy against scripts) with the bundle
 * imported as a module from a blob: URL, exports on `window.__sdk`; every request the page makes is recorded.
 */
async function openSdkPage(): Promise<SdkPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests: Request[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request));
  page.on('pageerror', (error) => problems.push(error.message));
  expect((await page.goto(`${proxy.url}/v1/health`))!.status()).toBe(200);
  // A string, not a function: vitest rewrites an `import()` in this file's functions into its own loader's call.
  await page.evaluate(`import(URL.createObjectURL(new Blob([${JSON.stringify(bundle)}], { type: 'text/javascript' }))).then((sdk) => { `
    + `window.__sdk = sdk; })`);
  expect(problems).toEqual([]);
  proxy.reset(); // the page's own load is not one of the SDK's requests
  return { page, requests, close: () => context.close() };
}

/**
 * Uploads from the page leave at `bytesPerSecond` (chromium's network emulation, through the DevTools protocol): on
 * loopback the whole file would otherwise leave at once, in one progress event, and an abort would come after the
 * last byte.
 */
async function throttleUploads(page: Page, bytesPerSecond = 32 * 1024): Promise<void> {
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('Network.enable');
  await devtools.send('Network.emulateNetworkConditions', {
    offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond,
  });
}

interface BrowserUpload {
  transcription?: { id: string; kind: string; name: string };
  error?: { name: string; code: string; status: number; cause: string | null };
  progress: { loaded: number; total: number }[];
}

/** `client.transcriptions.upload` in the page, of goforward.wav as a File; `abortOnProgress` aborts at the first progress event. */
function uploadInPage(page: Page, options: { abortOnProgress?: boolean } = {}): Promise<BrowserUpload> {
  return page.evaluate(async ({ accessToken, wav, abortOnProgress }) => {
    const bytes = Uint8Array.from(atob(wav), (char) => char.charCodeAt(0));
    const file = new File([bytes], 'speech.wav', { type: 'audio/wav' });
    const client = window.__sdk.createClient({ baseUrl: location.origin, accessToken, sleep: async () => undefined });
    const progress: BrowserUpload['progress'] = [];
    const abort = new AbortController();
    try {
      const transcription = await client.transcriptions.upload(file, { name: 'From a browser', settings: { spokenLanguage: 'en' } }, {
        signal: abort.signal,
        onProgress: (event) => {
          progress.push(event);
          if (abortOnProgress) abort.abort();
        },
      });
      return { transcription, progress };
    } catch (caught) {
      const error = caught as InstanceType<Sdk['SpeechgateError']>;
      const cause = error.cause as Error | undefined;
      return { error: { name: error.name, code: error.code, status: error.status, cause: cause?.name ?? null }, progress };
    }
  }, { accessToken, wav: wavBase64, abortOnProgress: options.abortOnProgress ?? false });
}

const uploadRequests = (requests: Request[]) => requests.filter(
  (request) => request.method() === 'POST' && new URL(request.url()).pathname === '/v1/transcriptions',
);

describe('the SDK bundled for a browser', () => {
  it('makes a typed REST call with the page\'s fetch', async () => {
    const opened = await openSdkPage();
    const me = await opened.page.evaluate(async (token) => {
      const { data, response } = await window.__sdk.createClient({ baseUrl: location.origin, accessToken: token }).GET('/v1/me');
      return { status: response.status, accountId: data!.account.id };
    }, accessToken);
    expect(me).toEqual({ status: 200, accountId: server.accountId });
    expect(opened.requests.filter((request) => request.url().endsWith('/v1/me')).map((request) => request.resourceType())).toEqual(
      ['fetch'],
    );
    await opened.close();
  }, 60_000);

  it('uploads a Blob with XMLHttpRequest: progress rises to the file size and the transcription is created', async () => {
    const size = (await fs.stat(fixture('goforward.wav'))).size;
    const opened = await openSdkPage();
    await throttleUploads(opened.page);
    const result = await uploadInPage(opened.page);
    expect(result.error).toBeUndefined();
    expect(result.transcription).toMatchObject({ kind: 'file', name: 'From a browser' });
    expect(result.transcription!.id).toMatch(/\S/);
    expect(proxy.seen).toEqual([expect.objectContaining({ method: 'POST', path: '/v1/transcriptions', answer: 201 })]);
    expect(proxy.seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(uploadRequests(opened.requests).map((request) => request.resourceType())).toEqual(['xhr']);

    // Throttled to ~3 s, the browser reports the body as it leaves in steps.
    expect(result.progress.length).toBeGreaterThan(2);
    expect(result.progress.every((event) => event.total === size)).toBe(true);
    const loaded = result.progress.map((event) => event.loaded);
    expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
    expect(new Set(loaded).size).toBe(loaded.length);
    expect(loaded.at(-1)).toBe(size);

    const read = await server.request(`/v1/transcriptions/${result.transcription!.id}`);
    expect(read.status).toBe(200);
    await opened.close();
  }, 60_000);

  it('an upload refused with 503 is sent again whole under the same key; progress starts over', async () => {
    const size = (await fs.stat(fixture('goforward.wav'))).size;
    const opened = await openSdkPage();
    await throttleUploads(opened.page);
    proxy.fail({ status: 503, retryAfter: '0' });
    const result = await uploadInPage(opened.page);
    expect(result.transcription).toMatchObject({ kind: 'file', name: 'From a browser' });
    expect(proxy.seen.map((request) => request.answer)).toEqual(['fault', 201]);
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
    // Each attempt rises from its first step to the whole file.
    const loaded = result.progress.map((event) => event.loaded);
    expect(loaded.filter((bytes) => bytes === size)).toHaveLength(2);
    expect(loaded.filter((bytes, index) => index > 0 && bytes < loaded[index - 1]!)).toHaveLength(1);
    expect(loaded.filter((bytes) => bytes > 0 && bytes < size).length).toBeGreaterThan(2);
    expect(uploadRequests(opened.requests).map((request) => request.resourceType())).toEqual(['xhr', 'xhr']);
    await opened.close();
  }, 60_000);

  it('a 429 whose Retry-After is too long surfaces as the server\'s error, the body read from the XHR answer', async () => {
    const opened = await openSdkPage();
    proxy.fail({ status: 429, retryAfter: '3600' });
    const result = await uploadInPage(opened.page);
    expect(result.error).toEqual({ name: 'SpeechgateError', code: 'rate_limited', status: 429, cause: null });
    expect(proxy.seen).toHaveLength(1);
    await opened.close();
  }, 60_000);

  it('the signal aborts the upload mid-way: network_error caused by the abort, not retried, the body never complete', async () => {
    const opened = await openSdkPage();
    await throttleUploads(opened.page, 8 * 1024); // ~11 s for the file: the first progress event comes long before its end
    const result = await uploadInPage(opened.page, { abortOnProgress: true });
    expect(result.error).toEqual({ name: 'SpeechgateError', code: 'network_error', status: 0, cause: 'AbortError' });
    expect(result.transcription).toBeUndefined();
    expect(result.progress).toHaveLength(1);
    expect(result.progress[0]!.loaded).toBeLessThan(result.progress[0]!.total);
    expect(uploadRequests(opened.requests)).toHaveLength(1);
    // The proxy records a request once its body ended: this one never did, so nothing reached the server.
    expect(proxy.seen).toEqual([]);
    await opened.close();
  }, 60_000);
});

/**
 * The listener page (`/b/<code>`, a broadcast's `shareUrl`) in a real browser: Debian's chromium driven by
 * playwright-core (CHROMIUM_PATH, default /usr/bin/chromium). Real speech is published into a broadcast's recording
 * and the page must show the committed lines exactly as the owner's transcript has them, in order, none doubled —
 * also after its socket is cut while the publisher goes on. A private broadcast asks its password first. The page
 * loads nothing from another host, and its answer carries a Content-Security-Policy saying so.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealtimeConnection, streamFile } from '../helpers/realtime-client.js';
import { launchChromium } from '../helpers/browser.js';
import { eventually } from '../helpers/fixtures.js';
import { json } from '../helpers/http.js';
import { fileChunks, GO_FORWARD, GO_FORWARD_TEXT, LECTURE, normalise } from '../helpers/realtime.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** What the page exposes for tests (rest/pages/listener/listener.js). */
declare global {
  interface Window {
    __listener: {
      dropSocket(): void; reconnects: number; connected: boolean;
      page: { audio: { context: AudioContext | null }; current: { subscription: { status: string } | null } | null };
    };
  }
}

let server: TestServer;
let browser: Browser;
const opened: BrowserContext[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ env: { REALTIME_SECRET: 'listener-page-secret-0123456789abcdef' } }),
    launchChromium(),
  ]);
}, 180_000);

afterAll(async () => {
  for (const context of opened) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
});

const unique = () => Math.random().toString(36).slice(2, 8);

interface Broadcast { id: string; code: string; shareUrl: string }
interface Grant { streamUrl: string; recording: { id: string; transcriptionId: string } }
interface Line { seq: number; text: string }

async function createBroadcast(body: Record<string, unknown> = {}): Promise<Broadcast> {
  const response = await server.postJson('/v1/broadcasts', {
    name: `Listener page ${unique()}`, settings: { spokenLanguage: 'en' }, ...body,
  });
  const created = await json(response);
  expect(response.status, JSON.stringify(created)).toBe(201);
  return created as Broadcast;
}

async function startRecording(broadcast: Broadcast): Promise<Grant> {
  const response = await server.postJson(`/v1/broadcasts/${broadcast.id}/recordings`, {});
  const grant = await json(response);
  expect(response.status, JSON.stringify(grant)).toBe(201);
  return grant as Grant;
}

const UNCLEAR = 'Audio unclear';

interface Segment { seq: number; text: string; suppressed?: boolean | null }

/** A recording's committed segments: with the owner's key, or as a listener reads them (`query`: its credential, if any). */
async function segmentsOf(recordingId: string, listener?: { query: string }): Promise<Segment[]> {
  const response = await server.request(`/v1/recordings/${recordingId}/transcript${listener?.query ?? ''}`, listener ? { auth: null } : {});
  return (await json(response)).segments as Segment[];
}

/**
 * The owner's transcript as the page should show it: one line per committed segment, in seq order, with the
 * segment's text — or "Audio unclear" where a listener's read of the same transcript says the segment is
 * suppressed (under the broadcast's confidence policy; the owner still sees its words).
 */
async function expectedLines(recordingId: string, listener: { query: string }): Promise<Line[]> {
  const [owner, heard] = await Promise.all([segmentsOf(recordingId), segmentsOf(recordingId, listener)]);
  expect(heard.map((segment) => segment.seq)).toEqual(owner.map((segment) => segment.seq));
  return owner.map((segment, index) => ({ seq: segment.seq, text: heard[index]!.suppressed ? UNCLEAR : segment.text.trim() }));
}

const ownerLineCount = async (recordingId: string) => (await segmentsOf(recordingId)).length;

/** The page's caption lines (of one recording, when given), in document order. */
const pageLines = (page: Page, recordingId?: string): Promise<Line[]> =>
  page.$$eval(`#captions li[data-seq]${recordingId ? `[data-recording="${recordingId}"]` : ''}`, (items) =>
    items.map((item) => ({ seq: Number((item as HTMLElement).dataset.seq), text: item.textContent ?? '' })));

/**
 * Waits until the page shows exactly the owner's committed lines (at least `atLeast` of them): same seqs, same text,
 * same order, none doubled.
 */
async function expectSameLines(
  page: Page, recordingId: string, listener: { query: string }, atLeast = 1, timeoutMs = 120_000,
): Promise<Line[]> {
  const lines = await eventually(async () => {
    const [expected, shown] = await Promise.all([expectedLines(recordingId, listener), pageLines(page, recordingId)]);
    expect(expected.length).toBeGreaterThanOrEqual(atLeast);
    expect(shown).toEqual(expected);
    return shown;
  }, timeoutMs, 250);
  expect(new Set(lines.map((line) => line.seq)).size).toBe(lines.length);
  return lines;
}

/** Some lines are words: a page of nothing but "Audio unclear" would prove little. */
function expectWords(lines: Line[]): void {
  expect(lines.filter((line) => line.text !== UNCLEAR).length).toBeGreaterThan(0);
}

const PUBLIC = { query: '' };

interface Opened { page: Page; context: BrowserContext; requests: string[]; problems: string[] }

/** A fresh browser context (phone-sized) on `url`, recording every request, socket, page error and CSP refusal. */
/** `watch` sees the page before it loads: its sockets open as its script runs, perhaps before `goto` returns. */
async function openPage(url: string, watch: (page: Page) => void = () => undefined): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 412, height: 860 }, deviceScaleFactor: 1 });
  opened.push(context);
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('websocket', (socket) => requests.push(socket.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  watch(page);
  await page.goto(url);
  return { page, context, requests, problems };
}

/** Nothing but this server was asked for anything, and the page raised no error and broke no policy. */
function expectOnlyThisServer({ requests, problems }: Opened): void {
  const host = new URL(server.url).host;
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((url) => !url.startsWith('data:') && new URL(url).host !== host)).toEqual([]);
  expect(problems).toEqual([]);
}

const statusText = (page: Page) => page.textContent('#status');

/**
 * Speaks the lecture into a publisher at twice real time, over and over until stopped: audio keeps arriving as from
 * a microphone, so the engine's passes go on and lines keep being committed (LocalAgreement commits what two passes
 * agree on, so audio that stops arriving leaves its last words uncommitted until the end of the stream).
 */
function speak(publisher: RealtimeConnection, chunks: Float32Array[]): { stop(): Promise<void> } {
  let stopped = false;
  const speaking = (async () => {
    for (let index = 0; !stopped && publisher.ws.readyState === publisher.ws.OPEN; index += 1) {
      publisher.sendPcm(chunks[index % chunks.length]!);
      await new Promise((resolve) => setTimeout(resolve, 100)); // 200 ms chunks every 100 ms
    }
  })();
  return { stop: async () => { stopped = true; await speaking; } };
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('the listener page', () => {
  it('is served with its script and styles from this server, under a strict Content-Security-Policy', async () => {
    const response = await fetch(`${server.url}/b/some-code`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toMatch(/connect-src 'self'/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).toContain('<meta name="viewport"');
    expect(html).toContain('aria-live="polite"');
    for (const [asset, type] of [['listener.js', /^text\/javascript/], ['listener.css', /^text\/css/]] as const) {
      expect(html).toContain(`/b/_assets/${asset}`);
      const served = await fetch(`${server.url}/b/_assets/${asset}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toMatch(type);
      expect(await served.text()).not.toMatch(/https?:\/\//);
    }
    // The SDK's subscribe module, bundled for the page and imported by its script: the page follows recordings with it.
    expect(html).toContain('/b/_assets/sdk-subscribe.js');
    expect(await (await fetch(`${server.url}/b/_assets/listener.js`)).text()).toMatch(
      /import \{ subscribeRecording \} from '\.\/sdk-subscribe\.js'/,
    );
    const sdk = await fetch(`${server.url}/b/_assets/sdk-subscribe.js`);
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(sdk.headers.get('cache-control')).toBe('no-cache');
    const sdkSource = await sdk.text();
    expect(sdkSource).toMatch(/^export \{[^}]*\bsubscribeRecording\b[^}]*\};?\s*$/m);
    expect(sdkSource).toContain('subscribe.update'); // the procedure itself, not a stub
    expect(sdkSource).not.toMatch(/^\s*import\b/m); // one module: the page's policy loads nothing else
    expect(await (await fetch(`${server.url}/b/_assets/sdk-subscribe.js`)).text()).toBe(sdkSource); // built once, kept
    const unknown = await fetch(`${server.url}/b/_assets/secrets.json`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe('not_found');
  });

  it('says so when the broadcast does not exist, or is archived', async () => {
    const archived = await createBroadcast();
    expect((await server.postJson(`/v1/broadcasts/${archived.id}/archive`, {})).status).toBe(200);
    for (const url of [`${server.url}/b/no-such-broadcast-${unique()}`, archived.shareUrl]) {
      const opened = await openPage(url);
      await opened.page.locator('#missing').waitFor({ state: 'visible' });
      expect(await opened.page.isHidden('#player')).toBe(true);
      expect(await opened.page.isHidden('#password-form')).toBe(true);
      expect(await statusText(opened.page)).toMatch(/does not exist/);
      expectOnlyThisServer(opened);
    }
  });

  it('follows a public broadcast: a recording started after the page opened, real speech, exactly the committed lines', async () => {
    const broadcast = await createBroadcast();
    const opened = await openPage(broadcast.shareUrl);
    const { page } = opened;
    await page.locator('#player').waitFor({ state: 'visible' });
    // The page's script imported the SDK's subscribe module: what follows runs the SDK's procedure.
    expect(opened.requests).toContain(`${server.url}/b/_assets/sdk-subscribe.js`);
    await eventually(async () => expect(await statusText(page)).toMatch(/Waiting for the broadcast to start/), 60_000);
    expect(await page.getAttribute('#captions', 'aria-live')).toBe('polite');
    // The spoken language first, then what translation serves (Apertium here).
    expect(await page.$$eval('#lang option', (options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual([
      'en', 'ca', 'es', 'gl',
    ]);

    // The recording starts after the page opened: the broadcast's events socket tells the page to follow it.
    const grant = await startRecording(broadcast);
    const published = await streamFile(grant.streamUrl, LECTURE, { realtime: false, durationS: 40 });
    expect(published.errors).toEqual([]);
    expect(published.commits.length).toBeGreaterThan(0);
    const lines = await expectSameLines(page, grant.recording.id, PUBLIC, published.commits.length);
    // What the publisher was sent as committed is what the page shows (but for lines a listener gets as unclear).
    expect(lines.map((line) => line.seq)).toEqual(published.commits.map((segment) => segment.seq));
    lines.forEach((line, index) => { if (line.text !== UNCLEAR) expect(line.text).toBe(published.commits[index]!.text.trim()); });
    expect(await page.getAttribute('#state', 'data-state')).toBe('live');
    expect(await page.isEnabled('#listen')).toBe(true);

    // Paused and stopped: the page says so, and once finalized (the final pass may amend lines in place) it still
    // shows exactly the transcript, and lets the socket go.
    expect((await server.postJson(`/v1/recordings/${grant.recording.id}/pause`, {})).status).toBe(200);
    await eventually(async () => expect(await page.getAttribute('#state', 'data-state')).toBe('paused'), 60_000);
    expect((await server.postJson(`/v1/recordings/${grant.recording.id}/stop`, {})).status).toBe(200);
    await eventually(async () => expect(await page.getAttribute('#state', 'data-state')).toBe('finalized'), 120_000, 250);
    expect(await statusText(page)).toMatch(/Finished/);
    expect(await page.isDisabled('#listen')).toBe(true);
    const final = await expectSameLines(page, grant.recording.id, PUBLIC, lines.length);
    expectWords(final);
    expect(await page.evaluate(() => window.__listener.page.current?.subscription?.status)).toBe('closed');

    // The next recording of the broadcast: the page follows it under a divider, and the first one's lines stay.
    const next = await startRecording(broadcast);
    const again = await streamFile(next.streamUrl, GO_FORWARD, { realtime: false });
    expect(again.commits.length).toBeGreaterThan(0);
    await expectSameLines(page, next.recording.id, PUBLIC, again.commits.length);
    expect(await pageLines(page, grant.recording.id)).toEqual(final);
    expect(await page.$$eval('#captions li.divider', (items) => items.map((item) => (item as HTMLElement).dataset.recording))).toEqual(
      [grant.recording.id, next.recording.id],
    );
    expect(await page.getAttribute('#state', 'data-state')).toBe('live');

    // What a listener sees: a real image with the lines in it.
    const captions = (await page.textContent('#captions')) ?? '';
    for (const line of [...final, ...(await pageLines(page, next.recording.id))]) expect(captions).toContain(line.text);

    const shot = await page.screenshot({ fullPage: true });
    await fs.writeFile(path.join(os.tmpdir(), 'speechgate-listener-page.png'), shot);
    const size = pngSize(shot);
    expect(size.width).toBe(412);
    expect(size.height).toBeGreaterThanOrEqual(400);
    expect(shot.length).toBeGreaterThan(10_000); // lines of text, not a blank page
    const captionShot = await page.locator('#captions').screenshot();
    expect(pngSize(captionShot).height).toBeGreaterThan((final.length + 1) * 20);

    // Another language: the page reads the transcript again in it, and the lines read in Spanish.
    await page.selectOption('#lang', 'es');
    await eventually(
      async () => expect((await pageLines(page, next.recording.id)).map((line) => line.text).join(' ').toLowerCase()).toMatch(/metros/),
      60_000, 250,
    );

    expectOnlyThisServer(opened);
  }, 240_000);

  it('asks a private broadcast\'s password: a wrong one says so, the right one shows the captions and is kept for a reload', async () => {
    const broadcast = await createBroadcast({ access: 'private', password: 'open sesame' });
    const grant = await startRecording(broadcast);
    const published = await streamFile(grant.streamUrl, GO_FORWARD, { realtime: false });
    expect(published.commits.length).toBeGreaterThan(0);

    const opened = await openPage(broadcast.shareUrl);
    const { page } = opened;
    await page.locator('#password-form').waitFor({ state: 'visible' });
    expect(await page.isHidden('#player')).toBe(true);
    expect(await page.getAttribute('#password', 'type')).toBe('password');
    expect(await page.textContent('label[for="password"]')).toMatch(/Password/);

    await page.fill('#password', 'open says me');
    await page.press('#password', 'Enter');
    await page.locator('#password-error').waitFor({ state: 'visible' });
    expect(await page.textContent('#password-error')).toMatch(/Wrong password/);
    expect(await page.isHidden('#player')).toBe(true);

    await page.fill('#password', 'open sesame');
    await page.click('#password-submit');
    await page.locator('#player').waitFor({ state: 'visible' });
    expect(await page.isHidden('#password-form')).toBe(true);
    const token = await page.evaluate((code) => sessionStorage.getItem(`sg-listener:${code}`), broadcast.code);
    expect(token).toBeTruthy();
    const listener = { query: `?listenerToken=${encodeURIComponent(token!)}` };
    const lines = await expectSameLines(page, grant.recording.id, listener, published.commits.length);
    expectWords(lines);
    expect(normalise(lines.map((line) => line.text).join(' '))).toMatch(GO_FORWARD_TEXT);

    // The token is kept for the tab: a reload shows the captions without asking again.
    await page.reload();
    await page.locator('#player').waitFor({ state: 'visible' });
    expect(await page.isHidden('#password-form')).toBe(true);
    await expectSameLines(page, grant.recording.id, listener, published.commits.length);
    expectOnlyThisServer(opened);
  }, 240_000);

  it('resumes after its socket is cut while the publisher goes on: no line missing, none doubled; live audio on a tap', async () => {
    const broadcast = await createBroadcast();
    const grant = await startRecording(broadcast);
    // Binary frames (live audio) that reached the page, per subscribe socket it opened.
    const audioFrames: number[] = [];
    const opened = await openPage(broadcast.shareUrl, (watched) => watched.on('websocket', (socket) => {
      if (!socket.url().includes('/subscribe')) return;
      const index = audioFrames.push(0) - 1;
      socket.on('framereceived', ({ payload }) => { if (typeof payload !== 'string') audioFrames[index]! += 1; });
    }));
    const { page, context } = opened;
    await page.locator('#player').waitFor({ state: 'visible' });

    const publisher = new RealtimeConnection(grant.streamUrl, { readyTimeoutS: 180 });
    await publisher.ready();

    // The speaker starts: the page shows the first lines live. A tap on Listen asks for the audio.
    await eventually(async () => expect(await page.isEnabled('#listen')).toBe(true), 60_000);
    await page.click('#listen');
    expect(await page.getAttribute('#listen', 'aria-pressed')).toBe('true');
    const speaker = speak(publisher, await fileChunks(LECTURE));
    await expectSameLines(page, grant.recording.id, PUBLIC, 1);
    await eventually(() => expect(audioFrames.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0), 60_000);
    expect(await page.evaluate(() => window.__listener.page.audio.context?.state)).toBe('running');

    // The network goes away and the socket with it; the speaker goes on and more is committed meanwhile.
    await context.setOffline(true);
    await page.evaluate(() => window.__listener.dropSocket());
    await eventually(async () => expect(await statusText(page)).toMatch(/reconnecting/i), 60_000);
    const shownWhileCut = (await pageLines(page)).length;
    await eventually(async () => expect(await ownerLineCount(grant.recording.id)).toBeGreaterThan(shownWhileCut), 120_000, 250);
    expect((await pageLines(page)).length).toBe(shownWhileCut);

    // Back online: the page resumes after its cursor, catches up, and follows the rest live, audio included.
    await context.setOffline(false);
    await page.waitForFunction(() => window.__listener.connected, undefined, { timeout: 60_000 });
    await eventually(() => expect(audioFrames.at(-1)!).toBeGreaterThan(0), 60_000);
    await speaker.stop();
    publisher.eof();
    const result = await publisher.closed;
    expect(result.errors).toEqual([]);
    const lines = await expectSameLines(page, grant.recording.id, PUBLIC, result.commits.length);
    expect(lines.length).toBeGreaterThan(shownWhileCut);
    expectWords(lines);
    expect(opened.requests.filter((url) => /\/subscribe\?.*after=\d+/.test(url)).length).toBeGreaterThan(0);
    expect(await page.evaluate(() => window.__listener.reconnects)).toBeGreaterThanOrEqual(1);
    expect(await statusText(page)).toMatch(/Live/);
    expectOnlyThisServer(opened);
  }, 240_000);
});

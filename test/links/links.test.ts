import { readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config/index.js';
import {
  fetchLinkToFile,
  linkFetchPolicyOf,
  probeLink,
  refusedAddressReason,
  type FetchProgress,
  type LinkFetchPolicy,
} from '../../src/links/index.js';
import { fixture } from '../helpers/fixtures.js';

const speech = await readFile(fixture('goforward.wav'));
let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/speech.wav':
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': speech.length });
        return res.end(speech);
      case '/octet':
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': speech.length });
        return res.end(speech);
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to')! });
        return res.end();
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        return res.end();
      case '/page.html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<html><head><title>Lecture</title><meta property="og:audio" content="/og.mp3"></head><body>'
            + '<audio src="speech.wav"></audio><a href="https://cdn.example.org/ep1.mp3?x=1&amp;y=2">Episode 1</a><a '
              + 'href="/about">About</a></body></html>',
        );
      case '/empty.html':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>nothing here</body></html>');
      case '/radio':
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'icy-name': 'Test FM' });
        res.write(Buffer.alloc(1024));
        return; // never ends, like a radio stream; the probe must not wait for it
      case '/missing':
        res.writeHead(404);
        return res.end();
      case '/chunked-big':
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.write(Buffer.alloc(40_000));
        res.write(Buffer.alloc(40_000));
        return res.end();
      default:
        res.writeHead(404);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const allowLoopback: LinkFetchPolicy = linkFetchPolicyOf(loadConfig({ LINK_FETCH_ALLOW_HOSTS: '127.0.0.1' }).transcriptions);
const strict: LinkFetchPolicy = linkFetchPolicyOf(loadConfig({}).transcriptions);
const tmp = (name: string) => path.join(os.tmpdir(), `sg-links-${process.pid}-${name}`);

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e as { code: string; status: number; message: string; details: Record<string, unknown> },
  );
  expect(error, 'the fetch must be refused').not.toBeNull();
  return error!;
}

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'this-network'],
    ['::1', 'loopback'],
    ['fd00:ec2::254', 'unique-local (private; includes fd00:ec2::254 cloud metadata)'],
    ['fe80::1', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    // Transition spellings that carry an IPv4 address: compatible, translated, 6to4, NAT64.
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local (cloud metadata)'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b:1::5', 'local-use NAT64'],
    ['64:ff9b:1:abcd::8.8.8.8', 'local-use NAT64'],
    ['2001::1', 'Teredo tunnel'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo tunnel'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
  ])('refuses %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });
  it.each(
    ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '2002:808:808::1', '64:ff9b::8.8.8.8', '2001:4860:4860::8888'],
  )('allows public %s', (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });
});

describe('link fetching', () => {
  it('downloads an allowed link with progress and the file name', async () => {
    const destination = tmp('ok.wav');
    const progress: FetchProgress[] = [];
    const fetched = await fetchLinkToFile(`${base}/speech.wav`, destination, {
      policy: allowLoopback,
      maxBytes: 1_000_000,
      onProgress: (p) => progress.push(p),
    });
    expect(fetched.bytes).toBe(speech.length);
    expect(fetched.fileName).toBe('speech.wav');
    expect((await stat(destination)).size).toBe(speech.length);
    expect(progress[0]).toEqual({ fetchedBytes: 0, fetchTotalBytes: speech.length });
    expect(progress.at(-1)).toEqual({ fetchedBytes: speech.length, fetchTotalBytes: speech.length });
    await rm(destination);
  });

  it('refuses loopback by default', async () => {
    const error = await refusal(fetchLinkToFile(`${base}/speech.wav`, tmp('x'), { policy: strict, maxBytes: 1e6 }));
    expect(error).toMatchObject({ code: 'invalid_options', status: 400 });
    expect(error.message).toMatch(/^url /);
    // The refusal says how an operator lets the server read links on its own network.
    expect(error.message).toContain('LINK_FETCH_ALLOW_HOSTS');
    expect(error.details).toMatchObject({ field: 'url', problem: 'link_refused', reason: 'loopback' });
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'link-local (cloud metadata)'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'unique-local (private; includes fd00:ec2::254 cloud metadata)'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'internal host name'],
    ['http://10.0.0.1/a.mp3', 'private'],
    ['http://[::1]:1/a.mp3', 'loopback'],
    ['http://[::ffff:7f00:1]/a.mp3', 'loopback'],
    ['http://0x7f000001/a.mp3', 'loopback'],
  ])('refuses %s', async (url, reason) => {
    // WHATWG URL parsing turns 0x7f000001 into 127.0.0.1 before any check, so spelling tricks land on the same rule.
    const error = await refusal(fetchLinkToFile(url, tmp('x'), { policy: strict, maxBytes: 1e6 }));
    expect(error.details).toMatchObject({ problem: 'link_refused', reason });
  });

  it('refuses a DNS name that resolves to loopback even when 127.0.0.1 itself is allowed', async () => {
    const error = await refusal(fetchLinkToFile(`http://localhost:${port}/speech.wav`, tmp('x'), { policy: allowLoopback, maxBytes: 1e6 }));
    expect(error.details).toMatchObject({ problem: 'link_refused' });
  });

  it('checks the address the socket connects to: a public-looking name answering a private address is refused', async () => {
    let lookups = 0;
    const hostileDns = ((_host: string, _options: unknown, callback: (e: null, a: Array<{ address: string; family: number }>) => void) => {
      lookups += 1;
      callback(null, [{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.7', family: 4 }]);
    }) as never;
    const error = await refusal(
      fetchLinkToFile('http://media.example.test/a.mp3', tmp('x'), { policy: allowLoopback, maxBytes: 1e6, lookup: hostileDns }),
    );
    expect(lookups).toBe(1);
    expect(error.details).toMatchObject({ problem: 'link_refused', reason: 'private' });
  });

  it('re-checks every redirect hop', async () => {
    const toMetadata = `${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`;
    expect((await refusal(fetchLinkToFile(toMetadata, tmp('x'), { policy: allowLoopback, maxBytes: 1e6 }))).details).toMatchObject({
      problem: 'link_refused',
      reason: 'link-local (cloud metadata)',
    });
    const toLocalhost = `${base}/redirect?to=${encodeURIComponent(`http://localhost:${port}/speech.wav`)}`;
    expect((await refusal(fetchLinkToFile(toLocalhost, tmp('x'), { policy: allowLoopback, maxBytes: 1e6 }))).details).toMatchObject({
      problem: 'link_refused',
    });
    const toFile = `${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`;
    expect((await refusal(fetchLinkToFile(toFile, tmp('x'), { policy: allowLoopback, maxBytes: 1e6 }))).message).toContain('http or https');
    // An allowed redirect is followed.
    const fine = await fetchLinkToFile(`${base}/redirect?to=/speech.wav`, tmp('r.wav'), { policy: allowLoopback, maxBytes: 1e6 });
    expect(fine.bytes).toBe(speech.length);
    await rm(tmp('r.wav'));
  });

  it('bounds redirects', async () => {
    const error = await refusal(fetchLinkToFile(`${base}/loop`, tmp('x'), { policy: allowLoopback, maxBytes: 1e6 }));
    expect(error.details).toMatchObject({ problem: 'too_many_redirects' });
  });

  it('caps the size by the declared length and while streaming, keeping nothing', async () => {
    const declared = await refusal(fetchLinkToFile(`${base}/speech.wav`, tmp('big1'), { policy: allowLoopback, maxBytes: 1000 }));
    expect(declared.details).toMatchObject({ problem: 'too_large', limit: 1000 });
    const streamed = await refusal(fetchLinkToFile(`${base}/chunked-big`, tmp('big2'), { policy: allowLoopback, maxBytes: 50_000 }));
    expect(streamed.details).toMatchObject({ problem: 'too_large' });
    await expect(stat(tmp('big2'))).rejects.toThrow();
  });

  it('reports an HTTP error status', async () => {
    const error = await refusal(fetchLinkToFile(`${base}/missing`, tmp('x'), { policy: allowLoopback, maxBytes: 1e6 }));
    expect(error.details).toMatchObject({ problem: 'link_http_error', httpStatus: 404 });
  });
});

describe('probe', () => {
  it('recognises a media file, also by its bytes', async () => {
    expect(await probeLink(`${base}/speech.wav`, { policy: allowLoopback })).toMatchObject({
      kind: 'file', ok: true, problem: null, bytes: speech.length,
    });
    expect(await probeLink(`${base}/octet`, { policy: allowLoopback })).toMatchObject({ kind: 'file', ok: true });
  });

  it('recognises internet radio without waiting for the endless body', async () => {
    expect(await probeLink(`${base}/radio`, { policy: allowLoopback })).toMatchObject({ kind: 'live', ok: true, source: 'radio' });
  });

  it('lists the media of a web page with titles and absolute URLs', async () => {
    const record = await probeLink(`${base}/page.html`, { policy: allowLoopback });
    expect(record).toMatchObject({ kind: 'unknown', ok: true });
    expect(record.media).toEqual([
      { url: `${base}/speech.wav`, title: 'Lecture' },
      { url: `${base}/og.mp3`, title: 'Lecture' },
      { url: 'https://cdn.example.org/ep1.mp3?x=1&y=2', title: 'Episode 1' },
    ]);
    const empty = await probeLink(`${base}/empty.html`, { policy: allowLoopback });
    expect(empty).toMatchObject({ ok: false, media: [] });
    expect(empty.problem).toMatch(/web page/);
  });

  it('reports failures in the record and refuses internal addresses', async () => {
    expect(await probeLink(`${base}/missing`, { policy: allowLoopback })).toMatchObject({
      ok: false, problem: 'The link answered HTTP 404.',
    });
    expect(await probeLink('https://www.youtube.com/watch?v=x', { policy: allowLoopback })).toMatchObject({ ok: false, source: 'youtube' });
    await refusal(probeLink(`${base}/speech.wav`, { policy: strict }));
    await refusal(probeLink('http://169.254.169.254/', { policy: allowLoopback }));
  });
});

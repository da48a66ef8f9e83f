/**
 * Every page we serve works without internet: GraphiQL (GET /graphql from a browser) and the API reference (/docs)
 * load their scripts, styles, fonts and workers from this server only, and each of those answers 200.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer({ workers: [] });

/** Hosts that serve page assets (scripts, styles, fonts): naming one in a served page or asset means loading from the internet. */
const CDN_HOSTS = [
  'unpkg.com', 'cdn.jsdelivr.net', 'cdnjs.cloudflare.com', 'fonts.googleapis.com', 'fonts.gstatic.com', 'raw.githubusercontent.com',
  'esm.sh',
];
const CDN = new RegExp(`\\b(${CDN_HOSTS.map((host) => host.replaceAll('.', '\\.')).join('|')})\\b`, 'g');

/** src= and href= attributes of the HTML, outside inline scripts (whose text is code, not markup). */
function attributeUrls(html: string): string[] {
  const markup = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, (tag) => tag.slice(0, tag.indexOf('>') + 1));
  return [...markup.matchAll(/\s(?:src|href)\s*=\s*["']?([^"'\s>]+)/gi)].map((match) => match[1]!);
}

/** Strings an inline script hands the browser as URLs to load: absolute or rooted paths in quotes. */
function scriptUrls(html: string): string[] {
  const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)].map((match) => match[1]!);
  return scripts.flatMap((script) => [...script.matchAll(
    /["'`]((?:https?:)?\/\/[^"'`\s]+|\/[A-Za-z0-9_./-]+\.(?:js|css|json|ico|png|woff2?))["'`]/g,
  )].map((match) => match[1]!));
}

/** @import and url() of a stylesheet, data: URIs aside. */
function cssUrls(css: string): string[] {
  const urls = [
    ...[...css.matchAll(/@import\s+(?:url\()?\s*["']?([^"')\s;]+)/g)].map((match) => match[1]!),
    ...[...css.matchAll(/url\(\s*["']?([^"')]+?)["']?\s*\)/g)].map((match) => match[1]!),
  ];
  return urls.filter((url) => !url.startsWith('data:') && !url.startsWith('#'));
}

/** Fetches a page and everything it references, following stylesheets; returns each URL's status. */
async function crawl(pagePath: string): Promise<Map<string, number>> {
  const origin = new URL(server.url).origin;
  const page = await server.request(pagePath, { auth: null, headers: { accept: 'text/html' } });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  const html = await page.text();
  expect(html.match(CDN), `${pagePath} names a CDN`).toBeNull();
  const seen = new Map<string, number>();
  const queue = [...attributeUrls(html), ...scriptUrls(html)].map((url) => new URL(url, `${origin}${pagePath}`));
  expect(queue.length, `${pagePath} references nothing`).toBeGreaterThan(1);
  while (queue.length) {
    const url = queue.shift()!;
    if (url.protocol === 'data:') continue;
    expect(url.origin, `${pagePath} loads ${url.href} from another host`).toBe(origin);
    if (seen.has(url.href)) continue;
    const response = await server.request(url.pathname + url.search, { auth: null });
    seen.set(url.href, response.status);
    const type = response.headers.get('content-type') ?? '';
    const text = await response.text();
    if (/css/.test(type)) queue.push(...cssUrls(text).map((ref) => new URL(ref, url)));
    if (/css|javascript/.test(type)) expect(text.match(CDN), `${url.pathname} names a CDN`).toBeNull();
  }
  return seen;
}

describe('pages work offline', () => {
  it('GraphiQL loads its script, styles and editor workers from this server', async () => {
    const loaded = await crawl('/graphql');
    for (const [url, status] of loaded) expect(status, url).toBe(200);
    const paths = [...loaded.keys()].map((url) => new URL(url).pathname);
    expect(paths).toEqual(expect.arrayContaining([
      '/graphiql/graphiql.js', '/graphiql/graphiql.css', '/graphiql/editor.worker.js', '/graphiql/json.worker.js',
      '/graphiql/graphql.worker.js',
    ]));
    expect((await server.request('/graphiql/../package.json', { auth: null })).status).toBe(404);
    expect((await server.request('/graphiql/nope.js', { auth: null })).status).toBe(404);
  });

  it('the API reference (/docs) loads swagger-ui from this server and its description from /v1/openapi.json', async () => {
    const loaded = await crawl('/docs');
    for (const [url, status] of loaded) expect(status, url).toBe(200);
    const paths = [...loaded.keys()].map((url) => new URL(url).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/v1/openapi.json']));
    // swagger-ui's defaults that reach the internet are turned off: the validator badge (validator.swagger.io).
    const html = await (await server.request('/docs', { auth: null })).text();
    expect(html).toMatch(/validatorUrl:\s*null/);
  });
});

/**
 * GraphiQL served by the product, offline: yoga's default page loads its script, styles and editor workers from
 * unpkg, so on a machine without internet it never leaves "Loading…". `@graphql-yoga/render-graphiql` ships the
 * same assets in the npm package; the page below references them under `/graphiql/` on this server (the REST route
 * table serves them, rest/routes/graphiql.ts), so the page itself stays small and the assets are cached.
 */
import type { GraphiQLOptions } from 'graphql-yoga';

export const GRAPHIQL_ASSET_PREFIX = '/graphiql';

type AssetName = 'js' | 'css' | 'favicon' | 'editorWorkerService' | 'jsonWorker' | 'graphqlWorker';

/** File name under /graphiql/ → the package's export and the content type. */
const FILES: Record<string, { from: AssetName; type: string }> = {
  'graphiql.js': { from: 'js', type: 'application/javascript; charset=utf-8' },
  'graphiql.css': { from: 'css', type: 'text/css; charset=utf-8' },
  'favicon.ico': { from: 'favicon', type: 'image/x-icon' },
  'editor.worker.js': { from: 'editorWorkerService', type: 'application/javascript; charset=utf-8' },
  'json.worker.js': { from: 'jsonWorker', type: 'application/javascript; charset=utf-8' },
  'graphql.worker.js': { from: 'graphqlWorker', type: 'application/javascript; charset=utf-8' },
};

let assets: Promise<Record<AssetName, string>> | null = null;
const bodies = new Map<string, Buffer>();

/** One asset's bytes and type, or null for a name that is not one. The package (about 9 MB of strings) loads on first use. */
export async function graphiqlAsset(name: string): Promise<{ body: Buffer; contentType: string } | null> {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) return null;
  let body = bodies.get(name);
  if (!body) {
    assets ??= import('@graphql-yoga/render-graphiql/graphiql') as Promise<Record<AssetName, string>>;
    const source = (await assets)[file.from];
    // The favicon is exported as a data: URI; everything else is text.
    body = source.startsWith('data:') ? Buffer.from(source.slice(source.indexOf(',') + 1), 'base64') : Buffer.from(source, 'utf8');
    bodies.set(name, body);
  }
  return { body, contentType: file.type };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script>: no `</script>` or comment openers can end it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** yoga's `renderGraphiQL`: the page, every asset on this server. */
export function renderGraphiQLPage(options: GraphiQLOptions = {}): string {
  const at = (file: string) => `${GRAPHIQL_ASSET_PREFIX}/${file}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
<link rel="icon" href="${at('favicon.ico')}">
<link rel="stylesheet" href="${at('graphiql.css')}">
</head>
<body id="body" class="no-focus-outline">
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script>
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (_moduleId, label) {
    return ${scriptJson(
      { editorWorkerService: at('editor.worker.js'), json: at('json.worker.js'), graphql: at('graphql.worker.js') },
    )}[label];
  },
};
</script>
<script src="${at('graphiql.js')}"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${scriptJson(options)});</script>
</body>
</html>`;
}

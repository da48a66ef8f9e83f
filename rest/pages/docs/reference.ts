/**
 * The interactive API reference (`GET /docs`, rest/routes/docs.ts): a page that renders /v1/openapi.json with
 * swagger-ui, whose script and styles are served from the installed swagger-ui-dist package (`GET /docs/{asset}`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Response } from 'express';
import { errors } from '../../../src/core/errors.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerAssets = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
/** The allowed assets' bytes, read on first request and kept (the files of an installed package do not change). */
const swaggerAssetCache = new Map<string, Buffer>();

function swaggerAsset(asset: string): Buffer {
  let bytes = swaggerAssetCache.get(asset);
  if (!bytes) {
    bytes = fs.readFileSync(path.join(swaggerDir, asset));
    swaggerAssetCache.set(asset, bytes);
  }
  return bytes;
}

const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>speechgate API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui', deepLinking: true, validatorUrl: null });</script>
</body></html>`;

export function sendDocsPage(res: Response): void {
  res.type('html').send(docsPage);
}

/** One of the allowed swagger-ui assets; any other name is 404. */
export function sendDocsAsset(res: Response, asset: string): void {
  if (!swaggerAssets.has(asset)) throw errors.notFound('Documentation asset');
  res.type(path.extname(asset)).send(swaggerAsset(asset));
}

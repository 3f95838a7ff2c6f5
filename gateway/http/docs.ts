/**
 * The API reference: the OpenAPI document as JSON, and a readable page over it drawn by the self-hosted
 * swagger-ui-dist viewer (its files are served from node_modules, the page's initializer from this folder, so
 * the page works under the app's Content-Security-Policy without any other site).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { docsApi } from '../../domain/contract/health.ts';
import { notFound } from '../errors.ts';

const VIEWER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const OWN_DIR = fileURLToPath(new URL('./docs/', import.meta.url));

/** The files of the reference page, by name: where each is and its media type (a map: a name is the caller's). */
const FILES: ReadonlyMap<string, { readonly path: string; readonly type: string }> = new Map([
  ['index.html', { path: join(OWN_DIR, 'index.html'), type: 'text/html; charset=utf-8' }],
  ['init.js', { path: join(OWN_DIR, 'init.js'), type: 'text/javascript; charset=utf-8' }],
  ['swagger-ui.css', { path: join(VIEWER_DIR, 'swagger-ui.css'), type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { path: join(VIEWER_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' }],
  ['favicon-32x32.png', { path: join(VIEWER_DIR, 'favicon-32x32.png'), type: 'image/png' }],
]);

/** The names of the files the reference page is made of. */
export const REFERENCE_FILES: readonly string[] = Object.freeze([...FILES.keys()]);

const cache = new Map<string, Buffer>();

function sendFile(ctx: Context, name: string): void {
  const file = FILES.get(name);
  if (!file) throw notFound(`params.file: no reference file ${JSON.stringify(name)}`);
  let content = cache.get(name);
  if (!content) {
    content = readFileSync(file.path);
    cache.set(name, content);
  }
  ctx.type = file.type;
  ctx.set('Cache-Control', 'no-cache');
  ctx.body = content;
}

/**
 * Mounts the reference: `GET /api/docs` answers the OpenAPI document (JSON), or the readable page to a caller
 * that prefers HTML (a browser); `/api/docs/openapi.json` is always the document and `/api/docs/index.html`
 * always the page.
 */
export function mountApiReference(router: Router, document: object): void {
  router.get(docsApi.getDocs.path, (ctx) => {
    if (ctx.accepts('json', 'html') === 'html') sendFile(ctx, 'index.html');
    else ctx.body = document;
  });
  router.get(docsApi.getDocsOpenapiJson.path, (ctx) => {
    ctx.body = document;
  });
  router.get(docsApi.getDocsByFile.path, (ctx) => {
    sendFile(ctx, String(ctx.params.file));
  });
}

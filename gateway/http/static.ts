/**
 * Serves the built web app (`ui/dist`): hashed assets cached for a year, any other page path answered with
 * `index.html` so the app's own router shows the screen. API paths never reach it.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Middleware, Next } from 'koa';

/** Where `vite build` writes the app. */
export const DEFAULT_UI_DIR = resolve(fileURLToPath(new URL('../../ui/dist', import.meta.url)));

/** The web app's folder: `UI_DIR` when set (a build kept elsewhere), else `ui/dist`. */
export function configuredUiDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.UI_DIR?.trim();
  return dir ? resolve(dir) : DEFAULT_UI_DIR;
}

const TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
});

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>StockPulse</title>
<p>The web app is not built yet: run <code>npm run build:ui</code> (or <code>npm start</code>, which builds it) and reload.</p>`;

/** Serves the web app from `dir` for GET and HEAD requests outside `isApiPath`. */
export function webApp(dir: string, isApiPath: (path: string) => boolean): Middleware {
  const root = resolve(dir);
  const indexFile = join(root, 'index.html');
  return async (ctx, next: Next): Promise<void> => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isApiPath(ctx.path) || ctx.path.startsWith('/socket.io')) {
      await next();
      return;
    }
    let relative: string;
    try {
      relative = decodeURIComponent(ctx.path);
    } catch {
      await next();
      return;
    }
    const file = normalize(join(root, relative));
    if (file !== root && !file.startsWith(root + sep)) {
      await next();
      return;
    }
    const extension = extname(file);
    const stat = extension === '' ? undefined : statSync(file, { throwIfNoEntry: false });
    if (stat?.isFile()) {
      ctx.type = TYPES[extension] ?? 'application/octet-stream';
      ctx.set('Cache-Control', relative.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      ctx.length = stat.size;
      ctx.body = createReadStream(file);
      return;
    }
    if (extension !== '' && extension !== '.html') {
      await next();
      return;
    }
    if (!existsSync(indexFile)) {
      ctx.status = 503;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = NOT_BUILT;
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = createReadStream(indexFile);
  };
}

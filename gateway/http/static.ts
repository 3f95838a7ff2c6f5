/**
 * Serves the built web app (`ui/dist`): hashed assets cached for a year, any other page path answered with
 * `index.html` so the app's own router shows the screen. API paths never reach it. A text file the build
 * compressed (`<file>.br`, `<file>.gz`, see `scripts/buildUi.ts`) is sent compressed to a browser that accepts it.
 */
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Middleware, Next } from 'koa';

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

/** The encodings of the build's compressed copies, by preference, with the suffix of their files. */
const ENCODINGS: readonly (readonly [encoding: string, suffix: string])[] = [
  ['br', '.br'],
  ['gzip', '.gz'],
];

/** Types of which the build writes compressed copies. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.map', '.txt']);

/**
 * Answers `file` (of `size` bytes): its compressed copy when the request accepts that encoding and the build
 * wrote one, else the file itself; either way marked as varying with `Accept-Encoding` when it has copies.
 */
function sendFile(ctx: Context, file: string, size: number, type: string): void {
  ctx.type = type;
  if (COMPRESSIBLE.has(extname(file))) {
    ctx.vary('Accept-Encoding');
    for (const [encoding, suffix] of ENCODINGS) {
      if (ctx.acceptsEncodings(encoding) !== encoding) continue;
      const copy = statSync(file + suffix, { throwIfNoEntry: false });
      if (!copy?.isFile()) continue;
      ctx.set('Content-Encoding', encoding);
      ctx.length = copy.size;
      ctx.body = createReadStream(file + suffix);
      return;
    }
  }
  ctx.length = size;
  ctx.body = createReadStream(file);
}

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
      ctx.set('Cache-Control', relative.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      sendFile(ctx, file, stat.size, TYPES[extension] ?? 'application/octet-stream');
      return;
    }
    // A missing file of a type the build writes is missing; any other dot is a page's (`/CompanyStats/BRK.B`).
    if (extension !== '.html' && TYPES[extension.toLowerCase()] !== undefined) {
      await next();
      return;
    }
    const index = statSync(indexFile, { throwIfNoEntry: false });
    if (!index?.isFile()) {
      ctx.status = 503;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = NOT_BUILT;
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    sendFile(ctx, indexFile, index.size, 'text/html; charset=utf-8');
  };
}

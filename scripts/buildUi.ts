/**
 * Builds the web app into `ui/dist` when its sources changed since the last build (or always with
 * `--force`), writes a Brotli (`.br`) and a gzip (`.gz`) copy of every text file the gateway serves compressed,
 * and prints the chunks' gzip sizes. `npm start` runs it first; tests call `ensureUiBuilt`.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const uiDir = join(root, 'ui');
const distDir = join(uiDir, 'dist');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether `ui/dist` is missing or older than the sources of the app (ui/ and the shared domain/). */
export function uiIsStale(): boolean {
  let built: number;
  try {
    built = statSync(join(distDir, 'index.html')).mtimeMs;
  } catch {
    return true;
  }
  const lock = statSync(join(root, 'package-lock.json')).mtimeMs;
  return Math.max(newestMtime(uiDir), newestMtime(join(root, 'domain')), lock) > built;
}

/** The built chunks with their gzip sizes, the entry first. */
export function bundleSizes(
  dir: string = distDir,
): { file: string; bytes: number; gzipBytes: number; entry: boolean }[] {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const assets = join(dir, 'assets');
  return readdirSync(assets)
    .filter((file) => file.endsWith('.js'))
    .map((file) => {
      const content = readFileSync(join(assets, file));
      return { file, bytes: content.length, gzipBytes: gzipSync(content).length, entry: html.includes(file) };
    })
    .sort((a, b) => Number(b.entry) - Number(a.entry) || b.gzipBytes - a.gzipBytes);
}

/** Builds the app when stale (or when forced). */
export async function ensureUiBuilt(options: { force?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  if (!options.force && !uiIsStale()) return false;
  await buildUi(distDir, options.quiet);
  return true;
}

/** Files worth compressing: text, at least this many bytes. */
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.map', '.txt']);
/** Smaller files are sent as they are: compression would save less than a packet. */
export const PRECOMPRESS_MIN_BYTES = 1024;

/**
 * Writes `<file>.br` (Brotli at its highest quality) and `<file>.gz` (gzip level 9) next to every compressible
 * file of `dir` of at least {@link PRECOMPRESS_MIN_BYTES}, for the gateway to send as they are.
 */
export function precompress(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isFile() || !COMPRESSIBLE.has(extname(entry.name))) continue;
    const content = readFileSync(path);
    if (content.length < PRECOMPRESS_MIN_BYTES) continue;
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(content, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
        },
      }),
    );
    writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
  }
}

/** Builds the app into `outDir` (tests build into a folder of their own, so parallel runs never collide). */
export async function buildUi(outDir: string, quiet = true): Promise<void> {
  const { build } = await import('vite');
  await build({
    configFile: join(uiDir, 'vite.config.ts'),
    logLevel: quiet ? 'warn' : 'info',
    build: { outDir, emptyOutDir: true },
  });
  precompress(outDir);
}

async function main(): Promise<void> {
  const force = process.argv.includes('--force');
  const built = await ensureUiBuilt({ force });
  if (!built) {
    console.log('web app: up to date (ui/dist)');
    return;
  }
  for (const chunk of bundleSizes().slice(0, 6)) {
    console.log(
      `${chunk.entry ? 'entry ' : 'chunk '} ${chunk.file.padEnd(36)} ${(chunk.gzipBytes / 1024).toFixed(1)} kB gzip`,
    );
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

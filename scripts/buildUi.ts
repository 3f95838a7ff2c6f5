/**
 * Builds the web app into `ui/dist` when its sources changed since the last build (or always with
 * `--force`), and prints the entry chunk's gzip size. `npm start` runs it first; tests call `ensureUiBuilt`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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

/** Builds the app into `outDir` (tests build into a folder of their own, so parallel runs never collide). */
export async function buildUi(outDir: string, quiet = true): Promise<void> {
  const { build } = await import('vite');
  await build({
    configFile: join(uiDir, 'vite.config.ts'),
    logLevel: quiet ? 'warn' : 'info',
    build: { outDir, emptyOutDir: true },
  });
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

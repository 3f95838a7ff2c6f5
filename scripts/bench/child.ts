/**
 * What the benchmarks share: progress lines on stderr (stdout keeps the results), and server children that
 * print their URL as the first JSON line of stdout once they listen, so a bench and its baseline run side by side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** Writes a progress line to stderr. */
export function progress(line: string): void {
  process.stderr.write(`  ${line}\n`);
}

/**
 * Starts `file serve <kind>` with tsx and resolves with the URL its first stdout line announces. With
 * `BENCH_CPU_PROF=<folder>` in the environment, each server child writes a V8 CPU profile there when it stops
 * (open it in Chrome's DevTools, Performance tab).
 */
export function startServerChild(
  file: string,
  kind: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const profile = process.env.BENCH_CPU_PROF;
  // One folder per kind: the main thread and tsx's loader thread each write a profile of their own.
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profile, kind)}`] : [];
  const child = spawn(process.execPath, [...profiling, '--import', 'tsx', file, 'serve', kind], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ url: (JSON.parse(line) as { url: string }).url, child });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with code ${code} before listening`)));
    child.once('error', reject);
  });
}

/** Stops a child with SIGTERM and resolves once it exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * What the benchmarks share: figures rounded to two decimals, progress lines on stderr (stdout keeps the
 * results), and server children that print their URL as the first JSON line of stdout once they listen, so a
 * bench and its baseline run side by side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { SERVER_NODE_FLAGS } from '../nodeFlags.ts';

/** A figure rounded to two decimals, as the benchmarks print them. */
export const round2 = (value: number): number => Math.round(value * 100) / 100;

/**
 * The ms by which the event loop was late, from a figure (ns) of a `monitorEventLoopDelay` histogram sampling every
 * `resolutionMs`: the histogram records the time between its timer's callbacks, which is the resolution itself when
 * the loop is free (an idle process's p99 at 10 ms is about 12 ms on this machine), so the delay is the excess.
 * prom-client's `nodejs_eventloop_lag_*` gauges are such figures at {@link PROM_CLIENT_LAG_RESOLUTION_MS}.
 */
export function loopDelayMs(ns: number, resolutionMs: number): number {
  return round2(Math.max(0, ns / 1e6 - resolutionMs));
}

/** The resolution of prom-client's event-loop histogram (its default `eventLoopMonitoringPrecision`), ms. */
export const PROM_CLIENT_LAG_RESOLUTION_MS = 10;

let gc: (() => void) | undefined;

/**
 * A full collection of this process's heap, before a timed span: what the process allocated before it (arming
 * alerts, building a market) is then not collected within the span and counted in its figures. V8's collector is
 * reached on the first call only, so the server children, which import this file too, run without the flag.
 */
export function collectHeap(): void {
  if (gc === undefined) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}

/** Writes a progress line to stderr. */
export function progress(line: string): void {
  process.stderr.write(`  ${line}\n`);
}

/** The URL of the line a server child writes once it listens (`{"url": …}`), or null for another line. */
function urlOf(line: string): string | null {
  try {
    const parsed = JSON.parse(line) as { url?: unknown; msg?: unknown };
    return typeof parsed.url === 'string' && parsed.msg === undefined ? parsed.url : null;
  } catch {
    return null;
  }
}

/**
 * Starts `file serve <kind>` with tsx and resolves with the URL its stdout announces (`{"url": …}`, after any
 * log line of its start). With `BENCH_CPU_PROF=<folder>` in the environment, each server child writes a V8 CPU
 * profile there when it stops (open it in Chrome's DevTools, Performance tab); with `BENCH_TRACE_GC=1`, each
 * prints a line per garbage collection (V8's `--trace-gc-nvp`: its kind, pause, and the bytes it copied and
 * promoted), seen with `forwardOutput`. With `forwardOutput`, what the child writes on stdout before and after
 * the URL goes to stderr.
 */
export function startServerChild(
  file: string,
  kind: string,
  env: Record<string, string>,
  forwardOutput = false,
): Promise<{ url: string; child: ChildProcess }> {
  const profile = process.env.BENCH_CPU_PROF;
  // One folder per kind: the main thread and tsx's loader thread each write a profile of their own.
  const profiling = [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profile, kind)}`] : []),
    ...(process.env.BENCH_TRACE_GC === '1' ? ['--trace-gc-nvp'] : []),
  ];
  // The flags `npm start` gives the server, so the children run as it does.
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...profiling, '--import', 'tsx', file, 'serve', kind], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let listening = false;
    child.stdout.on('data', (chunk: Buffer) => {
      // After the URL, what the child writes (its log lines at the level it was given) goes to stderr if asked.
      if (listening) return void (forwardOutput && process.stderr.write(chunk));
      out += chunk.toString('utf8');
      // Log lines written while starting (a warning at start) come before the line of the URL.
      for (let end = out.indexOf('\n'); end >= 0 && !listening; end = out.indexOf('\n')) {
        const line = out.slice(0, end);
        out = out.slice(end + 1);
        const url = urlOf(line);
        if (url === null) {
          if (forwardOutput) process.stderr.write(`${line}\n`);
          continue;
        }
        listening = true;
        resolve({ url, child });
        if (forwardOutput && out.length > 0) process.stderr.write(out);
      }
    });
    child.once('exit', (code, signal) => {
      const how = signal === null ? `with code ${code}` : `on ${signal}`;
      // Before listening the start fails; after it, a child that was not stopped says it is gone.
      reject(new Error(`${kind} server exited ${how} before listening`));
      if (!stopping.has(child)) progress(`${kind} server exited ${how}`);
    });
    child.once('error', reject);
  });
}

/** The children being stopped on purpose. */
const stopping = new WeakSet<ChildProcess>();

/** Marks a child as stopped on purpose, so its exit is not reported. */
export function expectExit(child: ChildProcess): void {
  stopping.add(child);
}

/** Stops a child with SIGTERM and resolves once it exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  expectExit(child);
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

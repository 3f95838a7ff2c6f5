/**
 * How the operations scripts (grant, verify, rebuild) write, so tests can run them in-process and read what
 * they printed.
 */
import { pathToFileURL } from 'node:url';

/** Where a command-line script writes: results to `out`, refusals, progress and usage to `err`. */
export interface ScriptIo {
  /** A line of the result (stdout). */
  out(line: string): void;
  /** A line about a refusal or a failure (stderr). */
  err(line: string): void;
  /** Progress drawn in place on stderr when it is a terminal; absent when nobody watches. */
  progress?(text: string): void;
}

/** The console as a {@link ScriptIo}; progress is drawn only when stderr is a terminal. */
export const consoleIo: ScriptIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  ...(process.stderr.isTTY ? { progress: (text: string) => process.stderr.write(`\r${text}\x1b[K`) } : {}),
};

/** Whether a module is the script node was started with (`tsx scripts/x.ts`), not one imported by a test. */
export function isMain(moduleUrl: string): boolean {
  const started = process.argv[1];
  return started !== undefined && moduleUrl === pathToFileURL(started).href;
}

/**
 * For tests of the command-line scripts: runs one as its own Node process, the way `npm run <script>` does,
 * and answers its exit code and output.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a script run printed and how it ended. */
export interface ScriptRun {
  /** The exit code. */
  readonly code: number;
  /** Everything written to stdout. */
  readonly stdout: string;
  /** Everything written to stderr. */
  readonly stderr: string;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs `scripts/<name>.ts` with `args` under `tsx`, the environment extended with `env`. */
export function runScript(name: string, args: readonly string[], env: Record<string, string>): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts', `${name}.ts`), ...args],
      { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(new Error(`${name}: ${error.message}`));
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the mocha suites with the project's reporter and ends with the line `N passed, N failed`.
 * Extra arguments go to mocha; file, directory or glob arguments replace the specs of `.mocharc.json`,
 * e.g. `npm test -- platform/config.test.ts` or `npm test -- platform` (the test files under it). `--unit` runs only the suites that start no service (the inner
 * loop). Before running, the services the chosen suites start (redis-server, Chromium) are installed when
 * missing, or the run stops at once naming the command to install them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServices, servicesFor, specFilesOf } from './testServices.ts';

/** Counts written by the reporter at the end of a run. */
interface Summary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mochaBin = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const reporter = path.join(root, 'scripts', 'testReporter.cjs');
const rcFile = path.join(root, '.mocharc.json');

/** Whether a command-line argument names test files rather than being an option or an option's value. */
function isSpecArgument(arg: string): boolean {
  return !arg.startsWith('-') && (/[*?{]/.test(arg) || fs.existsSync(path.resolve(arg)));
}

/** A directory argument stands for the test files under it (mocha would load every module under it). */
function specOfArgument(arg: string): string {
  if (!isSpecArgument(arg) || /[*?{]/.test(arg) || !fs.statSync(path.resolve(arg)).isDirectory()) return arg;
  return `${arg.replace(/\/+$/, '')}/**/*.test.ts`;
}

function readSummary(file: string): Summary | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Summary;
  } catch {
    return null;
  }
}

/** The layers whose suites make the unit run: pure code and adapters, no HTTP server, no browser. */
const UNIT_SPECS = ['domain', 'engine', 'projections', 'platform', 'ui'];

/** The spec globs of the rc file. */
function rcSpecs(): string[] {
  const rc = JSON.parse(fs.readFileSync(rcFile, 'utf8')) as { spec?: string[] };
  return rc.spec ?? [];
}

async function main(given: readonly string[]): Promise<number> {
  const unit = given.includes('--unit');
  let argv = given.filter((arg) => arg !== '--unit').map(specOfArgument);
  const chosen = argv.filter(isSpecArgument);
  const files = specFilesOf(root, chosen.length > 0 ? chosen : unit ? UNIT_SPECS : rcSpecs());
  const needed = servicesFor(files);
  if (unit) {
    // The unit run: every chosen spec that starts no service, named one by one.
    const serviceFree = files.filter((file) => servicesFor([file]).length === 0);
    argv = [...argv.filter((arg) => !isSpecArgument(arg)), ...serviceFree.map((file) => path.relative(root, file))];
  } else {
    const readiness = ensureServices(needed, process.env, (line) => process.stderr.write(`${line}\n`));
    if (!readiness.ready) {
      process.stderr.write(`${readiness.message}\n`);
      process.stdout.write('0 passed, 1 failed\n');
      return 1;
    }
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'stockpulse-test-'));
  const summaryFile = path.join(work, 'summary.json');
  const args = [mochaBin, '--reporter', reporter, '--reporter-option', `summary=${summaryFile}`];

  // Mocha adds the rc file's specs to the ones given, so running chosen files needs a copy without them.
  if (argv.some(isSpecArgument)) {
    const rc = JSON.parse(fs.readFileSync(rcFile, 'utf8')) as Record<string, unknown>;
    delete rc['spec'];
    const specless = path.join(work, 'mocharc.json');
    fs.writeFileSync(specless, JSON.stringify(rc));
    args.push('--config', specless);
  }
  args.push(...argv);

  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code = await new Promise<number>((resolve) => {
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });

  const summary = readSummary(summaryFile);
  fs.rmSync(work, { recursive: true, force: true });
  if (summary === null) {
    // Mocha stopped before running (e.g. a spec file failed to load): count that as one failure.
    process.stdout.write(`mocha stopped before running the tests (exit code ${code})\n0 passed, 1 failed\n`);
    return code === 0 ? 1 : code;
  }
  if (summary.passed + summary.failed === 0) return 1;
  if (summary.failed > 0) return code === 0 ? 1 : code;
  // A run whose every test passed still fails if mocha itself reported a problem (e.g. an unhandled error).
  return code;
}

process.exitCode = await main(process.argv.slice(2));

/**
 * What the test suites need from the machine (a `redis-server` on PATH, Debian's Chromium) and how the test
 * command gets it: installed from Debian's packages when the user is root or has password-less sudo, or a stop
 * at once with one line naming the exact command to run. No suite is skipped because a service is missing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A program some test suites start. */
export interface Service {
  /** The Debian package that provides it. */
  readonly packageName: string;
  /** Whether a spec file's source starts it. */
  readonly usedBy: (source: string) => boolean;
  /** Whether it is on this machine. */
  readonly present: (env: NodeJS.ProcessEnv) => boolean;
}

/** Whether an executable named `name` is on the PATH of `env`. */
export function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env['PATH'] ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        fs.accessSync(path.join(dir, name), fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** The services of the suites: Redis for the distributed adapters, Chromium for the end-to-end tests. */
export const SERVICES: readonly Service[] = [
  {
    packageName: 'redis-server',
    usedBy: (source) => source.includes('startTestRedis('),
    present: (env) => onPath('redis-server', env),
  },
  {
    packageName: 'chromium',
    usedBy: (source) => /from '(\.\.?\/)+(e2e\/)?browser\.ts'/.test(source) || source.includes('CHROMIUM_PATH'),
    present: (env) => fs.existsSync(env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'),
  },
];

/** The spec files of `dir` and below (`*.test.ts`), skipping dependencies and build output. */
export function specFilesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts')) found.push(full);
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * The spec files a list of spec arguments (files, folders or globs) may name: a glob stands for every spec under
 * the folder before its first wildcard, so the services found are never fewer than the run needs.
 */
export function specFilesOf(root: string, specs: readonly string[]): string[] {
  const files = new Set<string>();
  for (const spec of specs) {
    const wildcard = spec.search(/[*?{[]/);
    const base = path.resolve(root, wildcard < 0 ? spec : spec.slice(0, wildcard));
    const stat = fs.statSync(wildcard < 0 ? base : path.dirname(base + 'x'), { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isFile()) files.add(base);
    else for (const file of specFilesUnder(wildcard < 0 ? base : path.dirname(base + 'x'))) files.add(file);
  }
  return [...files].sort();
}

/** The services that the given spec files start. */
export function servicesFor(files: readonly string[], services: readonly Service[] = SERVICES): Service[] {
  const sources = files.map((file) => fs.readFileSync(file, 'utf8'));
  return services.filter((service) => sources.some((source) => service.usedBy(source)));
}

/** How packages can be installed here: directly as root, through password-less sudo, or not at all. */
export type InstallRight = 'root' | 'sudo' | 'none';

/** Whether this user may install Debian packages without a prompt. */
export function installRight(env: NodeJS.ProcessEnv): InstallRight {
  if (!onPath('apt-get', env)) return 'none';
  if (process.getuid?.() === 0) return 'root';
  if (!onPath('sudo', env)) return 'none';
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', env }).status === 0 ? 'sudo' : 'none';
}

/** The one line that tells a user without install rights what to run. */
export function installHint(packages: readonly string[]): string {
  return (
    `The tests need ${packages.join(' and ')}, which this machine lacks: run ` +
    `\`sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}\` and run the tests again.`
  );
}

/** The outcome of {@link ensureServices}: ready, or a line to print before stopping. */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly message: string };

/**
 * Installs the missing services of a run from Debian's packages when allowed, writing apt's progress to `log`.
 * Answers why the run cannot go on otherwise.
 */
export function ensureServices(
  needed: readonly Service[],
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  right: InstallRight = installRight(env),
): Readiness {
  const missing = needed.filter((service) => !service.present(env)).map((service) => service.packageName);
  if (missing.length === 0) return { ready: true };
  if (right === 'none') return { ready: false, message: installHint(missing) };
  const prefix = right === 'sudo' ? ['sudo', '-n'] : [];
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  log(`Installing ${missing.join(', ')} from Debian's packages for the tests…`);
  for (const args of [
    ['apt-get', 'update', '-q'],
    ['apt-get', 'install', '-y', '-q', ...missing],
  ]) {
    const command = [...prefix, ...args];
    const result = spawnSync(command[0]!, command.slice(1), { stdio: ['ignore', 'inherit', 'inherit'], env: aptEnv });
    if (result.status !== 0) {
      return {
        ready: false,
        message: `\`${command.join(' ')}\` failed (exit ${result.status ?? result.signal}); ${installHint(missing)}`,
      };
    }
  }
  const still = needed.filter((service) => !service.present(env)).map((service) => service.packageName);
  if (still.length > 0) return { ready: false, message: `${still.join(' and ')} still missing after the install` };
  log(`Installed ${missing.join(', ')}.`);
  return { ready: true };
}

import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ensureServices,
  installHint,
  onPath,
  SERVICES,
  servicesFor,
  specFilesOf,
  type Service,
} from './testServices.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('test services', function () {
  let dir: string;

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-services-'));
  });

  afterEach(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function spec(name: string, source: string): string {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, source);
    return file;
  }

  it('finds the services a spec starts from its source', function () {
    const redis = spec('a/redis.test.ts', `const r = await ${'startTest'}Redis();`);
    const browser = spec('b/page.e2e.test.ts', `import { startE2E } from '${'./browser'}.ts';`);
    const pure = spec('c/pure.test.ts', 'expect(1).to.equal(1);');
    const names = (files: string[]) => servicesFor(files).map((s) => s.packageName);
    expect(names([redis])).to.deep.equal(['redis-server']);
    expect(names([browser])).to.deep.equal(['chromium']);
    expect(names([pure])).to.deep.equal([]);
    expect(names([pure, browser, redis])).to.deep.equal(['redis-server', 'chromium']);
  });

  it('expands files, folders and globs into spec files', function () {
    const one = spec('x/one.test.ts', '');
    const two = spec('x/deep/two.test.ts', '');
    spec('x/helper.ts', '');
    expect(specFilesOf(dir, ['x'])).to.deep.equal([two, one]);
    expect(specFilesOf(dir, ['x/**/*.test.ts'])).to.deep.equal([two, one]);
    expect(specFilesOf(dir, ['x/one.test.ts'])).to.deep.equal([one]);
    expect(specFilesOf(dir, ['missing'])).to.deep.equal([]);
  });

  it('knows that the project suites need Redis and Chromium, and the domain suites neither', function () {
    const names = (specs: string[]) => servicesFor(specFilesOf(root, specs)).map((s) => s.packageName);
    expect(names(['platform', 'scripts/e2e'])).to.deep.equal(['redis-server', 'chromium']);
    expect(names(['domain'])).to.deep.equal([]);
  });

  it('stops with the exact install command when a service is missing and nothing may be installed', function () {
    const absent: Service = { packageName: 'redis-server', usedBy: () => true, present: () => false };
    const lines: string[] = [];
    const outcome = ensureServices([absent, SERVICES[1]!], { PATH: dir }, (line) => lines.push(line), 'none');
    expect(outcome.ready).to.equal(false);
    const missing = SERVICES[1]!.present({ PATH: dir }) ? ['redis-server'] : ['redis-server', 'chromium'];
    expect(outcome).to.deep.equal({ ready: false, message: installHint(missing) });
    expect(installHint(['redis-server'])).to.contain('sudo apt-get update && sudo apt-get install -y redis-server');
    expect(lines).to.deep.equal([]);
  });

  it('goes on without installing when every needed service is present', function () {
    const present: Service = { packageName: 'redis-server', usedBy: () => true, present: () => true };
    const lines: string[] = [];
    expect(ensureServices([present], {}, (line) => lines.push(line), 'none')).to.deep.equal({ ready: true });
    expect(lines).to.deep.equal([]);
  });

  it('looks executables up on the PATH given', function () {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'data'), '', { mode: 0o644 });
    expect(onPath('tool', { PATH: bin })).to.equal(true);
    expect(onPath('data', { PATH: bin })).to.equal(false);
    expect(onPath('tool', { PATH: '' })).to.equal(false);
  });
});

import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataDirInUseError, holdWriterLock, writerLockFile } from './writerLock.ts';

/** Another process holding `part`'s lock of `dir`: resolves once it says it holds it. */
async function holdingProcess(dir: string, part: string): Promise<ChildProcess> {
  const module = pathToFileURL(join(import.meta.dirname, 'writerLock.ts')).href;
  const source =
    `const { holdWriterLock } = await import(${JSON.stringify(module)});` +
    `holdWriterLock(${JSON.stringify(dir)}, ${JSON.stringify(part)}); console.log('held'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await Promise.race([
    once(child.stdout, 'data'),
    once(child, 'exit').then(([code]): never => {
      throw new Error(`the holding process exited with ${String(code)}`);
    }),
  ])) as [Buffer];
  expect(line.toString().trim()).to.equal('held');
  return child;
}

describe('the read models writer lock', function () {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'sp-writer-lock-'));
  });
  afterEach(function () {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second holder of a part in the same process, naming the folder, until the first releases', function () {
    const release = holdWriterLock(dir, 'projections');
    const second = (): unknown => holdWriterLock(dir, 'projections');
    expect(second).to.throw(DataDirInUseError, `DATA_DIR ${dir} is in use`);
    try {
      second();
    } catch (error) {
      expect(error).to.include({ dataDir: dir, part: 'projections', file: writerLockFile(dir, 'projections') });
      expect(error).to.have.property('code', 'EBUSY');
    }
    // Another part of the same folder is another lock.
    const delivery = holdWriterLock(dir, 'delivery');
    release();
    release();
    const again = holdWriterLock(dir, 'projections');
    again();
    delivery();
  });

  it('refuses it while another process holds it, and takes it at once when that process is killed', async function () {
    child = await holdingProcess(dir, 'projections');
    expect(() => holdWriterLock(dir, 'projections')).to.throw(DataDirInUseError);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    // The operating system dropped the lock with the process: no stale lock to wait for.
    const release = holdWriterLock(dir, 'projections');
    release();
  });

  it('leaves the lock to another process once released', async function () {
    holdWriterLock(dir, 'delivery')();
    child = await holdingProcess(dir, 'delivery');
    expect(() => holdWriterLock(dir, 'delivery')).to.throw(DataDirInUseError);
  });
});

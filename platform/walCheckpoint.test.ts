import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openSqliteEventStore } from './eventstore/sqlite.ts';
import { openSqliteReadModelStore } from './readmodels/sqlite.ts';
import { openSqliteFile } from './testing/sqliteFile.ts';
import { walCheckpointer, walCheckpoints, type WalCheckpointReport, type WalConnection } from './walCheckpoint.ts';

/** A connection that records the pragmas it runs and announces each. */
function recordingConnection(fail = false): WalConnection & {
  open: boolean;
  readonly ran: string[];
  next(): Promise<string>;
} {
  const ran: string[] = [];
  let waiting: ((pragma: string) => void) | undefined;
  return {
    open: true,
    ran,
    pragma(source: string): unknown {
      ran.push(source);
      waiting?.(source);
      waiting = undefined;
      if (fail) throw new Error('SQLITE_BUSY: database is locked');
      return [{ busy: 0, log: 0, checkpointed: 0 }];
    },
    next: () => new Promise<string>((resolve) => (waiting = resolve)),
  };
}

describe('walCheckpointer', function () {
  it('runs one passive checkpoint after a burst of writes, and none while idle', async function () {
    const db = recordingConnection();
    const checkpoints = walCheckpointer(db, { afterMs: 5 });
    const ran = db.next();
    for (let i = 0; i < 10; i++) checkpoints.written();
    expect(db.ran).to.deep.equal([]);
    expect(await ran).to.equal('wal_checkpoint(PASSIVE)');
    expect(db.ran).to.have.length(1);
    // The next write schedules the next checkpoint.
    const again = db.next();
    checkpoints.written();
    await again;
    expect(db.ran).to.have.length(2);
    await checkpoints.stop();
  });

  it('runs the due checkpoint at once on flush, and nothing when none is due', function () {
    const db = recordingConnection();
    const checkpoints = walCheckpointer(db, { afterMs: 60_000 });
    checkpoints.flush();
    expect(db.ran).to.deep.equal([]);
    checkpoints.written();
    checkpoints.flush();
    expect(db.ran).to.deep.equal(['wal_checkpoint(PASSIVE)']);
    checkpoints.flush();
    expect(db.ran).to.have.length(1);
  });

  it('skips a closed connection, cancels on stop, and outlives a refused checkpoint', async function () {
    const closed = recordingConnection();
    closed.open = false;
    const a = walCheckpointer(closed, { afterMs: 60_000 });
    a.written();
    a.flush();
    expect(closed.ran).to.deep.equal([]);

    const stopped = recordingConnection();
    const b = walCheckpointer(stopped, { afterMs: 60_000 });
    b.written();
    await b.stop();
    b.flush();
    expect(stopped.ran).to.deep.equal([]);

    const busy = recordingConnection(true);
    const c = walCheckpointer(busy, { afterMs: 60_000 });
    c.written();
    expect(() => c.flush()).not.to.throw();
    c.written();
    c.flush();
    expect(busy.ran).to.have.length(2);
  });

  describe('on a database in a file', function () {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sp-wal-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** The worker's next `event` (`checkpoint` with a report, `released` with a file) about `file`. */
    function nextAbout<T>(event: 'checkpoint' | 'released', file: string, fileOf: (value: T) => string): Promise<T> {
      return new Promise((resolve) => {
        const listener = (value: T): void => {
          if (fileOf(value) !== file) return;
          walCheckpoints.off(event, listener);
          resolve(value);
        };
        walCheckpoints.on(event, listener);
      });
    }

    /** The worker's next report about `file`. */
    const nextReport = (file: string): Promise<WalCheckpointReport> =>
      nextAbout('checkpoint', file, (report: WalCheckpointReport) => report.file);

    /** Resolves once the worker has closed its connection to `file`. */
    const released = (file: string): Promise<string> => nextAbout('released', file, (done: string) => done);

    /** A database in WAL mode at `name` in the test's folder, without automatic checkpoints, with a table `t`. */
    function walFile(name: string): { file: string; db: ReturnType<typeof openSqliteFile> } {
      const file = join(dir, name);
      const db = openSqliteFile(file);
      db.pragma('journal_mode = WAL');
      db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE t (v TEXT)');
      return { file, db };
    }

    it('checkpoints in the worker thread, not on the connection, and lets the file go on stop', async function () {
      const { file, db } = walFile('wal.db');
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200));
      })();
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      const before = statSync(file).size;
      const ran: string[] = [];
      const connection: WalConnection = {
        get open() {
          return db.open;
        },
        pragma: (source) => {
          ran.push(source);
          return db.pragma(source);
        },
      };
      const checkpoints = walCheckpointer(connection, { afterMs: 5, file });
      const report = nextReport(file);
      checkpoints.written();
      const { log, checkpointed, error } = await report;
      expect(error).to.equal(undefined);
      expect(log).to.be.greaterThan(100);
      expect(checkpointed).to.equal(log);
      // The pages reached the database file, copied by the worker's connection; this one ran no checkpoint.
      expect(statSync(file).size).to.be.at.least(before + 100 * pageSize);
      expect(ran).to.deep.equal([]);
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).to.deep.equal({ n: 2000 });

      const gone = released(file);
      await checkpoints.stop();
      // The worker lets its connection go first: two closes at once may each see the other still open, and
      // then neither removes the WAL.
      await gone;
      db.close();
      // With the worker's connection gone, this close was the last: it removed the WAL.
      expect(existsSync(`${file}-wal`)).to.equal(false);
    });

    it('leaves every commit in the database file alone once stopped, the worker still connected', async function () {
      const { file, db } = walFile('stop.db');
      const checkpoints = walCheckpointer(db, { afterMs: 5, file });
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      for (let i = 0; i < 100; i++) insert.run(`row ${i}`);
      // The worker checkpoints once, and keeps its connection to the file.
      const report = nextReport(file);
      checkpoints.written();
      expect((await report).error).to.equal(undefined);
      for (let i = 100; i < 500; i++) insert.run(`row ${i}`);
      // Written, but the store stops and closes before that checkpoint is due; its close is not the last one.
      checkpoints.written();
      const gone = released(file);
      const taken = checkpoints.stop();
      db.close();
      // The database file copied without its WAL, as a backup of the file alone would be.
      const copy = join(dir, 'copy.db');
      copyFileSync(file, copy);
      const reopened = openSqliteFile(copy);
      expect(reopened.prepare('SELECT count(*) AS n FROM t').get()).to.deep.equal({ n: 500 });
      reopened.close();
      await gone;
      await taken;
    });

    it("checkpoints the event store's appends in the worker, with the store's synchronous level", async function () {
      const file = join(dir, 'events.db');
      const store = openSqliteEventStore({ file, synchronous: 'full' });
      const report = nextReport(file);
      await store.appendToStream('s-1', [{ id: randomUUID(), type: 'Happened', data: { n: 1 } }]);
      const { log, checkpointed, error } = await report;
      expect(error).to.equal(undefined);
      expect(log).to.be.greaterThan(0);
      expect(checkpointed).to.equal(log);
      const gone = released(file);
      await store.close();
      await gone;
      const reopened = openSqliteEventStore({ file });
      expect((await reopened.readStream('s-1')).map((event) => event.type)).to.deep.equal(['Happened']);
      await reopened.close();
    });

    it('closes a store once the worker has let its file go, so nothing of this process holds the file after', async function () {
      const eventsFile = join(dir, 'closing-events.db');
      const documentsFile = join(dir, 'closing-documents.db');
      const events = openSqliteEventStore({ file: eventsFile });
      const documents = openSqliteReadModelStore({ file: documentsFile });
      // Each store writes, and the worker checkpoints it: it holds a connection to each file.
      const reports = [nextReport(eventsFile), nextReport(documentsFile)];
      await events.appendToStream('s-1', [{ id: randomUUID(), type: 'Happened', data: { n: 1 } }]);
      await documents.commit('c', { position: { commit: 1, prepare: 1 }, version: 1 }, [
        { collection: 'docs', key: 'k', doc: { n: 1 } },
      ]);
      for (const report of await Promise.all(reports)) expect(report.error).to.equal(undefined);
      const letGo: string[] = [];
      const listener = (file: string): void => void letGo.push(file);
      walCheckpoints.on('released', listener);
      try {
        await events.close();
        expect(letGo).to.deep.equal([eventsFile]);
        await documents.close();
        expect(letGo).to.deep.equal([eventsFile, documentsFile]);
      } finally {
        walCheckpoints.off('released', listener);
      }
      // The last connection to close, the worker's, took the WAL and its index with it.
      for (const file of [eventsFile, documentsFile]) {
        expect(existsSync(`${file}-wal`), file).to.equal(false);
        expect(existsSync(`${file}-shm`), file).to.equal(false);
      }
    });

    it('does not keep a process alive once its stores are closed', async function () {
      // A process of its own: the store appends, the worker checkpoints, the store closes, and the process must
      // then end by itself (the worker and its port unreferenced).
      const file = join(dir, 'exit.db');
      const module = fileURLToPath(new URL('./eventstore/sqlite.ts', import.meta.url));
      const walModule = fileURLToPath(new URL('./walCheckpoint.ts', import.meta.url));
      const script = `
        const { openSqliteEventStore } = await import(${JSON.stringify(module)});
        const { walCheckpoints } = await import(${JSON.stringify(walModule)});
        const store = openSqliteEventStore({ file: ${JSON.stringify(file)} });
        const checkpointed = new Promise((resolve) => walCheckpoints.once('checkpoint', resolve));
        // The worker keeps nothing alive, so a timer does while the report is awaited.
        const alive = setTimeout(() => undefined, 15000);
        await store.appendToStream('s-1', [{ id: crypto.randomUUID(), type: 'Happened', data: {} }]);
        const report = await checkpointed;
        clearTimeout(alive);
        await store.close();
        console.log(JSON.stringify(report));
      `;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      clearTimeout(timer);
      expect(signal, 'the process had to be killed: something kept it alive').to.equal(null);
      expect(code).to.equal(0);
      expect((JSON.parse(out) as WalCheckpointReport).file).to.equal(file);
    });

    it('reports a file it cannot open, and checkpoints nothing for a private database', async function () {
      const file = join(dir, 'missing.db');
      const report = nextReport(file);
      const ghost = walCheckpointer({ open: true, pragma: () => [] }, { afterMs: 1, file });
      ghost.written();
      expect((await report).error).to.be.a('string');
      const gone = released(file);
      await ghost.stop();
      await gone;

      const memory = openSqliteFile(':memory:');
      const ran: string[] = [];
      const inMemory = walCheckpointer(
        { open: true, pragma: (source) => (ran.push(source), memory.pragma(source)) },
        { afterMs: 60_000, file: ':memory:' },
      );
      inMemory.written();
      inMemory.flush();
      expect(ran).to.deep.equal(['wal_checkpoint(PASSIVE)']);
      memory.close();
    });
  });
});

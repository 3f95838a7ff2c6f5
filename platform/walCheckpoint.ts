/**
 * Checkpoints of the SQLite adapters' write-ahead logs, off the event loop.
 *
 * SQLite's automatic checkpoint runs inside the commit that fills the WAL to its threshold: that commit copies
 * every page written since the last checkpoint back into the database file and syncs it, and the event loop
 * waits. At the adapters' threshold (`WAL_AUTOCHECKPOINT_PAGES`, ~40 MB) that is 50–100 ms on this machine,
 * mostly the sync, taken by whichever commit is unlucky (an alert trigger, say). So the adapters checkpoint a
 * short while after they wrote, outside any commit, each checkpoint copying the pages of that short while; and
 * a database in a file is checkpointed by a connection of its own in a worker thread (one per process, shared
 * by every file), since even a small checkpoint syncs the file: measured in the gateway under the latency
 * benchmark's 5,000 ticks a second, checkpoints on the event loop took 2.6 ms at the median, 20 ms at the 99th
 * percentile and up to 36 ms, during which no tick and no notification moved. A passive checkpoint waits for no
 * reader or writer, so the worker's checkpoint runs beside the adapter's commits; the automatic checkpoint stays
 * as a bound for a worker that cannot keep up.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What a checkpointer needs of a better-sqlite3 connection. */
export interface WalConnection {
  readonly open: boolean;
  pragma(source: string): unknown;
}

/** Milliseconds between a write and the checkpoint that follows it. */
export const WAL_CHECKPOINT_AFTER_MS = 100;

/** Schedules checkpoints of one connection's WAL after its writes. */
export interface WalCheckpointer {
  /** Tells it the connection committed: a checkpoint follows within `afterMs`, unless one is already due. */
  written(): void;
  /** Runs the due checkpoint now on the connection itself, if any (before a close, or in a test). */
  flush(): void;
  /**
   * Before the connection closes: cancels the due checkpoint and, for a file, lets the worker's connection go
   * after copying what the WAL still holds into the database on the connection (`FULL`: it waits, through the
   * busy timeout, for a checkpoint under way and for readers of older snapshots only), so the database file
   * alone holds every commit even if the process ends before the worker closes its connection (the last
   * connection's close, which used to do that, may now be the worker's). Resolves once the worker has taken
   * the release (closing its connection if it was the file's last holder), so that a store whose close awaits
   * it leaves no connection of this process to the file: its folder may be removed or copied at once.
   */
  stop(): Promise<void>;
}

/** Where a checkpointer runs its scheduled checkpoints: on the connection, or in the worker thread. */
export interface WalCheckpointOptions {
  /** Milliseconds between a write and the checkpoint (default {@link WAL_CHECKPOINT_AFTER_MS}). */
  readonly afterMs?: number;
  /**
   * The database's file: scheduled checkpoints run in the worker thread, on a connection of its own to this file
   * (none for `:memory:`, which has no WAL another connection could see).
   */
  readonly file?: string;
  /** The `synchronous` level the worker's connection checkpoints with (the adapter's own; default `NORMAL`). */
  readonly synchronous?: 'NORMAL' | 'FULL';
}

/** What the worker reports of each checkpoint it ran. */
export interface WalCheckpointReport {
  readonly file: string;
  /** Milliseconds the checkpoint took in the worker. */
  readonly ms: number;
  /** Frames in the WAL, and of them checkpointed (SQLite's `log` and `checkpointed`); absent on an error. */
  readonly log?: number;
  readonly checkpointed?: number;
  /** Why it did not run (the file gone, busy): left to the next one, or to the automatic checkpoint. */
  readonly error?: string;
}

/**
 * What the worker does, as it does it: `checkpoint` with a {@link WalCheckpointReport}, and `released` with a
 * file once its connection to it is closed (the last one to close removes the WAL).
 */
export const walCheckpoints = new EventEmitter();

/**
 * The worker's code, CommonJS evaluated in the worker (no TypeScript loader there): a connection per file,
 * opened at its first checkpoint and closed when its last checkpointer stops.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const connections = new Map();
parentPort.on('message', ({ op, file, synchronous, id }) => {
  let entry = connections.get(file);
  if (op === 'hold') {
    if (entry) entry.holders += 1;
    else connections.set(file, { db: undefined, holders: 1 });
    return;
  }
  if (op === 'release') {
    if (entry && --entry.holders <= 0) {
      connections.delete(file);
      try { if (entry.db) entry.db.close(); } catch {}
      parentPort.postMessage({ op: 'released', file });
    }
    parentPort.postMessage({ op: 'taken', id });
    return;
  }
  if (!entry) return;
  const started = performance.now();
  try {
    if (!entry.db) {
      entry.db = new Database(file, { fileMustExist: true, timeout: 0 });
      entry.db.pragma('synchronous = ' + synchronous);
    }
    const [result] = entry.db.pragma('wal_checkpoint(PASSIVE)');
    const ms = performance.now() - started;
    parentPort.postMessage({ op: 'checkpoint', file, ms, log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    const ms = performance.now() - started;
    parentPort.postMessage({ op: 'checkpoint', file, ms, error: String(error && error.message) });
  }
});
`;

let worker: Worker | undefined;

/** The releases posted to the worker and not yet taken, by id: each resolves its `stop`. */
const releases = new Map<number, () => void>();
let nextRelease = 0;

/** Posts a release of `file` to `thread`; resolves once the worker took it (or is gone). */
function release(thread: Worker, file: string): Promise<void> {
  const id = nextRelease++;
  // The worker is kept from keeping the process alive, except while a store's close waits for it.
  if (releases.size === 0) thread.ref();
  const taken = new Promise<void>((resolve) => releases.set(id, resolve));
  thread.postMessage({ op: 'release', file, id });
  return taken;
}

/** Settles one release (or, without an id, every one: the worker is gone). */
function settleReleases(thread: Worker, id?: number): void {
  for (const [key, resolve] of releases) {
    if (id !== undefined && key !== id) continue;
    releases.delete(key);
    resolve();
  }
  if (releases.size === 0) thread.unref();
}

/** The process's checkpoint worker, started at the first file checkpointed; it never keeps the process alive. */
function checkpointWorker(): Worker {
  if (worker !== undefined) return worker;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver }, execArgv: [] });
  started.on('message', (message: WalCheckpointReport & { op: 'checkpoint' | 'released' | 'taken'; id?: number }) => {
    const { op, id, ...report } = message;
    if (op === 'taken') return settleReleases(started, id);
    walCheckpoints.emit(op, op === 'released' ? report.file : report);
  });
  // A worker that fails is replaced at the next checkpoint; the automatic checkpoint bounds the WAL meanwhile.
  started.on('error', () => undefined);
  started.on('exit', () => {
    if (worker === started) worker = undefined;
    settleReleases(started);
  });
  // After the listeners: a `message` listener refs the worker's port again.
  started.unref();
  worker = started;
  return started;
}

/**
 * A checkpointer of `db`: after a commit, a passive checkpoint (which waits for no reader or writer) runs once
 * `afterMs` have passed, copying what was written meanwhile, in the worker thread for a file; an idle
 * connection runs none. A checkpoint that fails (the file busy with another process) is left to the next one,
 * or to SQLite's automatic checkpoint.
 */
export function walCheckpointer(db: WalConnection, options: WalCheckpointOptions = {}): WalCheckpointer {
  const afterMs = options.afterMs ?? WAL_CHECKPOINT_AFTER_MS;
  const file = options.file !== undefined && options.file !== ':memory:' ? options.file : undefined;
  const synchronous = options.synchronous ?? 'NORMAL';
  let due: NodeJS.Timeout | undefined;
  let held: Worker | undefined;
  const inline = (): void => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or closing: the next write schedules another, and the automatic checkpoint bounds the WAL.
    }
  };
  const run = (): void => {
    if (due) clearTimeout(due);
    due = undefined;
    if (!db.open) return;
    if (file === undefined) return inline();
    const thread = checkpointWorker();
    if (held !== thread) {
      held = thread;
      thread.postMessage({ op: 'hold', file });
    }
    thread.postMessage({ op: 'checkpoint', file, synchronous });
  };
  return {
    written: () => {
      if (due) return;
      due = setTimeout(run, afterMs);
      // A checkpoint due never keeps the process alive: the last connection's close checkpoints anyway.
      due.unref();
    },
    flush: () => {
      if (!due) return;
      clearTimeout(due);
      due = undefined;
      if (db.open) inline();
    },
    stop: () => {
      if (due) clearTimeout(due);
      due = undefined;
      if (file !== undefined && db.open) {
        try {
          db.pragma('wal_checkpoint(FULL)');
        } catch {
          // Busy past the connection's timeout: the WAL stays, and the next connection to open the file reads it.
        }
      }
      const thread = held;
      held = undefined;
      return thread !== undefined && thread === worker && file !== undefined
        ? release(thread, file)
        : Promise.resolve();
    },
  };
}

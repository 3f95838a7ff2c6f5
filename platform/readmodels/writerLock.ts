/**
 * One writer per part of the read models in a `DATA_DIR`.
 *
 * The projections (and the delivery processor) each commit their read models with the checkpoint they last wrote,
 * and a commit finding another is refused (`ReadModelStateLostError`) and started again from the log. Two
 * processes running the same part on one SQLite file would refuse each other's commits without end, each start
 * waiting longer (the supervisor's backoff), and the lists would lag by up to a minute. So a process running a
 * part on the SQLite read models first holds that part's lock, `DATA_DIR/<part>.lock`, and a second one is refused
 * at its start, naming the folder.
 *
 * The lock is SQLite's own exclusive lock on that file (a connection in exclusive locking mode that has written
 * keeps it until it closes): the operating system drops it with the process, also on SIGKILL, so a restart never
 * waits for a stale lock, and SQLite refuses a second connection of the same process as well.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The parts that write read models, one process each per `DATA_DIR`. */
export type ReadModelWriter = 'projections' | 'delivery';

/** A second process asked to run a part whose lock another holds: the operator's to resolve. */
export class DataDirInUseError extends Error {
  /** The system's code for a resource in use, so the start script prints the message alone. */
  readonly code = 'EBUSY';
  constructor(
    readonly dataDir: string,
    readonly part: ReadModelWriter,
    readonly file: string,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use: another StockPulse process runs the ${part} on its read models (it holds ` +
        `${file}); stop that process first, or start this one with another DATA_DIR`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** The file a part's lock is held on. */
export function writerLockFile(dataDir: string, part: ReadModelWriter): string {
  return join(dataDir, `${part}.lock`);
}

/**
 * Holds the lock of `part` in `dataDir` until the answered release is called; throws {@link DataDirInUseError}
 * when another connection holds it, at once (no waiting).
 */
export function holdWriterLock(dataDir: string, part: ReadModelWriter): () => void {
  const file = writerLockFile(dataDir, part);
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock, kept by the connection until it closes.
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL); DELETE FROM holder;');
    db.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, new Date().toISOString());
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir, part, file);
    throw error;
  }
  return () => {
    if (db.open) db.close();
  };
}

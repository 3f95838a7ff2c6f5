/**
 * Checkpoints of the SQLite adapters' write-ahead logs, in small steps between turns of the event loop.
 *
 * SQLite's automatic checkpoint runs inside the commit that fills the WAL to its threshold: that commit copies
 * every page written since the last checkpoint back into the database file and syncs it, and the event loop
 * waits. At the adapters' threshold (`WAL_AUTOCHECKPOINT_PAGES`, ~40 MB) that is 50–100 ms on this machine,
 * mostly the sync, taken by whichever commit is unlucky (an alert trigger, say). A checkpoint costs about a
 * millisecond plus 5 µs per page, so the adapters checkpoint a short while after they wrote, outside any
 * commit: each copies the pages of that short while (a few ms), and the automatic checkpoint stays only as a
 * bound for a process too busy to run its timers.
 */

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
  /** Runs the due checkpoint now, if any (before a close, or in a test). */
  flush(): void;
  /** Cancels the due checkpoint. */
  stop(): void;
}

/**
 * A checkpointer of `db`: after a commit, a passive checkpoint (which waits for no reader or writer) runs once
 * `afterMs` have passed, copying what was written meanwhile; an idle connection runs none. A checkpoint that
 * fails (the file busy with another process) is left to the next one, or to SQLite's automatic checkpoint.
 */
export function walCheckpointer(db: WalConnection, afterMs = WAL_CHECKPOINT_AFTER_MS): WalCheckpointer {
  let due: NodeJS.Timeout | undefined;
  const run = (): void => {
    if (due) clearTimeout(due);
    due = undefined;
    if (!db.open) return;
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or closing: the next write schedules another, and the automatic checkpoint bounds the WAL.
    }
  };
  return {
    written: () => {
      if (due) return;
      due = setTimeout(run, afterMs);
      // A checkpoint due never keeps the process alive: the last connection's close checkpoints anyway.
      due.unref();
    },
    flush: () => {
      if (due) run();
    },
    stop: () => {
      if (due) clearTimeout(due);
      due = undefined;
    },
  };
}

/**
 * Group commit for the SQLite adapters: the writes asked for in one turn of the event loop are written together
 * at its end, in one transaction, each with its own result (the adapter runs each in a savepoint), so a burst
 * of small writes costs one commit of the WAL instead of one each. Each write's promise settles once the
 * transaction holding it is committed.
 */
/** A queue of writes committed together. */
export interface GroupCommit<T, R> {
  /** Queues a write; settles with its own result once its group is committed. */
  add(item: T): Promise<R>;
  /** Commits what is queued now (before a write that must come after it, or a close). */
  flush(): void;
}

/**
 * Makes a group commit over `write`, which writes a group in one transaction and answers, for each item, its
 * result or the error that refused it alone; a throw refuses the whole group. `committed` runs after a group
 * with the items and their outcomes, before their promises settle.
 */
export function groupCommit<T, R>(
  write: (items: readonly T[]) => readonly (R | Error)[],
  committed?: (items: readonly T[], outcomes: readonly (R | Error)[]) => void,
): GroupCommit<T, R> {
  let queued: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  const flush = (): void => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const group = queued;
    queued = [];
    if (group.length === 0) return;
    let outcomes: readonly (R | Error)[];
    try {
      outcomes = write(group.map((entry) => entry.item));
    } catch (error) {
      // Nothing of the group was written (the store closed, or another process held the file too long).
      for (const entry of group) entry.reject(error);
      return;
    }
    committed?.(
      group.map((entry) => entry.item),
      outcomes,
    );
    group.forEach((entry, i) => {
      const outcome = outcomes[i] as R | Error;
      if (outcome instanceof Error) entry.reject(outcome);
      else entry.resolve(outcome);
    });
  };

  return {
    add: (item) =>
      new Promise<R>((resolve, reject) => {
        queued.push({ item, resolve, reject });
        scheduled ??= setImmediate(flush);
      }),
    flush,
  };
}

/** Runs `work`, answering its result or the error it threw (for a group's items that fail alone). */
export function resultOrError<R>(work: () => R): R | Error {
  try {
    return work();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A transaction as better-sqlite3 makes it: called inside another one, it runs as a savepoint. */
interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}

/** What {@link allThenEach} needs of a better-sqlite3 connection. */
export interface SqliteConnection {
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
}

/**
 * The `write` of a {@link groupCommit} on a SQLite connection: the group is first written in one transaction
 * without a savepoint per item (a savepoint costs more than a small write); should any item be refused, that
 * transaction rolls back whole and the group is written again with each item in a savepoint of its own, so the
 * one refused rolls back alone and answers its error (or what `recover` makes of it). A connection that refuses
 * the transaction itself (closed, busy) refuses the group whole.
 */
export function allThenEach<T, R>(
  db: SqliteConnection,
  write: (item: T) => R,
  recover?: (item: T, error: unknown) => R,
): (items: readonly T[]) => (R | Error)[] {
  // Inside the group's transaction a nested transaction runs as a savepoint.
  const savepoint = db.transaction((item: T) => write(item));
  let refusedInside = false;
  const all = db.transaction((items: readonly T[]) => {
    try {
      return items.map((item) => write(item));
    } catch (error) {
      refusedInside = true;
      throw error;
    }
  });
  const each = db.transaction((items: readonly T[]) =>
    items.map((item) =>
      resultOrError(() => {
        try {
          return savepoint(item);
        } catch (error) {
          if (!recover) throw error;
          return recover(item, error);
        }
      }),
    ),
  );
  return (items) => {
    refusedInside = false;
    try {
      return all.immediate(items);
    } catch (error) {
      if (!refusedInside) throw error;
      return each.immediate(items);
    }
  };
}

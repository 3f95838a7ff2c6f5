/**
 * For the tests and the benchmark of the sealer's two ways of reading the log (`platform/audit/seals.ts`): one log
 * copied, and a store that does not tell its chain heads.
 */
import { openSqliteFile } from '../../testing/sqliteFile.ts';
import type { EventStore } from '../port.ts';

/**
 * A copy of a closed SQLite log, consistent whatever its WAL holds: written by SQLite itself (`VACUUM INTO`),
 * where a copy of the file could catch a checkpoint half done.
 */
export function copyLog(source: string, file: string): void {
  const db = openSqliteFile(source);
  try {
    db.prepare('VACUUM INTO ?').run(file);
  } finally {
    db.close();
  }
}

/** The store as a reader sees a store without `chainHeads` (EventStoreDB's): every other method passed on. */
export function withoutChainHeads(store: EventStore): EventStore {
  return {
    appendToStream: (...args) => store.appendToStream(...args),
    readStream: (...args) => store.readStream(...args),
    readAll: (...args) => store.readAll(...args),
    subscribeToAll: (...args) => store.subscribeToAll(...args),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
}

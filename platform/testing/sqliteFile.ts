/**
 * For tests that alter the SQLite file of an embedded adapter behind its back, as a disk fault or a stray edit
 * would: the file opened in a connection of its own, which the caller closes.
 */
import Database from 'better-sqlite3';

/** Opens `file` (an event log, read models or sessions of `DATA_DIR`) for a test to read and change directly. */
export function openSqliteFile(file: string): Database.Database {
  return new Database(file);
}

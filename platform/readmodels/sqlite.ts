import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { comparePositions } from '../eventstore/port.ts';
import { WAL_AUTOCHECKPOINT_PAGES } from '../eventstore/sqlite.ts';
import { allThenEach, groupCommit, type GroupCommit } from '../groupCommit.ts';
import { walCheckpointer, type WalCheckpointer } from '../walCheckpoint.ts';
import {
  ReadModelStateLostError,
  takeDocumentText,
  type Checkpoint,
  type DocumentWrite,
  type KeyedDocument,
  type ReadModelStore,
} from './port.ts';

/** Options of {@link openSqliteReadModelStore}. */
export interface SqliteReadModelStoreOptions {
  /** Path of the database file (created with its folder when missing); `:memory:` for a private one. */
  readonly file: string;
}

interface CheckpointRow {
  consumer: string;
  commit_pos: number;
  prepare_pos: number;
  version: number;
}

/** A commit waiting for the group commit. */
interface QueuedCommit {
  readonly consumer: string;
  readonly checkpoint: Checkpoint;
  readonly writes: readonly DocumentWrite[];
  /** The checkpoint it must find, null for none; undefined to write whatever is stored. */
  readonly expected: Checkpoint | null | undefined;
}

/**
 * ReadModelStore on a SQLite file (WAL): documents as JSON, checkpoints beside them. A commit checks, in its
 * transaction, that the stored checkpoint is the one expected (another store's reset, or a file replaced, is
 * refused rather than written on).
 */
export class SqliteReadModelStore implements ReadModelStore {
  private readonly db: Database.Database;
  /**
   * What the next commit of each consumer expects to find: the checkpoint this store last committed or first
   * read, null for none; absent when it has no expectation.
   */
  private readonly expected = new Map<string, Checkpoint | null>();
  private readonly stmt: {
    get: Database.Statement<[string, string], { doc: string }>;
    list: Database.Statement<[string, string, string, number], { key: string; doc: string }>;
    put: Database.Statement<[string, string, string]>;
    del: Database.Statement<[string, string]>;
    delCollection: Database.Statement<[string]>;
    checkpoint: Database.Statement<[string], CheckpointRow>;
    checkpoints: Database.Statement<[], CheckpointRow>;
    setCheckpoint: Database.Statement<[string, number, number, number]>;
    delCheckpoint: Database.Statement<[string]>;
  };
  private readonly resetTx: Database.Transaction<(consumer: string, collections: readonly string[]) => void>;
  /** Commits waiting for the group commit at the end of this turn of the event loop. */
  private readonly group: GroupCommit<QueuedCommit, null>;
  /** Checkpoints of the WAL soon after writes, outside the commits (see `platform/walCheckpoint.ts`). */
  private readonly checkpoints: WalCheckpointer;

  constructor(options: SqliteReadModelStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    // As the event log does: documents rewritten by many small commits are copied back to the file once per
    // ~40 MB of WAL instead of once per 4 MB (each checkpoint also syncs the file).
    this.db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS documents (
        collection TEXT NOT NULL,
        key TEXT NOT NULL,
        doc TEXT NOT NULL,
        PRIMARY KEY (collection, key)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS checkpoints (
        consumer TEXT PRIMARY KEY,
        commit_pos INTEGER NOT NULL,
        prepare_pos INTEGER NOT NULL,
        version INTEGER NOT NULL
      );
    `);
    this.stmt = {
      get: this.db.prepare('SELECT doc FROM documents WHERE collection = ? AND key = ?'),
      list: this.db.prepare(
        'SELECT key, doc FROM documents WHERE collection = ? AND key >= ? AND key < ? ORDER BY key LIMIT ?',
      ),
      put: this.db.prepare('INSERT OR REPLACE INTO documents (collection, key, doc) VALUES (?, ?, ?)'),
      del: this.db.prepare('DELETE FROM documents WHERE collection = ? AND key = ?'),
      delCollection: this.db.prepare('DELETE FROM documents WHERE collection = ?'),
      checkpoint: this.db.prepare('SELECT * FROM checkpoints WHERE consumer = ?'),
      checkpoints: this.db.prepare('SELECT * FROM checkpoints'),
      setCheckpoint: this.db.prepare(
        'INSERT OR REPLACE INTO checkpoints (consumer, commit_pos, prepare_pos, version) VALUES (?, ?, ?, ?)',
      ),
      delCheckpoint: this.db.prepare('DELETE FROM checkpoints WHERE consumer = ?'),
    };
    this.checkpoints = walCheckpointer(this.db, { file: options.file });
    this.group = groupCommit(
      allThenEach(this.db, ({ consumer, checkpoint, writes, expected }: QueuedCommit) => {
        if (expected !== undefined) {
          const row = this.stmt.checkpoint.get(consumer);
          const found = row ? toCheckpoint(row) : null;
          if (!sameCheckpoint(found, expected)) throw new ReadModelStateLostError(consumer, expected, found);
        }
        this.writeCommit(consumer, checkpoint, writes);
        return null;
      }),
      () => this.checkpoints.written(),
    );
    this.resetTx = this.db.transaction((consumer: string, collections: readonly string[]) => {
      for (const c of collections) this.stmt.delCollection.run(c);
      this.stmt.delCheckpoint.run(consumer);
    });
  }

  /** The statements of one commit, inside the caller's transaction or savepoint. */
  private writeCommit(consumer: string, checkpoint: Checkpoint, writes: readonly DocumentWrite[]): void {
    for (const w of writes) {
      if (w.doc === null || w.doc === undefined) this.stmt.del.run(w.collection, w.key);
      else this.stmt.put.run(w.collection, w.key, takeDocumentText(w.doc));
    }
    this.stmt.setCheckpoint.run(consumer, checkpoint.position.commit, checkpoint.position.prepare, checkpoint.version);
  }

  get<T>(collection: string, key: string): Promise<T | undefined> {
    const row = this.stmt.get.get(collection, key);
    return Promise.resolve(row ? (JSON.parse(row.doc) as T) : undefined);
  }

  list<T>(collection: string, options: { prefix?: string; limit?: number } = {}): Promise<KeyedDocument<T>[]> {
    const prefix = options.prefix ?? '';
    const rows = this.stmt.list.all(collection, prefix, `${prefix}\uffff`, options.limit ?? -1);
    return Promise.resolve(rows.map((r) => ({ key: r.key, doc: JSON.parse(r.doc) as T })));
  }

  readCheckpoint(consumer: string): Promise<Checkpoint | null> {
    const row = this.stmt.checkpoint.get(consumer);
    const checkpoint = row ? toCheckpoint(row) : null;
    if (!this.expected.has(consumer)) this.expected.set(consumer, checkpoint);
    return Promise.resolve(checkpoint);
  }

  listCheckpoints(): Promise<Map<string, Checkpoint>> {
    return Promise.resolve(new Map(this.stmt.checkpoints.all().map((row) => [row.consumer, toCheckpoint(row)])));
  }

  /**
   * Group commit: the commits of every consumer made in one turn of the event loop are written in one
   * transaction at its end (each still atomic on its own), instead of one transaction each. The promise
   * settles once that transaction is committed.
   */
  commit(consumer: string, checkpoint: Checkpoint, writes: readonly DocumentWrite[]): Promise<void> {
    const expected = this.expected.get(consumer);
    const own: Checkpoint = { position: { ...checkpoint.position }, version: checkpoint.version };
    // A commit asked for before this one is written builds on it, so it expects this checkpoint.
    this.expected.set(consumer, own);
    return this.group.add({ consumer, checkpoint: own, writes, expected }).then(
      () => undefined,
      (error: unknown) => {
        this.forget(consumer, own);
        throw error;
      },
    );
  }

  /** Drops what the consumer's next commit expects, unless a later commit or reset has set it since. */
  private forget(consumer: string, expected: Checkpoint | null): void {
    if (this.expected.get(consumer) === expected) this.expected.delete(consumer);
  }

  reset(consumer: string, collections: readonly string[]): Promise<void> {
    // After the commits already asked for, as before.
    this.group.flush();
    this.resetTx.immediate(consumer, collections);
    this.expected.set(consumer, null);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.db.open) this.group.flush();
    const letGo = this.checkpoints.stop();
    if (this.db.open) this.db.close();
    // Then no connection of this process holds the file, the checkpoint worker's included.
    await letGo;
  }
}

function sameCheckpoint(a: Checkpoint | null, b: Checkpoint | null): boolean {
  if (a === null || b === null) return a === b;
  return a.version === b.version && comparePositions(a.position, b.position) === 0;
}

function toCheckpoint(row: CheckpointRow): Checkpoint {
  return { position: { commit: row.commit_pos, prepare: row.prepare_pos }, version: row.version };
}

/** Opens (creating when missing) the SQLite read-model store at `options.file`. */
export function openSqliteReadModelStore(options: SqliteReadModelStoreOptions): SqliteReadModelStore {
  return new SqliteReadModelStore(options);
}

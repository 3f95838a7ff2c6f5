import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { allThenEach, groupCommit, type GroupCommit } from '../groupCommit.ts';
import { walCheckpointer, type WalCheckpointer } from '../walCheckpoint.ts';
import {
  EventStoreError,
  START,
  StreamNotFoundError,
  WrongExpectedRevisionError,
  isSystemEventType,
  filterMatcher,
  type AppendOptions,
  type AppendResult,
  type ChainHead,
  type ChainHeadsOptions,
  type ChainHeadsPage,
  type EventData,
  type EventMetadata,
  type EventStore,
  type LogPosition,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHandlers,
} from './port.ts';

/** Options of {@link openSqliteEventStore}. */
export interface SqliteEventStoreOptions {
  /** Path of the database file (created with its folder when missing); `:memory:` for a private log. */
  readonly file: string;
  /**
   * `normal` (default): an acknowledged append survives a crash of the process (WAL);
   * `full`: it also survives a power loss, at about half the append rate.
   */
  readonly synchronous?: 'normal' | 'full';
  /** How often another process's appends are looked for, in ms (default 5). */
  readonly pollIntervalMs?: number;
}

interface EventRow {
  seq: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  created: string;
}

/** A row read for the subscriptions, parsed once for all of them when the first one takes it. */
interface SharedRow {
  readonly row: EventRow;
  event: RecordedEvent | undefined;
}

/**
 * The rows one append of a group commit wrote: `first` to `last` (sequence numbers, consecutive within it), and
 * their stream and types, which is all a subscription's filter reads.
 */
interface AppendedRows {
  readonly stream: string;
  readonly events: readonly EventData[];
  readonly first: number;
  readonly last: number;
}

/** An append waiting for the group commit. */
interface QueuedAppend {
  readonly stream: string;
  readonly events: readonly EventData[];
  readonly options: AppendOptions;
}

const PAGE = 1024;

/** WAL pages written between automatic checkpoints (SQLite's default is 1000). */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

function position(seq: number): LogPosition {
  return { commit: seq, prepare: seq };
}

/** A stream's event as `chainHeads` reads it: `kind` is the JSON type of its `metadata.hash`. */
interface HeadRow {
  readonly stream: string;
  readonly revision: number;
  readonly hash: string;
  readonly kind: string | null;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    type: row.type,
    streamId: row.stream,
    revision: row.revision,
    position: position(row.seq),
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    created: row.created,
  };
}

/** Runs synchronous work as a promise: its value resolves it, its throw rejects it. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * EventStore on a SQLite file (better-sqlite3, WAL). Appends run in `BEGIN IMMEDIATE` transactions, so
 * several processes may share one file: one writes at a time, all read and subscribe. Positions are the
 * global sequence (`commit` = `prepare` = sequence number).
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly wake = new EventEmitter();
  private readonly subscriptions = new Set<{ stop(): Promise<void> }>();
  private poller: NodeJS.Timeout | undefined;
  private dataVersion = 0;
  private closed = false;
  /** Bumped by every commit this store sees (its own, and another process's found by the poller). */
  private appendVersion = 0;
  /**
   * The last page read by a subscription: the subscriptions woken by one commit all read the same rows after
   * the same position, so they share one read and one parse instead of one each.
   */
  private lastPage: { at: number; version: number; rows: readonly SharedRow[] } | undefined;

  private readonly stmt: {
    byId: Database.Statement<[string], { stream: string; revision: number; seq: number }>;
    lastRevision: Database.Statement<[string], { revision: number | null }>;
    insert: Database.Statement<[string, string, number, string, string, string, string]>;
    forwards: Database.Statement<[string, number, number], EventRow>;
    backwards: Database.Statement<[string, number, number], EventRow>;
    exists: Database.Statement<[string], { one: number }>;
    all: Database.Statement<[number, number], EventRow>;
    head: Database.Statement<[], { seq: number | null }>;
    lastOfStreams: Database.Statement<[number, number], { seq: number; n: number }>;
    chainHead: Database.Statement<[number], HeadRow>;
    lastChained: Database.Statement<[string, number, number], HeadRow>;
    dataVersion: Database.Statement<[], { data_version: number }>;
  };
  private readonly appendTx: (stream: string, events: readonly EventData[], options: AppendOptions) => AppendResult;
  /** Appends waiting for the group commit at the end of this turn of the event loop. */
  private readonly group: GroupCommit<QueuedAppend, AppendResult>;
  /** Checkpoints of the WAL soon after writes, outside the commits (see `platform/walCheckpoint.ts`). */
  private readonly checkpoints: WalCheckpointer;

  constructor(private readonly options: SqliteEventStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('busy_timeout = 10000');
    // Checkpoint the WAL every ~40 MB instead of every 4 MB: pages rewritten by many small appends are
    // copied back once, which makes single-event appends about 40% faster (see `npm run bench -- eventstore`).
    this.db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        stream TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created TEXT NOT NULL,
        UNIQUE (stream, revision)
      );
    `);
    this.wake.setMaxListeners(0);
    this.stmt = {
      byId: this.db.prepare('SELECT stream, revision, seq FROM events WHERE id = ?'),
      lastRevision: this.db.prepare('SELECT max(revision) AS revision FROM events WHERE stream = ?'),
      insert: this.db.prepare(
        'INSERT INTO events (id, stream, revision, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      forwards: this.db.prepare(
        'SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?',
      ),
      backwards: this.db.prepare(
        'SELECT * FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?',
      ),
      exists: this.db.prepare('SELECT 1 AS one FROM events WHERE stream = ? LIMIT 1'),
      all: this.db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq ASC LIMIT ?'),
      head: this.db.prepare('SELECT max(seq) AS seq FROM events'),
      lastOfStreams: this.db.prepare(
        `SELECT max(seq) AS seq, count(*) AS n FROM (SELECT seq, stream FROM events WHERE seq > ? ORDER BY seq LIMIT ?)
         GROUP BY stream`,
      ),
      chainHead: this.db.prepare(
        `SELECT stream, revision, json_extract(metadata, '$.hash') AS hash, json_type(metadata, '$.hash') AS kind
         FROM events WHERE seq = ?`,
      ),
      lastChained: this.db.prepare(
        `SELECT stream, revision, json_extract(metadata, '$.hash') AS hash, 'text' AS kind FROM events
         WHERE stream = ? AND seq > ? AND seq < ? AND json_type(metadata, '$.hash') = 'text'
         ORDER BY seq DESC LIMIT 1`,
      ),
      dataVersion: this.db.prepare('PRAGMA data_version'),
    };
    const tx = this.db.transaction((stream: string, events: readonly EventData[], opts: AppendOptions) =>
      this.appendInTransaction(stream, events, opts),
    );
    this.appendTx = (stream, events, opts) => tx.immediate(stream, events, opts);
    const writeGroup = allThenEach(
      this.db,
      ({ stream, events, options: opts }: QueuedAppend) => this.appendInTransaction(stream, events, opts),
      ({ stream, events }, error) => this.recoveredAppend(stream, events, error),
    );
    this.checkpoints = walCheckpointer(this.db, {
      file: options.file,
      synchronous: options.synchronous === 'full' ? 'FULL' : 'NORMAL',
    });
    this.group = groupCommit(
      (appends) => {
        this.assertOpen();
        return writeGroup(appends);
      },
      (appends, outcomes) => {
        const appended: AppendedRows[] = [];
        appends.forEach(({ stream, events }, i) => {
          const outcome = outcomes[i];
          if (events.length === 0 || outcome === undefined || outcome instanceof Error) return;
          const last = outcome.position.commit;
          appended.push({ stream, events, first: last - events.length + 1, last });
        });
        if (appended.length > 0) {
          this.appendVersion += 1;
          this.checkpoints.written();
          this.wake.emit('append', appended);
        }
      },
    );
  }

  /** The underlying connection, for adapters that keep their own tables in the same file. */
  get database(): Database.Database {
    return this.db;
  }

  /**
   * Group commit: the appends made in one turn of the event loop are written in one transaction at its end,
   * each in its own savepoint with its own revision check and result, so many small appends (a delivery's
   * attempt and outcome, for each of hundreds of users) share one commit of the WAL instead of one each. The
   * promise settles once the transaction holding the append is committed.
   */
  appendToStream(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    try {
      this.checkAppend(stream, events);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    // Queued at once: appends keep the order they were asked in, and one asked before `close` is written.
    return this.group.add({ stream, events, options });
  }

  /**
   * Synchronous append in its own transaction, for callers that already run on this connection (same
   * semantics; it does not wait for, nor join, the appends queued for the group commit).
   */
  appendSync(stream: string, events: readonly EventData[], options: AppendOptions = {}): AppendResult {
    this.checkAppend(stream, events);
    let result: AppendResult;
    try {
      result = this.appendTx(stream, events, options);
    } catch (error) {
      return this.recoveredAppend(stream, events, error);
    }
    if (events.length > 0) {
      this.appendVersion += 1;
      this.checkpoints.written();
      this.wake.emit('append');
    }
    return result;
  }

  private checkAppend(stream: string, events: readonly EventData[]): void {
    this.assertOpen();
    if (!stream) throw new EventStoreError('stream name must not be empty');
    for (const e of events) {
      if (isSystemEventType(e.type)) throw new EventStoreError(`event type ${e.type} is reserved for the store`);
    }
  }

  /** After a failed append (rolled back): a retry of an earlier append answers its result; anything else throws. */
  private recoveredAppend(stream: string, events: readonly EventData[], error: unknown): AppendResult {
    // A retried append fails the revision check or the unique event id.
    const earlier = events[0] && this.stmt.byId.get(events[0].id);
    if (!earlier) throw error;
    if (error instanceof WrongExpectedRevisionError || isUniqueViolation(error)) {
      return this.replayedAppend(stream, events, earlier);
    }
    throw error;
  }

  private appendInTransaction(stream: string, events: readonly EventData[], options: AppendOptions): AppendResult {
    const last = this.stmt.lastRevision.get(stream)?.revision ?? null;
    const actual: number | 'no_stream' = last === null ? 'no_stream' : last;
    const expected = options.expectedRevision ?? 'any';
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && actual === 'no_stream') ||
      (expected === 'stream_exists' && actual !== 'no_stream') ||
      (typeof expected === 'number' && expected === actual);
    if (!ok) throw new WrongExpectedRevisionError(stream, expected, actual);

    let revision = last ?? -1;
    let seq = -1;
    const created = new Date().toISOString();
    for (const e of events) {
      revision += 1;
      const info = this.stmt.insert.run(
        e.id,
        stream,
        revision,
        e.type,
        JSON.stringify(e.data ?? null),
        JSON.stringify(e.metadata ?? {}),
        created,
      );
      seq = Number(info.lastInsertRowid);
    }
    if (seq < 0) seq = this.stmt.head.get()?.seq ?? START.commit;
    return { nextExpectedRevision: revision, position: position(seq) };
  }

  /** A retried append: every id must already be in this stream, in order; answer what the first append did. */
  private replayedAppend(
    stream: string,
    events: readonly EventData[],
    first: { stream: string; revision: number; seq: number },
  ): AppendResult {
    let found = first;
    for (let i = 0; i < events.length; i++) {
      const row = i === 0 ? first : this.stmt.byId.get(events[i]!.id);
      if (!row || row.stream !== stream || row.revision !== first.revision + i) {
        throw new EventStoreError(`event ${events[i]!.id} was already appended, but not as part of this same append`);
      }
      found = row;
    }
    return { nextExpectedRevision: found.revision, position: position(found.seq) };
  }

  readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return settle(() => this.readStreamSync(stream, options));
  }

  private readStreamSync(stream: string, options: ReadStreamOptions): RecordedEvent[] {
    this.assertOpen();
    const backwards = options.direction === 'backwards';
    const limit = options.maxCount ?? -1;
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    let rows: EventRow[];
    if (backwards) {
      const rev = from === 'end' ? Number.MAX_SAFE_INTEGER : from === 'start' ? 0 : from;
      rows = this.stmt.backwards.all(stream, rev, limit);
    } else {
      const rev = from === 'start' ? 0 : from === 'end' ? Number.MAX_SAFE_INTEGER : from;
      rows = this.stmt.forwards.all(stream, rev, limit);
    }
    if (rows.length === 0 && !this.stmt.exists.get(stream)) throw new StreamNotFoundError(stream);
    return rows.map(toRecorded);
  }

  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? -1;
    const rows = this.stmt.all.all((options.fromPosition ?? START).commit, limit);
    return Promise.resolve(rows.map(toRecorded));
  }

  hasEvent(stream: string, eventId: string): Promise<boolean> {
    this.assertOpen();
    return Promise.resolve(this.stmt.byId.get(eventId)?.stream === stream);
  }

  streamRevision(stream: string): Promise<number | 'no_stream'> {
    this.assertOpen();
    return Promise.resolve(this.stmt.lastRevision.get(stream)?.revision ?? 'no_stream');
  }

  chainHeads(options: ChainHeadsOptions): Promise<ChainHeadsPage> {
    this.assertOpen();
    const from = options.fromPosition.commit;
    // Each stream's last event among those scanned, and only its metadata read; where that one has no hash
    // (rare: an event written outside the chain), the last one before it that has one.
    const heads: ChainHead[] = [];
    let scanned = 0;
    let last = from;
    for (const { seq, n } of this.stmt.lastOfStreams.all(from, options.maxCount)) {
      scanned += n;
      if (seq > last) last = seq;
      let row = this.stmt.chainHead.get(seq);
      if (row !== undefined && row.kind !== 'text') row = this.stmt.lastChained.get(row.stream, from, seq);
      if (row !== undefined) heads.push({ streamId: row.stream, revision: row.revision, hash: row.hash });
    }
    return Promise.resolve({ heads, scanned, through: scanned === 0 ? options.fromPosition : position(last) });
  }

  headPosition(): Promise<LogPosition> {
    this.assertOpen();
    const seq = this.stmt.head.get()?.seq;
    return Promise.resolve(seq == null ? START : position(seq));
  }

  subscribeToAll(handlers: SubscriptionHandlers, options: SubscribeOptions = {}): Subscription {
    this.assertOpen();
    let stopped = false;
    let wakeUp: (() => void) | undefined;
    let at = (options.fromPosition ?? START).commit;
    let isCaughtUp = false;
    /** A checkpoint handler's promise from a wake that passed events in place: awaited before the next page. */
    let passing: PromiseLike<unknown> | undefined;
    const matches = filterMatcher(options.filter);
    /**
     * A commit of this process that holds nothing for this subscription, waiting right at its position: passed
     * in place, as reading the page and skipping it would (its checkpoint moves past it), without a turn of the
     * loop. Answers whether it did; anything else (another process's rows in between, a row it takes, a page
     * under way) wakes the loop, which reads the rows.
     */
    const passInPlace = (appended: readonly AppendedRows[]): boolean => {
      let next = at;
      for (const rows of appended) {
        if (rows.first !== next + 1) return false;
        for (const event of rows.events) if (matches(rows.stream, event.type)) return false;
        next = rows.last;
      }
      at = next;
      let r: unknown;
      try {
        r = handlers.onCheckpoint?.(position(at));
      } catch (error) {
        // Thrown within the commit's wake: the loop, woken, fails with it as the handler's own turn would.
        r = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      if (!isThenable(r)) return true;
      const pending = Promise.all(passing === undefined ? [r] : [passing, r]);
      // The loop awaits it and fails with it; stopped first, it leaves no unhandled rejection behind.
      pending.catch(() => undefined);
      passing = pending;
      return false;
    };
    const onWake = (appended?: readonly AppendedRows[]): void => {
      const w = wakeUp;
      if (w === undefined || (appended !== undefined && isCaughtUp && !stopped && passInPlace(appended))) return;
      wakeUp = undefined;
      w();
    };
    let resolveCaughtUp!: () => void;
    const caughtUp = new Promise<void>((resolve) => (resolveCaughtUp = resolve));
    const startHead = this.stmt.head.get()?.seq ?? START.commit;

    const run = async (): Promise<void> => {
      while (!stopped) {
        if (passing !== undefined) {
          const r = passing;
          passing = undefined;
          await r;
        }
        // The commits seen when the page is read: one seen later (its wake may have come while this subscription
        // was applying the page) makes it read again rather than wait.
        const version = this.appendVersion;
        const rows = this.pageAfter(at);
        let skipped = false;
        for (const shared of rows) {
          if (stopped) return;
          const row = shared.row;
          at = row.seq;
          if (!matches(row.stream, row.type)) {
            skipped = true;
            continue;
          }
          const r = handlers.onEvent((shared.event ??= toRecorded(row)));
          if (isThenable(r)) await r;
        }
        if (stopped) return;
        if (skipped && handlers.onCheckpoint) {
          const r = handlers.onCheckpoint(position(at));
          if (isThenable(r)) await r;
        }
        if (!isCaughtUp && (rows.length < PAGE || at >= startHead)) {
          isCaughtUp = true;
          const r = handlers.onCaughtUp?.();
          if (isThenable(r)) await r;
          resolveCaughtUp();
        }
        if (rows.length < PAGE) {
          await new Promise<void>((resolve) => {
            wakeUp = resolve;
            // Another process's commit is seen by the poller, which wakes it then (or makes the version differ).
            if (this.appendVersion !== version || stopped) onWake();
          });
        }
      }
    };

    this.wake.on('append', onWake);
    this.startPolling();
    const done = run().catch((error: unknown) => {
      if (!stopped && !this.closed) handlers.onError?.(error instanceof Error ? error : new Error(String(error)));
    });
    const subscription = {
      caughtUp,
      stop: async (): Promise<void> => {
        stopped = true;
        this.wake.off('append', onWake);
        this.subscriptions.delete(subscription);
        if (this.subscriptions.size === 0) this.stopPolling();
        onWake();
        await done;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** The rows after `at` (one page), shared with the other subscriptions reading after the same position. */
  private pageAfter(at: number): readonly SharedRow[] {
    const last = this.lastPage;
    if (last && last.at === at && last.version === this.appendVersion) return last.rows;
    const rows = this.stmt.all.all(at, PAGE).map((row): SharedRow => ({ row, event: undefined }));
    this.lastPage = { at, version: this.appendVersion, rows };
    return rows;
  }

  /** Another process's commits change `PRAGMA data_version`; look for that while anyone subscribes. */
  private startPolling(): void {
    if (this.poller) return;
    this.dataVersion = this.stmt.dataVersion.get()?.data_version ?? 0;
    this.poller = setInterval(() => {
      if (this.closed) return;
      const v = this.stmt.dataVersion.get()?.data_version ?? 0;
      if (v !== this.dataVersion) {
        this.dataVersion = v;
        this.appendVersion += 1;
        this.wake.emit('append');
      }
    }, this.options.pollIntervalMs ?? 5);
    this.poller.unref();
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreError('event store is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.group.flush();
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.group.flush();
    this.closed = true;
    this.stopPolling();
    const letGo = this.checkpoints.stop();
    this.db.close();
    // Then no connection of this process holds the file, the checkpoint worker's included.
    await letGo;
  }
}

/** Opens (creating when missing) the SQLite event store at `options.file`. */
export function openSqliteEventStore(options: SqliteEventStoreOptions): SqliteEventStore {
  return new SqliteEventStore(options);
}

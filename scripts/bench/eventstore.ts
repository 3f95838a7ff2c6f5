/**
 * `npm run bench -- eventstore`: the EventStore port on SQLite against raw better-sqlite3 inserts measured
 * in the same run, so the ratios hold on a noisy machine. Prints a table, then one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { START, type EventData } from '../../platform/eventstore/port.ts';
import { WAL_AUTOCHECKPOINT_PAGES, openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { walCheckpointer } from '../../platform/walCheckpoint.ts';
import { progress, round2 } from './child.ts';
import { percentile } from './gateway.ts';

/** Figures of one run, in operations per second. */
export interface EventStoreBenchResult {
  readonly bench: 'eventstore';
  readonly singleAppendsPerSec: number;
  readonly batchAppendsPerSec: number;
  readonly readAllPerSec: number;
  readonly catchUpPerSec: number;
  readonly rawInsertsPerSec: number;
  readonly ratioToRaw: number;
  /**
   * The event loop's delay (p99 of a 1 ms sampling, ms) under steady writes with the WAL checkpointed in the
   * worker thread, as the stores do, and on the writing connection, as they did; the medians of the rounds. Each
   * includes the sampling's 1 ms interval (a free loop reads 1 ms; see `loopDelayMs` in `child.ts`), which keeps
   * their ratio defined and can only bring it nearer 1.
   */
  readonly loopDelayWorkerP99Ms: number;
  readonly loopDelayInlineP99Ms: number;
  /** The largest delay seen in any round, each way, ms. */
  readonly loopDelayWorkerMaxMs: number;
  readonly loopDelayInlineMaxMs: number;
  /** loopDelayWorkerP99Ms / loopDelayInlineP99Ms. */
  readonly loopDelayRatio: number;
}

const SINGLE = 30_000;
const BATCHES = 600;
const STREAMS = 1_000;
/** Untimed appends first, so neither side pays for JIT warm-up or the first growth of its files. */
const WARM_UP = 3_000;

function payload(i: number): Record<string, unknown> {
  return { symbol: 'AAPL', threshold: 190 + (i % 100) / 100, alerttype: i % 2 ? 'U' : 'D' };
}

function metadata(i: number): Record<string, string> {
  return { userId: `u${i % STREAMS}`, actor: `user:u${i % STREAMS}`, at: '2026-11-21T12:00:00.000Z' };
}

function rate(count: number, started: bigint): number {
  return Math.round(count / (Number(process.hrtime.bigint() - started) / 1e9));
}

/** Raw baseline: one autocommitted INSERT per event into the same schema and pragmas, no port around it. */
function rawInserts(file: string): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
    revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
    created TEXT NOT NULL, UNIQUE (stream, revision))`);
  const insert = db.prepare(
    'INSERT INTO events (id, stream, revision, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const revisions = new Array<number>(STREAMS).fill(-1);
  let started = process.hrtime.bigint();
  for (let i = -WARM_UP; i < SINGLE; i++) {
    if (i === 0) started = process.hrtime.bigint();
    const s = (i + WARM_UP) % STREAMS;
    revisions[s]! += 1;
    insert.run(
      randomUUID(),
      `bench-s${s}`,
      revisions[s]!,
      'AlertCreated',
      JSON.stringify(payload(i)),
      JSON.stringify(metadata(i)),
      new Date().toISOString(),
    );
  }
  const perSec = rate(SINGLE, started);
  db.close();
  return perSec;
}

/** Rows a second the steady writer commits, in transactions of ten every few ms, and for how long. */
const STEADY_ROWS_PER_SEC = 3_000;
const STEADY_MS = 4_000;
const STEADY_ROUNDS = 3;

/**
 * The event loop's delay while a connection commits {@link STEADY_ROWS_PER_SEC} rows a second (the log's rows,
 * ten per transaction) and its checkpointer runs, in the worker thread (`file` given) or on the connection.
 */
async function loopDelayUnderWrites(file: string, inWorker: boolean): Promise<{ p99Ms: number; maxMs: number }> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.exec('CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO events (id, data) VALUES (?, ?)');
  const commit = db.transaction((from: number) => {
    for (let i = from; i < from + 10; i++) insert.run(randomUUID(), JSON.stringify({ ...payload(i), ...metadata(i) }));
  });
  const checkpoints = walCheckpointer(db, inWorker ? { file } : {});
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const end = performance.now() + STEADY_MS;
  let written = 0;
  await new Promise<void>((resolve) => {
    const write = (): void => {
      commit(written);
      written += 10;
      checkpoints.written();
      if (performance.now() >= end) return resolve();
      setTimeout(write, (10 * 1000) / STEADY_ROWS_PER_SEC);
    };
    write();
  });
  delay.disable();
  await checkpoints.stop();
  db.close();
  return { p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 };
}

/** Runs the benchmark in a fresh temporary folder and returns its figures. */
export async function benchEventStore(): Promise<EventStoreBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-es-'));
  try {
    progress(`raw better-sqlite3: ${SINGLE} single-row inserts`);
    const rawInsertsPerSec = rawInserts(join(dir, 'raw.db'));

    const store = openSqliteEventStore({ file: join(dir, 'events.db') });
    progress(`port: ${SINGLE} single-event appends over ${STREAMS} streams, each at its expected revision`);
    const revisions = new Array<number | 'no_stream'>(STREAMS).fill('no_stream');
    let started = process.hrtime.bigint();
    for (let i = -WARM_UP; i < SINGLE; i++) {
      if (i === 0) started = process.hrtime.bigint();
      const s = (i + WARM_UP) % STREAMS;
      const event: EventData = { id: randomUUID(), type: 'AlertCreated', data: payload(i), metadata: metadata(i) };
      const result = await store.appendToStream(`bench-s${s}`, [event], { expectedRevision: revisions[s] });
      revisions[s] = result.nextExpectedRevision;
    }
    const singleAppendsPerSec = rate(SINGLE, started);

    progress(`port: ${BATCHES} appends of 100 events`);
    started = process.hrtime.bigint();
    for (let b = 0; b < BATCHES; b++) {
      const events = Array.from({ length: 100 }, (_, i) => ({
        id: randomUUID(),
        type: 'QuoteNoted',
        data: payload(i),
        metadata: metadata(b),
      }));
      await store.appendToStream(`batch-b${b}`, events, { expectedRevision: 'no_stream' });
    }
    const batchAppendsPerSec = rate(BATCHES * 100, started);
    const total = WARM_UP + SINGLE + BATCHES * 100;

    progress(`port: readAll of ${total} events in pages of 1000`);
    started = process.hrtime.bigint();
    let read = 0;
    for (let from = START; ;) {
      const page = await store.readAll({ fromPosition: from, maxCount: 1000 });
      if (page.length === 0) break;
      read += page.length;
      from = page[page.length - 1]!.position;
    }
    const readAllPerSec = rate(read, started);

    progress(`port: catch-up subscription over ${total} events`);
    started = process.hrtime.bigint();
    let delivered = 0;
    const subscription = store.subscribeToAll({
      onEvent: () => {
        delivered += 1;
      },
    });
    await subscription.caughtUp;
    const catchUpPerSec = rate(delivered, started);
    await subscription.stop();
    await store.close();
    if (read !== total || delivered !== total) throw new Error(`read ${read} and delivered ${delivered} of ${total}`);

    progress(
      `event-loop delay under ${STEADY_ROWS_PER_SEC} rows/s: WAL checkpoints in the worker and on the connection, ` +
        `${STEADY_ROUNDS} rounds of ${STEADY_MS / 1000} s each, alternated`,
    );
    const worker: { p99Ms: number; maxMs: number }[] = [];
    const inline: { p99Ms: number; maxMs: number }[] = [];
    for (let round = 0; round < STEADY_ROUNDS; round++) {
      inline.push(await loopDelayUnderWrites(join(dir, `inline-${round}.db`), false));
      worker.push(await loopDelayUnderWrites(join(dir, `worker-${round}.db`), true));
    }
    const medianP99 = (rounds: readonly { p99Ms: number }[]): number =>
      round2(
        percentile(
          rounds.map((r) => r.p99Ms),
          50,
        ),
      );
    const loopDelayWorkerP99Ms = medianP99(worker);
    const loopDelayInlineP99Ms = medianP99(inline);

    return {
      bench: 'eventstore',
      singleAppendsPerSec,
      batchAppendsPerSec,
      readAllPerSec,
      catchUpPerSec,
      rawInsertsPerSec,
      ratioToRaw: Math.round((singleAppendsPerSec / rawInsertsPerSec) * 1000) / 1000,
      loopDelayWorkerP99Ms,
      loopDelayInlineP99Ms,
      loopDelayWorkerMaxMs: round2(Math.max(...worker.map((r) => r.maxMs))),
      loopDelayInlineMaxMs: round2(Math.max(...inline.map((r) => r.maxMs))),
      loopDelayRatio: round2(loopDelayWorkerP99Ms / loopDelayInlineP99Ms),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the human table, the budget verdicts and, last, the JSON line. */
export function report(r: EventStoreBenchResult): boolean {
  const rows: [string, number, number | null][] = [
    ['single-event appends/s', r.singleAppendsPerSec, 20_000],
    ['events/s in 100-event appends', r.batchAppendsPerSec, null],
    ['readAll events/s', r.readAllPerSec, 200_000],
    ['catch-up subscription events/s', r.catchUpPerSec, null],
    ['raw better-sqlite3 inserts/s', r.rawInsertsPerSec, null],
  ];
  let met = true;
  console.log('figure                               per second   ratio to raw   budget');
  for (const [name, value, budget] of rows) {
    const ok = budget === null || value >= budget;
    met &&= ok;
    const verdict = budget === null ? '' : `${ok ? 'met' : 'MISSED'} (>= ${budget.toLocaleString('en-US')})`;
    console.log(
      `${name.padEnd(36)} ${value.toLocaleString('en-US').padStart(10)}   ${(value / r.rawInsertsPerSec).toFixed(2).padStart(12)}   ${verdict}`,
    );
  }
  // The checkpoints off the event loop must not delay it more than the checkpoints on it did.
  const calm = r.loopDelayRatio <= 1;
  met &&= calm;
  console.log(
    `event-loop delay p99 under steady writes: ${r.loopDelayWorkerP99Ms} ms with the WAL checkpointed in the ` +
      `worker, ${r.loopDelayInlineP99Ms} ms on the connection (max ${r.loopDelayWorkerMaxMs} and ` +
      `${r.loopDelayInlineMaxMs} ms): ratio ${r.loopDelayRatio}, ${calm ? 'met' : 'MISSED'} (<= 1)`,
  );
  console.log(JSON.stringify(r));
  return met;
}

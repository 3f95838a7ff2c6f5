/**
 * `npm run bench -- scale`: how each cost grows with its size. Five curves, each printed as a table and then one
 * JSON line:
 *
 * - engine: tick evaluations per second with 1k, 10k, 100k and 1M armed alerts (the engine bench's market);
 * - rebuild: replaying a log of 10k, 100k and 1M watch-list events into fresh read models (every projection);
 * - appends: appends of 1, 10 and 100 events each, at their expected revision, on the SQLite event store;
 * - notifications: tick to notification with 200, 2,000 and 10,000 sockets connected (the latency bench's
 *   notification measurement, the real gateway in a child process);
 * - audit: loading one user's history with 100, 10k and 100k events of their own, among 0, 100k and 1M events of
 *   other users; it must stay flat in the others (each row's ratio to the row without others near 1).
 *
 * `BENCH_SCALE=engine,audit` runs only the named curves. A whole run took 11 minutes on the shared 2-core machine
 * under a load average of 17, 8 of them for the notifications curve (a gateway per size, 1,000 users to register
 * at 10,000 sockets); the other curves together take under 3.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCOUNT_CONCERN } from '../../domain/accounts/accounts.ts';
import { USER_CONCERNS } from '../../domain/concerns.ts';
import { streamName } from '../../domain/ids.ts';
import { WATCHLIST_CONCERN } from '../../domain/watchlist/watchlist.ts';
import type { EventData, EventStore, ExpectedRevision } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { openSqliteReadModelStore } from '../../platform/readmodels/sqlite.ts';
import { loadUserHistory } from '../../projections/audit/userHistory.ts';
import { rebuildReadModels } from '../../projections/rebuild.ts';
import { progress } from './child.ts';
import { buildMarket, indexedRun } from './engine.ts';
import { benchLatency } from './latency.ts';

/** One measured size of a curve. */
export interface ScaleRow {
  /** The size. */
  readonly size: number;
  /** The curve's figures at that size. */
  readonly [figure: string]: number;
}

/** One curve: what grows, and its rows. */
export interface ScaleCurve {
  readonly bench: 'scale';
  /** The curve's name, e.g. `engine`. */
  readonly curve: string;
  /** What the size counts, e.g. `armed alerts`. */
  readonly size: string;
  /** The figure whose growth the README discusses: a cost per operation. */
  readonly cost: string;
  readonly rows: readonly ScaleRow[];
}

const ENGINE_ALERTS = [1_000, 10_000, 100_000, 1_000_000];
const ENGINE_TICKS = 300_000;
const REBUILD_EVENTS = [10_000, 100_000, 1_000_000];
const APPEND_SIZES = [1, 10, 100];
/** Events appended per size, so each size writes as much. */
const APPEND_EVENTS = 30_000;
const SOCKETS = [200, 2_000, 10_000];
const AUDIT_OWN = [100, 10_000, 100_000];
const AUDIT_OTHERS = [0, 100_000, 1_000_000];
/** Symbols the generated watch-list events name. */
const SYMBOLS = Array.from({ length: 500 }, (_, i) => `S${String(i).padStart(3, '0')}`);

function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function msSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Engine evaluation: the same ticks against more and more armed alerts. */
export function engineCurve(): ScaleCurve {
  const rows: ScaleRow[] = [];
  for (const alerts of ENGINE_ALERTS) {
    progress(`engine: ${alerts.toLocaleString('en-US')} armed alerts, ${ENGINE_TICKS.toLocaleString('en-US')} ticks`);
    const market = buildMarket(alerts, ENGINE_TICKS);
    indexedRun({ ...market, ticks: market.ticks.slice(0, 50_000) }, 1);
    const run = indexedRun(market, 1);
    rows.push({
      size: alerts,
      ticksPerSec: Math.round(run.evaluated / (run.ms / 1000)),
      usPerTick: round((run.ms * 1000) / run.evaluated, 3),
      fired: run.fired.length,
    });
  }
  return { bench: 'scale', curve: 'engine', size: 'armed alerts', cost: 'usPerTick', rows };
}

/** `count` watch-list events of users `u<first>`…, 100 per user, each adding or removing one symbol. */
async function appendWatchlistEvents(store: EventStore, prefix: string, first: number, count: number): Promise<void> {
  const perUser = 100;
  for (let done = 0; done < count; done += perUser) {
    const user = `${prefix}${first + done / perUser}`;
    const metadata = { userId: user, actor: `user:${user}`, at: '2026-11-21T12:00:00.000Z' };
    const events: EventData[] = Array.from({ length: Math.min(perUser, count - done) }, (_, i) => ({
      id: randomUUID(),
      type: i % 2 === 0 ? 'SymbolAddedToWatchlist' : 'SymbolRemovedFromWatchlist',
      data: { symbol: SYMBOLS[(done + i - (i % 2)) % SYMBOLS.length]! },
      metadata,
    }));
    await store.appendToStream(streamName(WATCHLIST_CONCERN, user), events, { expectedRevision: 'any' });
  }
}

/** Projection rebuild: the whole log replayed into fresh read models, as `npm run rebuild` does. */
export async function rebuildCurve(dir: string, logDir: string): Promise<ScaleCurve> {
  const store = openSqliteEventStore({ file: join(logDir, 'rebuild-events.db') });
  const rows: ScaleRow[] = [];
  try {
    let written = 0;
    for (const events of REBUILD_EVENTS) {
      progress(`rebuild: writing the log up to ${events.toLocaleString('en-US')} events`);
      await appendWatchlistEvents(store, 'r', written / 100, events - written);
      written = events;
      progress(`rebuild: replaying ${events.toLocaleString('en-US')} events`);
      const target = openSqliteReadModelStore({ file: join(dir, `rebuild-${events}.db`) });
      const result = await rebuildReadModels(store, target);
      await target.close();
      if (result.events !== events) throw new Error(`replayed ${result.events} of ${events} events`);
      rows.push({
        size: events,
        seconds: round(result.seconds),
        eventsPerSec: Math.round(result.eventsPerSec),
        usPerEvent: round((result.seconds * 1e6) / events, 2),
        documents: Object.values(result.documents).reduce((a, b) => a + b, 0),
      });
    }
  } finally {
    await store.close();
  }
  return { bench: 'scale', curve: 'rebuild', size: 'events in the log', cost: 'usPerEvent', rows };
}

/** Appends of 1, 10 and 100 events, each at its stream's expected revision, as a command appends. */
export async function appendsCurve(dir: string): Promise<ScaleCurve> {
  const rows: ScaleRow[] = [];
  for (const size of APPEND_SIZES) {
    const store = openSqliteEventStore({ file: join(dir, `appends-${size}.db`) });
    try {
      const appends = APPEND_EVENTS / size;
      progress(`appends: ${appends.toLocaleString('en-US')} appends of ${size} events over 1,000 streams`);
      const revisions = new Map<string, ExpectedRevision>();
      const append = async (i: number): Promise<void> => {
        const stream = `bench-s${i % 1000}`;
        const metadata = { userId: `u${i % 1000}`, actor: `user:u${i % 1000}`, at: '2026-11-21T12:00:00.000Z' };
        const events = Array.from({ length: size }, (_, e) => ({
          id: randomUUID(),
          type: 'AlertCreated',
          data: { symbol: 'AAPL', threshold: 190 + (e % 100) / 100, alerttype: e % 2 ? 'U' : 'D' },
          metadata,
        }));
        const result = await store.appendToStream(stream, events, {
          expectedRevision: revisions.get(stream) ?? 'no_stream',
        });
        revisions.set(stream, result.nextExpectedRevision);
      };
      for (let i = 0; i < Math.min(1000, appends); i++) await append(-1 - i);
      const started = process.hrtime.bigint();
      for (let i = 0; i < appends; i++) await append(i);
      const ms = msSince(started);
      rows.push({
        size,
        appendsPerSec: Math.round(appends / (ms / 1000)),
        eventsPerSec: Math.round(APPEND_EVENTS / (ms / 1000)),
        usPerAppend: round((ms * 1000) / appends, 1),
        usPerEvent: round((ms * 1000) / APPEND_EVENTS, 2),
      });
    } finally {
      await store.close();
    }
  }
  return { bench: 'scale', curve: 'appends', size: 'events per append', cost: 'usPerAppend', rows };
}

/** Tick to notification with more and more sockets connected. */
export async function notificationsCurve(): Promise<ScaleCurve> {
  const rows: ScaleRow[] = [];
  for (const sockets of SOCKETS) {
    progress(`notifications: ${sockets.toLocaleString('en-US')} sockets`);
    const r = await benchLatency({ sockets, notificationsOnly: true });
    rows.push({ size: r.sockets, p50Ms: r.p50Ms, p99Ms: r.p99Ms, samples: r.samples, ticksPerSec: r.ticksPerSec });
  }
  return { bench: 'scale', curve: 'notifications', size: 'sockets', cost: 'p99Ms', rows };
}

/**
 * Least ms of loading `username`'s history over `times` loads: the least, not the median, so another process
 * taking the CPU for a while (the machine is shared) does not pass for growth.
 */
async function historyMs(store: EventStore, username: string, own: number, times: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = process.hrtime.bigint();
    const history = await loadUserHistory(store, username, USER_CONCERNS);
    samples.push(msSince(started));
    // The account's one event and the user's own.
    if (history?.events.length !== own + 1) throw new Error(`${username}: ${history?.events.length} events read`);
  }
  return Math.min(...samples);
}

/** One user's audit history among more and more events of other users. */
export async function auditCurve(_dir: string, logDir: string): Promise<ScaleCurve> {
  const store = openSqliteEventStore({ file: join(logDir, 'audit-events.db') });
  const rows: ScaleRow[] = [];
  try {
    progress('audit: the users whose histories are read');
    for (const own of AUDIT_OWN) {
      const username = `own${own}`;
      await store.appendToStream(
        streamName(ACCOUNT_CONCERN, username),
        [
          {
            id: randomUUID(),
            type: 'UserRegistered',
            data: { username, passwordHash: 'not a hash' },
            metadata: { userId: username, actor: `user:${username}`, at: '2026-11-21T12:00:00.000Z' },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      for (let done = 0; done < own; done += 1000) {
        const events: EventData[] = Array.from({ length: Math.min(1000, own - done) }, (_, i) => ({
          id: randomUUID(),
          type: i % 2 === 0 ? 'SymbolAddedToWatchlist' : 'SymbolRemovedFromWatchlist',
          data: { symbol: SYMBOLS[(done + i - (i % 2)) % SYMBOLS.length]! },
          metadata: { userId: username, actor: `user:${username}`, at: '2026-11-21T12:00:00.000Z' },
        }));
        await store.appendToStream(streamName(WATCHLIST_CONCERN, username), events, { expectedRevision: 'any' });
      }
    }
    let written = 0;
    const flat = new Map<number, number>();
    for (const others of AUDIT_OTHERS) {
      if (others > written) {
        progress(`audit: writing other users' events up to ${others.toLocaleString('en-US')}`);
        await appendWatchlistEvents(store, 'o', written / 100, others - written);
        written = others;
      }
      const row: Record<string, number> = { size: others };
      for (const own of AUDIT_OWN) {
        const ms = await historyMs(store, `own${own}`, own, own >= 100_000 ? 3 : 7);
        flat.set(own, flat.get(own) ?? ms);
        row[`ms@${own}own`] = round(ms, 3);
        row[`ratio@${own}own`] = round(ms / flat.get(own)!, 2);
      }
      rows.push(row as ScaleRow);
    }
  } finally {
    await store.close();
  }
  return { bench: 'scale', curve: 'audit', size: "other users' events", cost: 'ms@100own', rows };
}

/** Prints a curve as a table, then its JSON line. */
export function printCurve(curve: ScaleCurve): void {
  const figures = Object.keys(curve.rows[0] ?? {}).filter((k) => k !== 'size');
  const width = Math.max(12, ...figures.map((f) => f.length + 2));
  console.log(`${curve.curve}: by ${curve.size}`);
  console.log(`${curve.size.padStart(22)}${figures.map((f) => f.padStart(width)).join('')}`);
  for (const row of curve.rows) {
    console.log(
      `${row.size.toLocaleString('en-US').padStart(22)}${figures.map((f) => (row[f] ?? NaN).toLocaleString('en-US').padStart(width)).join('')}`,
    );
  }
  console.log(JSON.stringify(curve));
}

/**
 * A curve, given a folder on disk and one for the logs it only reads (memory-backed when the machine has
 * `/dev/shm`: writing two logs of a million events to this machine's disk took minutes, and reads of them come
 * from memory either way).
 */
type Curve = (dir: string, logDir: string) => ScaleCurve | Promise<ScaleCurve>;

const CURVES: Record<string, Curve> = {
  engine: () => engineCurve(),
  rebuild: rebuildCurve,
  appends: appendsCurve,
  notifications: () => notificationsCurve(),
  audit: auditCurve,
};

/**
 * Runs the curves (all, or those named in `BENCH_SCALE`) and prints each as it is measured; answers false when
 * the audit history is not flat in the other users' events (a row more than twice as slow as without them).
 */
export async function benchScale(): Promise<boolean> {
  const names = process.env.BENCH_SCALE ? process.env.BENCH_SCALE.split(',') : Object.keys(CURVES);
  const unknown = names.filter((n) => !(n in CURVES));
  if (unknown.length > 0)
    throw new Error(`unknown curve ${unknown.join(', ')}; known: ${Object.keys(CURVES).join(', ')}`);
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-scale-'));
  const logDir = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/sp-bench-scale-') : dir;
  let flat = true;
  try {
    for (const name of names) {
      const started = process.hrtime.bigint();
      const curve = await CURVES[name]!(dir, logDir);
      printCurve(curve);
      progress(`${name}: ${round(msSince(started) / 1000, 1)} s`);
      if (name === 'audit') {
        flat = curve.rows.every((row) => AUDIT_OWN.every((own) => row[`ratio@${own}own`]! < 2));
        console.log(flat ? 'audit history flat in the other users’ events' : 'AUDIT HISTORY NOT FLAT');
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
  }
  return flat;
}

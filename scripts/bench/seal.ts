/**
 * `npm run bench -- seal`: a seal of a busy minute of the log. A SQLite log of 100,000 hash-chained events over 200
 * user streams (alert events of a realistic size) is sealed twice from copies of one file: as the sealer reads a
 * store that tells its chain heads (`EventStore.chainHeads`: one query per page, no event parsed), and as it reads
 * one that does not (every event read and parsed with `readAll`, 100 a page), the baseline, in the same run.
 * Both seals must record the same heads through the same position. Also printed: the longest turn of the event
 * loop during each (the seal yields between pages, so a tick arriving meanwhile waits for one page at most) and
 * the garbage collections' time during each (the events read and parsed are garbage at once).
 * Prints a table, then one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { useChainKey } from '../../platform/audit/chainKey.ts';
import { chainEvents } from '../../platform/audit/hashChain.ts';
import { SEALS_STREAM, startSealer, type ChainSealedData } from '../../platform/audit/seals.ts';
import type { EventData } from '../../platform/eventstore/port.ts';
import { openSqliteEventStore } from '../../platform/eventstore/sqlite.ts';
import { copyLog, withoutChainHeads } from '../../platform/eventstore/testing/chainHeadsFree.ts';
import { progress } from './child.ts';
import { printTable } from './engine.ts';

/** Figures of one run. */
export interface SealBenchResult {
  readonly bench: 'seal';
  /** Events sealed. */
  readonly events: number;
  /** Streams among them. */
  readonly streams: number;
  /** Milliseconds of the seal reading the chain heads, best of the rounds. */
  readonly headsMs: number;
  /** Milliseconds of the seal reading every event (the baseline), best of the rounds. */
  readonly readAllMs: number;
  /** readAllMs / headsMs. */
  readonly ratio: number;
  /** The longest turn of the event loop during the seals, each way (ms). */
  readonly headsLongestTurnMs: number;
  readonly readAllLongestTurnMs: number;
  /** Milliseconds of garbage collection during the seals, each way, most of the rounds. */
  readonly headsGcMs: number;
  readonly readAllGcMs: number;
}

const STREAMS = 200;
const EVENTS_PER_STREAM = 500;
const ROUNDS = 2;
/** The seal reading the heads must be at least this many times faster than the one reading every event. */
const BUDGET_RATIO = 5;
const KEY = Buffer.from('bench-seal-key-'.padEnd(40, 'k'));

/** An alert event of about the size the engine and users write. */
function alertEvent(n: number): EventData {
  return {
    id: randomUUID(),
    type: n % 3 === 0 ? 'AlertTriggered' : 'AlertCreated',
    data: {
      alertId: randomUUID(),
      symbol: 'AAPL',
      condition: { op: 'crossing_up', source: 'price', value: 190 + (n % 50), lower: null, upper: null, bars: null },
      frequency: 'every_time',
      expires: null,
      note: 'a note the user wrote about this level',
      at: new Date(Date.UTC(2026, 10, 2, 15, 0, n % 60)).toISOString(),
    },
    metadata: { commandId: randomUUID(), userId: `u${n % STREAMS}`, actor: 'engine' },
  };
}

/** Writes the log: every stream's events in appends of 50, interleaved over the streams. */
async function buildLog(file: string): Promise<void> {
  const store = openSqliteEventStore({ file });
  const heads = new Map<string, { revision: number; metadata: EventData['metadata'] & object }>();
  const batch = 50;
  for (let from = 0; from < EVENTS_PER_STREAM; from += batch) {
    for (let s = 0; s < STREAMS; s++) {
      const stream = `stockalerts-u${s}`;
      const previous = heads.get(stream);
      const events = chainEvents(
        stream,
        previous,
        Array.from({ length: batch }, (_, k) => alertEvent(from + k)),
        KEY,
      );
      await store.appendToStream(stream, events, { expectedRevision: previous ? previous.revision : 'no_stream' });
      heads.set(stream, { revision: from + batch - 1, metadata: events.at(-1)!.metadata! });
    }
  }
  await store.close();
}

/** Seals a copy of the log; answers the time, the longest turn of the event loop meanwhile, and the seal. */
async function sealCopy(
  source: string,
  file: string,
  heads: boolean,
): Promise<{ ms: number; longestTurnMs: number; gcMs: number; seal: ChainSealedData }> {
  copyLog(source, file);
  const sqlite = openSqliteEventStore({ file });
  const store = heads ? sqlite : withoutChainHeads(sqlite);
  useChainKey(store, KEY);
  let longest = 0;
  let last = performance.now();
  let turning = true;
  const turn = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (turning) setImmediate(turn);
  };
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  setImmediate(turn);
  const started = performance.now();
  const sealer = startSealer(store, { intervalMs: 3_600_000 });
  await sealer.sealNow();
  const ms = performance.now() - started;
  turning = false;
  // The collections' entries arrive after the turn they ended in.
  await new Promise((resolve) => setImmediate(resolve));
  gc.disconnect();
  await sealer.stop();
  const [seal] = await store.readStream(SEALS_STREAM);
  await store.close();
  return { ms, longestTurnMs: longest, gcMs, seal: seal!.data as ChainSealedData };
}

const round1 = (ms: number): number => Math.round(ms * 10) / 10;

/** A seal's `through` and heads as text, the heads in stream order (each way finds them in its own order). */
function canonical(seal: Omit<ChainSealedData, 'at'>): string {
  return JSON.stringify([seal.through, Object.entries(seal.heads).sort(([a], [b]) => (a < b ? -1 : 1))]);
}

/** Runs the benchmark; throws when the two seals differ. */
export async function benchSeal(): Promise<SealBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-seal-'));
  try {
    const source = join(dir, 'log.db');
    progress(`writing ${(STREAMS * EVENTS_PER_STREAM).toLocaleString('en-US')} chained events over ${STREAMS} streams`);
    await buildLog(source);
    const best = { heads: Infinity, readAll: Infinity, headsTurn: 0, readAllTurn: 0, headsGc: 0, readAllGc: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const fast = await sealCopy(source, join(dir, `heads${round}.db`), true);
      const slow = await sealCopy(source, join(dir, `readall${round}.db`), false);
      progress(`round ${round + 1}: chain heads ${round1(fast.ms)} ms, every event read ${round1(slow.ms)} ms`);
      const { at: fastAt, ...fastSeal } = fast.seal;
      const { at: slowAt, ...slowSeal } = slow.seal;
      if (canonical(fastSeal) !== canonical(slowSeal) || !fastAt || !slowAt) {
        throw new Error('the two seals differ');
      }
      if (Object.keys(fastSeal.heads).length !== STREAMS) throw new Error('a seal misses streams');
      best.heads = Math.min(best.heads, fast.ms);
      best.readAll = Math.min(best.readAll, slow.ms);
      best.headsTurn = Math.max(best.headsTurn, fast.longestTurnMs);
      best.readAllTurn = Math.max(best.readAllTurn, slow.longestTurnMs);
      best.headsGc = Math.max(best.headsGc, fast.gcMs);
      best.readAllGc = Math.max(best.readAllGc, slow.gcMs);
    }
    return {
      bench: 'seal',
      events: STREAMS * EVENTS_PER_STREAM,
      streams: STREAMS,
      headsMs: round1(best.heads),
      readAllMs: round1(best.readAll),
      ratio: round1(best.readAll / best.heads),
      headsLongestTurnMs: round1(best.headsTurn),
      readAllLongestTurnMs: round1(best.readAllTurn),
      headsGcMs: round1(best.headsGc),
      readAllGcMs: round1(best.readAllGc),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the table, the verdict and, last, the JSON line; answers whether the budget is met. */
export function report(r: SealBenchResult): boolean {
  const met = r.ratio >= BUDGET_RATIO;
  printTable(
    `a seal of ${r.events.toLocaleString('en-US')} chained events over ${r.streams} streams (the same heads both ways)`,
    [
      ['reading the chain heads, ms', r.headsMs.toLocaleString('en-US'), ''],
      ['reading every event (baseline), ms', r.readAllMs.toLocaleString('en-US'), ''],
      ['baseline / chain heads', `${r.ratio}x`, `>= ${BUDGET_RATIO}x`],
      ['longest loop turn, chain heads, ms', r.headsLongestTurnMs.toLocaleString('en-US'), ''],
      ['longest loop turn, every event, ms', r.readAllLongestTurnMs.toLocaleString('en-US'), ''],
      ['garbage collection, chain heads, ms', r.headsGcMs.toLocaleString('en-US'), ''],
      ['garbage collection, every event, ms', r.readAllGcMs.toLocaleString('en-US'), ''],
    ],
    met,
    r,
  );
  return met;
}

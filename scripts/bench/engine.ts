/**
 * `npm run bench -- engine`: tick evaluations per second of the alert engine (live quotes plus the armed-alert
 * index) with 100,000 armed alerts over 500 symbols, against a scan of every alert on every tick measured in the
 * same run on the same ticks; both must fire the same alerts. Synthetic and in memory. Prints a table, then one
 * JSON line.
 */
import type { DailyBar } from '../../domain/market/types.ts';
import { priceCondition, smaCondition } from '../../domain/alerts/conditions.ts';
import type { SmaPeriod } from '../../domain/screener/query.ts';
import { alertKey } from '../../domain/alerts/alerts.ts';
import { AlertIndex, newArmedAlert, type ArmedAlert } from '../../engine/alerts/alertIndex.ts';
import { atCloseOnly, evaluateClose, evaluateTicks } from '../../engine/alerts/evaluate.ts';
import { NaiveAlertScan } from '../../engine/alerts/naiveScan.ts';
import { TradingDays } from '../../engine/alerts/tradingDay.ts';
import { Random } from '../../engine/marketdata/random.ts';
import { LiveQuotes, type QuoteSeed } from '../../engine/quotes/liveQuotes.ts';
import { priceCents, type ClosedDay, type Tick } from '../../engine/ticks/tick.ts';
import { collectHeap, progress } from './child.ts';

/** Figures of one run. */
export interface EngineBenchResult {
  readonly bench: 'engine';
  /** Ticks evaluated per second by the engine's path (quotes + index). */
  readonly ticksPerSec: number;
  /** Ticks evaluated per second by the scan of every alert. */
  readonly naivePerSec: number;
  /** ticksPerSec / naivePerSec. */
  readonly ratioToNaive: number;
}

/** Symbols of both cases. */
export const SYMBOLS = 500;
const ALERTS = 100_000;
const TICKS = 1_000_000;
const PASSES = 3;
const HISTORY_DAYS = 220;
/** The scan runs for about this long; the index for at least as long, over all the ticks. */
const NAIVE_MS = 1_500;
/** Budgets of architecture.md. */
const BUDGET_TICKS_PER_SEC = 1_000_000;
const BUDGET_RATIO = 100;
const PERIODS: readonly SmaPeriod[] = [20, 50, 100, 200];

/** A benchmark's market: its symbols with their finished days, the armed alerts, and the ticks. */
export interface Market {
  readonly seeds: QuoteSeed[];
  readonly alerts: ArmedAlert[];
  /** Ticks in time order; a `null` entry closes the day with the next of `closes`. */
  readonly ticks: (Tick | null)[];
  readonly closes: ClosedDay[];
}

/** How a market's symbols are drawn. */
export interface SymbolsShape {
  /** The first letter of the symbols. */
  readonly prefix: string;
  /** The finished days' closes rise from `from` to `from + rise` times today's price (with 1% noise). */
  readonly from: number;
  readonly rise: number;
  /** Each finished day's volume. */
  readonly volume: number;
}

/** {@link SYMBOLS} symbols priced 10 to 500 dollars with 220 finished days; answers them and today's prices in cents. */
export function seedSymbols(rng: Random, shape: SymbolsShape): { seeds: QuoteSeed[]; base: number[] } {
  const seeds: QuoteSeed[] = [];
  const base: number[] = [];
  for (let s = 0; s < SYMBOLS; s++) {
    const symbol = `${shape.prefix}${String(s).padStart(3, '0')}`;
    const price = Math.round((10 + rng.uniform() * 490) * 100);
    base.push(price);
    const bars: DailyBar[] = [];
    for (let d = 0; d < HISTORY_DAYS; d++) {
      const close =
        Math.round(price * (shape.from + (shape.rise * d) / HISTORY_DAYS) * (1 + 0.01 * rng.normal())) / 100;
      const date = new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
      bars.push({ date, open: close, high: close, low: close, close, volume: shape.volume });
    }
    seeds.push({ symbol, bars });
  }
  return { seeds, base };
}

/**
 * `count` ticks of `size` shares on random symbols, each wandering by up to 0.02% of its price and reflected at
 * ±3% of it (so most levels stay out of reach), one millisecond apart; the day closes `closes` times, evenly.
 */
export function walkTicks(
  rng: Random,
  seeds: readonly QuoteSeed[],
  base: readonly number[],
  count: number,
  size: number,
  closes = 0,
): Pick<Market, 'ticks' | 'closes'> {
  const prices = [...base];
  const ticks: (Tick | null)[] = [];
  const days: ClosedDay[] = [];
  const every = Math.floor(count / (closes + 1));
  let t0 = Date.parse('2025-01-02T14:30:00Z');
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % every === 0 && days.length < closes) {
      const date = new Date(t0).toISOString().slice(0, 10);
      days.push({
        date,
        bars: seeds.map((seed, s) => {
          const close = prices[s]! / 100;
          return { symbol: seed.symbol, date, open: close, high: close, low: close, close, volume: 20_000 };
        }),
      });
      ticks.push(null);
      t0 += 86_400_000;
    }
    const s = rng.int(SYMBOLS);
    const step = Math.round(base[s]! * 0.0002 * (2 * rng.uniform() - 1));
    let next = prices[s]! + step;
    if (Math.abs(next - base[s]!) > base[s]! * 0.03) next = prices[s]! - step;
    prices[s] = Math.max(1, next);
    ticks.push({ symbol: seeds[s]!.symbol, price: prices[s] / 100, size, ts: t0 + i });
  }
  return { ticks, closes: days };
}

/**
 * 500 symbols priced 10 to 500 dollars whose history rose from 80% to 90% of today's price (so every moving
 * average is well below it); 200 alerts each, 85% price alerts 5% to 50% away (1% of them within 0.5% to 3%, so
 * some fire), 15% SMA alerts; ticks that wander within about 3% of each price. `alertCount` and `tickCount`
 * size it (`npm run bench -- scale`).
 */
export function buildMarket(alertCount = ALERTS, tickCount = TICKS): Market {
  const rng = new Random('bench-engine');
  const { seeds, base } = seedSymbols(rng, { prefix: 'S', from: 0.8, rise: 0.1, volume: 1_000_000 });
  const alerts: ArmedAlert[] = [];
  for (let i = 0; i < alertCount; i++) {
    const s = i % SYMBOLS;
    const symbol = seeds[s]!.symbol;
    const userId = `u${rng.int(20_000)}`;
    const alertId = `a${i}`;
    const alerttype = rng.chance(0.5) ? 'U' : 'D';
    const isSma = rng.chance(0.15);
    const away = rng.chance(0.01) ? 0.005 + rng.uniform() * 0.025 : 0.05 + rng.uniform() * 0.45;
    const threshold = Math.max(1, Math.round(base[s]! * (alerttype === 'U' ? 1 + away : 1 - away))) / 100;
    alerts.push(
      newArmedAlert({
        key: alertKey(userId, alertId),
        userId,
        alertId,
        symbol,
        condition: isSma
          ? smaCondition(alerttype, PERIODS[rng.int(PERIODS.length)]!)
          : priceCondition(alerttype, threshold),
        frequency: 'once',
        arming: 1,
        expiresMs: Infinity,
      }),
    );
  }
  return { seeds, alerts, ...walkTicks(rng, seeds, base, tickCount, 100) };
}

/** The alerts an evaluation fired: for each, the tick's number, the alert and the source's value then. */
export class Firings {
  readonly at: number[] = [];
  readonly alerts: ArmedAlert[] = [];
  readonly values: number[] = [];

  get length(): number {
    return this.at.length;
  }

  add(at: number, alert: ArmedAlert, value: number): void {
    this.at.push(at);
    this.alerts.push(alert);
    this.values.push(value);
  }

  /** `tick:key@value` of the firings `keep` selects, sorted: what two evaluations compare. */
  lines(keep: (at: number, alert: ArmedAlert) => boolean = () => true): string[] {
    const lines: string[] = [];
    for (let k = 0; k < this.at.length; k++) {
      const alert = this.alerts[k]!;
      if (keep(this.at[k]!, alert)) lines.push(`${this.at[k]}:${alert.key}@${this.values[k]}`);
    }
    return lines.sort();
  }
}

/** An evaluation: how many ticks, over how many milliseconds of wall time, and what fired. */
export interface Run {
  readonly evaluated: number;
  readonly ms: number;
  readonly fired: Firings;
}

/**
 * The engine's path: the alerts armed in new indexes as the engine arms them (not timed, `armMs`), then batches
 * of 100 ticks through `evaluateTicks` (the live quotes, then the index) `passes` times or up to `limit` ticks,
 * each day close evaluating the closing bars (`evaluateClose`, the alerts evaluated then only) and rolling the
 * quotes and the indexes (`closes` of them, taking `closeMs` of `ms`). Each firing is recorded as the tick's
 * number (at a close, the ticks before it), the alert and its value. A symbol's first tick since the alerts were
 * armed or since a close (the first of every alert of its, or of every moving one and every revived once-per-bar
 * one) is evaluated alone, its time counted in `firstMs` and its firings in `firstFired` (`firstTicks` of them).
 */
export function indexedRun(
  market: Market,
  passes: number,
  limit = Infinity,
): Run & {
  readonly armMs: number;
  readonly closes: number;
  readonly closeMs: number;
  readonly firstTicks: number;
  readonly firstMs: number;
  readonly firstFired: number;
} {
  const quotes = new LiveQuotes(market.seeds);
  const history = (symbol: string): ReturnType<LiveQuotes['history']> => quotes.history(symbol);
  // As the engine does: the alerts evaluated at the close only in an index of their own, which no tick reads.
  const index = new AlertIndex(history);
  const closing = new AlertIndex(history);
  const arming = performance.now();
  for (const alert of market.alerts) (atCloseOnly(alert.frequency) ? closing : index).add({ ...alert });
  index.mergeArmed();
  closing.mergeArmed();
  const armMs = performance.now() - arming;
  // Arming allocates the alerts and their structures, and the young generation still holds the last of them when
  // arming ends: without a collection, the first collections of the timed ticks copy those into the old
  // generation, a cost of arming (`armMs`) counted as ticks. An engine that has been running has its alerts in
  // the old generation already, so the timed runs start from a collected heap. (Mixed case, six runs alternated:
  // the collections within the timed ticks took 89 to 132 ms from a collected heap, 218 to 394 without.)
  collectHeap();
  const days = new TradingDays();
  const fired = new Firings();
  let evaluated = 0;
  let closes = 0;
  let closeMs = 0;
  const batch: Tick[] = [];
  let first = 0;
  const onFire = (alert: ArmedAlert, tick: Tick): void => {
    // Ticks are a millisecond apart within a day, and a batch never spans a close.
    fired.add(first + tick.ts - batch[0]!.ts, alert, alert.firedValue);
  };
  const onClose = (alert: ArmedAlert): void => fired.add(evaluated, alert, alert.firedValue);
  const flush = (): void => {
    first = evaluated;
    evaluateTicks(batch, quotes, index, days, onFire);
    evaluated += batch.length;
    batch.length = 0;
  };
  // Which ticks are a symbol's first since the start (first pass) or since a close (every pass), found before
  // the timed run.
  const firstInPass = firstTicksOf(market.ticks, true);
  const firstAfterClose = firstTicksOf(market.ticks, false);
  let firstTicks = 0;
  let firstMs = 0;
  let firstFired = 0;
  const started = performance.now();
  for (let pass = 0; pass < passes && evaluated < limit; pass++) {
    let closeAt = 0;
    // Indexed rather than `for … of`, so that the loop itself makes no garbage for the collector measured here.
    const ticks = market.ticks;
    const firsts = pass === 0 ? firstInPass : firstAfterClose;
    for (let t = 0; t < ticks.length; t++) {
      const tick = ticks[t]!;
      if (evaluated + batch.length >= limit) break;
      if (firsts[t] === 1) {
        flush();
        const firing = fired.length;
        const first0 = performance.now();
        batch.push(tick);
        flush();
        firstMs += performance.now() - first0;
        firstTicks += 1;
        firstFired += fired.length - firing;
        continue;
      }
      if (tick === null) {
        flush();
        const closing0 = performance.now();
        const day = market.closes[closeAt++]!;
        evaluateClose(day, quotes, closing, onClose);
        quotes.roll(day);
        index.roll();
        closing.roll();
        closes += 1;
        closeMs += performance.now() - closing0;
        continue;
      }
      batch.push(tick);
      if (batch.length === 100) flush();
    }
    flush();
  }
  return {
    evaluated,
    ms: performance.now() - started,
    fired,
    armMs,
    closes,
    closeMs,
    firstTicks,
    firstMs,
    firstFired,
  };
}

/**
 * Per tick of `ticks` (null for a close), 1 when it is its symbol's first since the last close, or since the
 * start too when `fromStart`.
 */
function firstTicksOf(ticks: readonly (Tick | null)[], fromStart: boolean): Uint8Array {
  const firsts = new Uint8Array(ticks.length);
  let seen: Set<string> | null = fromStart ? new Set() : null;
  for (let t = 0; t < ticks.length; t++) {
    const tick = ticks[t]!;
    if (tick === null) {
      seen = new Set();
    } else if (seen !== null && !seen.has(tick.symbol)) {
      seen.add(tick.symbol);
      firsts[t] = 1;
    }
  }
  return firsts;
}

/**
 * The reference evaluator (`NaiveAlertScan`, every alert on every tick) over the ticks in order for about
 * `ms` milliseconds, or over every tick when `symbols` is given: then one scan per symbol of those (its alerts
 * only), fed that symbol's ticks. The alerts evaluated at the close only are scanned on the closing bars.
 */
export function referenceRun(market: Market, ms: number, symbols?: ReadonlySet<string>): Run {
  const quotes = new LiveQuotes(market.seeds);
  const history = (symbol: string): ReturnType<LiveQuotes['history']> => quotes.history(symbol);
  // Per symbol (or one for every symbol), the scan of the ticks and the scan of the closing bars.
  const scans = new Map<string, { ticks: NaiveAlertScan; closes: NaiveAlertScan }>();
  const scanOf = (symbol: string): { ticks: NaiveAlertScan; closes: NaiveAlertScan } => {
    const key = symbols === undefined ? '' : symbol;
    let scan = scans.get(key);
    if (scan === undefined) {
      scan = { ticks: new NaiveAlertScan([], history), closes: new NaiveAlertScan([], history) };
      scans.set(key, scan);
    }
    return scan;
  };
  for (const alert of market.alerts) {
    if (symbols !== undefined && !symbols.has(alert.symbol)) continue;
    const scan = scanOf(alert.symbol);
    (atCloseOnly(alert.frequency) ? scan.closes : scan.ticks).add({ ...alert });
  }
  collectHeap();
  const days = new TradingDays();
  const fired = new Firings();
  const out: ArmedAlert[] = [];
  const values: number[] = [];
  let evaluated = 0;
  let closeAt = 0;
  const record = (): void => {
    for (let k = 0; k < out.length; k++) fired.add(evaluated, out[k]!, values[k]!);
    out.length = 0;
    values.length = 0;
  };
  const started = performance.now();
  for (const tick of market.ticks) {
    if (tick === null) {
      const day = market.closes[closeAt++]!;
      for (const bar of day.bars) {
        if (symbols !== undefined && !symbols.has(bar.symbol)) continue;
        const prevCloseCents = quotes.move(bar.symbol)?.prevCloseCents ?? NaN;
        const cents = priceCents(bar.close);
        scanOf(bar.symbol).closes.evaluate(bar.symbol, cents, bar.volume, prevCloseCents, day.date, out, values);
        record();
      }
      quotes.roll(day);
      for (const scan of scans.values()) {
        scan.ticks.roll();
        scan.closes.roll();
      }
      continue;
    }
    const move = quotes.applyTick(tick);
    const scan = symbols === undefined || symbols.has(tick.symbol) ? scanOf(tick.symbol) : undefined;
    scan?.ticks.evaluate(tick.symbol, move.cents, move.volume, move.prevCloseCents, days.of(tick.ts), out, values);
    record();
    evaluated += 1;
    if (symbols === undefined && (evaluated & 63) === 0 && performance.now() - started > ms) break;
  }
  return { evaluated, ms: performance.now() - started, fired };
}

/** Throws unless both runs fired the same alerts with the same values over what `keep` selects; answers how many. */
export function checkSame(
  index: Run,
  reference: Run,
  what: string,
  keep: (at: number, alert: ArmedAlert) => boolean,
): number {
  const got = index.fired.lines(keep);
  const want = reference.fired.lines(keep);
  if (got.join('\n') !== want.join('\n')) {
    throw new Error(`the index fired ${got.length} alerts and the reference ${want.length} over ${what}`);
  }
  progress(`both fired the same ${want.length.toLocaleString('en-US')} alerts over ${what}`);
  return want.length;
}

/** Prints a figure table under its title, the budget verdict and, last, the JSON line of figures. */
export function printTable(
  title: string,
  rows: readonly (readonly [string, string, string])[],
  met: boolean,
  figures: object,
): void {
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  console.log(title);
  console.log(`${'figure'.padEnd(width)} ${'value'.padStart(14)}   budget`);
  for (const [name, value, budget] of rows) console.log(`${name.padEnd(width)} ${value.padStart(14)}   ${budget}`);
  console.log(met ? 'budgets met' : 'BUDGET MISSED');
  console.log(JSON.stringify(figures));
}

/** Runs the benchmark and returns its figures; throws when the index and the scan disagree. */
export function benchEngine(): EngineBenchResult {
  progress(
    `building ${ALERTS.toLocaleString('en-US')} alerts over ${SYMBOLS} symbols and ${TICKS.toLocaleString('en-US')} ticks`,
  );
  const market = buildMarket();
  progress('warming up');
  indexedRun({ ...market, ticks: market.ticks.slice(0, 200_000) }, 1);
  progress(`engine path, ${PASSES} passes`);
  const indexed = indexedRun(market, PASSES);
  progress(`naive scan, about ${NAIVE_MS} ms`);
  const naive = referenceRun(market, NAIVE_MS);
  checkSame(indexed, naive, `the first ${naive.evaluated.toLocaleString('en-US')} ticks`, (at) => at < naive.evaluated);
  progress(`the index fired ${indexed.fired.length} alerts over ${indexed.evaluated.toLocaleString('en-US')} ticks`);
  const ticksPerSec = Math.round(indexed.evaluated / (indexed.ms / 1000));
  const naivePerSec = Math.round(naive.evaluated / (naive.ms / 1000));
  return { bench: 'engine', ticksPerSec, naivePerSec, ratioToNaive: Math.round((ticksPerSec / naivePerSec) * 10) / 10 };
}

/** Prints the table, the budget verdicts and, last, the JSON line; answers whether the budgets are met. */
export function report(r: EngineBenchResult): boolean {
  const met = r.ticksPerSec >= BUDGET_TICKS_PER_SEC && r.ratioToNaive >= BUDGET_RATIO;
  printTable(
    `${ALERTS.toLocaleString('en-US')} armed alerts over ${SYMBOLS} symbols`,
    [
      [
        'engine ticks/s (quotes + index)',
        r.ticksPerSec.toLocaleString('en-US'),
        `>= ${BUDGET_TICKS_PER_SEC.toLocaleString('en-US')}`,
      ],
      ['naive scan ticks/s (every alert)', r.naivePerSec.toLocaleString('en-US'), ''],
      ['ratio to the naive scan', `${r.ratioToNaive.toLocaleString('en-US')}x`, `>= ${BUDGET_RATIO}x`],
    ],
    met,
    r,
  );
  return met;
}

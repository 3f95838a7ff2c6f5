/**
 * `npm run bench -- engine`: tick evaluations per second of the alert engine (live quotes plus the armed-alert
 * index) with 100,000 armed alerts over 500 symbols, against a scan of every alert on every tick measured in the
 * same run on the same ticks; both must fire the same alerts. Synthetic and in memory. Prints a table, then one
 * JSON line.
 */
import type { DailyBar } from '../../domain/market/types.ts';
import { priceCondition, smaCondition } from '../../domain/alerts/conditions.ts';
import type { SmaPeriod } from '../../domain/screener/query.ts';
import { AlertIndex, alertKey, newArmedAlert, type ArmedAlert } from '../../engine/alerts/alertIndex.ts';
import { evaluateTicks } from '../../engine/alerts/evaluate.ts';
import { NaiveAlertScan } from '../../engine/alerts/naiveScan.ts';
import { TradingDays } from '../../engine/alerts/tradingDay.ts';
import { Random } from '../../engine/marketdata/random.ts';
import { LiveQuotes, type QuoteSeed } from '../../engine/quotes/liveQuotes.ts';
import type { Tick } from '../../engine/ticks/tick.ts';
import { progress } from './child.ts';

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

const SYMBOLS = 500;
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

export interface Market {
  readonly seeds: QuoteSeed[];
  readonly alerts: ArmedAlert[];
  readonly ticks: Tick[];
}

/**
 * 500 symbols priced 10 to 500 dollars whose history rose from 80% to 90% of today's price (so every moving
 * average is well below it); 200 alerts each, 85% price alerts 5% to 50% away (1% of them within 0.5% to 3%, so
 * some fire), 15% SMA alerts; ticks that wander within about 3% of each price. `alertCount` and `tickCount`
 * size it (`npm run bench -- scale`).
 */
export function buildMarket(alertCount = ALERTS, tickCount = TICKS): Market {
  const rng = new Random('bench-engine');
  const seeds: QuoteSeed[] = [];
  const alerts: ArmedAlert[] = [];
  const base: number[] = [];
  for (let s = 0; s < SYMBOLS; s++) {
    const symbol = `S${String(s).padStart(3, '0')}`;
    const price = Math.round((10 + rng.uniform() * 490) * 100);
    base.push(price);
    const bars: DailyBar[] = [];
    for (let d = 0; d < HISTORY_DAYS; d++) {
      const close = Math.round(price * (0.8 + (0.1 * d) / HISTORY_DAYS) * (1 + 0.01 * rng.normal())) / 100;
      const date = new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
      bars.push({ date, open: close, high: close, low: close, close, volume: 1_000_000 });
    }
    seeds.push({ symbol, bars });
  }
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
  const prices = [...base];
  const ticks: Tick[] = new Array<Tick>(tickCount);
  const t0 = Date.parse('2025-01-02T14:30:00Z');
  for (let i = 0; i < tickCount; i++) {
    const s = rng.int(SYMBOLS);
    const step = Math.round(base[s]! * 0.0002 * (2 * rng.uniform() - 1));
    let next = prices[s]! + step;
    // Reflect at ±3% so the walk stays near its price and most thresholds stay out of reach.
    if (Math.abs(next - base[s]!) > base[s]! * 0.03) next = prices[s]! - step;
    prices[s] = Math.max(1, next);
    ticks[i] = { symbol: seeds[s]!.symbol, price: prices[s] / 100, size: 100, ts: t0 + i };
  }
  return { seeds, alerts, ticks };
}

export interface Run {
  readonly evaluated: number;
  readonly ms: number;
  /** `tickNumber:key` of every alert fired, for the comparison. */
  readonly fired: string[];
}

export function indexedRun(market: Market, passes: number): Run {
  const quotes = new LiveQuotes(market.seeds);
  const index = new AlertIndex((symbol) => quotes.history(symbol));
  for (const alert of market.alerts) index.add({ ...alert });
  const days = new TradingDays();
  const fired: string[] = [];
  let tickNumber = 0;
  const batch = 100;
  const started = performance.now();
  for (let pass = 0; pass < passes; pass++) {
    for (let i = 0; i < market.ticks.length; i += batch) {
      const slice = market.ticks.slice(i, i + batch);
      tickNumber = pass * market.ticks.length + i;
      evaluateTicks(slice, quotes, index, days, (alert, tick) => {
        fired.push(`${tickNumber + (tick.ts - market.ticks[i]!.ts)}:${alert.key}`);
      });
    }
  }
  return { evaluated: passes * market.ticks.length, ms: performance.now() - started, fired };
}

function naiveRun(market: Market): Run {
  const quotes = new LiveQuotes(market.seeds);
  const scan = new NaiveAlertScan(
    market.alerts.map((alert) => ({ ...alert })),
    (symbol) => quotes.history(symbol),
  );
  const days = new TradingDays();
  const fired: string[] = [];
  const out: ArmedAlert[] = [];
  const started = performance.now();
  let i = 0;
  for (; i < market.ticks.length; i++) {
    const tick = market.ticks[i]!;
    const move = quotes.applyTick(tick);
    if (scan.evaluate(tick.symbol, move.cents, move.volume, move.prevCloseCents, days.of(tick.ts), out) > 0) {
      for (const alert of out) fired.push(`${i}:${alert.key}`);
      out.length = 0;
    }
    if ((i & 63) === 63 && performance.now() - started > NAIVE_MS) {
      i += 1;
      break;
    }
  }
  return { evaluated: i, ms: performance.now() - started, fired };
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
  const naive = naiveRun(market);
  const compared = indexed.fired.filter((f) => Number(f.slice(0, f.indexOf(':'))) < naive.evaluated).sort();
  if (compared.join('\n') !== [...naive.fired].sort().join('\n')) {
    throw new Error(
      `the index fired ${compared.length} alerts and the scan ${naive.fired.length} over the same ${naive.evaluated} ticks`,
    );
  }
  progress(
    `both fired the same ${naive.fired.length} alerts over the first ${naive.evaluated.toLocaleString('en-US')} ticks`,
  );
  progress(`the index fired ${indexed.fired.length} alerts over ${indexed.evaluated.toLocaleString('en-US')} ticks`);
  const ticksPerSec = Math.round(indexed.evaluated / (indexed.ms / 1000));
  const naivePerSec = Math.round(naive.evaluated / (naive.ms / 1000));
  return { bench: 'engine', ticksPerSec, naivePerSec, ratioToNaive: Math.round((ticksPerSec / naivePerSec) * 10) / 10 };
}

/** Prints the table, the budget verdicts and, last, the JSON line; answers whether the budgets are met. */
export function report(r: EngineBenchResult): boolean {
  const rows: [string, string, string][] = [
    [
      'engine ticks/s (quotes + index)',
      r.ticksPerSec.toLocaleString('en-US'),
      `>= ${BUDGET_TICKS_PER_SEC.toLocaleString('en-US')}`,
    ],
    ['naive scan ticks/s (every alert)', r.naivePerSec.toLocaleString('en-US'), ''],
    ['ratio to the naive scan', `${r.ratioToNaive.toLocaleString('en-US')}x`, `>= ${BUDGET_RATIO}x`],
  ];
  console.log(`${ALERTS.toLocaleString('en-US')} armed alerts over ${SYMBOLS} symbols`);
  console.log(`${'figure'.padEnd(34)} ${'value'.padStart(14)}   budget`);
  for (const [name, value, budget] of rows) console.log(`${name.padEnd(34)} ${value.padStart(14)}   ${budget}`);
  const met = r.ticksPerSec >= BUDGET_TICKS_PER_SEC && r.ratioToNaive >= BUDGET_RATIO;
  console.log(met ? 'budgets met' : 'BUDGET MISSED');
  console.log(JSON.stringify(r));
  return met;
}

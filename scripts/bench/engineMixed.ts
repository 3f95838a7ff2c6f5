/**
 * `npm run bench -- engine` (mixed case): tick evaluations per second of the alert engine's path (live quotes
 * plus the armed-alert index) with 1,000,000 armed alerts over 500 symbols using every operator, source and
 * frequency, against the reference evaluator (every alert on every tick) measured in the same run on the same
 * ticks; both must fire the same alerts with the same values. Synthetic and in memory; the day closes twice, so
 * the once-per-bar and moving alerts see new days. Prints a table, then one JSON line.
 */
import {
  ALERT_FREQUENCIES,
  ALERT_OPS,
  CHANNEL_OPS,
  MOVING_OPS,
  type AlertCondition,
  type AlertOp,
  type AlertSource,
} from '../../domain/alerts/conditions.ts';
import type { DailyBar } from '../../domain/market/types.ts';
import { AlertIndex, alertKey, newArmedAlert, type ArmedAlert } from '../../engine/alerts/alertIndex.ts';
import { evaluateTicks } from '../../engine/alerts/evaluate.ts';
import { NaiveAlertScan } from '../../engine/alerts/naiveScan.ts';
import { TradingDays } from '../../engine/alerts/tradingDay.ts';
import { Random } from '../../engine/marketdata/random.ts';
import { LiveQuotes, type QuoteSeed } from '../../engine/quotes/liveQuotes.ts';
import type { ClosedDay, Tick } from '../../engine/ticks/tick.ts';
import { progress } from './child.ts';

/** Figures of one mixed run. */
export interface MixedEngineBenchResult {
  readonly bench: 'engine-mixed';
  /** Armed alerts. */
  readonly alerts: number;
  /** Ticks evaluated per second by the engine's path (quotes + index). */
  readonly ticksPerSec: number;
  /** Ticks evaluated per second by the reference evaluator. */
  readonly naivePerSec: number;
  /** ticksPerSec / naivePerSec. */
  readonly ratioToNaive: number;
  /** Alerts both fired over the ticks compared. */
  readonly firedCompared: number;
  /** Alerts the index fired over every tick. */
  readonly fired: number;
}

const SYMBOLS = 500;
const ALERTS = 1_000_000;
const TICKS = 1_000_000;
const PASSES = 1;
const HISTORY_DAYS = 220;
/** The reference evaluator runs for about this long. */
const NAIVE_MS = 3_000;
/** The budgets of the alert language. */
const BUDGET_TICKS_PER_SEC = 2_000_000;
const BUDGET_RATIO = 100;

const SOURCES: readonly AlertSource[] = [
  'price',
  'sma:20',
  'sma:50',
  'sma:200',
  'ema:12',
  'rsi:14',
  'volume',
  'changepct',
];
const PRICE_LIKE: ReadonlySet<AlertSource> = new Set(['price', 'sma:20', 'sma:50', 'sma:200', 'ema:12']);
/** Conditions on other series: a handful per symbol, as users write them (golden cross, price vs its SMA, …). */
const REFERENCE_CONDITIONS: readonly AlertCondition[] = [
  { op: 'crossing_up', source: 'price', value: { ref: 'sma:50' }, lower: null, upper: null, bars: null },
  { op: 'crossing_down', source: 'price', value: { ref: 'sma:200' }, lower: null, upper: null, bars: null },
  { op: 'crossing', source: 'sma:50', value: { ref: 'sma:200' }, lower: null, upper: null, bars: null },
  { op: 'crossing_up', source: 'ema:12', value: { ref: 'sma:20' }, lower: null, upper: null, bars: null },
  { op: 'greater_than', source: 'price', value: { ref: 'ema:12' }, lower: null, upper: null, bars: null },
  {
    op: 'entering_channel',
    source: 'price',
    value: null,
    lower: { ref: 'sma:50' },
    upper: { ref: 'sma:20' },
    bars: null,
  },
];

interface Market {
  readonly seeds: QuoteSeed[];
  readonly alerts: ArmedAlert[];
  /** Ticks; a `null` entry closes the day. */
  readonly ticks: (Tick | null)[];
  readonly closes: ClosedDay[];
}

/** A level `away` (a fraction) from the series' typical value, on the side that does not hold yet. */
function levelOf(source: AlertSource, dollars: number, away: number): number {
  if (PRICE_LIKE.has(source)) return Math.max(0.01, Math.round(dollars * (1 + away) * 100) / 100);
  if (source === 'rsi:14') return Math.max(1, Math.min(99, 50 + away * 100));
  if (source === 'volume') return Math.max(1, Math.round(20_000 * (1 + away)));
  return Math.round(away * 1000) / 100;
}

function conditionOf(rng: Random, source: AlertSource, dollars: number): AlertCondition {
  const op: AlertOp = ALERT_OPS[rng.int(ALERT_OPS.length)]!;
  // 1% within reach (so some fire), the rest 5% to 50% away.
  const near = rng.chance(0.01);
  const away = (near ? 0.002 + rng.uniform() * 0.02 : 0.05 + rng.uniform() * 0.45) * (rng.chance(0.5) ? 1 : -1);
  const base = { op, source, value: null, lower: null, upper: null, bars: null };
  if (CHANNEL_OPS.includes(op)) {
    const a = levelOf(source, dollars, away);
    const b = levelOf(source, dollars, away + (near ? 0.01 : 0.05) * Math.sign(away));
    const lower = Math.min(a, b);
    const upper = Math.max(a, b) + (PRICE_LIKE.has(source) ? 0.01 : 1);
    return { ...base, lower, upper };
  }
  if (MOVING_OPS.includes(op)) {
    const pct = op.endsWith('_pct');
    const amount = near ? 0.1 + rng.uniform() : 5 + rng.uniform() * 20;
    const value = pct
      ? Math.round(amount * 100) / 100
      : Math.max(0.01, Math.round(amount * (PRICE_LIKE.has(source) ? dollars : 1)) / 100);
    return { ...base, value, bars: 1 + rng.int(3) };
  }
  // A level on the side that does not hold yet for greater/less; either side for the crossings.
  const side = op === 'greater_than' ? 1 : op === 'less_than' ? -1 : Math.sign(away);
  return { ...base, value: levelOf(source, dollars, Math.abs(away) * side) };
}

/**
 * 500 symbols priced 10 to 500 dollars with 220 days of history; 2,000 alerts each over every operator,
 * frequency and source (half on the price, 5% on another series), 1% of them within reach; ticks that wander
 * within about 3% of each price, the day's volume growing, and two day closes.
 */
function buildMarket(): Market {
  const rng = new Random('bench-engine-mixed');
  const seeds: QuoteSeed[] = [];
  const base: number[] = [];
  for (let s = 0; s < SYMBOLS; s++) {
    const symbol = `M${String(s).padStart(3, '0')}`;
    const price = Math.round((10 + rng.uniform() * 490) * 100);
    base.push(price);
    const bars: DailyBar[] = [];
    for (let d = 0; d < HISTORY_DAYS; d++) {
      const close = Math.round(price * (0.95 + (0.05 * d) / HISTORY_DAYS) * (1 + 0.01 * rng.normal())) / 100;
      const date = new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
      bars.push({ date, open: close, high: close, low: close, close, volume: 20_000 });
    }
    seeds.push({ symbol, bars });
  }
  const alerts: ArmedAlert[] = [];
  for (let i = 0; i < ALERTS; i++) {
    const s = i % SYMBOLS;
    const symbol = seeds[s]!.symbol;
    const userId = `u${rng.int(200_000)}`;
    const alertId = `m${i}`;
    const condition = rng.chance(0.05)
      ? REFERENCE_CONDITIONS[rng.int(REFERENCE_CONDITIONS.length)]!
      : conditionOf(rng, rng.chance(0.5) ? 'price' : SOURCES[1 + rng.int(SOURCES.length - 1)]!, base[s]! / 100);
    alerts.push(
      newArmedAlert({
        key: alertKey(userId, alertId),
        userId,
        alertId,
        symbol,
        condition,
        frequency: ALERT_FREQUENCIES[rng.int(ALERT_FREQUENCIES.length)]!,
        arming: 1,
        expiresMs: Infinity,
      }),
    );
  }
  const prices = [...base];
  const ticks: (Tick | null)[] = [];
  const closes: ClosedDay[] = [];
  let t0 = Date.parse('2025-01-02T14:30:00Z');
  for (let i = 0; i < TICKS; i++) {
    if (i > 0 && i % (TICKS / 3) === 0) {
      const date = new Date(t0).toISOString().slice(0, 10);
      closes.push({
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
    ticks.push({ symbol: seeds[s]!.symbol, price: prices[s] / 100, size: 20, ts: t0 + i });
  }
  return { seeds, alerts, ticks, closes };
}

interface Run {
  readonly evaluated: number;
  readonly ms: number;
  /** `tickNumber:key@value` of every alert fired, for the comparison. */
  readonly fired: string[];
}

/** The engine's path: batches of ticks through `evaluateTicks`, day closes rolling the quotes and the index. */
function indexedRun(market: Market, passes: number, limit = Infinity): Run {
  const quotes = new LiveQuotes(market.seeds);
  const index = new AlertIndex((symbol) => quotes.history(symbol));
  for (const alert of market.alerts) index.add({ ...alert });
  const days = new TradingDays();
  const fired: string[] = [];
  let evaluated = 0;
  let closeAt: number;
  const batch: Tick[] = [];
  const started = performance.now();
  const flush = (): void => {
    const first = evaluated;
    evaluateTicks(batch, quotes, index, days, (alert, tick) => {
      fired.push(`${first + batch.indexOf(tick)}:${alert.key}@${alert.firedValue}`);
    });
    evaluated += batch.length;
    batch.length = 0;
  };
  for (let pass = 0; pass < passes && evaluated < limit; pass++) {
    closeAt = 0;
    for (const tick of market.ticks) {
      if (evaluated + batch.length >= limit) break;
      if (tick === null) {
        flush();
        const day = market.closes[closeAt++]!;
        quotes.roll(day);
        index.roll();
        continue;
      }
      batch.push(tick);
      if (batch.length === 100) flush();
    }
    flush();
  }
  return { evaluated, ms: performance.now() - started, fired };
}

/** The reference evaluator on the same ticks, for about {@link NAIVE_MS}. */
function naiveRun(market: Market): Run {
  const quotes = new LiveQuotes(market.seeds);
  const scan = new NaiveAlertScan(
    market.alerts.map((alert) => ({ ...alert })),
    (symbol) => quotes.history(symbol),
  );
  const days = new TradingDays();
  const fired: string[] = [];
  const out: ArmedAlert[] = [];
  const values: number[] = [];
  let evaluated = 0;
  let closeAt = 0;
  const started = performance.now();
  for (const tick of market.ticks) {
    if (tick === null) {
      quotes.roll(market.closes[closeAt++]!);
      scan.roll();
      continue;
    }
    const move = quotes.applyTick(tick);
    scan.evaluate(tick.symbol, move.cents, move.volume, move.prevCloseCents, days.of(tick.ts), out, values);
    out.forEach((alert, k) => fired.push(`${evaluated}:${alert.key}@${values[k]}`));
    out.length = 0;
    values.length = 0;
    evaluated += 1;
    if (performance.now() - started > NAIVE_MS) break;
  }
  return { evaluated, ms: performance.now() - started, fired };
}

/** Runs the mixed benchmark; throws when the index and the reference evaluator disagree. */
export function benchEngineMixed(): MixedEngineBenchResult {
  progress(
    `building ${ALERTS.toLocaleString('en-US')} mixed alerts over ${SYMBOLS} symbols and ${TICKS.toLocaleString('en-US')} ticks`,
  );
  const market = buildMarket();
  progress(`reference evaluator, about ${NAIVE_MS} ms`);
  const naive = naiveRun(market);
  progress(`engine path on the same ${naive.evaluated.toLocaleString('en-US')} ticks`);
  const check = indexedRun(market, 1, naive.evaluated);
  if ([...check.fired].sort().join('\n') !== [...naive.fired].sort().join('\n')) {
    throw new Error(
      `the index fired ${check.fired.length} alerts and the reference ${naive.fired.length} over the same ${naive.evaluated} ticks`,
    );
  }
  progress(
    `both fired the same ${naive.fired.length} alerts over the first ${naive.evaluated.toLocaleString('en-US')} ticks`,
  );
  progress(`engine path, ${PASSES} passes`);
  const indexed = indexedRun(market, PASSES);
  progress(`the index fired ${indexed.fired.length} alerts over ${indexed.evaluated.toLocaleString('en-US')} ticks`);
  const ticksPerSec = Math.round(indexed.evaluated / (indexed.ms / 1000));
  const naivePerSec = Math.round(naive.evaluated / (naive.ms / 1000));
  return {
    bench: 'engine-mixed',
    alerts: ALERTS,
    ticksPerSec,
    naivePerSec,
    ratioToNaive: Math.round((ticksPerSec / Math.max(1, naivePerSec)) * 10) / 10,
    firedCompared: naive.fired.length,
    fired: indexed.fired.length,
  };
}

/** Prints the table, the budget verdicts and, last, the JSON line; answers whether the budgets are met. */
export function reportMixed(r: MixedEngineBenchResult): boolean {
  const rows: [string, string, string][] = [
    [
      'engine evaluations/s (quotes + index)',
      r.ticksPerSec.toLocaleString('en-US'),
      `>= ${BUDGET_TICKS_PER_SEC.toLocaleString('en-US')}`,
    ],
    ['reference evaluator ticks/s', r.naivePerSec.toLocaleString('en-US'), ''],
    ['ratio to the reference', `${r.ratioToNaive.toLocaleString('en-US')}x`, `>= ${BUDGET_RATIO}x`],
    ['alerts fired by both (compared)', r.firedCompared.toLocaleString('en-US'), ''],
  ];
  console.log(
    `${r.alerts.toLocaleString('en-US')} mixed armed alerts over ${SYMBOLS} symbols (every operator, source, frequency)`,
  );
  console.log(`${'figure'.padEnd(38)} ${'value'.padStart(14)}   budget`);
  for (const [name, value, budget] of rows) console.log(`${name.padEnd(38)} ${value.padStart(14)}   ${budget}`);
  const met = r.ticksPerSec >= BUDGET_TICKS_PER_SEC && r.ratioToNaive >= BUDGET_RATIO;
  console.log(met ? 'budgets met' : 'BUDGET MISSED');
  console.log(JSON.stringify(r));
  return met;
}

/**
 * `npm run bench -- engine` (mixed case): tick evaluations per second of the alert engine's path (live quotes
 * plus the armed-alert index) with 1,000,000 armed alerts over 500 symbols using every operator, source and
 * frequency, against the reference evaluator (every alert on every tick) measured in the same run on the same
 * ticks. Both route the alerts as the engine does: the `once_per_bar_close` ones (a quarter) are evaluated on
 * the closing bars only, in an index of their own, and the time of the closes is counted (the pace between
 * closes and the time of one close are printed besides, to tell the two apart).
 * Both must fire the same alerts with the same values: over the ticks the reference scanned in its time,
 * and over every tick of the run for a sample of symbols (one reference scan per symbol). Synthetic and in
 * memory; the day closes twice, so the once-per-bar and moving alerts see new days. The engine path is warmed
 * first on a tenth of the symbols (see `WARM_EVERY`). Prints a table, then one JSON line.
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
import { alertKey } from '../../domain/alerts/alerts.ts';
import { newArmedAlert, type ArmedAlert } from '../../engine/alerts/alertIndex.ts';
import { Random } from '../../engine/marketdata/random.ts';
import { progress } from './child.ts';
import {
  SYMBOLS,
  checkSame,
  indexedRun,
  printTable,
  referenceRun,
  seedSymbols,
  walkTicks,
  type Market,
} from './engine.ts';

/** Figures of one mixed run. */
export interface MixedEngineBenchResult {
  readonly bench: 'engine-mixed';
  /** Armed alerts. */
  readonly alerts: number;
  /** Ticks evaluated per second by the engine's path (quotes + index). */
  readonly ticksPerSec: number;
  /**
   * The same figure without the day closes' time: the ticks' own pace between closes (the first ticks after a
   * close, which take the moving alerts' new levels and revive the once-per-bar ones, included).
   */
  readonly ticksPerSecBetweenCloses: number;
  /** Milliseconds per day close: the closing bars evaluated, then the quotes and both indexes rolled. */
  readonly msPerClose: number;
  /**
   * The ticks that were their symbol's first since the alerts were armed or since a close (each the first tick
   * of many alerts, which fire then if they hold), their milliseconds in all, and the alerts they fired.
   */
  readonly firstTicks: number;
  readonly msFirstTicks: number;
  readonly firedOnFirstTicks: number;
  /** Ticks per second of the other ticks: the pace of a day under way, the closes and those first ticks apart. */
  readonly ticksPerSecWithinDay: number;
  /** Ticks evaluated per second by the reference evaluator. */
  readonly naivePerSec: number;
  /** ticksPerSec / naivePerSec. */
  readonly ratioToNaive: number;
  /** Firings compared: over the ticks the reference scanned in its time, plus over every tick of the sample. */
  readonly firedCompared: number;
  /** Symbols whose every tick both evaluated, and the ticks of theirs. */
  readonly sampleSymbols: number;
  readonly sampleTicks: number;
  /** Seconds taken to arm the alerts in the index (not in the figure of evaluations). */
  readonly armSeconds: number;
  /** Alerts the index fired over every tick. */
  readonly fired: number;
}

const ALERTS = 1_000_000;
const TICKS = 1_000_000;
/** The reference evaluator scans every alert for about this long (the baseline of the ratio). */
const NAIVE_MS = 3_000;
/** Every this many symbols, one has every tick of the run checked against a reference scan of its own. */
const SAMPLE_EVERY = 50;
/**
 * Before the measured run, the engine path runs once over one symbol in this many (their own alerts, ticks and
 * closes, another index): the measured run then finds the code compiled, as an engine that has been running
 * does, rather than counting the compiler's first passes over it.
 */
const WARM_EVERY = 10;
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

/** A level `away` (a fraction) from the series' typical value, on the side that does not hold yet. */
function levelOf(source: AlertSource, dollars: number, away: number): number {
  if (PRICE_LIKE.has(source)) return Math.max(0.01, Math.round(dollars * (1 + away) * 100) / 100);
  if (source === 'rsi:14') return Math.max(1, Math.min(99, 50 + away * 100));
  if (source === 'volume') return Math.max(1, Math.round(20_000 * (1 + away)));
  return Math.round(away * 1000) / 100;
}

/** The typical size of a series' value, in the user's unit: what a fraction `away` of it means in `levelOf`. */
function scaleOf(source: AlertSource, dollars: number): number {
  if (PRICE_LIKE.has(source)) return dollars;
  if (source === 'rsi:14') return 100;
  if (source === 'volume') return 20_000;
  return 10;
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
    // `amount` percent of the series' typical value: of the price for the price-like ones, of the scale of
    // `levelOf` for the others (100 RSI points, 20,000 shares, 10 percentage points of change).
    const value = pct
      ? Math.round(amount * 100) / 100
      : Math.max(0.01, Math.round(amount * scaleOf(source, dollars)) / 100);
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
export function buildMarket(): Market {
  const rng = new Random('bench-engine-mixed');
  const { seeds, base } = seedSymbols(rng, { prefix: 'M', from: 0.95, rise: 0.05, volume: 20_000 });
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
  return { seeds, alerts, ...walkTicks(rng, seeds, base, TICKS, 20, 2) };
}

/**
 * The symbols of a market whose place `keep` accepts, with their alerts, ticks and closing bars: a market of its
 * own (its alerts copied when armed, as every run does).
 */
function sliceOf(market: Market, keep: (s: number) => boolean): Market {
  const seeds = market.seeds.filter((_, s) => keep(s));
  const symbols = new Set(seeds.map((seed) => seed.symbol));
  return {
    seeds,
    alerts: market.alerts.filter((alert) => symbols.has(alert.symbol)),
    ticks: market.ticks.filter((tick) => tick === null || symbols.has(tick.symbol)),
    closes: market.closes.map((day) => ({ ...day, bars: day.bars.filter((bar) => symbols.has(bar.symbol)) })),
  };
}

/** Runs the mixed benchmark; throws when the index and the reference evaluator disagree. */
export function benchEngineMixed(): MixedEngineBenchResult {
  progress(
    `building ${ALERTS.toLocaleString('en-US')} mixed alerts over ${SYMBOLS} symbols and ${TICKS.toLocaleString('en-US')} ticks`,
  );
  const market = buildMarket();
  progress(`reference evaluator, every alert on every tick, about ${NAIVE_MS} ms`);
  const naive = referenceRun(market, NAIVE_MS);
  const warm = sliceOf(market, (s) => s % WARM_EVERY === 1);
  progress(`engine path on ${warm.seeds.length} symbols first, so that the measured run finds its code compiled`);
  indexedRun(warm, 1);
  progress('engine path');
  const indexed = indexedRun(market, 1);
  progress(`the index fired ${indexed.fired.length} alerts over ${indexed.evaluated.toLocaleString('en-US')} ticks`);
  const sample = new Set(market.seeds.filter((_, s) => s % SAMPLE_EVERY === 0).map((seed) => seed.symbol));
  progress(`reference evaluator on every tick of ${sample.size} symbols, one scan each`);
  const sampled = referenceRun(market, Infinity, sample);
  const sampleTicks = market.ticks.filter((tick) => tick !== null && sample.has(tick.symbol)).length;
  const firedCompared =
    checkSame(
      indexed,
      naive,
      `the first ${naive.evaluated.toLocaleString('en-US')} ticks`,
      (at) => at < naive.evaluated,
    ) +
    checkSame(
      indexed,
      sampled,
      `every tick of ${sample.size} symbols (${sampleTicks.toLocaleString('en-US')} ticks, both day closes)`,
      (_, alert) => sample.has(alert.symbol),
    );
  const ticksPerSec = Math.round(indexed.evaluated / (indexed.ms / 1000));
  const naivePerSec = Math.round(naive.evaluated / (naive.ms / 1000));
  return {
    bench: 'engine-mixed',
    alerts: ALERTS,
    ticksPerSec,
    ticksPerSecBetweenCloses: Math.round(indexed.evaluated / ((indexed.ms - indexed.closeMs) / 1000)),
    msPerClose: Math.round((indexed.closeMs / Math.max(1, indexed.closes)) * 10) / 10,
    firstTicks: indexed.firstTicks,
    msFirstTicks: Math.round(indexed.firstMs * 10) / 10,
    firedOnFirstTicks: indexed.firstFired,
    ticksPerSecWithinDay: Math.round(
      (indexed.evaluated - indexed.firstTicks) / ((indexed.ms - indexed.closeMs - indexed.firstMs) / 1000),
    ),
    naivePerSec,
    ratioToNaive: Math.round((ticksPerSec / Math.max(1, naivePerSec)) * 10) / 10,
    firedCompared,
    sampleSymbols: sample.size,
    sampleTicks,
    armSeconds: Math.round(indexed.armMs) / 1000,
    fired: indexed.fired.length,
  };
}

/** Prints the table, the budget verdicts and, last, the JSON line; answers whether the budgets are met. */
export function reportMixed(r: MixedEngineBenchResult): boolean {
  const met = r.ticksPerSec >= BUDGET_TICKS_PER_SEC && r.ratioToNaive >= BUDGET_RATIO;
  printTable(
    `${r.alerts.toLocaleString('en-US')} mixed armed alerts over ${SYMBOLS} symbols (every operator, source, frequency)`,
    [
      [
        'engine evaluations/s (quotes + index)',
        r.ticksPerSec.toLocaleString('en-US'),
        `>= ${BUDGET_TICKS_PER_SEC.toLocaleString('en-US')}`,
      ],
      ['  of which between closes, ticks/s', r.ticksPerSecBetweenCloses.toLocaleString('en-US'), ''],
      ['  each day close, ms', r.msPerClose.toLocaleString('en-US'), ''],
      [
        `  a symbol's first tick since arming or a close (${r.firstTicks.toLocaleString('en-US')}), ms in all`,
        r.msFirstTicks.toLocaleString('en-US'),
        '',
      ],
      ['    alerts they fired', r.firedOnFirstTicks.toLocaleString('en-US'), ''],
      ['  the other ticks, ticks/s', r.ticksPerSecWithinDay.toLocaleString('en-US'), ''],
      ['reference evaluator ticks/s', r.naivePerSec.toLocaleString('en-US'), ''],
      ['ratio to the reference', `${r.ratioToNaive.toLocaleString('en-US')}x`, `>= ${BUDGET_RATIO}x`],
      ['alerts fired by both (compared)', r.firedCompared.toLocaleString('en-US'), ''],
      ['arming the alerts (not above), s', r.armSeconds.toLocaleString('en-US'), ''],
    ],
    met,
    r,
  );
  return met;
}

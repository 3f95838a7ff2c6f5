/**
 * The screener's ten-clause query (metrics, categories, indicators and a pattern) over the simulated universe and
 * over a synthetic universe of 5,000 symbols: runs per second of `runScreener` (precomputed metric columns,
 * clauses ordered by selectivity) against `naiveScreener`, both checked to return the same symbols first. Part
 * of `npm run bench -- market`; the budget is a ratio of at least 50 on both universes.
 */
import { SECTORS, capClassOf } from '../../domain/market/types.ts';
import { PATTERN_NAMES, BULLISH_PATTERN_NAMES } from '../../domain/screener/patterns.ts';
import { validateQuery } from '../../domain/screener/query.ts';
import { streamOf } from '../../engine/marketdata/random.ts';
import { NO_METRICS, type ScreenerMetrics } from '../../engine/screener/metrics.ts';
import { naiveScreener, runScreener, type ScreenerInput } from '../../engine/screener/screener.ts';

/** Symbols of the synthetic universe. */
export const SYNTHETIC_SYMBOLS = 5_000;

/** The least ratio of engine to naive runs per second the ten-clause query must reach. */
export const TEN_CLAUSE_BUDGET = 50;

/** A query of ten clauses of as many kinds, loose enough to match a share of either universe. */
export const TEN_CLAUSE_QUERY: readonly unknown[] = [
  { type: 'mcap', op: '>', val: 1e9 },
  { type: 'close', op: 'bet', val: [5, 5000] },
  { type: 'rsi', param: 14, op: 'bet', val: [20, 80] },
  { type: 'price_vs_sma', param: 200, op: '>', val: -30 },
  { type: 'perf', param: '1Y', op: '>', val: -50 },
  { type: 'volatility', op: '<', val: 5 },
  { type: 'beta', op: 'bet', val: [0, 3] },
  { type: 'relvolume', op: '>', val: 0.3 },
  { type: 'sector', op: 'not_like', val: 'Utilities' },
  { type: 'pattern_bearish_engulfing_', op: 'not_like', val: null },
];

/** Figures of the ten-clause query on one universe. */
export interface TenClauseFigures {
  /** Symbols searched. */
  readonly symbols: number;
  /** Symbols matched (the same for both). */
  readonly matched: number;
  readonly runsPerSec: number;
  readonly naiveRunsPerSec: number;
  readonly ratio: number;
}

/** A deterministic universe of `count` stocks with metrics spread like the simulated market's, some unknown. */
export function syntheticUniverse(count: number, seed = 42): ScreenerInput[] {
  const rng = streamOf(seed, 'screener-bench');
  const between = (low: number, high: number): number => low + (high - low) * rng.uniform();
  const maybe = (value: number): number | null => (rng.chance(0.05) ? null : value);
  const industries = Array.from({ length: 60 }, (_, i) => `Industry ${i + 1}`);
  const bullish = new Set<string>(BULLISH_PATTERN_NAMES);
  return Array.from({ length: count }, (_, i): ScreenerInput => {
    const close = Math.round(Math.exp(between(1.5, 7)) * 100) / 100;
    const marketcap = Math.exp(between(19, 28.5));
    const patterns = PATTERN_NAMES.filter(() => rng.chance(0.03));
    const sma = (spread: number) => maybe(close * (1 + spread * rng.normal()));
    const metrics: ScreenerMetrics = {
      ...NO_METRICS,
      volume: Math.round(Math.exp(between(10, 19))),
      relvolume: maybe(Math.exp(0.45 * rng.normal())),
      gap: maybe(0.6 * rng.normal()),
      perf_1W: maybe(3 * rng.normal()),
      perf_1M: maybe(6 * rng.normal()),
      perf_3M: maybe(11 * rng.normal()),
      perf_6M: maybe(16 * rng.normal()),
      perf_YTD: maybe(20 * rng.normal()),
      perf_1Y: maybe(25 * rng.normal()),
      high52: maybe(-Math.abs(12 * rng.normal())),
      low52: maybe(Math.abs(30 * rng.normal())),
      price_vs_sma_20: maybe(3 * rng.normal()),
      price_vs_sma_50: maybe(6 * rng.normal()),
      price_vs_sma_200: maybe(12 * rng.normal()),
      pe: maybe(Math.exp(between(1, 5.5))),
      eps_growth: maybe(20 * rng.normal()),
      div_yield: maybe(Math.max(0, 1.5 + 1.5 * rng.normal())),
      beta: maybe(1 + 0.35 * rng.normal()),
      atr: maybe(close * between(0.005, 0.05)),
      volatility: maybe(Math.exp(between(-1.2, 2))),
      sma_cross: maybe(Math.round(300 * rng.normal())),
    };
    return {
      symbol: `SYN${String(i).padStart(5, '0')}`,
      name: `Synthetic ${i}`,
      sector: SECTORS[rng.int(SECTORS.length)] as string,
      industry: rng.chance(0.1) ? null : (industries[rng.int(industries.length)] as string),
      close,
      changepct: Math.round(1.6 * rng.normal() * 100) / 100,
      marketcap,
      capclass: capClassOf(marketcap),
      indicators: {
        SMA_20: sma(0.03),
        SMA_50: sma(0.06),
        SMA_100: sma(0.09),
        SMA_200: sma(0.12),
        rsi_14: maybe(between(10, 90)),
      },
      patterns,
      bullishPatterns: patterns.some((name) => bullish.has(name)),
      metrics,
    };
  });
}

/** Runs the ten-clause query on a universe with both evaluations: the same symbols, then runs per second. */
export function benchTenClauses(
  rows: readonly ScreenerInput[],
  measure: (step: (i: number) => number) => number,
): TenClauseFigures {
  const compiled = validateQuery(TEN_CLAUSE_QUERY);
  const options = { limit: rows.length };
  const engine = runScreener(rows, compiled, options);
  const naive = naiveScreener(rows, TEN_CLAUSE_QUERY, options);
  const symbols = (r: typeof engine) => r.rows.map((row) => row.symbol).join(',');
  if (symbols(engine) !== symbols(naive) || engine.total !== naive.total) {
    throw new Error(`the ten-clause query answers differ on ${rows.length} symbols`);
  }
  if (engine.total === 0) throw new Error(`the ten-clause query matches none of ${rows.length} symbols`);
  const runsPerSec = measure(() => {
    runScreener(rows, compiled);
    return 1;
  });
  const naiveRunsPerSec = measure(() => {
    naiveScreener(rows, TEN_CLAUSE_QUERY);
    return 1;
  });
  return {
    symbols: rows.length,
    matched: engine.total,
    runsPerSec: Math.round(runsPerSec),
    naiveRunsPerSec: Math.round(naiveRunsPerSec * 10) / 10,
    ratio: Math.round((runsPerSec / naiveRunsPerSec) * 10) / 10,
  };
}

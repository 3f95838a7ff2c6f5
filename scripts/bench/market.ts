/**
 * `npm run bench -- market`: the analysis engines on the whole simulated market (seed 42, built in a temporary
 * folder), each against a plain baseline measured in the same run: the compiled screener against
 * `naiveScreener`, whole-history pattern detection (`detectAll`) against detecting bar by bar with each bar's
 * window measured from scratch, and the correlation matrix of 100 symbols × 250 days against
 * `naiveCorrelationMatrix`. Prints a table, then one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DailyBar } from '../../domain/market/types.ts';
import { SCREENER_PRESETS, validateQuery } from '../../domain/screener/query.ts';
import { alignReturns, correlationMatrix, naiveCorrelationMatrix } from '../../engine/analysis/correlation.ts';
import { openMarketData } from '../../engine/market/marketData.ts';
import { detectAll, detectPatterns, type PatternDetection } from '../../engine/patterns/patterns.ts';
import { naiveScreener, runScreener } from '../../engine/screener/screener.ts';
import { progress } from './child.ts';
import {
  SYNTHETIC_SYMBOLS,
  TEN_CLAUSE_BUDGET,
  benchTenClauses,
  syntheticUniverse,
  type TenClauseFigures,
} from './screenerQueries.ts';

/** Figures of one run. */
export interface MarketBenchResult {
  readonly bench: 'market';
  readonly screenerRunsPerSec: number;
  readonly screenerNaiveRunsPerSec: number;
  readonly screenerRatio: number;
  readonly patternBarsPerSec: number;
  readonly patternNaiveBarsPerSec: number;
  readonly patternRatio: number;
  readonly correlationPerSec: number;
  readonly correlationNaivePerSec: number;
  readonly correlationRatio: number;
  /** The ten-clause query over the simulated universe. */
  readonly tenClauseUniverse: TenClauseFigures;
  /** The ten-clause query over the synthetic universe of 5,000 symbols. */
  readonly tenClauseSynthetic: TenClauseFigures;
}

/** How long each side of a comparison runs, after its warm-up. */
const MEASURE_MS = 2_000;
const CORRELATION_SYMBOLS = 100;
const CORRELATION_DAYS = 250;

/** Queries the screener runs in turn: the six presets and two compound ones. */
const QUERIES: readonly unknown[] = [
  ...SCREENER_PRESETS.map((p) => p.query),
  [
    { type: 'close', op: '>', val: { ref: 'SMA', param: 200 } },
    { type: 'rsi', param: 14, op: 'bet', val: [40, 70] },
    { type: 'mcap', op: 'like', val: 'large' },
  ],
  [
    { type: 'SMA', param: 20, op: '>', val: { ref: 'SMA', param: 50 } },
    { type: 'pattern_doji_', op: 'not_like', val: null },
    { type: 'mcap', op: '>', val: 5e9 },
  ],
];

/** Calls `step` (doing `units` units of work per call) for about `ms` after a short warm-up; units per second. */
function measure(step: (i: number) => number, ms = MEASURE_MS): number {
  const warmUntil = performance.now() + ms / 4;
  for (let i = 0; performance.now() < warmUntil; i += 1) step(i);
  let units = 0;
  const started = performance.now();
  let elapsed = 0;
  for (let i = 0; elapsed < ms; i += 1) {
    units += step(i);
    elapsed = performance.now() - started;
  }
  return units / (elapsed / 1000);
}

/** The baseline of pattern detection: every bar judged alone, its 12-bar window measured from scratch. */
function naivePatternScan(bars: readonly DailyBar[]): PatternDetection[] {
  const detections: PatternDetection[] = [];
  for (let index = 0; index < bars.length; index += 1) {
    const hits = detectPatterns(bars, index);
    if (hits.length > 0) detections.push({ index, date: (bars[index] as DailyBar).date, hits });
  }
  return detections;
}

/** Runs the benchmark on a market built in a temporary folder. */
export function benchMarket(): MarketBenchResult {
  const dir = mkdtempSync(join(tmpdir(), 'sp-bench-market-'));
  try {
    progress('building the market (seed 42)');
    const market = openMarketData({ dataDir: dir, seed: 42 });
    try {
      const rows = market.screenerInputs();
      const compiled = QUERIES.map((q) => validateQuery(q, { allowEmpty: true }));
      for (const [i, q] of QUERIES.entries()) {
        const a = runScreener(rows, compiled[i] ?? []);
        const b = naiveScreener(rows, q);
        if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`screener answers differ on query ${i}`);
      }
      progress(`screener over ${rows.length} stocks`);
      const screenerRunsPerSec = measure((i) => {
        runScreener(rows, compiled[i % compiled.length] ?? []);
        return 1;
      });
      const screenerNaiveRunsPerSec = measure((i) => {
        naiveScreener(rows, QUERIES[i % QUERIES.length]);
        return 1;
      });

      progress(`ten-clause query over ${rows.length} stocks and ${SYNTHETIC_SYMBOLS} synthetic ones`);
      const tenClauseUniverse = benchTenClauses(rows, measure);
      const tenClauseSynthetic = benchTenClauses(syntheticUniverse(SYNTHETIC_SYMBOLS), measure);

      const histories = market.companies.map((e) => market.store.bars(e.symbol));
      const sample = histories[0] ?? [];
      if (JSON.stringify(detectAll(sample)) !== JSON.stringify(naivePatternScan(sample))) {
        throw new Error('pattern detections differ');
      }
      progress(`pattern detection over ${histories.length} histories`);
      const patternBarsPerSec = measure((i) => {
        const bars = histories[i % histories.length] ?? [];
        detectAll(bars);
        return bars.length;
      });
      const patternNaiveBarsPerSec = measure((i) => {
        const bars = histories[i % histories.length] ?? [];
        naivePatternScan(bars);
        return bars.length;
      });

      const symbols = market.companies.slice(0, CORRELATION_SYMBOLS).map((e) => e.symbol);
      const aligned = alignReturns(
        symbols.map((symbol, i) => ({ symbol, bars: histories[i] ?? [] })),
        CORRELATION_DAYS,
      );
      progress(`correlation of ${symbols.length} symbols × ${aligned.dates.length} days`);
      const correlationPerSec = measure(() => {
        correlationMatrix(aligned);
        return 1;
      });
      const correlationNaivePerSec = measure(() => {
        naiveCorrelationMatrix(aligned);
        return 1;
      });

      const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits;
      return {
        bench: 'market',
        screenerRunsPerSec: round(screenerRunsPerSec),
        screenerNaiveRunsPerSec: round(screenerNaiveRunsPerSec),
        screenerRatio: round(screenerRunsPerSec / screenerNaiveRunsPerSec, 1),
        patternBarsPerSec: round(patternBarsPerSec),
        patternNaiveBarsPerSec: round(patternNaiveBarsPerSec),
        patternRatio: round(patternBarsPerSec / patternNaiveBarsPerSec, 1),
        correlationPerSec: round(correlationPerSec, 1),
        correlationNaivePerSec: round(correlationNaivePerSec, 1),
        correlationRatio: round(correlationPerSec / correlationNaivePerSec, 1),
        tenClauseUniverse,
        tenClauseSynthetic,
      };
    } finally {
      market.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the table and the JSON line; the run fails when an engine is not faster than its baseline. */
export function report(r: MarketBenchResult): boolean {
  const rows: [string, string, number, number, number][] = [
    [
      'screener runs/s (whole universe)',
      'runScreener vs naiveScreener',
      r.screenerRunsPerSec,
      r.screenerNaiveRunsPerSec,
      r.screenerRatio,
    ],
    [
      'pattern detection bars/s',
      'detectAll vs bar by bar',
      r.patternBarsPerSec,
      r.patternNaiveBarsPerSec,
      r.patternRatio,
    ],
    [
      `correlation matrices/s (${CORRELATION_SYMBOLS} × ${CORRELATION_DAYS})`,
      'correlationMatrix vs naive',
      r.correlationPerSec,
      r.correlationNaivePerSec,
      r.correlationRatio,
    ],
  ];
  console.log(
    `${'figure'.padEnd(40)} ${'engine'.padStart(12)} ${'baseline'.padStart(12)} ${'ratio'.padStart(8)}   compared`,
  );
  let met = true;
  for (const [name, compared, value, baseline, ratio] of rows) {
    met &&= ratio > 1;
    console.log(
      `${name.padEnd(40)} ${value.toLocaleString('en-US').padStart(12)} ${baseline.toLocaleString('en-US').padStart(12)} ${ratio.toFixed(1).padStart(8)}   ${compared}`,
    );
  }
  for (const [what, f] of [
    ['universe', r.tenClauseUniverse],
    ['synthetic', r.tenClauseSynthetic],
  ] as const) {
    met &&= f.ratio >= TEN_CLAUSE_BUDGET;
    console.log(
      `${`10-clause runs/s (${what}, ${f.symbols})`.padEnd(40)} ${f.runsPerSec.toLocaleString('en-US').padStart(12)} ${f.naiveRunsPerSec.toLocaleString('en-US').padStart(12)} ${f.ratio.toFixed(1).padStart(8)}   runScreener vs naive, ${f.matched} matched, budget ≥ ${TEN_CLAUSE_BUDGET}×`,
    );
  }
  console.log(JSON.stringify(r));
  return met;
}

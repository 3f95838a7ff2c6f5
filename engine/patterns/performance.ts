/**
 * How candlestick patterns did: for every detection, the return from the close of its bar to the close 1, 5 and
 * 20 trading days later; per pattern and horizon, the count, the hit rate (share moving in the pattern's
 * direction) and the median return.
 */
import { type DailyBar } from '../../domain/market/types.ts';
import { PATTERNS, type PatternName } from '../../domain/screener/patterns.ts';
import { detectAll, type PatternDetection } from './patterns.ts';

/** The forward horizons measured, in trading days. */
export const HORIZONS = [1, 5, 20] as const;

/** A forward horizon in trading days. */
export type Horizon = (typeof HORIZONS)[number];

/** One detection with its forward returns (`close[t + h] / close[t] − 1`), `null` where the history ends first. */
export interface ForwardSample {
  /** Pattern name. */
  readonly name: PatternName;
  /** Pattern direction. */
  readonly bullish: boolean | null;
  /** Trading day of the detection. */
  readonly date: string;
  /** Forward return per horizon, as a fraction (0.01 = +1%). */
  readonly returns: Readonly<Record<Horizon, number | null>>;
}

/** The statistics of one pattern at one horizon. */
export interface HorizonStats {
  /** Detections with a forward return at this horizon. */
  readonly count: number;
  /**
   * Share of those returns in the pattern's direction (strictly up for bullish, strictly down for bearish; a
   * zero return is a miss); `null` for a neutral pattern or without samples.
   */
  readonly hitRate: number | null;
  /** Median forward return (mean of the middle two for an even count); `null` without samples. */
  readonly median: number | null;
}

/** How one pattern did at every horizon. */
export interface PatternPerformance {
  /** Pattern name. */
  readonly name: PatternName;
  /** Pattern direction. */
  readonly bullish: boolean | null;
  /** Detections in all, including those too recent for any horizon. */
  readonly detections: number;
  /** Statistics per horizon. */
  readonly horizons: Readonly<Record<Horizon, HorizonStats>>;
}

/** The forward returns of each detection of a history (by default every pattern {@link detectAll} finds). */
export function forwardSamples(
  bars: readonly DailyBar[],
  detections: readonly PatternDetection[] = detectAll(bars),
): ForwardSample[] {
  const samples: ForwardSample[] = [];
  for (const detection of detections) {
    const base = bars[detection.index]?.close;
    if (base === undefined || !(base > 0)) continue;
    const returnAfter = (h: Horizon): number | null => {
      const later = bars[detection.index + h]?.close;
      return later === undefined ? null : later / base - 1;
    };
    const returns = { 1: returnAfter(1), 5: returnAfter(5), 20: returnAfter(20) };
    for (const hit of detection.hits) {
      samples.push({ name: hit.name, bullish: hit.bullish, date: detection.date, returns });
    }
  }
  return samples;
}

/** The median of a non-empty list of numbers (sorted in place). */
function median(values: number[]): number {
  values.sort((a, b) => a - b);
  const middle = values.length >> 1;
  const upper = values[middle] ?? Number.NaN;
  return values.length % 2 === 1 ? upper : ((values[middle - 1] ?? Number.NaN) + upper) / 2;
}

function statsOf(returns: number[], bullish: boolean | null): HorizonStats {
  if (returns.length === 0) return { count: 0, hitRate: null, median: null };
  const hits = bullish === null ? 0 : returns.filter((r) => (bullish ? r > 0 : r < 0)).length;
  return {
    count: returns.length,
    hitRate: bullish === null ? null : hits / returns.length,
    median: median(returns),
  };
}

/** Per-pattern statistics of forward samples, one entry per known pattern with at least one detection, in list order. */
export function summarisePerformance(samples: Iterable<ForwardSample>): PatternPerformance[] {
  const byName = new Map<PatternName, { detections: number; returns: Record<Horizon, number[]> }>();
  for (const sample of samples) {
    let entry = byName.get(sample.name);
    if (entry === undefined) {
      entry = { detections: 0, returns: { 1: [], 5: [], 20: [] } };
      byName.set(sample.name, entry);
    }
    entry.detections += 1;
    for (const h of HORIZONS) {
      const r = sample.returns[h];
      if (r !== null) entry.returns[h].push(r);
    }
  }
  const result: PatternPerformance[] = [];
  for (const { name, bullish } of PATTERNS) {
    const entry = byName.get(name);
    if (entry === undefined) continue;
    result.push({
      name,
      bullish,
      detections: entry.detections,
      horizons: {
        1: statsOf(entry.returns[1], bullish),
        5: statsOf(entry.returns[5], bullish),
        20: statsOf(entry.returns[20], bullish),
      },
    });
  }
  return result;
}

/** How every pattern did over one or more histories (e.g. every symbol of the universe), detections pooled. */
export function patternPerformance(histories: Iterable<readonly DailyBar[]>): PatternPerformance[] {
  const samples: ForwardSample[] = [];
  for (const bars of histories) for (const sample of forwardSamples(bars)) samples.push(sample);
  return summarisePerformance(samples);
}

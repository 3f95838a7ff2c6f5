/**
 * Test data of the price chart's suites: a daily bar whose 50-day SMA sits 2 below its close, its other
 * indicators missing unless given.
 */
import type { ChartBar } from '../../../domain/contract/market.ts';

/** A daily bar closing (and opening) at `close`, high and low one away, with the fields of `extra`. */
export function bar(date: string, close: number, extra: Partial<ChartBar> = {}): ChartBar {
  return {
    date,
    open: close,
    high: close + 1,
    low: close - 1,
    close,
    volume: 1000,
    SMA_20: null,
    SMA_50: close - 2,
    SMA_100: null,
    SMA_200: null,
    rsi_14: null,
    ...extra,
  };
}

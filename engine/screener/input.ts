/** What the screener reads of one stock (the market data service builds one per company). */
import type { CapClass } from '../../domain/market/types.ts';
import type { ScreenerMetrics } from './metrics.ts';

/** The indicator values of a stock's latest bar the screener reads; `null` where the history is too short. */
export interface ScreenerIndicators {
  /** SMA of the last 20 closes. */
  readonly SMA_20: number | null;
  /** SMA of the last 50 closes. */
  readonly SMA_50: number | null;
  /** SMA of the last 100 closes. */
  readonly SMA_100: number | null;
  /** SMA of the last 200 closes. */
  readonly SMA_200: number | null;
  /** Wilder's RSI of 14 days. */
  readonly rsi_14: number | null;
}

/** What the screener knows of one stock: its universe entry, latest quote, indicators and latest-bar patterns. */
export interface ScreenerInput {
  /** Ticker. */
  readonly symbol: string;
  /** Company name. */
  readonly name: string;
  /** GICS sector. */
  readonly sector: string;
  /** GICS industry, or null where unknown. */
  readonly industry: string | null;
  /** Latest price (the forming close during the session). */
  readonly close: number;
  /** Change since the previous close, in percent. */
  readonly changepct: number;
  /** Market capitalisation in dollars. */
  readonly marketcap: number;
  /** Cap class of the market capitalisation. */
  readonly capclass: CapClass;
  /** Indicators of the latest bar. */
  readonly indicators: ScreenerIndicators;
  /** Names of the patterns detected on the latest bar. */
  readonly patterns: readonly string[];
  /** Whether any bullish pattern was detected on the latest bar. */
  readonly bullishPatterns: boolean;
  /** The metric columns at the latest price (`metrics.ts`). */
  readonly metrics: ScreenerMetrics;
}

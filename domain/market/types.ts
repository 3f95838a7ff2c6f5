/**
 * Market data types shared by the engine, the projections, the gateway and the UI.
 */
import type { QuoteOrigin } from './feeds.ts';

/** The 11 GICS sectors, as spelled in the universe. */
export const SECTORS = [
  'Communication Services',
  'Consumer Discretionary',
  'Consumer Staples',
  'Energy',
  'Financials',
  'Health Care',
  'Industrials',
  'Information Technology',
  'Materials',
  'Real Estate',
  'Utilities',
] as const;

/** One of the 11 GICS sectors. */
export type Sector = (typeof SECTORS)[number];

/** The fundamental figures the app shows (the spec's company-stats types). */
export const FUNDAMENTAL_TYPES = Object.freeze(['revenue', 'grossprofit', 'income', 'earningspershare'] as const);

/** One of {@link FUNDAMENTAL_TYPES}. */
export type FundamentalType = (typeof FUNDAMENTAL_TYPES)[number];

/** Market-cap class of the spec: large above 10 B, mid 2–10 B, small below 2 B (US dollars). */
export type CapClass = 'large' | 'mid' | 'small';

/** Lower bound of the large-cap class, in dollars. */
export const LARGE_CAP_MIN = 10_000_000_000;
/** Lower bound of the mid-cap class, in dollars. */
export const MID_CAP_MIN = 2_000_000_000;

/** The cap class of a market capitalisation in dollars (10 B exactly is mid, 2 B exactly is mid). */
export function capClassOf(marketCap: number): CapClass {
  if (marketCap > LARGE_CAP_MIN) return 'large';
  if (marketCap >= MID_CAP_MIN) return 'mid';
  return 'small';
}

/**
 * The market capitalisation of a company at a price: its shares outstanding × the price, in dollars. Every
 * market cap the app answers is this one at the price the quotes show (the last close until ticks flow).
 */
export function marketCapOf(shares: number, price: number): number {
  return shares * price;
}

/** A company of the shipped universe, with its figures as of the universe date (approximate). */
export interface UniverseEntry {
  /** Ticker, upper case, 1–10 of `A-Z 0-9 . -`. */
  readonly symbol: string;
  /** Company name. */
  readonly name: string;
  /** GICS sector. */
  readonly sector: Sector;
  /** GICS industry (or sub-industry). */
  readonly industry: string;
  /** Shares outstanding. */
  readonly shares: number;
  /** Last close on the universe date, in dollars. */
  readonly close: number;
  /** Market cap on the universe date: {@link marketCapOf} shares at that close, in dollars. */
  readonly marketcap: number;
  /** Cap class of `marketcap`. */
  readonly capclass: CapClass;
}

/** One daily bar (OHLCV); `date` is the trading day `YYYY-MM-DD` (New York). */
export interface DailyBar {
  /** Trading day, `YYYY-MM-DD`. */
  readonly date: string;
  /** Opening price. */
  readonly open: number;
  /** Highest price. */
  readonly high: number;
  /** Lowest price. */
  readonly low: number;
  /** Closing price. */
  readonly close: number;
  /** Shares traded. */
  readonly volume: number;
}

/** A quote as the API and the socket send it. */
export interface Quote {
  /** Ticker. */
  readonly symbol: string;
  /** Last price. */
  readonly price: number;
  /** Change since the previous close (4 decimals). */
  readonly change: number;
  /** Change since the previous close in percent (2 decimals). */
  readonly changepct: number;
  /** Shares traded in the session. */
  readonly volume: number;
  /** ISO instant of the price. */
  readonly ts: string;
  /** Where the price comes from: the live feed, or `close` for a daily close. */
  readonly source: QuoteOrigin;
  /**
   * The session's open, high and low so far (its first price, highest and lowest), the day's bar for a daily
   * close; a chart forms the session's candle from them. Absent from a source that does not keep them.
   */
  readonly open?: number;
  readonly high?: number;
  readonly low?: number;
}

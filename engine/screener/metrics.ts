/**
 * The metric columns of the screener (`domain/screener/metrics.ts` defines each): what a symbol's finished
 * history fixes (the bases: 52-week range, average volume, past closes, ATR, volatility, beta, EPS) is computed
 * once; what the latest price moves (change, performance, distances, P/E, yield) is derived from the bases at
 * each quote refresh, so a screener run only reads numbers.
 */
import type { DailyBar, Sector } from '../../domain/market/types.ts';
import {
  PERF_PERIODS,
  PRICE_SMA_PERIODS,
  type MetricKey,
  type PerfPeriod,
  type PriceSmaPeriod,
} from '../../domain/screener/metrics.ts';
import { lastIndexAtOrBefore, monthsBefore } from '../market/series.ts';

/** Bars before the latest that the 52-week high and low span. */
export const RANGE_52W_BARS = 252;
/** Bars before the latest whose mean volume relative volume divides by. */
export const AVERAGE_VOLUME_BARS = 20;
/** True ranges averaged by the ATR. */
export const ATR_BARS = 14;
/** Daily returns whose standard deviation is the volatility. */
export const VOLATILITY_RETURNS = 20;
/** Daily returns the beta is measured over. */
export const BETA_RETURNS = 252;
/** Trading days back of the 1W performance. */
export const WEEK_BARS = 5;
/** Bars a symbol's bases need (the latest and the 252 before it). */
export const BASE_BARS = RANGE_52W_BARS + 1;

/** The metric columns of a screener row (the change is the row's own `changepct`). */
export type ScreenerMetrics = Readonly<Record<Exclude<MetricKey, 'changepct'>, number | null>>;

/** Every metric unknown. */
export const NO_METRICS: ScreenerMetrics = {
  volume: null,
  relvolume: null,
  gap: null,
  perf_1W: null,
  perf_1M: null,
  perf_3M: null,
  perf_6M: null,
  perf_YTD: null,
  perf_1Y: null,
  high52: null,
  low52: null,
  price_vs_sma_20: null,
  price_vs_sma_50: null,
  price_vs_sma_200: null,
  pe: null,
  eps_growth: null,
  div_yield: null,
  beta: null,
  atr: null,
  volatility: null,
  sma_cross: null,
};

/** Typical dividend payout ratios (dividends / earnings) of large US companies per sector, rounded. */
export const SECTOR_PAYOUT: Readonly<Record<Sector, number>> = {
  'Communication Services': 0.2,
  'Consumer Discretionary': 0.25,
  'Consumer Staples': 0.6,
  Energy: 0.45,
  Financials: 0.35,
  'Health Care': 0.4,
  Industrials: 0.35,
  'Information Technology': 0.2,
  Materials: 0.45,
  'Real Estate': 0.9,
  Utilities: 0.65,
};

/** The gap of a bar: its open against the close before it, in percent; null without a positive close before. */
export function gapOf(open: number, previousClose: number | null | undefined): number | null {
  return previousClose !== null && previousClose !== undefined && previousClose > 0
    ? (open / previousClose - 1) * 100
    : null;
}

/** What a symbol's finished history fixes; `null` where the history is too short. */
export interface MetricBases {
  /** The latest bar's open against the close before it, in percent. */
  readonly gap: number | null;
  /** Mean volume of the 20 bars before the latest. */
  readonly averageVolume: number | null;
  /** Highest high of the 252 bars before the latest. */
  readonly high52: number | null;
  /** Lowest low of the 252 bars before the latest. */
  readonly low52: number | null;
  /** Mean of the last 14 true ranges. */
  readonly atr: number | null;
  /** Population standard deviation of the last 20 daily returns, in percent. */
  readonly volatility: number | null;
  /** The past close each performance period is measured from. */
  readonly perfBase: Readonly<Record<PerfPeriod, number | null>>;
  /** The moving averages the price is measured against. */
  readonly sma: Readonly<Record<PriceSmaPeriod, number | null>>;
  /** Beta against the universe's equal-weight mean return. */
  readonly beta: number | null;
  /** Signed trading days since the SMA 50 crossed the SMA 200 (see {@link smaCrossOf}). */
  readonly smaCross: number | null;
  /** EPS of the latest fiscal year. */
  readonly eps: number | null;
  /** EPS of the fiscal year before. */
  readonly previousEps: number | null;
  /** The modelled dividend per share: the sector's payout ratio × a positive EPS, else 0; null without EPS. */
  readonly dividend: number | null;
}

function mean(values: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += values[i] as number;
  return sum / (to - from);
}

/**
 * The bases a symbol's last bars fix (oldest first, the last the latest bar; the 253 last are enough): gap,
 * average volume, 52-week high and low, ATR and volatility.
 */
export function barBases(
  bars: readonly DailyBar[],
): Pick<MetricBases, 'gap' | 'averageVolume' | 'high52' | 'low52' | 'atr' | 'volatility'> {
  const n = bars.length;
  const latest = bars[n - 1];
  const before = bars[n - 2];
  const gap = latest && before ? gapOf(latest.open, before.close) : null;
  const averageVolume =
    n > AVERAGE_VOLUME_BARS
      ? mean(
          bars.map((b) => b.volume),
          n - 1 - AVERAGE_VOLUME_BARS,
          n - 1,
        )
      : null;
  let high52: number | null = null;
  let low52: number | null = null;
  for (let i = Math.max(0, n - 1 - RANGE_52W_BARS); i < n - 1; i += 1) {
    const bar = bars[i] as DailyBar;
    high52 = high52 === null ? bar.high : Math.max(high52, bar.high);
    low52 = low52 === null ? bar.low : Math.min(low52, bar.low);
  }
  let atr: number | null = null;
  if (n > ATR_BARS) {
    let sum = 0;
    for (let i = n - ATR_BARS; i < n; i += 1) {
      const bar = bars[i] as DailyBar;
      const previous = (bars[i - 1] as DailyBar).close;
      sum += Math.max(bar.high - bar.low, Math.abs(bar.high - previous), Math.abs(bar.low - previous));
    }
    atr = sum / ATR_BARS;
  }
  return { gap, averageVolume, high52, low52, atr, volatility: volatilityOf(bars.map((b) => b.close)) };
}

/**
 * The bases of a price of a session after the last of `bars` (a live session whose bar is not stored yet), from
 * the bases of the last bar's own price: the 52-week range and the average volume run up to and including the
 * last bar, the performance periods are measured back from `day` (the session's date), and the gap is null (the
 * session's open is not among the bars: the caller gives {@link metricsAt} the forming bar's gap); ATR,
 * volatility and the rest are the last bar's.
 */
export function laterBases(
  closed: MetricBases,
  bars: readonly DailyBar[],
  series: { readonly dates: readonly string[]; readonly closes: ArrayLike<number> },
  day: string,
): MetricBases {
  const last = bars.at(-1);
  // The last bar stands in for the session's: only the bars before it are read for these.
  const { high52, low52, averageVolume } = last ? barBases([...bars, last]) : closed;
  return {
    ...closed,
    gap: null,
    high52,
    low52,
    averageVolume,
    perfBase: perfBases([...series.dates, day], [...Array.from(series.closes), NaN]),
  };
}

/** Population standard deviation of the last 20 daily close-to-close returns, in percent; null under 21 closes. */
export function volatilityOf(closes: ArrayLike<number>): number | null {
  const n = closes.length;
  if (n <= VOLATILITY_RETURNS) return null;
  const returns: number[] = [];
  for (let i = n - VOLATILITY_RETURNS; i < n; i += 1) {
    returns.push(((closes[i] as number) / (closes[i - 1] as number) - 1) * 100);
  }
  const m = mean(returns, 0, returns.length);
  return Math.sqrt(returns.reduce((sum, r) => sum + (r - m) ** 2, 0) / returns.length);
}

/**
 * The close each performance period is measured from, in a history's dates and closes (oldest first): 1W the
 * close 5 trading days before the latest; months the last trading day on or before the same day N months before;
 * YTD the last close of the previous calendar year; null when the history does not reach back so far.
 */
export function perfBases(
  dates: readonly string[],
  closes: ArrayLike<number>,
): Readonly<Record<PerfPeriod, number | null>> {
  const last = dates.length - 1;
  const latest = dates[last];
  const at = (index: number): number | null => (index >= 0 && latest !== undefined ? (closes[index] as number) : null);
  const months = (n: number): number | null =>
    latest === undefined ? null : at(lastIndexAtOrBefore(dates, monthsBefore(latest, n)));
  const base = {} as Record<PerfPeriod, number | null>;
  for (const period of PERF_PERIODS) {
    switch (period) {
      case '1W':
        base[period] = at(last - WEEK_BARS);
        break;
      case 'YTD':
        base[period] =
          latest === undefined ? null : at(lastIndexAtOrBefore(dates, `${Number(latest.slice(0, 4)) - 1}-12-31`));
        break;
      default:
        base[period] = months({ '1M': 1, '3M': 3, '6M': 6, '1Y': 12 }[period]);
    }
  }
  return base;
}

/** A symbol's daily returns keyed by the day they end on. */
export interface DatedCloses {
  readonly dates: readonly string[];
  readonly closes: ArrayLike<number>;
}

/**
 * The equal-weight mean daily return of histories per day (the day a return ends on), over their last
 * {@link BETA_RETURNS} returns.
 */
export function marketReturns(histories: Iterable<DatedCloses>): Map<string, number> {
  const sums = new Map<string, { sum: number; count: number }>();
  for (const { dates, closes } of histories) {
    for (let i = Math.max(1, dates.length - BETA_RETURNS); i < dates.length; i += 1) {
      const previous = closes[i - 1] as number;
      if (!(previous > 0)) continue;
      const day = dates[i] as string;
      const entry = sums.get(day) ?? { sum: 0, count: 0 };
      entry.sum += (closes[i] as number) / previous - 1;
      entry.count += 1;
      sums.set(day, entry);
    }
  }
  return new Map([...sums].map(([day, { sum, count }]) => [day, sum / count]));
}

/**
 * Beta of a history against market returns: cov(stock, market) / var(market) over the stock's last
 * {@link BETA_RETURNS} returns on days the market has; null under 20 such days or with a flat market.
 */
export function betaOf({ dates, closes }: DatedCloses, market: ReadonlyMap<string, number>): number | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = Math.max(1, dates.length - BETA_RETURNS); i < dates.length; i += 1) {
    const m = market.get(dates[i] as string);
    const previous = closes[i - 1] as number;
    if (m === undefined || !(previous > 0)) continue;
    xs.push(m);
    ys.push((closes[i] as number) / previous - 1);
  }
  if (xs.length < VOLATILITY_RETURNS) return null;
  const mx = mean(xs, 0, xs.length);
  const my = mean(ys, 0, ys.length);
  let cov = 0;
  let variance = 0;
  for (let i = 0; i < xs.length; i += 1) {
    cov += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    variance += ((xs[i] as number) - mx) ** 2;
  }
  return variance > 0 ? cov / variance : null;
}

/** The short and long averages of the golden and death crosses. */
export const CROSS_PERIODS = { short: 50, long: 200 } as const;

/**
 * Signed trading days since the 50-day SMA crossed the 200-day SMA, over closes (oldest first): k > 0 when the
 * short average is above the long one on the latest bar and was last at or below it k bars before (1: crossed
 * on the latest bar), −k when below and last at or above k bars before, 0 when equal; null when the long average
 * is unknown or the state has held since both averages are known.
 */
export function smaCrossOf(closes: ArrayLike<number>): number | null {
  const { short, long } = CROSS_PERIODS;
  const n = closes.length;
  if (n < long) return null;
  // Sign of SMA short − SMA long on each bar from the first with both, compared as sums scaled to one period.
  let shortSum = 0;
  let longSum = 0;
  for (let i = 0; i < long; i += 1) {
    longSum += closes[i] as number;
    if (i >= long - short) shortSum += closes[i] as number;
  }
  const signs = new Int8Array(n - long + 1);
  for (let i = long - 1; ; i += 1) {
    signs[i - long + 1] = Math.sign(shortSum / short - longSum / long);
    if (i + 1 >= n) break;
    const next = closes[i + 1] as number;
    shortSum += next - (closes[i + 1 - short] as number);
    longSum += next - (closes[i + 1 - long] as number);
  }
  const now = signs[signs.length - 1] as number;
  if (now === 0) return 0;
  for (let k = 1; k < signs.length; k += 1) {
    if ((signs[signs.length - 1 - k] as number) !== now) return now * k;
  }
  return null;
}

/** The modelled dividend per share: the sector's payout ratio × the EPS when positive, else 0; null without EPS. */
export function modelledDividend(sector: Sector, eps: number | null): number | null {
  if (eps === null) return null;
  return eps > 0 ? SECTOR_PAYOUT[sector] * eps : 0;
}

const percent = (value: number, base: number | null): number | null =>
  base !== null && base > 0 ? (value / base - 1) * 100 : null;

/**
 * The metric columns at a price and a session volume, from a symbol's bases; `gap` is the forming bar's during a
 * live session ({@link gapOf} its open and the previous close), the bases' otherwise.
 */
export function metricsAt(
  bases: MetricBases,
  price: number,
  volume: number,
  gap: number | null = bases.gap,
): ScreenerMetrics {
  const perf = (period: PerfPeriod) => percent(price, bases.perfBase[period]);
  const vsSma = (period: PriceSmaPeriod) => percent(price, bases.sma[period]);
  const { eps, previousEps, dividend } = bases;
  return {
    volume,
    relvolume: bases.averageVolume !== null && bases.averageVolume > 0 ? volume / bases.averageVolume : null,
    gap,
    perf_1W: perf('1W'),
    perf_1M: perf('1M'),
    perf_3M: perf('3M'),
    perf_6M: perf('6M'),
    perf_YTD: perf('YTD'),
    perf_1Y: perf('1Y'),
    high52: percent(price, bases.high52),
    low52: percent(price, bases.low52),
    price_vs_sma_20: vsSma(PRICE_SMA_PERIODS[0]),
    price_vs_sma_50: vsSma(PRICE_SMA_PERIODS[1]),
    price_vs_sma_200: vsSma(PRICE_SMA_PERIODS[2]),
    pe: eps !== null && eps > 0 && price > 0 ? price / eps : null,
    eps_growth: eps !== null && previousEps !== null && previousEps > 0 ? (eps / previousEps - 1) * 100 : null,
    div_yield: dividend !== null && price > 0 ? (dividend / price) * 100 : null,
    beta: bases.beta,
    atr: bases.atr,
    volatility: bases.volatility,
    sma_cross: bases.smaCross,
  };
}

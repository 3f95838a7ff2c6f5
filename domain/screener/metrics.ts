/**
 * The metric columns of the screener: what each of its numeric clause types (`volume`, `perf`, `pe`, …) reads,
 * with the written definition the README and the API reference show, and the category clause types (`sector`,
 * `industry`). Pure: shared by the query language, the engine that computes the metrics and the UI.
 */

/** The periods of a `perf` clause: 1 week (5 trading days), 1, 3, 6 and 12 months, and the year to date. */
export const PERF_PERIODS = ['1W', '1M', '3M', '6M', 'YTD', '1Y'] as const;

/** A period of a `perf` clause. */
export type PerfPeriod = (typeof PERF_PERIODS)[number];

/** The moving averages a `price_vs_sma` clause measures the price against. */
export const PRICE_SMA_PERIODS = [20, 50, 200] as const;

/** A period of a `price_vs_sma` clause. */
export type PriceSmaPeriod = (typeof PRICE_SMA_PERIODS)[number];

/** Numeric clause types without a parameter. */
export const PLAIN_METRIC_TYPES = [
  'volume',
  'relvolume',
  'changepct',
  'gap',
  'high52',
  'low52',
  'pe',
  'eps_growth',
  'div_yield',
  'beta',
  'atr',
  'volatility',
  'sma_cross',
] as const;

/** A numeric clause type without a parameter. */
export type PlainMetricType = (typeof PLAIN_METRIC_TYPES)[number];

/** Every numeric clause type of the metric columns (`perf` and `price_vs_sma` take a parameter). */
export const METRIC_TYPES = [...PLAIN_METRIC_TYPES, 'perf', 'price_vs_sma'] as const;

/** A numeric clause type of the metric columns. */
export type MetricType = (typeof METRIC_TYPES)[number];

/** The category clause types: compared with `=` (is) or `not_like` (is not). */
export const CATEGORY_TYPES = ['sector', 'industry'] as const;

/** A category clause type. */
export type CategoryType = (typeof CATEGORY_TYPES)[number];

/** The key of a metric column in a screener row (`perf_1M`, `price_vs_sma_50`, `relvolume`, …). */
export type MetricKey = PlainMetricType | `perf_${PerfPeriod}` | `price_vs_sma_${PriceSmaPeriod}`;

/** What a numeric clause type reads: a label, its unit, whether it can be negative, and its written definition. */
export interface MetricInfo {
  /** The clause type. */
  readonly type: MetricType;
  /** The label the builder and the grid show. */
  readonly label: string;
  /** `%`, `x` (a ratio), `$` (dollars), `shares` or `days` (trading days). */
  readonly unit: '%' | 'x' | '$' | 'shares' | 'days';
  /** Whether the value is never negative (a negative bound is refused). */
  readonly nonNegative: boolean;
  /** How the value is computed. */
  readonly definition: string;
}

/** The definitions of the numeric clause types, in the builder's order. */
export const METRICS: readonly MetricInfo[] = [
  {
    type: 'changepct',
    label: 'Change %',
    unit: '%',
    nonNegative: false,
    definition: "today's change: the latest price against the previous close, in percent",
  },
  {
    type: 'volume',
    label: 'Volume',
    unit: 'shares',
    nonNegative: true,
    definition: "today's volume in shares: the live session's, or the latest bar's before the first tick",
  },
  {
    type: 'relvolume',
    label: 'Relative volume',
    unit: 'x',
    nonNegative: true,
    definition: "today's volume divided by the mean volume of the 20 bars before the latest (a ratio, 1 = usual)",
  },
  {
    type: 'gap',
    label: 'Gap %',
    unit: '%',
    nonNegative: false,
    definition:
      "the latest bar's open against the close of the bar before, in percent; during a live session, the forming bar's open (the price of the day's first trade) against the previous close",
  },
  {
    type: 'perf',
    label: 'Performance %',
    unit: '%',
    nonNegative: false,
    definition:
      'the latest price against a past close, in percent: 1W the close 5 trading days before the latest bar; 1M, 3M, 6M, 1Y the close of the last trading day on or before the same day 1, 3, 6 or 12 months before; YTD the last close of the previous calendar year; unknown when the history does not reach back so far',
  },
  {
    type: 'high52',
    label: 'From 52-week high %',
    unit: '%',
    nonNegative: false,
    definition:
      'the latest price against the highest high of the 252 bars before the latest, in percent (above 0: a new 52-week high)',
  },
  {
    type: 'low52',
    label: 'From 52-week low %',
    unit: '%',
    nonNegative: false,
    definition:
      'the latest price against the lowest low of the 252 bars before the latest, in percent (below 0: a new 52-week low)',
  },
  {
    type: 'price_vs_sma',
    label: 'Price vs SMA %',
    unit: '%',
    nonNegative: false,
    definition: 'the latest price against the simple moving average of 20, 50 or 200 closes, in percent',
  },
  {
    type: 'pe',
    label: 'P/E',
    unit: 'x',
    nonNegative: false,
    definition:
      'the latest price divided by the earnings per share of the latest fiscal year in the fundamentals; unknown when that EPS is not positive',
  },
  {
    type: 'eps_growth',
    label: 'EPS growth %',
    unit: '%',
    nonNegative: false,
    definition:
      'the EPS of the latest fiscal year against the fiscal year before, in percent; unknown when the earlier EPS is not positive',
  },
  {
    type: 'div_yield',
    label: 'Dividend yield %',
    unit: '%',
    nonNegative: true,
    definition:
      "modelled, as the market data holds no dividends: a dividend per share of the sector's typical payout ratio times the latest fiscal year's EPS (none when the EPS is not positive), over the latest price, in percent",
  },
  {
    type: 'beta',
    label: 'Beta',
    unit: 'x',
    nonNegative: false,
    definition:
      "the covariance of the stock's last 252 daily returns with the equal-weight mean return of the universe on the same days, over that mean's variance",
  },
  {
    type: 'atr',
    label: 'ATR 14',
    unit: '$',
    nonNegative: true,
    definition:
      'average true range: the mean of the last 14 true ranges (the largest of high − low, |high − previous close| and |low − previous close|), in dollars',
  },
  {
    type: 'volatility',
    label: 'Volatility %',
    unit: '%',
    nonNegative: true,
    definition: 'the standard deviation (population) of the last 20 daily close-to-close returns, in percent a day',
  },
  {
    type: 'sma_cross',
    label: 'SMA 50/200 cross (days)',
    unit: 'days',
    nonNegative: false,
    definition:
      'trading days since the 50-day SMA crossed the 200-day SMA, signed: k > 0 when the 50-day is above and was last at or below it k bars before the latest (1: crossed on the latest bar, a golden cross), −k when it is below and was last at or above it k bars before (a death cross), 0 when they are equal; unknown without a cross since both are known',
  },
];

/** Every metric column key, in the order of {@link METRICS} (`perf` and `price_vs_sma` one per period). */
export const METRIC_KEYS: readonly MetricKey[] = METRICS.flatMap(({ type }): MetricKey[] => {
  if (type === 'perf') return PERF_PERIODS.map((p): MetricKey => `perf_${p}`);
  if (type === 'price_vs_sma') return PRICE_SMA_PERIODS.map((p): MetricKey => `price_vs_sma_${p}`);
  return [type];
});

const metricByType: ReadonlyMap<string, MetricInfo> = new Map(METRICS.map((m) => [m.type, m]));

/** The definition of a numeric clause type. */
export function metricInfo(type: MetricType): MetricInfo {
  return metricByType.get(type) as MetricInfo;
}

/** The definitions of the category clause types. */
export const CATEGORY_DEFINITIONS: Readonly<Record<CategoryType, string>> = {
  sector: 'the GICS sector of the universe file (data/universe.csv)',
  industry: 'the GICS industry of the universe file, where it names one (compared without regard to case)',
};

/** The definition of a metric column key, as the API reference describes the row field. */
export function metricKeyDefinition(key: MetricKey): string {
  if (key.startsWith('perf_')) return `perf ${key.slice('perf_'.length)}: ${metricInfo('perf').definition}`;
  if (key.startsWith('price_vs_sma_')) {
    return `price vs SMA ${key.slice('price_vs_sma_'.length)}: ${metricInfo('price_vs_sma').definition}`;
  }
  return metricInfo(key as PlainMetricType).definition;
}

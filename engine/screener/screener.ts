/**
 * The screener: runs a validated query of the screener language over the latest row of every stock, the clauses
 * ANDed, and returns the matching rows sorted and cut to the row count. The query is compiled once into one
 * predicate of specialised closures; {@link naiveScreener} is the plain baseline it is measured against.
 */
import { DomainError } from '../../domain/decider.ts';
import { type CapClass } from '../../domain/market/types.ts';
import type { MetricKey } from '../../domain/screener/metrics.ts';
import {
  columnKeyOf,
  isCategoryClause,
  isMetricClause,
  isPatternClause,
  metricKeyOf,
  patternNameOf,
  validateQuery,
  wantsPatternPresent,
  type Clause,
  type ColumnKey,
  type ColumnRef,
  type LabelledClause,
} from '../../domain/screener/query.ts';

import { SCREENER_ROW_COUNT, SORT_FIELDS, type SortField } from '../../domain/screener/query.ts';
import type { ScreenerMetrics } from './metrics.ts';

export { SCREENER_ROW_COUNT, SORT_FIELDS, type SortField };
export type { ScreenerMetrics };

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

/** One row of a screener answer, as the API returns it: its columns and every metric column. */
export interface ScreenerRow extends ScreenerMetrics {
  /** Ticker. */
  readonly symbol: string;
  /** Company name. */
  readonly name: string;
  /** GICS sector. */
  readonly sector: string;
  /** GICS industry, or null where unknown. */
  readonly industry: string | null;
  /** Latest price. */
  readonly close: number;
  /** Change since the previous close, in percent. */
  readonly changepct: number;
  /** Market capitalisation in dollars. */
  readonly marketcap: number;
  /** Cap class. */
  readonly capclass: CapClass;
  /** SMA of 50 days. */
  readonly SMA_50: number | null;
  /** SMA of 200 days. */
  readonly SMA_200: number | null;
  /** RSI of 14 days. */
  readonly rsi_14: number | null;
  /** Names of the patterns on the latest bar. */
  readonly patterns: readonly string[];
}

/** A screener answer: the first `limit` matching rows in order, and how many matched in all. */
export interface ScreenerResult {
  /** The matching rows, sorted, at most `limit`. */
  readonly rows: ScreenerRow[];
  /** How many rows matched before the cut. */
  readonly total: number;
}

/** Sort order of an answer: a column and a direction; missing values (`null`) always come last. */
export interface ScreenerSort {
  /** The column. */
  readonly field: SortField;
  /** Ascending or descending. */
  readonly dir: 'asc' | 'desc';
}

/** Options of a screener run. */
export interface ScreenerOptions {
  /** Most rows returned, a whole number from 0; 50 by default. */
  readonly limit?: number;
  /** Sort order; market cap descending by default, ties by symbol. */
  readonly sort?: ScreenerSort;
}

/** A screener query: validated clauses, labelled or bare. */
export type ScreenerQuery = readonly (LabelledClause | Clause)[];

type Predicate = (row: ScreenerInput) => boolean;
type Getter = (row: ScreenerInput) => number | null;

const DEFAULT_SORT: ScreenerSort = { field: 'marketcap', dir: 'desc' };

function getterOf(key: ColumnKey): Getter {
  switch (key) {
    case 'close':
      return (row) => row.close;
    case 'SMA_20':
      return (row) => row.indicators.SMA_20;
    case 'SMA_50':
      return (row) => row.indicators.SMA_50;
    case 'SMA_100':
      return (row) => row.indicators.SMA_100;
    case 'SMA_200':
      return (row) => row.indicators.SMA_200;
    case 'rsi_14':
      return (row) => row.indicators.rsi_14;
  }
}

function compareWith(get: Getter, op: '>' | '<', val: number | ColumnRef): Predicate {
  if (typeof val === 'number') {
    return op === '>'
      ? (row) => {
          const value = get(row);
          return value !== null && value > val;
        }
      : (row) => {
          const value = get(row);
          return value !== null && value < val;
        };
  }
  const other = getterOf(columnKeyOf(val));
  return op === '>'
    ? (row) => {
        const value = get(row);
        const bound = other(row);
        return value !== null && bound !== null && value > bound;
      }
    : (row) => {
        const value = get(row);
        const bound = other(row);
        return value !== null && bound !== null && value < bound;
      };
}

function between(get: Getter, [low, high]: readonly [number, number]): Predicate {
  return (row) => {
    const value = get(row);
    return value !== null && value >= low && value <= high;
  };
}

function metricGetter(key: MetricKey): Getter {
  if (key === 'changepct') return (row) => row.changepct;
  return (row) => row.metrics[key];
}

function compileClause(clause: Clause): Predicate {
  if (isCategoryClause(clause)) {
    const wanted = clause.val.toLowerCase();
    const is: Predicate =
      clause.type === 'sector'
        ? (row) => row.sector === clause.val
        : (row) => row.industry !== null && row.industry.toLowerCase() === wanted;
    return clause.op === '=' ? is : (row) => !is(row);
  }
  if (isMetricClause(clause)) {
    const get = metricGetter(metricKeyOf(clause));
    return clause.op === 'bet' ? between(get, clause.val) : compareWith(get, clause.op, clause.val);
  }
  if (isPatternClause(clause)) {
    const name = patternNameOf(clause.type);
    const present: Predicate = name === 'bullish' ? (row) => row.bullishPatterns : (row) => row.patterns.includes(name);
    return wantsPatternPresent(clause) ? present : (row) => !present(row);
  }
  if (clause.type === 'mcap') {
    const get: Getter = (row) => row.marketcap;
    switch (clause.op) {
      case 'like': {
        const capclass = clause.val;
        return (row) => row.capclass === capclass;
      }
      case 'not_like': {
        const capclass = clause.val;
        return (row) => row.capclass !== capclass;
      }
      case 'bet':
        return between(get, clause.val);
      default:
        return compareWith(get, clause.op, clause.val);
    }
  }
  const get = getterOf(columnKeyOf(clause));
  return clause.op === 'bet' ? between(get, clause.val) : compareWith(get, clause.op, clause.val);
}

/** Rows of a universe sampled to estimate how many rows each clause lets through. */
const SELECTIVITY_SAMPLE = 64;

/**
 * Orders predicates by the share of sampled rows each lets through, fewest first (the order of the query on a
 * tie), so that a row fails on its first clause as often as the sample says it can.
 */
function bySelectivity(predicates: Predicate[], rows: readonly ScreenerInput[]): Predicate[] {
  if (predicates.length < 2 || rows.length === 0) return predicates;
  const step = Math.max(1, Math.floor(rows.length / SELECTIVITY_SAMPLE));
  const passes = predicates.map((predicate, index) => {
    let count = 0;
    for (let i = 0; i < rows.length; i += step) if (predicate(rows[i] as ScreenerInput)) count += 1;
    return { predicate, index, count };
  });
  passes.sort((a, b) => a.count - b.count || a.index - b.index);
  return passes.map((p) => p.predicate);
}

/**
 * Compiles a validated query once into one predicate: every clause must hold (an empty query matches all); given
 * the rows it will run over, the clauses are tried most selective first.
 */
export function compileQuery(
  query: ScreenerQuery,
  rows: readonly ScreenerInput[] = [],
): (row: ScreenerInput) => boolean {
  const predicates = bySelectivity(
    query.map((item) => compileClause('query' in item ? item.query : item)),
    rows,
  );
  const count = predicates.length;
  if (count === 0) return () => true;
  if (count === 1) return predicates[0] as Predicate;
  return (row) => {
    for (let i = 0; i < count; i += 1) if (!(predicates[i] as Predicate)(row)) return false;
    return true;
  };
}

const CAP_RANK: Readonly<Record<CapClass, number>> = { small: 0, mid: 1, large: 2 };

function sortKeyOf(field: SortField): (row: ScreenerInput) => number | string | null {
  switch (field) {
    case 'symbol':
    case 'name':
    case 'sector':
    case 'industry':
    case 'close':
    case 'changepct':
    case 'marketcap':
      return (row) => row[field];
    case 'capclass':
      return (row) => CAP_RANK[row.capclass];
    case 'SMA_50':
    case 'SMA_200':
    case 'rsi_14':
      return (row) => row.indicators[field];
    default:
      return (row) => row.metrics[field];
  }
}

function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Orders rows by a column (missing values last whatever the direction), ties by symbol ascending. */
function comparatorOf(sort: ScreenerSort): (a: ScreenerInput, b: ScreenerInput) => number {
  const key = sortKeyOf(sort.field);
  const sign = sort.dir === 'asc' ? 1 : -1;
  return (a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null || Number.isNaN(x) || Number.isNaN(y)) {
      const xMissing = x === null || Number.isNaN(x);
      const yMissing = y === null || Number.isNaN(y);
      if (xMissing !== yMissing) return xMissing ? 1 : -1;
    } else {
      const order = compareKeys(x, y);
      if (order !== 0) return sign * order;
    }
    return compareKeys(a.symbol, b.symbol);
  };
}

function checkOptions(options: ScreenerOptions): { limit: number; sort: ScreenerSort } {
  const limit = options.limit ?? SCREENER_ROW_COUNT;
  if (!Number.isInteger(limit) || limit < 0) {
    throw new DomainError('invalid_limit', `limit must be a whole number from 0, got ${String(limit)}`, 'limit');
  }
  const sort = options.sort ?? DEFAULT_SORT;
  if (!(SORT_FIELDS as readonly string[]).includes(sort.field)) {
    throw new DomainError(
      'invalid_sort',
      `sort.field must be one of ${SORT_FIELDS.join(', ')}, got ${JSON.stringify(sort.field)}`,
      'sort.field',
    );
  }
  if (sort.dir !== 'asc' && sort.dir !== 'desc') {
    throw new DomainError('invalid_sort', `sort.dir must be asc or desc, got ${JSON.stringify(sort.dir)}`, 'sort.dir');
  }
  return { limit, sort };
}

function toRow(row: ScreenerInput): ScreenerRow {
  return {
    symbol: row.symbol,
    name: row.name,
    sector: row.sector,
    industry: row.industry,
    close: row.close,
    changepct: row.changepct,
    marketcap: row.marketcap,
    capclass: row.capclass,
    SMA_50: row.indicators.SMA_50,
    SMA_200: row.indicators.SMA_200,
    rsi_14: row.indicators.rsi_14,
    patterns: row.patterns,
    ...row.metrics,
  };
}

/**
 * Runs a validated query over the stocks' rows: the rows where every clause holds (a comparison with a missing
 * indicator never holds; `>`/`<` are strict, `bet` inclusive), sorted (market cap descending by default), the
 * first `limit` of them, with the total count.
 */
export function runScreener(
  rows: readonly ScreenerInput[],
  query: ScreenerQuery,
  options: ScreenerOptions = {},
): ScreenerResult {
  const { limit, sort } = checkOptions(options);
  const matches = compileQuery(query, rows);
  const matched = rows.filter(matches);
  matched.sort(comparatorOf(sort));
  return { rows: matched.slice(0, limit).map(toRow), total: matched.length };
}

/** Reads a column of a row by its key, the generic way. */
function lookUp(row: ScreenerInput, key: string): unknown {
  if (key in row.metrics) return (row.metrics as unknown as Record<string, unknown>)[key];
  if (key in row.indicators) return (row.indicators as unknown as Record<string, unknown>)[key];
  return (row as unknown as Record<string, unknown>)[key];
}

function naiveHolds(row: ScreenerInput, clause: Clause): boolean {
  if (isCategoryClause(clause)) {
    const value = lookUp(row, clause.type);
    const is = typeof value === 'string' && value.toLowerCase() === clause.val.toLowerCase();
    return clause.op === '=' ? is : !is;
  }
  if (isPatternClause(clause)) {
    const name = patternNameOf(clause.type);
    const present = name === 'bullish' ? row.bullishPatterns : row.patterns.includes(name);
    return wantsPatternPresent(clause) ? present : !present;
  }
  if (clause.type === 'mcap' && (clause.op === 'like' || clause.op === 'not_like')) {
    return (lookUp(row, 'capclass') === clause.val) === (clause.op === 'like');
  }
  const key = clause.type === 'mcap' ? 'marketcap' : isMetricClause(clause) ? metricKeyOf(clause) : columnKeyOf(clause);
  const value = lookUp(row, key);
  if (typeof value !== 'number') return false;
  if (clause.op === 'bet') {
    const [low, high] = clause.val;
    return value >= low && value <= high;
  }
  const bound = typeof clause.val === 'number' ? clause.val : lookUp(row, columnKeyOf(clause.val as ColumnRef));
  if (typeof bound !== 'number') return false;
  return clause.op === '>' ? value > bound : value < bound;
}

/**
 * The baseline screener for benchmarks: the same answer as {@link runScreener}, but it validates the raw query
 * again for every row and reads every column by a generic key lookup.
 */
export function naiveScreener(
  rows: readonly ScreenerInput[],
  query: unknown,
  options: ScreenerOptions = {},
): ScreenerResult {
  const { limit, sort } = checkOptions(options);
  const matched = rows.filter((row) =>
    validateQuery(query, { allowEmpty: true }).every((item) => naiveHolds(row, item.query)),
  );
  const key = (row: ScreenerInput): unknown =>
    sort.field === 'capclass' ? CAP_RANK[row.capclass] : lookUp(row, sort.field);
  matched.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const xMissing = typeof x !== 'string' && (typeof x !== 'number' || Number.isNaN(x));
    const yMissing = typeof y !== 'string' && (typeof y !== 'number' || Number.isNaN(y));
    if (xMissing || yMissing) {
      if (xMissing !== yMissing) return xMissing ? 1 : -1;
    } else {
      const order = compareKeys(x, y);
      if (order !== 0) return sort.dir === 'asc' ? order : -order;
    }
    return compareKeys(a.symbol, b.symbol);
  });
  return { rows: matched.slice(0, limit).map(toRow), total: matched.length };
}

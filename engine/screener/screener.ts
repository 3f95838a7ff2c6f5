/**
 * The screener: runs a validated query of the screener language over the latest row of every stock, the clauses
 * ANDed, and returns the matching rows sorted and cut to the row count. A run scans the universe's columns of
 * typed arrays (`table.ts`, built once per rows array), clause by clause, the most selective first;
 * {@link compileQuery} is the same query as a predicate of one row; {@link naiveScreener} is the plain baseline
 * both are measured against.
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
import type { ScreenerIndicators, ScreenerInput } from './input.ts';
import type { ScreenerMetrics } from './metrics.ts';
import { matchingIndices, sortedIndices, tableOf } from './table.ts';

export type { ScreenerIndicators, ScreenerInput } from './input.ts';

export { SCREENER_ROW_COUNT, SORT_FIELDS, type SortField };
export type { ScreenerMetrics };

/** One row of a screener answer, as the API returns it: the stock's columns, its main indicators, every metric. */
export interface ScreenerRow
  extends
    ScreenerMetrics,
    Pick<
      ScreenerInput,
      'symbol' | 'name' | 'sector' | 'industry' | 'close' | 'changepct' | 'marketcap' | 'capclass' | 'patterns'
    >,
    Pick<ScreenerIndicators, 'SMA_50' | 'SMA_200' | 'rsi_14'> {}

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

/**
 * Compiles a validated query once into one predicate over a single row: every clause must hold (an empty query
 * matches all). A run over a universe scans its columns instead (`table.ts`).
 */
export function compileQuery(query: ScreenerQuery): (row: ScreenerInput) => boolean {
  const predicates = query.map((item) => compileClause('query' in item ? item.query : item));
  const count = predicates.length;
  if (count === 0) return () => true;
  if (count === 1) return predicates[0] as Predicate;
  return (row) => {
    for (let i = 0; i < count; i += 1) if (!(predicates[i] as Predicate)(row)) return false;
    return true;
  };
}

const CAP_RANK: Readonly<Record<CapClass, number>> = { small: 0, mid: 1, large: 2 };

function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
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

const answerRows = new WeakMap<ScreenerInput, ScreenerRow>();

/** The answer row of a stock's row, made once per row (rows are replaced, not changed, when quotes move). */
function answerRowOf(row: ScreenerInput): ScreenerRow {
  let answer = answerRows.get(row);
  if (answer === undefined) {
    answer = toRow(row);
    answerRows.set(row, answer);
  }
  return answer;
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
  const table = tableOf(rows);
  const matched = matchingIndices(
    table,
    query.map((item) => ('query' in item ? item.query : item)),
  );
  const page = sortedIndices(table, rows, matched, { ...sort, limit });
  return { rows: Array.from(page, (i) => answerRowOf(rows[i] as ScreenerInput)), total: matched.length };
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

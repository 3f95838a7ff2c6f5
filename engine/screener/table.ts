/**
 * The screener's rows in columns: one typed array per number (NaN where unknown), codes for the sector, industry
 * and cap class, and a bit mask of the latest bar's patterns. Built once per rows array (the market makes a new
 * one when quotes move), so that a run only scans typed arrays; a query runs clause by clause over the indices
 * still matching, the clauses that let fewest rows through first.
 */
import type { CapClass } from '../../domain/market/types.ts';
import { METRIC_KEYS } from '../../domain/screener/metrics.ts';
import { PATTERN_NAMES } from '../../domain/screener/patterns.ts';
import {
  ANY_BULLISH_PATTERN,
  columnKeyOf,
  isCategoryClause,
  isMetricClause,
  isPatternClause,
  metricKeyOf,
  patternNameOf,
  wantsPatternPresent,
  type Clause,
} from '../../domain/screener/query.ts';
import type { ScreenerInput } from './input.ts';

/** The number columns of a table: the price, the market cap, the indicators and every metric. */
const NUMBER_KEYS = ['close', 'marketcap', 'SMA_20', 'SMA_50', 'SMA_100', 'SMA_200', 'rsi_14', ...METRIC_KEYS] as const;

type NumberKey = (typeof NUMBER_KEYS)[number];

const CAP_CODES: Readonly<Record<CapClass, number>> = { small: 0, mid: 1, large: 2 };

/** The bit of "any bullish pattern" in the pattern mask, after one bit per known pattern. */
const BULLISH_BIT = 1 << PATTERN_NAMES.length;

const PATTERN_BITS: ReadonlyMap<string, number> = new Map(PATTERN_NAMES.map((name, i) => [name, 1 << i]));

/** A universe of screener rows in columns. */
export interface ScreenerTable {
  /** Rows, in the order of the columns. */
  readonly size: number;
  /** Number columns by key, NaN where unknown. */
  readonly numbers: Readonly<Record<NumberKey, Float64Array>>;
  /** Sector code per row, and the code of each sector. */
  readonly sector: Int32Array;
  readonly sectorCodes: ReadonlyMap<string, number>;
  /** Industry code per row (−1 where unknown), and the code of each industry in lower case. */
  readonly industry: Int32Array;
  readonly industryCodes: ReadonlyMap<string, number>;
  /** Cap class code per row. */
  readonly capclass: Int8Array;
  /** Pattern bits per row: one per known pattern, and {@link BULLISH_BIT}. */
  readonly patterns: Uint32Array;
  /** Sort keys of the text columns and the cap class (ranks), made on first use. */
  readonly sortKeys: Map<string, Float64Array>;
}

function numberOf(row: ScreenerInput, key: NumberKey): number | null {
  switch (key) {
    case 'close':
    case 'marketcap':
    case 'changepct':
      return row[key];
    case 'SMA_20':
    case 'SMA_50':
    case 'SMA_100':
    case 'SMA_200':
    case 'rsi_14':
      return row.indicators[key];
    default:
      return row.metrics[key];
  }
}

function codeOf(codes: Map<string, number>, text: string): number {
  let code = codes.get(text);
  if (code === undefined) {
    code = codes.size;
    codes.set(text, code);
  }
  return code;
}

/** Lays rows out in columns. */
/** Ranks of texts in code-unit order (equal texts the same rank), NaN for a missing one. */
function ranksOf(texts: readonly (string | null)[]): Float64Array {
  const order = [...new Set(texts.filter((t): t is string => t !== null))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rank = new Map(order.map((text, i) => [text, i]));
  return Float64Array.from(texts, (t) => (t === null ? Number.NaN : (rank.get(t) as number)));
}

/** The numeric sort key of a column: its numbers, the cap class code, or the rank of its texts. */
function sortKeyOf(table: ScreenerTable, rows: readonly ScreenerInput[], field: string): Float64Array {
  if (field in table.numbers) return table.numbers[field as NumberKey];
  let key = table.sortKeys.get(field);
  if (key === undefined) {
    key =
      field === 'capclass'
        ? Float64Array.from(table.capclass)
        : ranksOf(rows.map((row) => row[field as 'symbol' | 'name' | 'sector' | 'industry']));
    table.sortKeys.set(field, key);
  }
  return key;
}

/**
 * The first `limit` matching indices ordered by a column (missing values last in either direction), ties by
 * symbol ascending: a full sort when all are wanted, else one pass keeping the best `limit` in order.
 */
export function sortedIndices(
  table: ScreenerTable,
  rows: readonly ScreenerInput[],
  indices: Uint32Array,
  order: { readonly field: string; readonly dir: 'asc' | 'desc'; readonly limit: number },
): Uint32Array {
  const key = sortKeyOf(table, rows, order.field);
  const symbol = sortKeyOf(table, rows, 'symbol');
  const sign = order.dir === 'asc' ? 1 : -1;
  const compare = (a: number, b: number): number => {
    const x = key[a] as number;
    const y = key[b] as number;
    const xMissing = Number.isNaN(x);
    const yMissing = Number.isNaN(y);
    if (xMissing || yMissing) {
      if (xMissing !== yMissing) return xMissing ? 1 : -1;
    } else if (x !== y) return x < y ? -sign : sign;
    return (symbol[a] as number) - (symbol[b] as number);
  };
  const limit = Math.min(order.limit, indices.length);
  if (limit === indices.length) return indices.slice().sort(compare);
  const best = new Uint32Array(limit);
  let size = 0;
  for (let k = 0; k < indices.length; k += 1) {
    const i = indices[k] as number;
    if (size === limit && compare(i, best[size - 1] as number) >= 0) continue;
    let lo = 0;
    let hi = size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid] as number, i) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.copyWithin(lo + 1, lo, size === limit ? limit - 1 : size);
    best[lo] = i;
    if (size < limit) size += 1;
  }
  return best;
}

export function buildTable(rows: readonly ScreenerInput[]): ScreenerTable {
  const size = rows.length;
  const numbers = Object.fromEntries(
    NUMBER_KEYS.map((key) => {
      const column = new Float64Array(size);
      for (let i = 0; i < size; i += 1) column[i] = numberOf(rows[i] as ScreenerInput, key) ?? Number.NaN;
      return [key, column];
    }),
  ) as Record<NumberKey, Float64Array>;
  const sectorCodes = new Map<string, number>();
  const industryCodes = new Map<string, number>();
  const sector = new Int32Array(size);
  const industry = new Int32Array(size);
  const capclass = new Int8Array(size);
  const patterns = new Uint32Array(size);
  rows.forEach((row, i) => {
    sector[i] = codeOf(sectorCodes, row.sector);
    industry[i] = row.industry === null ? -1 : codeOf(industryCodes, row.industry.toLowerCase());
    capclass[i] = CAP_CODES[row.capclass];
    let mask = row.bullishPatterns ? BULLISH_BIT : 0;
    for (const name of row.patterns) mask |= PATTERN_BITS.get(name) ?? 0;
    patterns[i] = mask;
  });
  return { size, numbers, sector, sectorCodes, industry, industryCodes, capclass, patterns, sortKeys: new Map() };
}

const tables = new WeakMap<readonly ScreenerInput[], ScreenerTable>();

/** The table of a rows array, built on its first run and kept while the array lives. */
export function tableOf(rows: readonly ScreenerInput[]): ScreenerTable {
  let table = tables.get(rows);
  if (table === undefined) {
    table = buildTable(rows);
    tables.set(rows, table);
  }
  return table;
}

/** A clause over a table: keeps, in place, the first `n` indices whose row it holds for; answers how many. */
type Filter = (indices: Uint32Array, n: number) => number;

function keepWhere(test: (i: number) => boolean): Filter {
  return (indices, n) => {
    let kept = 0;
    for (let k = 0; k < n; k += 1) {
      const i = indices[k] as number;
      if (test(i)) indices[kept++] = i;
    }
    return kept;
  };
}

/** `column > bound` (or `<`), a NaN on either side never holding. */
function compare(column: Float64Array, op: '>' | '<', bound: number | Float64Array): Filter {
  if (typeof bound === 'number') {
    return op === '>'
      ? (indices, n) => {
          let kept = 0;
          for (let k = 0; k < n; k += 1) {
            const i = indices[k] as number;
            if ((column[i] as number) > bound) indices[kept++] = i;
          }
          return kept;
        }
      : (indices, n) => {
          let kept = 0;
          for (let k = 0; k < n; k += 1) {
            const i = indices[k] as number;
            if ((column[i] as number) < bound) indices[kept++] = i;
          }
          return kept;
        };
  }
  return op === '>'
    ? keepWhere((i) => (column[i] as number) > (bound[i] as number))
    : keepWhere((i) => (column[i] as number) < (bound[i] as number));
}

function within(column: Float64Array, [low, high]: readonly [number, number]): Filter {
  return (indices, n) => {
    let kept = 0;
    for (let k = 0; k < n; k += 1) {
      const i = indices[k] as number;
      const v = column[i] as number;
      if (v >= low && v <= high) indices[kept++] = i;
    }
    return kept;
  };
}

function codeIs(codes: Int32Array | Int8Array, code: number, equal: boolean): Filter {
  return equal ? keepWhere((i) => codes[i] === code) : keepWhere((i) => codes[i] !== code);
}

/** Compiles one validated clause into a filter over a table. */
function filterOf(clause: Clause, table: ScreenerTable): Filter {
  const { numbers } = table;
  if (isCategoryClause(clause)) {
    const equal = clause.op === '=';
    if (clause.type === 'sector') return codeIs(table.sector, table.sectorCodes.get(clause.val) ?? -2, equal);
    return codeIs(table.industry, table.industryCodes.get(clause.val.toLowerCase()) ?? -2, equal);
  }
  if (isPatternClause(clause)) {
    const name = patternNameOf(clause.type);
    const bit = name === ANY_BULLISH_PATTERN ? BULLISH_BIT : (PATTERN_BITS.get(name) ?? 0);
    const mask = table.patterns;
    return wantsPatternPresent(clause)
      ? keepWhere((i) => ((mask[i] as number) & bit) !== 0)
      : keepWhere((i) => ((mask[i] as number) & bit) === 0);
  }
  if (isMetricClause(clause)) {
    const column = numbers[metricKeyOf(clause)];
    return clause.op === 'bet' ? within(column, clause.val) : compare(column, clause.op, clause.val);
  }
  if (clause.type === 'mcap') {
    switch (clause.op) {
      case 'like':
      case 'not_like':
        return codeIs(table.capclass, CAP_CODES[clause.val], clause.op === 'like');
      case 'bet':
        return within(numbers.marketcap, clause.val);
      default:
        return compare(numbers.marketcap, clause.op, clause.val);
    }
  }
  const column = numbers[columnKeyOf(clause)];
  if (clause.op === 'bet') return within(column, clause.val);
  const bound = typeof clause.val === 'number' ? clause.val : numbers[columnKeyOf(clause.val)];
  return compare(column, clause.op, bound);
}

/** Rows sampled per clause to estimate its selectivity. */
const SAMPLE = 64;

/** Orders filters by how many sampled rows each keeps, fewest first (the query's order on a tie). */
function bySelectivity(filters: Filter[], size: number): Filter[] {
  if (filters.length < 2 || size === 0) return filters;
  const step = Math.max(1, Math.floor(size / SAMPLE));
  const sample = new Uint32Array(Math.ceil(size / step));
  for (let k = 0; k < sample.length; k += 1) sample[k] = k * step;
  const scratch = new Uint32Array(sample.length);
  return filters
    .map((filter, index) => {
      scratch.set(sample);
      return { filter, index, kept: filter(scratch, sample.length) };
    })
    .sort((a, b) => a.kept - b.kept || a.index - b.index)
    .map((f) => f.filter);
}

/** The indices of the rows where every clause holds, ascending (all of them for no clause). */
export function matchingIndices(table: ScreenerTable, clauses: readonly Clause[]): Uint32Array {
  const indices = new Uint32Array(table.size);
  for (let i = 0; i < table.size; i += 1) indices[i] = i;
  let n = table.size;
  for (const filter of bySelectivity(
    clauses.map((clause) => filterOf(clause, table)),
    table.size,
  )) {
    if (n === 0) break;
    n = filter(indices, n);
  }
  return indices.subarray(0, n);
}

/**
 * The screener query language: a list of labelled clauses `{type, param, op, val}`, ANDed, each comparing one
 * column of a stock (market cap, close, a moving average, the RSI, a candlestick pattern on the latest bar) with
 * a number, a range or another column. Pure: shared by the screener engine, the saved-queries decider and the UI.
 */
import { DomainError } from '../decider.ts';
import { formatNumber } from '../format.ts';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../text.ts';
import { SECTORS, type CapClass, type Sector } from '../market/types.ts';
import {
  CATEGORY_TYPES,
  METRIC_KEYS,
  METRIC_TYPES,
  PERF_PERIODS,
  PRICE_SMA_PERIODS,
  metricInfo,
  type CategoryType,
  type MetricKey,
  type MetricType,
  type PerfPeriod,
  type PlainMetricType,
  type PriceSmaPeriod,
} from './metrics.ts';
import { PATTERNS, PATTERN_NAMES, isPatternName, patternInfo, type PatternName } from './patterns.ts';

/** Periods of the simple moving averages the screener knows (`SMA_20` … `SMA_200`). */
export const SMA_PERIODS = [20, 50, 100, 200] as const;

/** A simple-moving-average period the screener knows. */
export type SmaPeriod = (typeof SMA_PERIODS)[number];

/** The RSI period the screener knows, and the default `param` of an `rsi` clause. */
export const RSI_PERIOD = 14;

/** The RSI period the screener knows. */
export type RsiPeriod = typeof RSI_PERIOD;

/** The market-cap classes a `mcap` clause may name. */
export const CAP_CLASSES: readonly CapClass[] = ['large', 'mid', 'small'];

/** The pseudo-pattern name that stands for "any bullish pattern" (type `pattern_bullish_`). */
export const ANY_BULLISH_PATTERN = 'bullish';

/** The clause type meaning "any bullish pattern on the latest bar". */
export const ANY_BULLISH_PATTERN_TYPE = `pattern_${ANY_BULLISH_PATTERN}_` as const;

/** Most clauses one query may hold. */
export const MAX_CLAUSES = 20;

/** Longest clause label, in characters. */
export const MAX_LABEL_LENGTH = 100;

/** A reference to another column of the same stock, used as a clause's `val` (e.g. `{ref: 'SMA', param: 50}`). */
export type ColumnRef =
  | { readonly ref: 'close' }
  | { readonly ref: 'SMA'; readonly param: SmaPeriod }
  | { readonly ref: 'rsi'; readonly param: RsiPeriod };

/** An inclusive range `[low, high]` with `low <= high`, the `val` of a `bet` clause. */
export type NumberRange = readonly [number, number];

/** The column a price or oscillator clause reads: the close, an SMA of a period, or the RSI. */
export type ColumnSelector =
  | { readonly type: 'close' }
  | { readonly type: 'SMA'; readonly param: SmaPeriod }
  | { readonly type: 'rsi'; readonly param: RsiPeriod };

/** How a clause compares its column: strictly above or below a number or another column, or within a range. */
export type Comparison =
  { readonly op: '>' | '<'; readonly val: number | ColumnRef } | { readonly op: 'bet'; readonly val: NumberRange };

/** A clause on the close, an SMA or the RSI. */
export type ColumnClause = ColumnSelector & Comparison;

/** A clause on market capitalisation: a number of dollars, a range of dollars, or a cap class (`like`/`not_like`). */
export type McapClause = { readonly type: 'mcap' } & (
  | { readonly op: '>' | '<'; readonly val: number }
  | { readonly op: 'bet'; readonly val: NumberRange }
  | { readonly op: 'like' | 'not_like'; readonly val: CapClass }
);

/** The type of a pattern clause: a known pattern's `pattern_<name>_`, or `pattern_bullish_` for any bullish one. */
export type PatternClauseType = `pattern_${PatternName}_` | typeof ANY_BULLISH_PATTERN_TYPE;

/**
 * A clause on the patterns of the latest bar: `like` = present, `not_like` = absent, and `>` with `val` 0 =
 * present (kept for clients that spell presence as a count above zero).
 */
export type PatternClause = { readonly type: PatternClauseType } & (
  { readonly op: 'like' | 'not_like'; readonly val: null } | { readonly op: '>'; readonly val: 0 }
);

/** How a metric clause compares its column: strictly above or below a number, or within a range. */
export type NumberComparison =
  { readonly op: '>' | '<'; readonly val: number } | { readonly op: 'bet'; readonly val: NumberRange };

/** The column a metric clause reads: a plain metric, `perf` of a period, or `price_vs_sma` of a period. */
export type MetricSelector =
  | { readonly type: PlainMetricType }
  | { readonly type: 'perf'; readonly param: PerfPeriod }
  | { readonly type: 'price_vs_sma'; readonly param: PriceSmaPeriod };

/** A clause on a metric column (`volume`, `perf` 1M, `pe`, …): a number or a range, see `metrics.ts`. */
export type MetricClause = MetricSelector & NumberComparison;

/** A clause on a category: the sector or the industry is (`=`) or is not (`not_like`) the value. */
export type CategoryClause =
  | { readonly type: 'sector'; readonly op: '=' | 'not_like'; readonly val: Sector }
  | { readonly type: 'industry'; readonly op: '=' | 'not_like'; readonly val: string };

/** One validated condition of a screener query. */
export type Clause = McapClause | ColumnClause | PatternClause | MetricClause | CategoryClause;

/** A clause with the label the user sees (and removes it by). */
export interface LabelledClause {
  /** The label, 1–100 characters; labels need not be unique. */
  readonly label: string;
  /** The condition. */
  readonly query: Clause;
}

/** The key of a screener column in a stock's row: `close`, `SMA_<period>` or `rsi_14`. */
export type ColumnKey = 'close' | `SMA_${SmaPeriod}` | `rsi_${RsiPeriod}`;

/** Options of {@link validateQuery}. */
export interface ValidateQueryOptions {
  /** Whether an empty list is accepted (it matches every stock); refused by default. */
  readonly allowEmpty?: boolean;
}

/** The row key of the column a selector or reference names. */
export function columnKeyOf(column: ColumnSelector | ColumnRef): ColumnKey {
  const type = 'type' in column ? column.type : column.ref;
  if (type === 'close') return 'close';
  if (type === 'SMA') return `SMA_${(column as { param: SmaPeriod }).param}`;
  return `rsi_${RSI_PERIOD}`;
}

/** Whether a clause is on a metric column (`volume`, `perf`, `pe`, …). */
export function isMetricClause(clause: Clause): clause is MetricClause {
  return (METRIC_TYPES as readonly string[]).includes(clause.type);
}

/** Whether a clause is on a category (`sector`, `industry`). */
export function isCategoryClause(clause: Clause): clause is CategoryClause {
  return (CATEGORY_TYPES as readonly string[]).includes(clause.type);
}

/** The row key of the metric column a metric clause reads (`perf_1M`, `price_vs_sma_50`, `pe`, …). */
export function metricKeyOf(clause: MetricSelector): MetricKey {
  if (clause.type === 'perf') return `perf_${clause.param}`;
  if (clause.type === 'price_vs_sma') return `price_vs_sma_${clause.param}`;
  return clause.type;
}

/** Whether a clause is a pattern clause (`pattern_<name>_` or `pattern_bullish_`). */
export function isPatternClause(clause: Clause): clause is PatternClause {
  return clause.type.startsWith('pattern_');
}

/** The pattern name of a pattern clause type: a known pattern's name, or `bullish` for any bullish pattern. */
export function patternNameOf(type: PatternClauseType): PatternName | typeof ANY_BULLISH_PATTERN {
  return type.slice('pattern_'.length, -1) as PatternName | typeof ANY_BULLISH_PATTERN;
}

/** Whether a pattern clause asks for the pattern to be present (`like`, or `>` 0) rather than absent. */
export function wantsPatternPresent(clause: PatternClause): boolean {
  return clause.op !== 'not_like';
}

const COLUMN_TYPES = ['close', 'SMA', 'rsi'] as const;
const COLUMN_OPS = ['>', '<', 'bet'] as const;
const MCAP_OPS = ['>', '<', 'bet', 'like', 'not_like'] as const;
const PATTERN_OPS = ['like', 'not_like', '>'] as const;
const CATEGORY_OPS = ['=', 'not_like'] as const;
const CLAUSE_TYPES_TEXT = `mcap, close, SMA, rsi, ${[...METRIC_TYPES, ...CATEGORY_TYPES].join(', ')} or pattern_<name>_`;

/** Where a clause sits, for messages (`query[2] (label "RSI low")`) and field paths (`query[2].query`). */
interface Place {
  readonly where: string;
  readonly path: string;
}

function refuse(place: Place, key: string, message: string): never {
  throw new DomainError('invalid_query', `${place.where}: ${message}`, key ? `${place.path}.${key}` : place.path);
}

/**
 * A value as a refusal shows what was sent: JSON, cut at 40 characters; a number too large for a double (`1e400`)
 * as the `Infinity` it was read as, and a number sent as text says so (`"14" (text, not a number)`).
 */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (too large a number)`;
  const text = JSON.stringify(value) ?? typeof value;
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  const numeric = typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
  return numeric ? `${shown} (text, not a number)` : shown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function oneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function parseSmaPeriod(value: unknown, place: Place, key: string, of: string): SmaPeriod {
  if (finite(value) && (SMA_PERIODS as readonly number[]).includes(value)) return value as SmaPeriod;
  return refuse(place, key, `param must be one of ${SMA_PERIODS.join(', ')} for ${of}, got ${show(value)}`);
}

function parseRsiPeriod(value: unknown, place: Place, key: string, of: string): RsiPeriod {
  if (isBlank(value) || value === RSI_PERIOD) return RSI_PERIOD;
  return refuse(place, key, `param must be ${RSI_PERIOD} for ${of} (the only RSI period computed), got ${show(value)}`);
}

function parseRef(value: Record<string, unknown>, place: Place): ColumnRef {
  const { ref, param } = value;
  if (ref === 'close') {
    if (!isBlank(param)) refuse(place, 'val.param', `val {ref: "close"} takes no param, got ${show(param)}`);
    return { ref: 'close' };
  }
  if (ref === 'SMA') return { ref: 'SMA', param: parseSmaPeriod(param, place, 'val.param', 'a reference to SMA') };
  if (ref === 'rsi') return { ref: 'rsi', param: parseRsiPeriod(param, place, 'val.param', 'a reference to rsi') };
  return refuse(place, 'val.ref', `val.ref must be one of ${COLUMN_TYPES.join(', ')}, got ${show(ref)}`);
}

function parseRange(val: unknown, place: Place, type: string, check: (n: number) => string | null): NumberRange {
  if (!Array.isArray(val) || val.length !== 2 || !finite(val[0]) || !finite(val[1])) {
    return refuse(place, 'val', `val must be a range [low, high] of two numbers for bet on ${type}, got ${show(val)}`);
  }
  const [low, high] = val as [number, number];
  if (low > high) refuse(place, 'val', `val [${low}, ${high}] must have low <= high for bet on ${type}`);
  for (const n of [low, high]) {
    const problem = check(n);
    if (problem !== null) refuse(place, 'val', problem);
  }
  return [low, high];
}

function parseMcap(op: unknown, val: unknown, place: Place): McapClause {
  if (!oneOf(MCAP_OPS, op)) refuse(place, 'op', `op must be one of ${MCAP_OPS.join(', ')} for mcap, got ${show(op)}`);
  const dollars = (n: number): string | null =>
    n >= 0 ? null : `val must be a number of dollars at or above 0 for mcap, got ${n}`;
  switch (op) {
    case 'like':
    case 'not_like':
      if (!oneOf(CAP_CLASSES, val)) {
        refuse(place, 'val', `val must be one of ${CAP_CLASSES.join(', ')} for mcap with ${op}, got ${show(val)}`);
      }
      return { type: 'mcap', op, val };
    case 'bet':
      return { type: 'mcap', op, val: parseRange(val, place, 'mcap', dollars) };
    default: {
      if (!finite(val)) {
        const hint = oneOf(CAP_CLASSES, val) ? ' (a cap class takes like or not_like)' : '';
        return refuse(place, 'val', `val must be a number of dollars for mcap with ${op}, got ${show(val)}${hint}`);
      }
      const problem = dollars(val);
      if (problem !== null) refuse(place, 'val', problem);
      return { type: 'mcap', op, val };
    }
  }
}

function parseColumnSelector(type: (typeof COLUMN_TYPES)[number], param: unknown, place: Place): ColumnSelector {
  switch (type) {
    case 'close':
      if (!isBlank(param)) refuse(place, 'param', `param is not used by close; leave it out, got ${show(param)}`);
      return { type };
    case 'SMA':
      return { type, param: parseSmaPeriod(param, place, 'param', 'SMA') };
    case 'rsi':
      return { type, param: parseRsiPeriod(param, place, 'param', 'rsi') };
  }
}

/** Whether a column holds a price (close, SMA) rather than an oscillator value (RSI 0–100). */
function isPriceColumn(type: ColumnSelector['type']): boolean {
  return type !== 'rsi';
}

function parseColumnClause(
  type: (typeof COLUMN_TYPES)[number],
  param: unknown,
  op: unknown,
  val: unknown,
  place: Place,
): ColumnClause {
  const selector = parseColumnSelector(type, param, place);
  if (!oneOf(COLUMN_OPS, op))
    refuse(place, 'op', `op must be one of ${COLUMN_OPS.join(', ')} for ${type}, got ${show(op)}`);
  const inRange = (n: number): string | null => {
    if (type === 'rsi') return n >= 0 && n <= 100 ? null : `val must be between 0 and 100 for rsi, got ${n}`;
    return n >= 0 ? null : `val must be a price at or above 0 for ${type}, got ${n}`;
  };
  if (op === 'bet') return { ...selector, op, val: parseRange(val, place, type, inRange) };
  if (finite(val)) {
    const problem = inRange(val);
    if (problem !== null) refuse(place, 'val', problem);
    return { ...selector, op, val };
  }
  if (!isRecord(val)) {
    return refuse(
      place,
      'val',
      `val must be a number or a column reference {ref, param} for ${type}, got ${show(val)}`,
    );
  }
  const ref = parseRef(val, place);
  if (columnKeyOf(ref) === columnKeyOf(selector)) refuse(place, 'val', `val refers to the clause's own column ${type}`);
  if (isPriceColumn(ref.ref) !== isPriceColumn(type)) {
    refuse(place, 'val', `val {ref: "${ref.ref}"} cannot be compared with ${type}: one is a price, the other the RSI`);
  }
  return { ...selector, op, val: ref };
}

function parsePatternClause(
  type: PatternClauseType,
  param: unknown,
  op: unknown,
  val: unknown,
  place: Place,
): PatternClause {
  if (!isBlank(param)) refuse(place, 'param', `param is not used by ${type}; leave it out, got ${show(param)}`);
  if (!oneOf(PATTERN_OPS, op)) {
    refuse(place, 'op', `op must be one of ${PATTERN_OPS.join(', ')} for ${type}, got ${show(op)}`);
  }
  if (op === '>') {
    if (val !== 0) refuse(place, 'val', `val must be 0 for ${type} with > (pattern present), got ${show(val)}`);
    return { type, op, val: 0 };
  }
  return { type, op, val: null };
}

function parsePatternType(type: string, place: Place): PatternClauseType | null {
  const match = /^pattern_(.+)_$/.exec(type);
  if (match === null) return null;
  const name = match[1] ?? '';
  if (name === ANY_BULLISH_PATTERN || isPatternName(name)) return type as PatternClauseType;
  return refuse(
    place,
    'type',
    `type ${show(type)} names no known pattern; known: ${[ANY_BULLISH_PATTERN, ...PATTERN_NAMES].join(', ')}`,
  );
}

function parseMetricSelector(type: MetricType, param: unknown, place: Place): MetricSelector {
  if (type === 'perf') {
    if (oneOf(PERF_PERIODS, param)) return { type, param };
    return refuse(place, 'param', `param must be one of ${PERF_PERIODS.join(', ')} for perf, got ${show(param)}`);
  }
  if (type === 'price_vs_sma') {
    if (finite(param) && (PRICE_SMA_PERIODS as readonly number[]).includes(param)) {
      return { type, param: param as PriceSmaPeriod };
    }
    return refuse(
      place,
      'param',
      `param must be one of ${PRICE_SMA_PERIODS.join(', ')} for price_vs_sma, got ${show(param)}`,
    );
  }
  if (!isBlank(param)) refuse(place, 'param', `param is not used by ${type}; leave it out, got ${show(param)}`);
  return { type };
}

function parseMetricClause(type: MetricType, param: unknown, op: unknown, val: unknown, place: Place): MetricClause {
  const selector = parseMetricSelector(type, param, place);
  if (!oneOf(COLUMN_OPS, op)) {
    refuse(place, 'op', `op must be one of ${COLUMN_OPS.join(', ')} for ${type}, got ${show(op)}`);
  }
  const { nonNegative, unit } = metricInfo(type);
  const inRange = (n: number): string | null =>
    !nonNegative || n >= 0 ? null : `val must be at or above 0 for ${type} (${unit}), got ${n}`;
  if (op === 'bet') return { ...selector, op, val: parseRange(val, place, type, inRange) };
  if (!finite(val)) return refuse(place, 'val', `val must be a number for ${type} with ${op}, got ${show(val)}`);
  const problem = inRange(val);
  if (problem !== null) refuse(place, 'val', problem);
  return { ...selector, op, val };
}

function parseCategoryClause(type: CategoryType, param: unknown, op: unknown, val: unknown, place: Place): Clause {
  if (!isBlank(param)) refuse(place, 'param', `param is not used by ${type}; leave it out, got ${show(param)}`);
  if (!oneOf(CATEGORY_OPS, op)) {
    refuse(place, 'op', `op must be one of ${CATEGORY_OPS.join(', ')} for ${type}, got ${show(op)}`);
  }
  if (type === 'sector') {
    if (!oneOf(SECTORS, val))
      refuse(place, 'val', `val must be one of the sectors ${SECTORS.join(', ')}, got ${show(val)}`);
    return { type, op, val };
  }
  const text = typeof val === 'string' ? val.trim() : '';
  if (text.length === 0 || text.length > MAX_LABEL_LENGTH) {
    refuse(place, 'val', `val must be an industry name of 1 to ${MAX_LABEL_LENGTH} characters, got ${show(val)}`);
  }
  if (!isPlainText(text)) refuse(place, 'val', `val ${PLAIN_TEXT_MESSAGE}`);
  return { type, op, val: text };
}

function parseClauseAt(input: unknown, place: Place): Clause {
  if (!isRecord(input)) return refuse(place, '', `must be a clause {type, param, op, val}, got ${show(input)}`);
  const { type, param, op, val } = input;
  if (typeof type !== 'string') return refuse(place, 'type', `type must be a text, got ${show(type)}`);
  if (type === 'mcap') {
    if (!isBlank(param)) refuse(place, 'param', `param is not used by mcap; leave it out, got ${show(param)}`);
    return parseMcap(op, val, place);
  }
  if (oneOf(COLUMN_TYPES, type)) return parseColumnClause(type, param, op, val, place);
  if (oneOf(METRIC_TYPES, type)) return parseMetricClause(type, param, op, val, place);
  if (oneOf(CATEGORY_TYPES, type)) return parseCategoryClause(type, param, op, val, place);
  const patternType = parsePatternType(type, place);
  if (patternType !== null) return parsePatternClause(patternType, param, op, val, place);
  return refuse(place, 'type', `type must be one of ${CLAUSE_TYPES_TEXT}, got ${show(type)}`);
}

/**
 * Checks one bare clause `{type, param, op, val}` and returns it normalised (`rsi` gets `param` 14, a pattern
 * clause's `val` is `null` for `like`/`not_like`, other keys dropped); a refusal is a {@link DomainError}
 * `invalid_query` whose message starts with `where`.
 */
export function validateClause(input: unknown, where = 'clause'): Clause {
  return parseClauseAt(input, { where, path: where });
}

function describeColumn(column: ColumnSelector | ColumnRef): string {
  const type = 'type' in column ? column.type : column.ref;
  if (type === 'close') return 'Close';
  if (type === 'SMA') return `SMA(${(column as { param: SmaPeriod }).param})`;
  return `RSI(${RSI_PERIOD})`;
}

/**
 * A short label for a clause in the words its columns are shown with, e.g. `Close < SMA(50)`,
 * `RSI(14) between 30 and 70`, `Market cap is large`, `Performance 1M > 5%`, `Sector is Energy`.
 */
export function describeClause(clause: Clause): string {
  if (isCategoryClause(clause)) {
    return `${clause.type === 'sector' ? 'Sector' : 'Industry'} ${clause.op === '=' ? 'is' : 'is not'} ${clause.val}`;
  }
  if (isMetricClause(clause)) {
    const info = metricInfo(clause.type);
    // The column's words without its unit, which follows the number: `Price vs SMA 50 > 5%`.
    const words = info.label.replace(/ %$/, '');
    const name = 'param' in clause ? `${words} ${clause.param}` : words;
    const unit = info.unit === '%' ? '%' : '';
    const number = (n: number): string => (info.unit === 'shares' ? formatNumber(n) : String(n));
    if (clause.op === 'bet')
      return `${name} between ${number(clause.val[0])}${unit} and ${number(clause.val[1])}${unit}`;
    return `${name} ${clause.op} ${number(clause.val)}${unit}`;
  }
  if (isPatternClause(clause)) {
    const name = patternNameOf(clause.type);
    const what = name === ANY_BULLISH_PATTERN ? 'Any bullish pattern' : (patternInfo(name)?.label ?? name);
    return `${what} ${wantsPatternPresent(clause) ? 'present' : 'absent'}`;
  }
  if (clause.type === 'mcap') {
    switch (clause.op) {
      case 'like':
        return `Market cap is ${clause.val}`;
      case 'not_like':
        return `Market cap is not ${clause.val}`;
      case 'bet':
        return `Market cap between ${formatNumber(clause.val[0])} and ${formatNumber(clause.val[1])}`;
      default:
        return `Market cap ${clause.op} ${formatNumber(clause.val)}`;
    }
  }
  const column = describeColumn(clause);
  if (clause.op === 'bet') return `${column} between ${clause.val[0]} and ${clause.val[1]}`;
  const val = clause.val;
  return `${column} ${clause.op} ${typeof val === 'number' ? String(val) : describeColumn(val)}`;
}

/**
 * The label a clause gets when none is given: its description, cut to {@link MAX_LABEL_LENGTH} with `…` (an
 * industry's long name), so the query it labels can be sent again as it was answered.
 */
export function clauseLabel(clause: Clause): string {
  const text = describeClause(clause);
  return text.length <= MAX_LABEL_LENGTH ? text : `${text.slice(0, MAX_LABEL_LENGTH - 1)}…`;
}

function parseLabel(label: unknown, place: Place): string {
  const text = typeof label === 'string' ? label.trim() : '';
  if (text.length === 0 || text.length > MAX_LABEL_LENGTH) {
    refuse(place, 'label', `label must be a text of 1 to ${MAX_LABEL_LENGTH} characters, got ${show(label)}`);
  }
  if (!isPlainText(text)) refuse(place, 'label', `label ${PLAIN_TEXT_MESSAGE}`);
  return text;
}

/**
 * Checks a screener query: a list of labelled clauses `{label, query: {type, param, op, val}}` (a bare clause,
 * or one without a label, gets its {@link describeClause} text as label), at most {@link MAX_CLAUSES}, and returns it normalised; a
 * refusal is a {@link DomainError} (`invalid_query`, `empty`, `limit`) whose message names the clause by index
 * and label, e.g. `query[2] (label "RSI low"): op must be one of >, <, bet for rsi, got "like"`.
 */
export function validateQuery(input: unknown, options: ValidateQueryOptions = {}): LabelledClause[] {
  if (!Array.isArray(input)) {
    throw new DomainError('invalid_query', `query must be a list of clauses, got ${show(input)}`, 'query');
  }
  if (input.length === 0 && options.allowEmpty !== true) {
    throw new DomainError('empty', 'query must hold at least one clause', 'query');
  }
  if (input.length > MAX_CLAUSES) {
    throw new DomainError('limit', `query holds ${input.length} clauses; at most ${MAX_CLAUSES}`, 'query');
  }
  return input.map((item: unknown, index): LabelledClause => {
    const at = `query[${index}]`;
    if (!isRecord(item)) {
      return refuse(
        { where: at, path: at },
        '',
        `must be a labelled clause {label, query} or a clause {type, param, op, val}, got ${show(item)}`,
      );
    }
    if (!('label' in item) && !('query' in item)) {
      const clause = parseClauseAt(item, { where: at, path: at });
      return { label: clauseLabel(clause), query: clause };
    }
    if (item['label'] === undefined) {
      const clause = parseClauseAt(item['query'], { where: at, path: `${at}.query` });
      return { label: clauseLabel(clause), query: clause };
    }
    const label = parseLabel(item['label'], { where: at, path: at });
    const clause = parseClauseAt(item['query'], {
      where: `${at} (label ${JSON.stringify(label)})`,
      path: `${at}.query`,
    });
    return { label, query: clause };
  });
}

/** A preset search: a name and its query. */
export interface ScreenerPreset {
  /** The name the quick-fill shows. */
  readonly name: string;
  /** The query, as a user could type it. */
  readonly query: readonly LabelledClause[];
}

/** The six preset searches of the product spec, as queries of this language. */
export const SPEC_PRESETS: readonly ScreenerPreset[] = [
  {
    name: 'Bullish Patterns',
    query: [
      {
        label: 'Any bullish pattern on the latest bar',
        query: { type: ANY_BULLISH_PATTERN_TYPE, op: 'like', val: null },
      },
    ],
  },
  {
    name: 'Close below 50-day average',
    query: [{ label: 'Close below 50-day average', query: { type: 'close', op: '<', val: { ref: 'SMA', param: 50 } } }],
  },
  {
    name: '200-day average above 50-day average',
    query: [
      {
        label: '200-day average above 50-day average',
        query: { type: 'SMA', param: 200, op: '>', val: { ref: 'SMA', param: 50 } },
      },
    ],
  },
  {
    name: '200-day average above close',
    query: [
      { label: '200-day average above close', query: { type: 'SMA', param: 200, op: '>', val: { ref: 'close' } } },
    ],
  },
  {
    name: '14-day RSI below 30',
    query: [{ label: '14-day RSI below 30', query: { type: 'rsi', param: RSI_PERIOD, op: '<', val: 30 } }],
  },
  {
    name: '14-day RSI above 80',
    query: [{ label: '14-day RSI above 80', query: { type: 'rsi', param: RSI_PERIOD, op: '>', val: 80 } }],
  },
];

/** One preset of a single clause, labelled like its name. */
function single(name: string, query: Clause): ScreenerPreset {
  return { name, query: [{ label: name, query }] };
}

/**
 * The signals: one-click searches beside the spec's six, each a query of this language (thresholds on the
 * metrics of `metrics.ts`), then one per candlestick pattern on the latest bar.
 */
export const SIGNAL_PRESETS: readonly ScreenerPreset[] = [
  single('Top Gainers', { type: 'changepct', op: '>', val: 3 }),
  single('Top Losers', { type: 'changepct', op: '<', val: -3 }),
  single('New High', { type: 'high52', op: '>', val: 0 }),
  single('New Low', { type: 'low52', op: '<', val: 0 }),
  single('Most Volatile', { type: 'volatility', op: '>', val: 3 }),
  single('Most Active', { type: 'volume', op: '>', val: 20_000_000 }),
  single('Unusual Volume', { type: 'relvolume', op: '>', val: 2 }),
  single('Overbought', { type: 'rsi', param: RSI_PERIOD, op: '>', val: 70 }),
  single('Oversold', { type: 'rsi', param: RSI_PERIOD, op: '<', val: 30 }),
  single('Golden Cross', { type: 'sma_cross', op: 'bet', val: [1, 5] }),
  single('Death Cross', { type: 'sma_cross', op: 'bet', val: [-5, -1] }),
  ...PATTERNS.map((p) => single(p.label, { type: `pattern_${p.name}_`, op: 'like', val: null })),
];

/** Every preset search: the spec's six, then the signals. */
export const SCREENER_PRESETS: readonly ScreenerPreset[] = [...SPEC_PRESETS, ...SIGNAL_PRESETS];

/** Rows a screener answer holds unless told otherwise (the spec's screener row count). */
export const SCREENER_ROW_COUNT = 50;

const BASE_SORT_FIELDS = [
  'symbol',
  'name',
  'sector',
  'close',
  'changepct',
  'marketcap',
  'capclass',
  'SMA_50',
  'SMA_200',
  'rsi_14',
] as const;

/** A column an answer can be sorted by. */
export type SortField = (typeof BASE_SORT_FIELDS)[number] | 'industry' | MetricKey;

/** The columns an answer can be sorted by. */
export const SORT_FIELDS = [
  ...BASE_SORT_FIELDS,
  'industry',
  ...METRIC_KEYS.filter((key) => key !== 'changepct'),
] as unknown as readonly [SortField, ...SortField[]];

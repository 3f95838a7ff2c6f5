/**
 * Pure logic of the screener page: building a clause from the builder's fields, the query list (add one, add
 * several, remove by label), the quick-fill options, the click-context list of the screener state, live quotes
 * folded into the result rows (close, change and market cap), and the columns a query reads.
 */
import {
  CATEGORY_TYPES,
  METRIC_KEYS,
  METRIC_TYPES,
  type CategoryType,
  type MetricKey,
  type MetricType,
} from '../../../domain/screener/metrics.ts';
import {
  ANY_BULLISH_PATTERN,
  MAX_CLAUSES,
  MAX_LABEL_LENGTH,
  columnKeyOf,
  clauseLabel,
  isCategoryClause,
  isMetricClause,
  isPatternClause,
  metricKeyOf,
  SORT_FIELDS,
  validateClause,
  type Clause,
  type LabelledClause,
  type SortField,
} from '../../../domain/screener/query.ts';
import type { QueryAnswer } from '../../../domain/contract/queries.ts';
import { DomainError } from '../../../domain/decider.ts';
import { queryNameKey } from '../../../domain/queries/queries.ts';
import type { Preset, ScreenerResult, ScreenerSort } from '../../../domain/contract/screener.ts';
import { capClassOf, marketCapOf, type Quote } from '../../../domain/market/types.ts';
import { formatPrice, withoutGrouping } from '../../../domain/format.ts';

/** Rows a run answers by default (spec section 9: screener row count). */
export const DEFAULT_ROW_COUNT = 50;

/** Row counts the user may choose. */
export const ROW_COUNTS: readonly number[] = [25, 50, 100, 200];

/** Shortest time between two re-runs of the query while pushes arrive with the stream on, in ms. */
export const STREAM_RERUN_MS = 5000;

/** Colour of saved queries in the quick-fill list (spec section 4). */
export const SAVED_QUERY_COLOR = '#FFFFFF';

/** Colour of presets in the quick-fill list (readable on its dark background). */
export const PRESET_COLOR = '#9ec5ff';

/** Most intraday points kept for the chart of the clicked row. */
export const MAX_CHART_POINTS = 600;

/** A price or average for display: 2 decimals and thousands separators, never in millions. */
export { formatPrice };

export type { Preset, ScreenerResult };

/** A saved query as `GET /personalize/stockalertquery` answers it. */
export type SavedQuery = QueryAnswer;

/** One row of `POST /api/screener/run`. */
export type ScreenerRow = ScreenerResult['rows'][number];

/** A result row as the grid shows it: the last price move flashes (`flashSeq` restarts the animation). */
export interface ResultRow extends ScreenerRow {
  readonly flash: 'up' | 'down' | null;
  readonly flashSeq: number;
}

/** The clause types the builder offers: the language's, with `pattern` for any `pattern_<name>_`. */
export type DraftType = 'mcap' | 'close' | 'SMA' | 'rsi' | 'pattern' | MetricType | CategoryType;

/** Whether a draft type is a metric clause type (`volume`, `perf`, …). */
export function isMetricType(type: DraftType): type is MetricType {
  return (METRIC_TYPES as readonly string[]).includes(type);
}

/** Whether a draft type is a category clause type (`sector`, `industry`). */
export function isCategoryType(type: DraftType): type is CategoryType {
  return (CATEGORY_TYPES as readonly string[]).includes(type);
}

/** The parameter a type starts with when picked in the builder (`50` for averages, `1M` for performance). */
export function defaultParamOf(type: DraftType): string {
  return type === 'perf' ? '1M' : '50';
}

/** What the clause builder holds: the texts of its fields. */
export interface ClauseDraft {
  /** The clause type (`pattern` for any pattern). */
  readonly type: DraftType;
  /** The SMA period (`20`…`200`), or the period of `perf` (`1W`…`1Y`) or `price_vs_sma` (`20`, `50`, `200`). */
  readonly param: string;
  /** `>`, `<`, `bet`, `like`, `not_like` or `=`. */
  readonly op: string;
  /** The number (or the low end of a range; `10B`, `500M` accepted), or the sector or industry of a category. */
  readonly value: string;
  /** The high end of a range. */
  readonly value2: string;
  /** `''` to compare with a number, else the column compared with: `close`, `SMA:50`, … */
  readonly ref: string;
  /** The cap class of `mcap` with `like`/`not_like`. */
  readonly capClass: string;
  /** The pattern name (`bullish` for any bullish pattern). */
  readonly pattern: string;
  /** The label; empty for the clause's own description. */
  readonly label: string;
}

/** The builder's starting fields. */
export const EMPTY_DRAFT: ClauseDraft = {
  type: 'rsi',
  param: '50',
  op: '<',
  value: '',
  value2: '',
  ref: '',
  capClass: 'large',
  pattern: ANY_BULLISH_PATTERN,
  label: '',
};

/** The operators a clause type takes, with the words the builder shows. */
export function operatorsOf(type: ClauseDraft['type']): readonly { op: string; text: string }[] {
  if (isCategoryType(type)) {
    return [
      { op: '=', text: '= is' },
      { op: 'not_like', text: 'is not' },
    ];
  }
  if (type === 'pattern') {
    return [
      { op: 'like', text: 'present' },
      { op: 'not_like', text: 'absent' },
    ];
  }
  const base = [
    { op: '>', text: '> above' },
    { op: '<', text: '< below' },
    { op: 'bet', text: 'between' },
  ];
  if (type === 'mcap') {
    return [...base, { op: 'like', text: 'is (class)' }, { op: 'not_like', text: 'is not (class)' }];
  }
  return base;
}

/** The columns a close, SMA or RSI clause may be compared with (never its own column). */
export function referencesOf(type: ClauseDraft['type'], param: string): readonly { ref: string; text: string }[] {
  if (type !== 'close' && type !== 'SMA') return [];
  const all = [
    { ref: 'close', text: 'Close' },
    { ref: 'SMA:20', text: 'SMA 20' },
    { ref: 'SMA:50', text: 'SMA 50' },
    { ref: 'SMA:100', text: 'SMA 100' },
    { ref: 'SMA:200', text: 'SMA 200' },
  ];
  const own = type === 'close' ? 'close' : `SMA:${param}`;
  return all.filter((option) => option.ref !== own);
}

/**
 * A number typed by the user: plain decimals, with `K`, `M`, `B` or `T` for thousands to trillions (`10B`), and
 * commas grouping thousands (`1,250`); blank gives `undefined` and anything else the text itself (a decimal comma,
 * `0,5`, included), so the validator's message shows what was typed.
 */
export function parseAmount(text: string): number | string | undefined {
  const trimmed = withoutGrouping(text);
  if (trimmed.length === 0) return undefined;
  const match = /^(-?\d+(?:\.\d+)?)\s*([kmbt])?$/i.exec(trimmed);
  if (!match) return trimmed;
  const scale = { k: 1e3, m: 1e6, b: 1e9, t: 1e12 }[(match[2] ?? '').toLowerCase() as 'k' | 'm' | 'b' | 't'] ?? 1;
  return Number(match[1]) * scale;
}

function refOf(ref: string): Record<string, unknown> {
  if (ref === 'close') return { ref: 'close' };
  const [kind, param] = ref.split(':');
  return param === undefined ? { ref: kind } : { ref: kind, param: Number(param) };
}

/** The raw clause `{type, param, op, val}` the builder's fields spell, before validation. */
export function draftToClause(draft: ClauseDraft): Record<string, unknown> {
  if (draft.type === 'pattern') return { type: `pattern_${draft.pattern}_`, op: draft.op, val: null };
  if (isCategoryType(draft.type)) return { type: draft.type, op: draft.op, val: draft.value };
  if (isMetricType(draft.type)) {
    const param = draft.type === 'perf' ? draft.param : draft.type === 'price_vs_sma' ? Number(draft.param) : undefined;
    const base: Record<string, unknown> = param === undefined ? { type: draft.type } : { type: draft.type, param };
    if (draft.op === 'bet') return { ...base, op: 'bet', val: [parseAmount(draft.value), parseAmount(draft.value2)] };
    return { ...base, op: draft.op, val: parseAmount(draft.value) };
  }
  const param = draft.type === 'SMA' ? Number(draft.param) : draft.type === 'rsi' ? 14 : undefined;
  const base: Record<string, unknown> = param === undefined ? { type: draft.type } : { type: draft.type, param };
  if (draft.op === 'bet') return { ...base, op: 'bet', val: [parseAmount(draft.value), parseAmount(draft.value2)] };
  if (draft.type === 'mcap' && (draft.op === 'like' || draft.op === 'not_like')) {
    return { ...base, op: draft.op, val: draft.capClass };
  }
  if (draft.ref !== '' && (draft.type === 'close' || draft.type === 'SMA')) {
    return { ...base, op: draft.op, val: refOf(draft.ref) };
  }
  return { ...base, op: draft.op, val: parseAmount(draft.value) };
}

/** The outcome of checking a clause: the labelled clause, or the message saying which field is wrong. */
export type ClauseCheck =
  { readonly ok: true; readonly clause: LabelledClause } | { readonly ok: false; readonly error: string };

/** The clause types whose value is a number (or a range of two): the price columns, RSI, market cap, metrics. */
function takesNumber(type: string): boolean {
  return type === 'mcap' || type === 'close' || type === 'SMA' || type === 'rsi' || isMetricType(type as DraftType);
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * The builder's own refusal of a value that is not a number where the clause takes one (`abc`, `1e999`, nothing
 * typed), named by its field (`Value`, or `From` and `To` of a range); null when its values are numbers or the
 * clause takes none there (a pattern, a sector, a cap class, another column compared with).
 */
export function valueProblem(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const { type, op, val } = raw as Record<string, unknown>;
  if (typeof type !== 'string' || !takesNumber(type)) return null;
  if (type === 'mcap' && (op === 'like' || op === 'not_like')) return null;
  if (op === 'bet') {
    // Anything but a pair is not the builder's: the language says what a range is.
    if (!Array.isArray(val) || val.length !== 2) return null;
    if (!isNumber(val[0])) return 'From: enter a number';
    return isNumber(val[1]) ? null : 'To: enter a number';
  }
  if (typeof val === 'object' && val !== null) return null;
  return isNumber(val) ? null : 'Value: enter a number';
}

/** Whether the screener language takes a clause. */
function valid(raw: unknown): boolean {
  try {
    validateClause(raw, 'clause');
    return true;
  } catch {
    return false;
  }
}

/**
 * The language's refusal of a clause's value (`clause: val must be between 0 and 100 for rsi, got 150`) in the
 * builder's words, by the control that holds it: `Value: must be between …`, `From` or `To` of a range, the
 * column compared with, or the cap class.
 */
function valueRefusal(raw: Record<string, unknown>, message: string): string {
  const reason = message.replace(/^clause: val (?:\[[^\]]*\] )?/, '');
  if (raw.op === 'like' || raw.op === 'not_like') return `Cap class: ${reason}`;
  if (typeof raw.val === 'object' && raw.val !== null && !Array.isArray(raw.val)) return `Compare with: ${reason}`;
  if (raw.op !== 'bet' || !Array.isArray(raw.val) || raw.val.length !== 2) return `Value: ${reason}`;
  const [low, high] = raw.val as [unknown, unknown];
  if (typeof low === 'number' && typeof high === 'number' && low > high) return 'To: must not be below From';
  return `${valid({ ...raw, val: [low, low] }) ? 'To' : 'From'}: ${reason}`;
}

/**
 * Checks a raw clause and labels it: a value that is not a number where one is expected is refused in the
 * builder's words ({@link valueProblem}), and so is a number the screener language refuses (out of its range);
 * the rest with the language's own words (a clause the builder did not make).
 */
export function checkClause(raw: unknown, label = ''): ClauseCheck {
  const problem = valueProblem(raw);
  if (problem !== null) return { ok: false, error: problem };
  try {
    const clause = validateClause(raw, 'clause');
    const text = label.trim();
    if (text.length > MAX_LABEL_LENGTH) {
      return { ok: false, error: `Label: must be at most ${MAX_LABEL_LENGTH} characters` };
    }
    return { ok: true, clause: { label: text.length > 0 ? text : clauseLabel(clause), query: clause } };
  } catch (error) {
    if (error instanceof DomainError && error.field === 'clause.val') {
      const fields = raw as Record<string, unknown>;
      if (takesNumber(String(fields.type))) return { ok: false, error: valueRefusal(fields, error.message) };
    }
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function sameClause(a: Clause, b: Clause): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Adds one clause: the same condition already present is not added twice, and a label already used by another
 * condition gets a number (`RSI low (2)`) so that removing by label removes only what the user means.
 */
export function addClause(list: readonly LabelledClause[], clause: LabelledClause): readonly LabelledClause[] {
  if (list.some((item) => sameClause(item.query, clause.query))) return list;
  let label = clause.label;
  for (let n = 2; list.some((item) => item.label === label); n += 1) label = `${clause.label} (${n})`;
  return [...list, { label, query: clause.query }];
}

/** Adds several clauses in order, each as {@link addClause} does. */
export function addClauses(
  list: readonly LabelledClause[],
  clauses: readonly LabelledClause[],
): readonly LabelledClause[] {
  return clauses.reduce<readonly LabelledClause[]>((acc, clause) => addClause(acc, clause), list);
}

/** Removes the clauses of a label. */
export function removeByLabel(list: readonly LabelledClause[], label: string): readonly LabelledClause[] {
  return list.filter((item) => item.label !== label);
}

/** Why a list of clauses cannot take more, or null. */
export function clauseLimitError(list: readonly LabelledClause[], adding: number): string | null {
  return list.length + adding > MAX_CLAUSES ? `query: at most ${MAX_CLAUSES} clauses` : null;
}

/** One entry of the quick-fill list. */
export interface QuickFillOption {
  readonly kind: 'preset' | 'saved';
  /** The preset's name or the saved query's id. */
  readonly key: string;
  readonly name: string;
  readonly query: readonly LabelledClause[];
  /** The colour of its text: {@link SAVED_QUERY_COLOR} for saved queries. */
  readonly color: string;
}

/** The quick-fill options matching a text (every word, any case, in the name or a clause label): presets first. */
export function quickFillOptions(
  presets: readonly Preset[],
  saved: readonly SavedQuery[],
  text: string,
): readonly QuickFillOption[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (name: string, query: readonly LabelledClause[]) => {
    const haystack = [name, ...query.map((c) => c.label)].join(' ').toLowerCase();
    return words.every((word) => haystack.includes(word));
  };
  return [
    ...presets
      .filter((p) => matches(p.name, p.query))
      .map((p) => ({ kind: 'preset' as const, key: p.name, name: p.name, query: p.query, color: PRESET_COLOR })),
    ...saved
      .filter((s) => matches(s.queryname, s.query))
      .map((s) => ({ kind: 'saved' as const, key: s.id, name: s.queryname, query: s.query, color: SAVED_QUERY_COLOR })),
  ];
}

/** The industries of the universe's companies, each once, in alphabetical order. */
export function industriesOf(companies: readonly { readonly industry: string }[]): string[] {
  const names = new Set(companies.map((c) => c.industry.trim()).filter((name) => name !== ''));
  return [...names].sort((a, b) => a.localeCompare(b, 'en'));
}

/**
 * The saved query a save under `name` replaces: the one of that name, case and surrounding spaces aside (as the
 * server compares them); none for a blank name (the server names the query after its clauses).
 */
export function savedNamed(list: readonly SavedQuery[], name: string): SavedQuery | undefined {
  const key = queryNameKey(name);
  return key === '' ? undefined : list.find((s) => queryNameKey(s.queryname) === key);
}

/**
 * The saved query loaded into the form (named `loaded`) that a save under another name, one no saved query has,
 * leaves as it is: the save makes a new query beside it (there is no renaming). Undefined otherwise.
 */
export function keptBeside(list: readonly SavedQuery[], loaded: string, name: string): SavedQuery | undefined {
  const original = savedNamed(list, loaded);
  if (original === undefined || queryNameKey(name) === '' || savedNamed(list, name) !== undefined) return undefined;
  return original;
}

/** What a save under `name` says, `saved` being the list before it: which query it replaced, if any. */
export function savedText(saved: readonly SavedQuery[], name: string): string {
  const replaced = savedNamed(saved, name);
  if (replaced === undefined) return `Saved "${name}"`;
  return replaced.queryname === name
    ? `Saved "${name}" over its earlier version`
    : `Saved "${name}", replacing "${replaced.queryname}"`;
}

/** Puts a saved query in the list, replacing the one of the same id or the same name (any case). */
export function upsertSaved(list: readonly SavedQuery[], query: SavedQuery): readonly SavedQuery[] {
  const key = queryNameKey(query.queryname);
  const at = list.findIndex((s) => s.id === query.id || queryNameKey(s.queryname) === key);
  if (at < 0) return [...list, query];
  return list.map((s, i) => (i === at ? query : s)).filter((s, i) => i === at || s.id !== query.id);
}

/** An entry of the click-context list: the INTRA_DAY entry, a clicked row or a selected row. */
export interface ContextEntry {
  /** `INTRA_DAY`, or the row's symbol. */
  readonly id: string;
  readonly kind: 'INTRA_DAY' | 'clicked' | 'selected';
  /** The row's symbol; null for the INTRA_DAY entry. */
  readonly symbol: string | null;
}

/** The id of the click-context list's first entry. */
export const INTRA_DAY = 'INTRA_DAY';

/** The click-context list a screener starts with: one INTRA_DAY entry. */
export const INITIAL_CONTEXT: readonly ContextEntry[] = [{ id: INTRA_DAY, kind: 'INTRA_DAY', symbol: null }];

/** A clicked row moves to the front of the list, replacing an entry with the same id. */
export function withClicked(list: readonly ContextEntry[], symbol: string): readonly ContextEntry[] {
  return [{ id: symbol, kind: 'clicked', symbol }, ...list.filter((e) => e.id !== symbol)];
}

/** A selected row goes to the end of the list, replacing an entry with the same id. */
export function withSelected(list: readonly ContextEntry[], symbol: string): readonly ContextEntry[] {
  return [...list.filter((e) => e.id !== symbol), { id: symbol, kind: 'selected', symbol }];
}

/** A row unselected leaves the list (the INTRA_DAY entry stays). */
export function withoutEntry(list: readonly ContextEntry[], id: string): readonly ContextEntry[] {
  return id === INTRA_DAY ? list : list.filter((e) => e.id !== id);
}

/**
 * The figures of a row at a price: the close, and the market cap of its shares at that price ({@link marketCapOf},
 * as the server computes it) with the cap class of that cap.
 */
function atPrice(row: ScreenerRow, price: number): Pick<ScreenerRow, 'close' | 'marketcap' | 'capclass'> {
  const marketcap = marketCapOf(row.shares, price);
  return { close: price, marketcap, capclass: capClassOf(marketcap) };
}

/** Result rows of a run with nothing flashing, and the latest streamed quote of each symbol laid over. */
export function resultRows(
  rows: readonly ScreenerRow[],
  quotes: Readonly<Record<string, Quote>>,
): readonly ResultRow[] {
  return rows.map((row) => {
    const quote = quotes[row.symbol];
    const live = quote ? { ...atPrice(row, quote.price), changepct: quote.changepct } : {};
    return { ...row, ...live, flash: null, flashSeq: 0 };
  });
}

/**
 * Folds quotes into the rows: close, change % and market cap (shares × the price) in place, a flash up or down
 * when the price moved.
 */
export function applyQuotes(rows: readonly ResultRow[], quotes: readonly Quote[]): readonly ResultRow[] {
  if (quotes.length === 0) return rows;
  const latest = new Map(quotes.map((q) => [q.symbol, q]));
  let changed = false;
  const next = rows.map((row) => {
    const quote = latest.get(row.symbol);
    if (!quote || (quote.price === row.close && quote.changepct === row.changepct)) return row;
    changed = true;
    const flash = quote.price > row.close ? 'up' : quote.price < row.close ? 'down' : row.flash;
    return {
      ...row,
      ...atPrice(row, quote.price),
      changepct: quote.changepct,
      flash,
      flashSeq: quote.price === row.close ? row.flashSeq : row.flashSeq + 1,
    };
  });
  return changed ? next : rows;
}

/** Whether any quote moves the price of a row it belongs to. */
export function quotesMovePrices(rows: readonly ResultRow[], quotes: readonly Quote[]): boolean {
  const bySymbol = new Map(rows.map((r) => [r.symbol, r.close]));
  return quotes.some((q) => bySymbol.has(q.symbol) && bySymbol.get(q.symbol) !== q.price);
}

/** The keys of the result columns a query reads (`marketcap`, `patterns`, `close`, `SMA_50`, `perf_1M`, …). */
export function queryColumns(clauses: readonly LabelledClause[]): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const { query } of clauses) {
    if (isCategoryClause(query)) {
      keys.add(query.type);
      continue;
    }
    if (isMetricClause(query)) {
      keys.add(metricKeyOf(query));
      continue;
    }
    if (isPatternClause(query)) {
      keys.add('patterns');
      continue;
    }
    if (query.type === 'mcap') {
      keys.add('marketcap');
      continue;
    }
    keys.add(columnKeyOf(query));
    if (query.op !== 'bet' && typeof query.val === 'object') keys.add(columnKeyOf(query.val));
  }
  return keys;
}

/** The metric columns a result row may show, besides the change (its own column). */
export const METRIC_COLUMNS: readonly Exclude<MetricKey, 'changepct'>[] = METRIC_KEYS.filter(
  (key): key is Exclude<MetricKey, 'changepct'> => key !== 'changepct',
);

/** Whether two symbol lists hold the same symbols. */
export function sameSymbols(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((s) => set.has(s));
}

/** An intraday point of the chart. */
export interface ChartPoint {
  readonly ts: string;
  readonly price: number;
}

/** Appends a quote to the intraday points (a repeat of the last point is skipped), keeping the newest. */
export function withChartPoint(points: readonly ChartPoint[], quote: Quote): readonly ChartPoint[] {
  const last = points[points.length - 1];
  if (last && last.ts === quote.ts && last.price === quote.price) return points;
  return [...points, { ts: quote.ts, price: quote.price }].slice(-MAX_CHART_POINTS);
}

/**
 * The order of a run for the grid's sorted column (`colId` and `sort` of AG Grid's column state): the server sorts
 * every match by it before taking the rows shown; null (its default order) when no column is sorted or the
 * sorted one is not a field the server sorts by (the patterns), which the grid then sorts alone.
 */
export function gridSort(
  columns: readonly { readonly colId: string; readonly sort?: 'asc' | 'desc' | null }[],
): ScreenerSort | null {
  const sorted = columns.find((column) => column.sort === 'asc' || column.sort === 'desc');
  if (sorted?.sort == null || !(SORT_FIELDS as readonly string[]).includes(sorted.colId)) return null;
  return { field: sorted.colId as SortField, dir: sorted.sort };
}

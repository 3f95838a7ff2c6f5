/**
 * Imports real market data into the store: daily bars from the common CSV download format, and fundamentals
 * from SEC EDGAR company-facts JSON. Each file is validated whole before anything is written, a refusal names
 * the bad line or entry, and the write is one transaction, so a bad file leaves the store as it was.
 */
import path from 'node:path';
import type { DailyBar, UniverseEntry } from '../../domain/market/types.ts';
import { isSymbol } from '../../domain/symbol.ts';
import { dayNumber, isValidDate } from './calendar.ts';
import type { FundamentalFact, FundamentalPeriod, FundamentalType } from './fundamentals.ts';
import type { MarketStore } from './store.ts';

/** A refused import; the message names the file's bad line or entry, and nothing was written. */
export class ImportError extends Error {
  override readonly name = 'ImportError';
  constructor(
    message: string,
    /** 1-based line of a CSV file the refusal is about, when it is about one. */
    readonly line?: number,
  ) {
    super(message);
  }
}

/** Called as an import advances: units done out of the total. */
export type ImportProgress = (done: number, total: number) => void;

/** The header of a bars CSV, column by column. */
export const BARS_HEADER = Object.freeze(['Date', 'Open', 'High', 'Low', 'Close', 'Adj Close', 'Volume'] as const);

const DECIMAL = /^\d+(\.\d+)?([eE][+-]?\d+)?$/;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The symbol a bars file is named after (`AAPL.csv` → `AAPL`), or an error asking for `--symbol`. */
export function symbolFromFileName(file: string): string {
  const base = path.basename(file).replace(/\.[^.]*$/, '');
  const symbol = base.trim().toUpperCase();
  if (!isSymbol(symbol)) {
    throw new ImportError(
      `cannot tell the symbol from the file name ${JSON.stringify(path.basename(file))}; pass --symbol`,
    );
  }
  return symbol;
}

/**
 * Parses bars CSV text (`Date,Open,High,Low,Close,Adj Close,Volume`) with valid, increasing weekday dates,
 * positive prices, whole volumes and highs and lows around open and close, or throws an {@link ImportError}
 * naming the first bad line.
 */
export function parseBarsCsv(text: string, onProgress?: ImportProgress): DailyBar[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  if (header.join(',') !== BARS_HEADER.join(',')) {
    throw new ImportError(
      `line 1: the header must be "${BARS_HEADER.join(',')}", got ${JSON.stringify(lines[0] ?? '')}`,
      1,
    );
  }
  const total = lines.length - 1;
  if (total === 0) throw new ImportError('the file has a header but no bars');

  const bars: DailyBar[] = [];
  let previous: { date: string; line: number } | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = i + 1;
    const fail = (message: string): never => {
      throw new ImportError(`line ${line}: ${message}`, line);
    };
    const fields = lines[i]!.split(',').map((f) => f.trim());
    if (fields.length !== BARS_HEADER.length) fail(`expected ${BARS_HEADER.length} fields, got ${fields.length}`);
    const [date = '', ...numbers] = fields;
    if (!isValidDate(date)) fail(`Date ${JSON.stringify(date)} is not a valid YYYY-MM-DD date`);
    const weekday = (((dayNumber(date) + 4) % 7) + 7) % 7;
    if (weekday === 0 || weekday === 6) fail(`Date ${date} is a ${WEEKDAYS[weekday]}, not a trading day`);
    if (previous !== undefined && date <= previous.date) {
      fail(`Date ${date} is not after ${previous.date} (line ${previous.line})`);
    }
    const [open, high, low, close, , volume] = numbers.map((raw, k) => {
      const column = BARS_HEADER[k + 1]!;
      const value = DECIMAL.test(raw) ? Number(raw) : Number.NaN;
      if (column === 'Volume') {
        if (!Number.isSafeInteger(value)) fail(`Volume ${JSON.stringify(raw)} is not a whole number of shares`);
      } else if (!(Number.isFinite(value) && value > 0)) {
        fail(`${column} ${JSON.stringify(raw)} is not a positive number`);
      }
      return value;
    }) as [number, number, number, number, number, number];
    if (high < open) fail(`High ${high} is below Open ${open}`);
    if (high < close) fail(`High ${high} is below Close ${close}`);
    if (low > open) fail(`Low ${low} is above Open ${open}`);
    if (low > close) fail(`Low ${low} is above Close ${close}`);
    bars.push({ date, open, high, low, close, volume });
    previous = { date, line };
    if (onProgress !== undefined && (i % 500 === 0 || i === total)) onProgress(i, total);
  }
  return bars;
}

/** Options of {@link importBarsCsv}. */
export interface BarsImportOptions {
  /** The CSV text. */
  readonly text: string;
  /** The symbol the bars are of; it must be in the universe. */
  readonly symbol: string;
  /** The universe the symbol must belong to (default the store's). */
  readonly universe?: readonly UniverseEntry[];
  /** Called as lines are checked. */
  readonly onProgress?: ImportProgress;
}

/** What an import of bars wrote. */
export interface BarsImportResult {
  /** The symbol whose bars were replaced. */
  readonly symbol: string;
  /** Bars written. */
  readonly bars: number;
  /** First bar date. */
  readonly from: string;
  /** Last bar date. */
  readonly to: string;
}

function requireUniverseSymbol(symbol: string, universe: readonly UniverseEntry[]): UniverseEntry {
  const found = universe.find((e) => e.symbol === symbol);
  if (found === undefined) throw new ImportError(`symbol ${JSON.stringify(symbol)} is not in the universe`);
  return found;
}

/** Replaces a symbol's bars with those of a CSV file, all or nothing, marking them imported. */
export function importBarsCsv(store: MarketStore, options: BarsImportOptions): BarsImportResult {
  const symbol = options.symbol.trim().toUpperCase();
  requireUniverseSymbol(symbol, options.universe ?? store.universe());
  const bars = parseBarsCsv(options.text, options.onProgress);
  store.replaceBars(symbol, bars, 'imported');
  return { symbol, bars: bars.length, from: bars[0]!.date, to: bars[bars.length - 1]!.date };
}

/** The us-gaap concepts read for each fundamental type, in order of preference, and their unit. */
const CONCEPTS: readonly { type: FundamentalType; concepts: readonly string[]; unit: string }[] = [
  {
    type: 'revenue',
    concepts: ['Revenues', 'RevenueFromContractWithCustomerExcludingAssessedTax', 'SalesRevenueNet'],
    unit: 'USD',
  },
  { type: 'grossprofit', concepts: ['GrossProfit'], unit: 'USD' },
  { type: 'income', concepts: ['NetIncomeLoss'], unit: 'USD' },
  { type: 'earningspershare', concepts: ['EarningsPerShareBasic'], unit: 'USD/shares' },
];

/** One validated company-facts entry. */
interface SecEntry {
  readonly start: string | undefined;
  readonly end: string;
  readonly val: number;
  readonly fy: number | null;
  readonly fp: string | null;
  readonly form: string;
  readonly filed: string | undefined;
  /** Position in its list, to order entries filed the same day. */
  readonly index: number;
}

/** Company facts read from an SEC JSON file. */
export interface CompanyFacts {
  /** SEC central index key. */
  readonly cik: number;
  /** Company name as the SEC spells it. */
  readonly entityName: string;
  /** The annual and quarterly figures found, labelled `SEC`. */
  readonly facts: FundamentalFact[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkEntry(raw: unknown, where: string, index: number): SecEntry {
  const fail = (message: string): never => {
    throw new ImportError(`${where}: ${message}`);
  };
  if (!isRecord(raw)) fail('is not an object');
  const entry = raw as Record<string, unknown>;
  const date = (key: string, required: boolean): string | undefined => {
    const value = entry[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || !isValidDate(value)) {
      fail(`${key} ${JSON.stringify(value)} is not a YYYY-MM-DD date`);
    }
    return value as string;
  };
  const end = date('end', true)!;
  const start = date('start', false);
  if (start !== undefined && start > end) fail(`start ${start} is after end ${end}`);
  const val = entry['val'];
  if (typeof val !== 'number' || !Number.isFinite(val)) fail(`val ${JSON.stringify(val)} is not a number`);
  const fy = entry['fy'] ?? null;
  if (fy !== null && !(typeof fy === 'number' && Number.isInteger(fy))) {
    fail(`fy ${JSON.stringify(fy)} is not a year`);
  }
  const fp = entry['fp'] ?? null;
  if (fp !== null && typeof fp !== 'string') fail(`fp ${JSON.stringify(fp)} is not a text`);
  const form = entry['form'];
  if (typeof form !== 'string' || form.trim() === '') fail(`form ${JSON.stringify(form)} is not a form name`);
  return {
    start,
    end,
    val: val as number,
    fy: fy as number | null,
    fp: fp as string | null,
    form: form as string,
    filed: date('filed', false),
    index,
  };
}

/** Whether an entry covers a fiscal year, a quarter, or neither (e.g. a year-to-date figure). */
function periodOf(entry: SecEntry): FundamentalPeriod | null {
  if (entry.start !== undefined) {
    const days = dayNumber(entry.end) - dayNumber(entry.start);
    if (days >= 340 && days <= 380) return 'A';
    if (days >= 80 && days <= 100) return 'Q';
    return null;
  }
  if (entry.fp === 'FY') return 'A';
  if (entry.fp !== null && /^Q[1-4]$/.test(entry.fp)) return 'Q';
  return null;
}

function filedOrder(a: SecEntry, b: SecEntry): number {
  const byFiled = (a.filed ?? '').localeCompare(b.filed ?? '');
  return byFiled !== 0 ? byFiled : a.index - b.index;
}

/**
 * One row per period end from a concept's entries: the value of the latest filing (restatements win), the
 * fiscal year and period of the first filing (later filings repeat it as a comparative under their own year).
 */
function rowsOf(type: FundamentalType, entries: readonly SecEntry[]): FundamentalFact[] {
  const groups = new Map<string, SecEntry[]>();
  for (const e of entries) {
    const period = periodOf(e);
    if (period === null) continue;
    const key = `${period}|${e.end}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const rows: FundamentalFact[] = [];
  for (const [key, group] of groups) {
    const period = key.slice(0, 1) as FundamentalPeriod;
    const sorted = [...group].sort(filedOrder);
    const first = sorted[0]!;
    const latest = sorted[sorted.length - 1]!;
    const fp = period === 'A' ? 'FY' : first.fp !== null && /^Q[1-4]$/.test(first.fp) ? first.fp : 'Q4';
    const fy = first.fy ?? Number(first.end.slice(0, 4));
    rows.push({ type, period, end: latest.end, val: latest.val, fy, fp, form: latest.form, label: 'SEC' });
  }
  return rows.sort((a, b) => a.period.localeCompare(b.period) || a.end.localeCompare(b.end));
}

/**
 * Reads the fiscal-year and quarterly revenue (`Revenues`, then
 * `RevenueFromContractWithCustomerExcludingAssessedTax`, then `SalesRevenueNet`), `GrossProfit`, `NetIncomeLoss`
 * (USD) and `EarningsPerShareBasic` (USD/shares) of SEC company-facts JSON, or throws an {@link ImportError}
 * naming the first bad entry by its path.
 */
export function parseCompanyFacts(text: string, onProgress?: ImportProgress): CompanyFacts {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new ImportError(`not JSON: ${(err as Error).message}`);
  }
  if (!isRecord(json)) throw new ImportError('the file is not a company-facts object');
  const cik = typeof json['cik'] === 'string' ? Number(json['cik']) : json['cik'];
  if (typeof cik !== 'number' || !Number.isSafeInteger(cik) || cik <= 0) {
    throw new ImportError(`cik ${JSON.stringify(json['cik'])} is not a central index key`);
  }
  const entityName = json['entityName'];
  if (typeof entityName !== 'string' || entityName.trim() === '') {
    throw new ImportError(`entityName ${JSON.stringify(entityName)} is not a company name`);
  }
  const facts = json['facts'];
  const gaap = isRecord(facts) ? facts['us-gaap'] : undefined;
  if (!isRecord(gaap)) throw new ImportError('facts.us-gaap is missing');

  const out: FundamentalFact[] = [];
  CONCEPTS.forEach(({ type, concepts, unit }, step) => {
    const byEnd = new Map<string, FundamentalFact>();
    for (const concept of concepts) {
      const fact = gaap[concept];
      if (fact === undefined) continue;
      const where = `facts.us-gaap.${concept}`;
      if (!isRecord(fact) || !isRecord(fact['units'])) throw new ImportError(`${where}.units is missing`);
      const list = fact['units'][unit];
      if (list === undefined) continue;
      if (!Array.isArray(list)) throw new ImportError(`${where}.units.${unit} is not a list`);
      const entries = list.map((raw, i) => checkEntry(raw, `${where}.units.${unit}[${i}]`, i));
      // An earlier concept of the list wins for a period both report.
      for (const row of rowsOf(type, entries)) {
        const key = `${row.period}|${row.end}`;
        if (!byEnd.has(key)) byEnd.set(key, row);
      }
    }
    out.push(...[...byEnd.values()].sort((a, b) => a.period.localeCompare(b.period) || a.end.localeCompare(b.end)));
    onProgress?.(step + 1, CONCEPTS.length);
  });
  if (out.length === 0) {
    throw new ImportError(
      'facts.us-gaap has no annual or quarterly revenue, gross profit, net income or basic EPS figures',
    );
  }
  return { cik, entityName, facts: out };
}

/** A company name reduced to its distinctive words, for matching an SEC entity name to the universe. */
function nameKey(name: string): string {
  const filler = new Set(['the', 'inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'ltd', 'plc']);
  return name
    .toLowerCase()
    .replace(/\bclass [a-z]\b/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter((w) => w !== '' && !filler.has(w))
    .join(' ');
}

/** Options of {@link importCompanyFacts}. */
export interface FactsImportOptions {
  /** The JSON text. */
  readonly text: string;
  /** The symbol the facts are of; without it, the CIK recorded by an earlier import, then the company name. */
  readonly symbol?: string;
  /** The universe the symbol must belong to (default the store's). */
  readonly universe?: readonly UniverseEntry[];
  /** Called as concepts are read. */
  readonly onProgress?: ImportProgress;
}

/** What an import of company facts wrote. */
export interface FactsImportResult {
  /** The symbol whose fundamentals were replaced. */
  readonly symbol: string;
  /** SEC central index key of the company. */
  readonly cik: number;
  /** Company name as the SEC spells it. */
  readonly entityName: string;
  /** Figures written per type (types absent from the file keep their derived figures). */
  readonly counts: Partial<Record<FundamentalType, number>>;
}

/**
 * Replaces a symbol's derived fundamentals, type by type, with the figures of an SEC company-facts file, all
 * or nothing; the symbol is `symbol`, or found by CIK or company name.
 */
export function importCompanyFacts(store: MarketStore, options: FactsImportOptions): FactsImportResult {
  const universe = options.universe ?? store.universe();
  const parsed = parseCompanyFacts(options.text, options.onProgress);
  let symbol: string;
  if (options.symbol !== undefined) {
    symbol = requireUniverseSymbol(options.symbol.trim().toUpperCase(), universe).symbol;
  } else {
    const known = store.symbolOfCik(parsed.cik);
    const byName = universe.filter((e) => nameKey(e.name) === nameKey(parsed.entityName));
    if (known !== undefined) symbol = known;
    else if (byName.length === 1) symbol = byName[0]!.symbol;
    else {
      throw new ImportError(`no symbol of the universe for CIK ${parsed.cik} (${parsed.entityName}); pass --symbol`);
    }
  }
  const types = [...new Set(parsed.facts.map((f) => f.type))];
  store.transaction(() => {
    store.replaceFundamentals(symbol, parsed.facts, types);
    store.setCik(symbol, parsed.cik);
  });
  const counts: Partial<Record<FundamentalType, number>> = {};
  for (const f of parsed.facts) counts[f.type] = (counts[f.type] ?? 0) + 1;
  return { symbol, cik: parsed.cik, entityName: parsed.entityName, counts };
}

/**
 * The shipped universe: real US-listed companies with approximate shares outstanding and closes on
 * {@link UNIVERSE_DATE}, read from `data/universe.csv`, from which the simulated market starts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  SECTORS,
  capClassOf,
  marketCapOf,
  type CapClass,
  type Sector,
  type UniverseEntry,
} from '../../domain/market/types.ts';
import { SYMBOL_MAX_LENGTH, isSymbol } from '../../domain/symbol.ts';

/** The last trading day the universe's closes refer to (`YYYY-MM-DD`, New York). */
export const UNIVERSE_DATE = '2024-12-31';

/** The columns of the universe CSV, in order, as its header must name them. */
export const UNIVERSE_COLUMNS = Object.freeze(['symbol', 'name', 'sector', 'industry', 'shares', 'close'] as const);

/** Results returned by {@link searchUniverse} when the query gives no `limit`. */
export const DEFAULT_SEARCH_LIMIT = 50;

/** A refused universe file, with the 1-based line of the offending record and, when one is to blame, the field. */
export class UniverseError extends Error {
  /** The error's name, as stack traces show it. */
  override readonly name = 'UniverseError';
  constructor(
    /** Line of the file where the offending record starts (the header is line 1). */
    readonly line: number,
    /** The column that was refused, or null when the record as a whole was. */
    readonly field: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** One CSV record: its fields and the line it starts on. */
interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
}

const SECTOR_SET: ReadonlySet<string> = new Set(SECTORS);
/** A plain decimal: digits, optionally a fraction; no sign, exponent, thousands separator or spaces. */
const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * Splits CSV text into records (RFC 4180: comma separator, fields optionally in double quotes, a doubled
 * quote inside quotes is one quote, quoted fields may hold commas and line breaks). Accepts LF or CRLF, a
 * leading byte-order mark and a final line break; skips blank lines.
 */
function splitCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let recordLine = 1;
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStart = true;

  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '' && !quoted)) records.push({ line: recordLine, fields });
    fields = [];
    field = '';
    fieldStart = true;
  };

  for (let i = at; i < text.length; i++) {
    const ch = text[i];
    if (fieldStart) {
      fieldStart = false;
      quoted = false;
      if (ch === '"') {
        quoted = true;
        const quoteLine = line;
        let closed = false;
        for (i++; i < text.length; i++) {
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i++;
            } else {
              closed = true;
              break;
            }
          } else {
            if (c === '\n') line++;
            field += c;
          }
        }
        if (!closed) throw new UniverseError(quoteLine, null, `line ${quoteLine}: a quoted field is never closed`);
        const next = text[i + 1];
        if (next !== undefined && next !== ',' && next !== '\n' && !(next === '\r' && text[i + 2] === '\n')) {
          throw new UniverseError(line, null, `line ${line}: a closing quote must end its field`);
        }
        continue;
      }
    }
    if (ch === ',') {
      fields.push(field);
      field = '';
      fieldStart = true;
    } else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) {
      if (ch === '\r') i++;
      endRecord();
      line++;
      recordLine = line;
    } else if (ch === '"') {
      throw new UniverseError(line, null, `line ${line}: a quote may only open a field, or be doubled inside one`);
    } else {
      field += ch;
    }
  }
  if (!fieldStart || fields.length > 0 || field !== '') endRecord();
  return records;
}

function refuse(line: number, field: string, what: string, got: string): never {
  throw new UniverseError(line, field, `line ${line}: ${field} ${what}, got ${JSON.stringify(got)}`);
}

function positiveNumber(line: number, field: string, text: string): number {
  const value = Number(text);
  if (!DECIMAL.test(text) || !Number.isFinite(value) || value <= 0) {
    refuse(line, field, 'must be a positive number', text);
  }
  return value;
}

function singleLineText(line: number, field: string, text: string): string {
  if (text.trim() === '' || text !== text.trim() || /[\r\n]/.test(text)) {
    refuse(line, field, 'must be a non-empty single line without surrounding spaces', text);
  }
  return text;
}

/**
 * Parses and validates universe CSV text (header `symbol,name,sector,industry,shares,close`), deriving each
 * company's market cap (shares × close) and cap class; throws a {@link UniverseError} naming the line and the
 * field at the first bad record, a symbol that breaks the symbol rule, an unknown sector or a repeated symbol.
 */
export function parseUniverse(csvText: string): UniverseEntry[] {
  const records = splitCsv(csvText);
  const header = records[0];
  const expected = UNIVERSE_COLUMNS.join(',');
  if (header === undefined) throw new UniverseError(1, null, `line 1: the header "${expected}" is missing`);
  if (header.fields.join(',') !== expected) {
    throw new UniverseError(
      header.line,
      null,
      `line ${header.line}: the header must be "${expected}", got ${JSON.stringify(header.fields.join(','))}`,
    );
  }

  const seen = new Map<string, number>();
  const entries: UniverseEntry[] = [];
  for (const { line, fields } of records.slice(1)) {
    if (fields.length !== UNIVERSE_COLUMNS.length) {
      throw new UniverseError(
        line,
        null,
        `line ${line}: expected ${UNIVERSE_COLUMNS.length} fields, got ${fields.length}`,
      );
    }
    const [symbol = '', rawName = '', rawSector = '', rawIndustry = '', rawShares = '', rawClose = ''] = fields;
    if (!isSymbol(symbol)) {
      refuse(
        line,
        'symbol',
        `must be 1 to ${SYMBOL_MAX_LENGTH} of A-Z, 0-9, '.', '-' starting with a letter or digit`,
        symbol,
      );
    }
    const earlier = seen.get(symbol);
    if (earlier !== undefined) refuse(line, 'symbol', `repeats line ${earlier}`, symbol);
    seen.set(symbol, line);
    const name = singleLineText(line, 'name', rawName);
    if (!SECTOR_SET.has(rawSector)) refuse(line, 'sector', 'must be one of the 11 GICS sectors', rawSector);
    const sector = rawSector as Sector;
    const industry = singleLineText(line, 'industry', rawIndustry);
    const shares = positiveNumber(line, 'shares', rawShares);
    const close = positiveNumber(line, 'close', rawClose);
    const marketcap = marketCapOf(shares, close);
    entries.push(
      Object.freeze({ symbol, name, sector, industry, shares, close, marketcap, capclass: capClassOf(marketcap) }),
    );
  }
  return entries;
}

const UNIVERSE_FILE = new URL('../../data/universe.csv', import.meta.url);
let cached: readonly UniverseEntry[] | undefined;

/**
 * The shipped universe, read from `data/universe.csv` once and cached; each call returns a new array of the
 * same frozen entries, in file order.
 */
export function loadUniverse(): UniverseEntry[] {
  if (cached === undefined) {
    const text = readFileSync(UNIVERSE_FILE, 'utf8');
    try {
      cached = Object.freeze(parseUniverse(text));
    } catch (err) {
      if (err instanceof UniverseError) {
        throw new UniverseError(err.line, err.field, `${fileURLToPath(UNIVERSE_FILE)} ${err.message}`);
      }
      throw err;
    }
  }
  return cached.slice();
}

/** The shipped universe keyed by symbol (a new map on each call). */
export function universeBySymbol(): Map<string, UniverseEntry> {
  return new Map(loadUniverse().map((entry) => [entry.symbol, entry]));
}

/** A universe search: text, sector and cap-class filters, and the most results wanted. */
export interface UniverseQuery {
  /**
   * Symbol prefix or the start of a word of the company name, case-insensitive, whatever separates its letters
   * and digits (`brk b` is BRK.B, `coca cola` Coca-Cola); blank matches every company.
   */
  readonly q?: string;
  /** Only companies of this sector. */
  readonly sector?: Sector;
  /** Only companies of this cap class. */
  readonly cap?: CapClass;
  /** Most results returned, a non-negative integer; {@link DEFAULT_SEARCH_LIMIT} when absent. */
  readonly limit?: number;
}

/** Whether `needle` (lower case) starts at the beginning of a word of `haystack` (lower case). */
function startsAWord(haystack: string, needle: string): boolean {
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (at === 0 || !/[a-z0-9]/.test(haystack.charAt(at - 1))) return true;
  }
  return false;
}

/** A text's letters and digits only, lower case, full-width forms read as their plain ones: `ＢＲＫ/B` → `brkb`. */
function compact(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/**
 * Whether the letters and digits of a query, whatever separates them, begin at a word of the name: `coca cola`
 * and `cocacola` find `The Coca-Cola Company`, `wal-mart` finds `Walmart Inc.`.
 */
function startsWordsOf(name: string, query: string): boolean {
  if (query === '') return false;
  const words = name
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  for (let i = 0; i < words.length; i++) {
    if (words.slice(i).join('').startsWith(query)) return true;
  }
  return false;
}

/**
 * Filters a universe by sector, cap class and text; with text, ranks an exact symbol first, then symbol
 * prefixes, then name matches, each group by market cap (largest first, then symbol); without text, orders by
 * market cap alone; returns at most `limit` (default {@link DEFAULT_SEARCH_LIMIT}) entries.
 */
export function searchUniverse(universe: readonly UniverseEntry[], query: UniverseQuery = {}): UniverseEntry[] {
  const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`limit must be a non-negative integer, got ${String(limit)}`);
  }
  const text = (query.q ?? '').trim();
  // A symbol however it is written (`brk b`, `brk-b`, `BRK/B` for BRK.B), a name by its words' letters and digits.
  const key = compact(text);
  const upper = key.toUpperCase();

  const ranked: { entry: UniverseEntry; rank: number }[] = [];
  for (const entry of universe) {
    if (query.sector !== undefined && entry.sector !== query.sector) continue;
    if (query.cap !== undefined && entry.capclass !== query.cap) continue;
    let rank: number;
    const symbol = compact(entry.symbol).toUpperCase();
    if (text === '') rank = 0;
    else if (key === '') continue;
    else if (symbol === upper) rank = 0;
    else if (symbol.startsWith(upper)) rank = 1;
    else if (startsAWord(entry.name.toLowerCase(), text.toLowerCase()) || startsWordsOf(entry.name, key)) rank = 2;
    else continue;
    ranked.push({ entry, rank });
  }
  ranked.sort(
    (a, b) =>
      a.rank - b.rank ||
      b.entry.marketcap - a.entry.marketcap ||
      (a.entry.symbol < b.entry.symbol ? -1 : a.entry.symbol > b.entry.symbol ? 1 : 0),
  );
  return ranked.slice(0, limit).map(({ entry }) => entry);
}

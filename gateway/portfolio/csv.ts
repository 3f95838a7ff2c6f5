/**
 * CSV at the edge of the portfolio: a transaction file read into records for the domain's import formats,
 * and the transactions and positions written out as CSV.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { CsvRecord, UnreadableFile } from '../../domain/portfolio/importFormats.ts';
import { newYorkTime } from '../../engine/ticks/marketClock.ts';

/** Longest record accepted, in characters. */
const MAX_RECORD_CHARS = 64 * 1024;

/** How a cell that a spreadsheet would run as a formula starts; {@link writeCsv} quotes such a cell with `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell as it was before {@link writeCsv} quoted it (`'=SUM(1)` → `=SUM(1)`); any other cell as it is. */
function unquoted(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/**
 * The records of a CSV text (cells trimmed, empty lines skipped, rows of any length), or where reading stopped.
 * A cell {@link writeCsv} quoted against formulas reads as it was, so an exported file imports as written.
 */
export function readCsv(text: string): CsvRecord[] | UnreadableFile {
  // UTF-16 read as UTF-8 (a spreadsheet's "Unicode text") has an empty byte beside every character.
  if (text.includes('\u0000')) {
    return {
      line: 1,
      column: null,
      message: 'it is not UTF-8 text (it looks like UTF-16, every other byte empty): save it as CSV in UTF-8',
    };
  }
  try {
    const parsed = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      // A spreadsheet's trailing rows of commas alone are empty lines too.
      skip_records_with_empty_values: true,
      trim: true,
      max_record_size: MAX_RECORD_CHARS,
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return parsed.map(({ record, info }) => ({ cells: record.map(unquoted), line: info.lines }));
  } catch (error) {
    const { lines, code, index } = error as { lines?: unknown; code?: unknown; index?: unknown };
    const message = error instanceof Error ? error.message : String(error);
    const cell = typeof index === 'number' ? index : null;
    return {
      line: typeof lines === 'number' ? lines : 1,
      column: cell === null ? null : (headerOf(text)[cell] ?? `cell ${cell + 1}`),
      message: (typeof code === 'string' ? READING_ERRORS[code] : undefined) ?? message.slice(0, 200),
    };
  }
}

/** What stopped the reading, in words, by the CSV reader's error code. */
const READING_ERRORS: Readonly<Record<string, string>> = {
  INVALID_OPENING_QUOTE:
    'a double quote inside a cell that does not start with one: put the whole cell in double quotes and double ' +
    'each quote inside it ("=HYPERLINK(""x"")")',
  CSV_INVALID_CLOSING_QUOTE:
    'text after the double quote that closes a cell: a quote inside a quoted cell is written twice ("say ""hi""")',
  CSV_QUOTE_NOT_CLOSED: 'a double quote opens a cell that no quote closes before the end of the file',
  CSV_MAX_RECORD_SIZE: `a line longer than ${MAX_RECORD_CHARS.toLocaleString('en-US')} characters`,
};

/** The cells of the first line of a CSV text, as far as they read (none when even that line does not). */
function headerOf(text: string): string[] {
  try {
    const [first] = parse(text.slice(0, MAX_RECORD_CHARS), { bom: true, to_line: 1, trim: true, relax_quotes: true });
    return Array.isArray(first) ? (first as unknown[]).map(String) : [];
  } catch {
    return [];
  }
}

/** A CSV text of a header and rows; a cell that a spreadsheet would run as a formula is quoted with `'`. */
export function writeCsv(columns: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  const safe = rows.map((row) =>
    row.map((cell) => (typeof cell === 'string' && FORMULA_START.test(cell) ? `'${cell}` : (cell ?? ''))),
  );
  return stringify([columns, ...safe]);
}

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * An instant in market time (New York) with its offset from UTC, to the second: `2025-02-24T16:00:00-05:00`,
 * the same instant as the ISO text it comes from; null for a text that is no instant.
 */
export function marketTime(iso: string): string | null {
  const ms = Math.floor(Date.parse(iso) / 1000) * 1000;
  if (!Number.isFinite(ms)) return null;
  const t = newYorkTime(ms);
  const [y, m, d] = t.date.split('-').map(Number) as [number, number, number];
  const offset = Math.round((Date.UTC(y, m - 1, d, t.hour, t.minute, t.second) - ms) / 60_000);
  const zone = `${offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${t.date}T${two(t.hour)}:${two(t.minute)}:${two(t.second)}${zone}`;
}

/**
 * Transaction files: the generic CSV format, the Trades and Dividends sections of an Interactive Brokers
 * activity statement, and a Schwab transaction history. Each data row of a file becomes a transaction or a
 * verdict saying why not (the line and the column named); a row's id is derived from its content, so the
 * same file imported again is recognised row by row.
 */
import { isCalendarDate } from '../contract/common.ts';
import { withoutGrouping } from '../format.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { DomainError, isDomainError } from '../decider.ts';
import { roundToCents } from '../positions/lots.ts';
import { isSymbol } from '../symbol.ts';
import { PortfolioDraft, decideTransaction, portfolioDecider, type PortfolioState } from './portfolio.ts';
import { parseTransaction, type Transaction, type TransactionKind } from './transactions.ts';

/** The formats a file may be in. */
export const IMPORT_FORMATS = ['generic', 'ibkr', 'schwab'] as const;

/** A format of transaction file. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Largest file accepted, in bytes of UTF-8. */
export const MAX_IMPORT_BYTES = 1024 * 1024;

/** Most data rows a file may hold. */
export const MAX_IMPORT_ROWS = 2_000;

/**
 * The columns of the generic format, in the order the export writes them (`id`, `fee`, `amount`, `lots`
 * optional). `lots` holds the lots a sale names, `<lot id>:<quantity>` joined by `;` ({@link lotsCell}).
 */
export const GENERIC_COLUMNS = ['id', 'date', 'kind', 'symbol', 'quantity', 'price', 'fee', 'amount', 'lots'] as const;

/** The `lots` cell of a sale naming its lots: `b1:10;b2:2.5`; empty for one sold first in, first out. */
export function lotsCell(lots: readonly { readonly id: string; readonly quantity: number }[] | undefined): string {
  return (lots ?? []).map((pick) => `${pick.id}:${pick.quantity}`).join(';');
}

/** The lots a `lots` cell names ({@link lotsCell}); none when it is empty. */
function lotsOfCell(text: string): { id: string; quantity: number }[] {
  if (text === '') return [];
  return text.split(';').map((part) => {
    const m = /^\s*([^:;\s]{1,100})\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (!m) {
      throw new RowError('lots', `lots ${JSON.stringify(part.slice(0, 40))} is not <lot id>:<quantity>`);
    }
    return { id: m[1]!, quantity: Number(m[2]) };
  });
}

/** What became of one data row: a new transaction, one recorded already, a row skipped, or a refusal. */
export type RowVerdict = 'new' | 'duplicate' | 'skipped' | 'refused';

/** One data row of a file with its verdict. */
export interface ImportRow {
  /** The row's line in the file (1 for the first line). */
  readonly line: number;
  readonly verdict: RowVerdict;
  /**
   * The column the refusal, skip or note is about, as the file names it; null when it is about the whole row.
   */
  readonly column: string | null;
  /**
   * Why the row was refused or skipped; for a new row, what its recording keeps otherwise than the file says (a
   * price to the cent); null otherwise.
   */
  readonly message: string | null;
  /** The transaction the row stands for, when it could be read. */
  readonly transaction: Transaction | null;
}

/** A file read and judged: its format and every data row's verdict. */
export interface ImportPreview {
  readonly format: ImportFormat;
  readonly rows: readonly ImportRow[];
}

/** A preview with the transactions to record, oldest first: every `new` row, or none when any row is refused. */
export interface ImportJudgement extends ImportPreview {
  readonly toRecord: readonly Transaction[];
}

/** A transaction's field → the column of the file it was read from. */
type Columns = Partial<Record<'kind' | 'symbol' | 'date' | 'quantity' | 'price' | 'fee' | 'amount' | 'lots', string>>;

/** A data row as a format reads it, before it is checked against the portfolio. */
interface ReadRow {
  readonly line: number;
  readonly columns: Columns;
  /** The fields read, or why the row is skipped or refused. */
  readonly outcome:
    | { readonly kind: 'fields'; readonly fields: Record<string, unknown>; readonly id?: string }
    | { readonly kind: 'skipped' | 'refused'; readonly column: string | null; readonly message: string };
}

class RowError extends Error {
  constructor(
    readonly column: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** One record of a CSV file: its cells, trimmed, and the line it ends on (1 for the first line). */
export interface CsvRecord {
  readonly cells: readonly string[];
  readonly line: number;
}

/** A file that could not be read as CSV, with the line where reading stopped. */
export interface UnreadableFile {
  readonly line: number;
  /** The column where reading stopped, as the header names it, when known. */
  readonly column?: string | null;
  readonly message: string;
}

/**
 * A number as a broker writes it: `1,234.50`, `$1,234.50`, `-$12.00`, `($12.00)`; null when empty. A comma
 * only groups thousands (`1,234,567.8`); any other comma (`1,5`) is refused rather than read as a decimal point.
 */
function amountOf(text: string | undefined, column: string): number | null {
  const raw = (text ?? '').trim();
  if (raw === '' || raw === '--') return null;
  const negative = raw.startsWith('-') || (raw.startsWith('(') && raw.endsWith(')'));
  const digits = withoutGrouping(raw.replace(/[()$\s]/g, '').replace(/^[-+]/, ''));
  if (!/^\d+(\.\d+)?$/.test(digits)) {
    const hint = raw.includes(',') ? '; use a point for decimals' : '';
    throw new RowError(column, `${column} ${JSON.stringify(raw.slice(0, 40))} is not a number${hint}`);
  }
  const value = Number(digits);
  return negative ? -value : value;
}

function required(value: number | null, column: string): number {
  if (value === null) throw new RowError(column, `${column} is empty`);
  return value;
}

function usDate(text: string | undefined, column: string): string {
  // Schwab writes `MM/DD/YYYY`, or `MM/DD/YYYY as of MM/DD/YYYY` for a correction; the first date is the trade's.
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec((text ?? '').trim());
  const refused = () =>
    new RowError(column, `${column} ${JSON.stringify((text ?? '').slice(0, 40))} is not a date MM/DD/YYYY`);
  if (!m) throw refused();
  const date = `${m[3]}-${m[1]!.padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
  if (!isCalendarDate(date)) throw refused();
  return date;
}

function isoDate(text: string | undefined, column: string): string {
  // IBKR writes `YYYY-MM-DD, HH:MM:SS` (or `YYYYMMDD` in some exports); only the date counts.
  const raw = (text ?? '').trim();
  const m = /^(\d{4})-?(\d{2})-?(\d{2})/.exec(raw);
  const date = m ? `${m[1]}-${m[2]}-${m[3]}` : '';
  if (!isCalendarDate(date)) {
    throw new RowError(column, `${column} ${JSON.stringify(raw.slice(0, 40))} is not a date YYYY-MM-DD`);
  }
  return date;
}

function symbolCell(text: string | undefined, column: string): string {
  const symbol = (text ?? '').trim().toUpperCase();
  if (!isSymbol(symbol)) throw new RowError(column, `${column} ${JSON.stringify(symbol.slice(0, 40))} is not a symbol`);
  return symbol;
}

/** The refusal of a whole file that is not in the format chosen: `what` names the header or section missing. */
function wrongFormat(what: string): DomainError {
  return new DomainError('wrong_format', `csv: no ${what} found; is it another broker's file?`, 'csv');
}

function readRow(line: number, columns: Columns, read: () => ReadRow['outcome']): ReadRow {
  try {
    return { line, columns, outcome: read() };
  } catch (error) {
    if (error instanceof RowError)
      return { line, columns, outcome: { kind: 'refused', column: error.column, message: error.message } };
    throw error;
  }
}

function indexOf(header: readonly string[]): (name: string) => number {
  const lower = header.map((h) => h.trim().toLowerCase());
  return (name) => lower.indexOf(name.toLowerCase());
}

/**
 * What to say of a header read as one column whose text holds semicolons or tabs: the file's columns are
 * separated by them, not by commas (a spreadsheet saved in a locale with decimal commas does so).
 */
function separatorHint(cells: readonly string[]): string {
  if (cells.length !== 1) return '';
  const text = cells[0] ?? '';
  if (text.includes(';')) return ' (its columns are separated by semicolons: save the file with commas)';
  if (text.includes('\t')) return ' (its columns are separated by tabs: save the file with commas)';
  return '';
}

/** The generic format: a header naming the columns of {@link GENERIC_COLUMNS} in any order. */
function readGeneric(rows: readonly CsvRecord[]): ReadRow[] {
  const [header, ...data] = rows;
  if (!header) return [];
  const at = indexOf(header.cells);
  const kinds = new Set(
    data.map(({ cells }) => (at('kind') >= 0 ? (cells[at('kind')] ?? '').trim().toLowerCase() : '')),
  );
  const trades = kinds.has('buy') || kinds.has('sell');
  // A column the rows need is named once, at the header, rather than as empty in every row.
  const needed = [
    'date',
    'kind',
    'symbol',
    ...(trades ? ['quantity', 'price'] : []),
    ...(kinds.has('dividend') || kinds.has('fee') ? ['amount'] : []),
  ];
  for (const name of needed) {
    if (at(name) < 0) {
      return [
        {
          line: header.line,
          columns: {},
          outcome: {
            kind: 'refused',
            column: name,
            message:
              `the header has no column ${name}${separatorHint(header.cells)}` +
              (name === 'quantity' || name === 'price'
                ? ' (buy and sell rows need it)'
                : name === 'amount'
                  ? ' (dividend and fee rows need it)'
                  : ''),
          },
        },
      ];
    }
  }
  const columns: Columns = {
    kind: 'kind',
    symbol: 'symbol',
    date: 'date',
    quantity: 'quantity',
    price: 'price',
    fee: 'fee',
    amount: 'amount',
    lots: 'lots',
  };
  return data.map(({ cells, line }) =>
    readRow(line, columns, () => {
      const cell = (name: string) => (at(name) >= 0 ? (cells[at(name)] ?? '').trim() : '');
      const kind = cell('kind').toLowerCase();
      const number = (name: string) => amountOf(cell(name), name);
      const fields: Record<string, unknown> = {
        kind,
        symbol: symbolCell(cell('symbol'), 'symbol'),
        date: cell('date'),
      };
      if (kind === 'buy' || kind === 'sell') {
        fields.quantity = required(number('quantity'), 'quantity');
        fields.price = required(number('price'), 'price');
        fields.fee = number('fee') ?? 0;
        const lots = lotsOfCell(cell('lots'));
        if (lots.length > 0) {
          if (kind !== 'sell') throw new RowError('lots', 'lots: only a sale names the lots it sells');
          fields.lots = lots;
        }
      } else if (kind === 'dividend' || kind === 'fee') {
        fields.amount = required(number('amount'), 'amount');
      }
      const id = cell('id');
      return { kind: 'fields', fields, ...(id !== '' ? { id } : {}) };
    }),
  );
}

/** The Trades (stocks) and Dividends sections of an Interactive Brokers activity statement. */
function readIbkr(rows: readonly CsvRecord[]): ReadRow[] {
  if (!rows.some(({ cells }) => (cells[0] === 'Trades' || cells[0] === 'Dividends') && cells[1] === 'Header'))
    throw wrongFormat('Interactive Brokers Trades or Dividends section (Trades,Header,…)');
  const out: ReadRow[] = [];
  const headers = new Map<string, readonly string[]>();
  for (const { cells, line } of rows) {
    const [section, kind] = cells;
    if (!section || !kind) continue;
    if (kind === 'Header') {
      headers.set(section, cells);
      continue;
    }
    if (kind !== 'Data' || (section !== 'Trades' && section !== 'Dividends')) continue;
    const header = headers.get(section) ?? [];
    const at = indexOf(header);
    const cell = (name: string) => (at(name) >= 0 ? cells[at(name)] : undefined);
    if (section === 'Dividends') {
      const columns: Columns = { symbol: 'Description', date: 'Date', amount: 'Amount' };
      out.push(
        readRow(line, columns, () => {
          const description = cell('Description') ?? '';
          if (/^total/i.test(cells[2] ?? '')) return { kind: 'skipped', column: null, message: 'a total' };
          const symbol = symbolCell(/^([^(\s]+)/.exec(description)?.[1], 'Description');
          const amount = required(amountOf(cell('Amount'), 'Amount'), 'Amount');
          return {
            kind: 'fields',
            fields: {
              kind: amount < 0 ? 'fee' : 'dividend',
              symbol,
              date: isoDate(cell('Date'), 'Date'),
              amount: Math.abs(amount),
            },
          };
        }),
      );
      continue;
    }
    const columns: Columns = {
      symbol: 'Symbol',
      date: 'Date/Time',
      quantity: 'Quantity',
      price: 'T. Price',
      fee: 'Comm/Fee',
      kind: 'Quantity',
    };
    out.push(
      readRow(line, columns, () => {
        const discriminator = cell('DataDiscriminator');
        if (discriminator !== undefined && discriminator !== 'Order' && discriminator !== 'Trade') {
          return { kind: 'skipped', column: 'DataDiscriminator', message: `${discriminator} rows repeat the orders` };
        }
        const category = cell('Asset Category') ?? '';
        if (category !== 'Stocks')
          return { kind: 'skipped', column: 'Asset Category', message: `${category || 'no category'} is not stocks` };
        const quantity = required(amountOf(cell('Quantity'), 'Quantity'), 'Quantity');
        if (quantity === 0) throw new RowError('Quantity', 'Quantity is 0');
        return {
          kind: 'fields',
          fields: {
            kind: quantity > 0 ? 'buy' : 'sell',
            symbol: symbolCell(cell('Symbol'), 'Symbol'),
            date: isoDate(cell('Date/Time'), 'Date/Time'),
            quantity: Math.abs(quantity),
            price: required(amountOf(cell('T. Price'), 'T. Price'), 'T. Price'),
            fee: Math.abs(amountOf(cell('Comm/Fee'), 'Comm/Fee') ?? 0),
          },
        };
      }),
    );
  }
  return out;
}

const SCHWAB_KINDS: Readonly<Record<string, TransactionKind>> = {
  buy: 'buy',
  'reinvest shares': 'buy',
  sell: 'sell',
  'sell short': 'sell',
  'buy to cover': 'buy',
  'qualified dividend': 'dividend',
  'cash dividend': 'dividend',
  'non-qualified div': 'dividend',
  'reinvest dividend': 'dividend',
  'special dividend': 'dividend',
  'pr yr cash div': 'dividend',
  'adr mgmt fee': 'fee',
  'foreign tax paid': 'fee',
  'service fee': 'fee',
};

/** A Schwab transaction history: `Date, Action, Symbol, Description, Quantity, Price, Fees & Comm, Amount`. */
function readSchwab(rows: readonly CsvRecord[]): ReadRow[] {
  const start = rows.findIndex((r) => r.cells.some((c) => c === 'Action') && r.cells.some((c) => c === 'Date'));
  if (start < 0) throw wrongFormat('Schwab header (Date,Action,Symbol,…)');
  const at = indexOf(rows[start]!.cells);
  const columns: Columns = {
    kind: 'Action',
    symbol: 'Symbol',
    date: 'Date',
    quantity: 'Quantity',
    price: 'Price',
    fee: 'Fees & Comm',
    amount: 'Amount',
  };
  return rows.slice(start + 1).map(({ cells, line }) =>
    readRow(line, columns, () => {
      const cell = (name: string) => (at(name) >= 0 ? cells[at(name)] : undefined);
      if (/^transactions total/i.test(cells[0] ?? '')) return { kind: 'skipped', column: null, message: 'a total' };
      const action = (cell('Action') ?? '').trim();
      const kind = SCHWAB_KINDS[action.toLowerCase()];
      if (!kind)
        return {
          kind: 'skipped',
          column: 'Action',
          message: `${action || 'an empty action'} is not a trade, dividend or fee`,
        };
      const symbol = symbolCell(cell('Symbol'), 'Symbol');
      const date = usDate(cell('Date'), 'Date');
      if (kind === 'dividend' || kind === 'fee') {
        return {
          kind: 'fields',
          fields: {
            kind,
            symbol,
            date,
            amount: Math.abs(required(amountOf(cell('Amount'), 'Amount'), 'Amount')),
          },
        };
      }
      return {
        kind: 'fields',
        fields: {
          kind,
          symbol,
          date,
          quantity: Math.abs(required(amountOf(cell('Quantity'), 'Quantity'), 'Quantity')),
          price: required(amountOf(cell('Price'), 'Price'), 'Price'),
          fee: Math.abs(amountOf(cell('Fees & Comm'), 'Fees & Comm') ?? 0),
        },
      };
    }),
  );
}

/** The format of a file, from its records: a Trades header of a statement, or Schwab's Action and Fees & Comm. */
export function detectFormat(records: readonly CsvRecord[]): ImportFormat {
  if (records.some((r) => r.cells[0] === 'Trades' && r.cells[1] === 'Header')) return 'ibkr';
  if (records.slice(0, 5).some((r) => r.cells.includes('Action') && r.cells.includes('Fees & Comm'))) return 'schwab';
  return 'generic';
}

const READERS: Readonly<Record<ImportFormat, (rows: readonly CsvRecord[]) => ReadRow[]>> = {
  generic: readGeneric,
  ibkr: readIbkr,
  schwab: readSchwab,
};

/** The content key of a transaction: what it says, not where it came from. */
function contentKey(fields: Record<string, unknown>): string {
  return ['kind', 'symbol', 'date', 'quantity', 'price', 'fee', 'amount']
    .map((k) => {
      const value = fields[k];
      return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    })
    .join('|');
}

/** What a row's transaction is called when it is decided against the portfolio, stripped from refusals. */
const SUBJECT = 'transactions[0]';

/** Options of {@link previewImport}. */
export interface PreviewOptions {
  /** The format, or `auto` to tell it from the file. */
  readonly format: ImportFormat | 'auto';
  /** The portfolio the rows would be recorded in. */
  readonly state: PortfolioState;
  /** The time of the import (ISO 8601, UTC): rows dated after it are refused. */
  readonly at: string;
  /** Whether a symbol exists. */
  readonly known: (symbol: string) => boolean;
}

/**
 * Reads a file and judges each data row against the portfolio as the rows before it would leave it: `new`,
 * `duplicate` (its content, or its id, recorded already), `skipped` (not a trade, dividend or fee of stocks)
 * or `refused` (the line and column named). Rows are judged oldest first, as they would be recorded. A file
 * without the header or sections of the format chosen is refused whole: a `wrong_format` {@link DomainError}
 * naming `csv`, the file.
 */
export function previewImport(file: readonly CsvRecord[] | UnreadableFile, options: PreviewOptions): ImportJudgement {
  if (!Array.isArray(file)) {
    const { line, column, message } = file as UnreadableFile;
    const format = options.format === 'auto' ? 'generic' : options.format;
    return {
      format,
      rows: [
        {
          line,
          verdict: 'refused',
          column: column ?? null,
          message: `the file is not CSV: ${message}`,
          transaction: null,
        },
      ],
      toRecord: [],
    };
  }
  const records = file as readonly CsvRecord[];
  const format = options.format === 'auto' ? detectFormat(records) : options.format;
  const read = READERS[format](records);
  if (read.length > MAX_IMPORT_ROWS) {
    return {
      format,
      rows: [
        {
          line: read[MAX_IMPORT_ROWS]!.line,
          verdict: 'refused',
          column: null,
          message: `the file has more than ${MAX_IMPORT_ROWS} rows`,
          transaction: null,
        },
      ],
      toRecord: [],
    };
  }
  const seen = new Map<string, number>();
  const candidates = read.map((row) => {
    if (row.outcome.kind !== 'fields')
      return { row, transaction: null as Transaction | null, error: null as ImportRow | null, note: null };
    const { fields, note } = keptToCents(row);
    const key = contentKey(fields);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    const id = row.outcome.id ?? uuidV5(`import/${key}#${occurrence}`, STOCKPULSE_NAMESPACE);
    try {
      const transaction = parseTransaction({ ...fields, id }, 'transaction', options.at);
      if (!options.known(transaction.symbol)) {
        return {
          row,
          transaction: null,
          error: refusal(row, 'symbol', `${transaction.symbol} is not a known symbol`),
          note,
        };
      }
      return { row, transaction, error: null, note };
    } catch (error) {
      if (!isDomainError(error)) throw error;
      return {
        row,
        transaction: null,
        error: refusal(row, fieldOf(error.field), error.message.replace(/^transaction\./, '')),
        note,
      };
    }
  });
  // Oldest first, as they are recorded; a file written newest first (as brokers do) keeps its days' order.
  const dates = candidates.flatMap((c) => (c.transaction ? [c.transaction.date] : []));
  const newestFirst = dates.length > 1 && dates[0]! > dates[dates.length - 1]!;
  const order = candidates
    .map((c, i) => ({ c, i }))
    .sort((a, b) => {
      const da = a.c.transaction?.date ?? '';
      const db = b.c.transaction?.date ?? '';
      if (da !== db) return da < db ? -1 : 1;
      return newestFirst ? b.i - a.i : a.i - b.i;
    });
  const verdicts = new Map<number, ImportRow>();
  // Each row decided on the state the rows before it left, folded in place.
  const state = new PortfolioDraft(options.state);
  const recorded = new Set(options.state.transactions.map((t) => t.id));
  const toRecord: Transaction[] = [];
  for (const { c, i } of order) {
    const { row, transaction } = c;
    if (c.error) {
      verdicts.set(i, c.error);
      continue;
    }
    if (!transaction) {
      const outcome = row.outcome as Exclude<ReadRow['outcome'], { kind: 'fields' }>;
      verdicts.set(i, {
        line: row.line,
        verdict: outcome.kind,
        column: outcome.column,
        message: outcome.message,
        transaction: null,
      });
      continue;
    }
    if (recorded.has(transaction.id)) {
      verdicts.set(i, { line: row.line, verdict: 'duplicate', column: null, message: 'recorded already', transaction });
      continue;
    }
    try {
      for (const event of decideTransaction(transaction, state.view(), SUBJECT)) state.apply(event);
      recorded.add(transaction.id);
      toRecord.push(transaction);
      verdicts.set(i, {
        line: row.line,
        verdict: 'new',
        column: c.note?.column ?? null,
        message: c.note?.message ?? null,
        transaction,
      });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      // `transactions[0].symbol …` is about a column; `transactions[0] would give …` is about the whole row.
      const aboutRow = error.message.startsWith(`${SUBJECT} `);
      const message = error.message.startsWith(SUBJECT) ? error.message.slice(SUBJECT.length + 1) : error.message;
      verdicts.set(i, refusal(row, aboutRow ? null : fieldOf(error.field), message));
    }
  }
  const rows = candidates.map((_, i) => verdicts.get(i)!);
  if (rows.some((row) => row.verdict === 'refused')) return { format, rows, toRecord: [] };
  const refused = commitRefusal(toRecord, options);
  if (refused === null) return { format, rows, toRecord };
  // The row the commit would refuse: judged with the file's other rows, as a back-dated trade is matched again.
  const at = rows.findIndex((row) => row.transaction?.id === refused.transaction.id);
  rows[at] = refusal(candidates[at]!.row, refused.field, refused.message);
  return { format, rows, toRecord: [] };
}

/**
 * What the commit would refuse of the rows judged new: they are decided together, as the import records them, so
 * a back-dated trade is matched again with the trades recorded after its date (which the row-by-row judgement,
 * on the lots as they stand, does not see). Null when the commit would take them all.
 */
function commitRefusal(
  toRecord: readonly Transaction[],
  options: PreviewOptions,
): { transaction: Transaction; field: keyof Columns | null; message: string } | null {
  if (toRecord.length === 0) return null;
  try {
    portfolioDecider.decide(
      { type: 'RecordTransactions', data: { transactions: toRecord, at: options.at } },
      options.state,
    );
    return null;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const index = /^transactions\[(\d+)\]/.exec(error.field ?? '')?.[1];
    const transaction = index === undefined ? undefined : toRecord[Number(index)];
    if (transaction === undefined) throw error;
    const message = error.message.replace(/^transactions\[\d+\][.\s]?/, '');
    return {
      transaction,
      field: /^transactions\[\d+\]\./.test(error.field ?? '') ? fieldOf(error.field) : null,
      message,
    };
  }
}

/** The transaction field a domain error names (`transactions[0].lots[1].quantity` → `lots`). */
function fieldOf(field: string | undefined): keyof Columns | null {
  const m = /^(?:transactions\[\d+\]|transaction)\.(\w+)/.exec(field ?? '');
  return (m?.[1] as keyof Columns | undefined) ?? null;
}

/** The money fields of a transaction, kept to the cent. */
const MONEY_FIELDS = ['price', 'fee', 'amount'] as const;

/** What a row's recording changed of what the file says, and the column it is about. */
interface RowNote {
  readonly column: string;
  readonly message: string;
}

/**
 * The fields of a row with its price, fee and amount kept to the cent, as the ledger keeps them, and a note
 * naming each column whose value had more decimals (`T. Price 69.3213 is kept as 69.32, to the cent`), so that
 * the preview says so rather than record another price than the file's without a word.
 */
function keptToCents(row: ReadRow): { readonly fields: Record<string, unknown>; readonly note: RowNote | null } {
  const fields = { ...(row.outcome as Extract<ReadRow['outcome'], { kind: 'fields' }>).fields };
  const changed: { column: string; text: string }[] = [];
  for (const field of MONEY_FIELDS) {
    const value = fields[field];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    const cents = roundToCents(value);
    if (cents === value) continue;
    fields[field] = cents;
    const column = row.columns[field] ?? field;
    changed.push({ column, text: `${column} ${String(value)} is kept as ${cents.toFixed(2)}` });
  }
  if (changed.length === 0) return { fields, note: null };
  return {
    fields,
    note: { column: changed[0]!.column, message: `${changed.map((c) => c.text).join('; ')}, to the cent` },
  };
}

function refusal(row: ReadRow, field: keyof Columns | null, message: string): ImportRow {
  const column = field === null ? null : (row.columns[field] ?? field);
  return { line: row.line, verdict: 'refused', column, message, transaction: null };
}

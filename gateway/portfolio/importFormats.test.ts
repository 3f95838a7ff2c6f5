import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fold } from '../../domain/decider.ts';
import { given } from '../../domain/testing/givenWhenThen.ts';
import {
  detectFormat,
  previewImport,
  MAX_IMPORT_ROWS,
  type CsvRecord,
  type ImportRow,
  type PreviewOptions,
} from '../../domain/portfolio/importFormats.ts';
import { portfolioDecider, type PortfolioEvent } from '../../domain/portfolio/portfolio.ts';
import { readCsv, writeCsv } from './csv.ts';

const AT = '2025-02-24T15:00:00.000Z';
const fixture = (name: string) =>
  readCsv(readFileSync(new URL(`../../data/portfolio-import/${name}`, import.meta.url), 'utf8'));
const records = (name: string) => fixture(name) as CsvRecord[];
const options: PreviewOptions = {
  format: 'auto',
  state: portfolioDecider.initialState,
  at: AT,
  known: (symbol) => ['AAPL', 'MSFT', 'KO', 'NVDA', 'JNJ', 'PG'].includes(symbol),
};
const brief = (rows: readonly ImportRow[]) =>
  rows.map((r) => {
    const t = r.transaction as Record<string, unknown> | null;
    return [r.line, r.verdict, r.column, t && [t.kind, t.symbol, t.date, t.quantity ?? t.amount, t.price, t.fee]];
  });

describe('transaction files (import formats)', () => {
  it('tells the three formats apart', () => {
    expect(detectFormat(records('generic.csv'))).to.equal('generic');
    expect(detectFormat(records('ibkr-activity-statement.csv'))).to.equal('ibkr');
    expect(detectFormat(records('schwab-transactions.csv'))).to.equal('schwab');
  });

  it('reads the generic format', () => {
    const preview = previewImport(fixture('generic.csv'), options);
    expect(preview.format).to.equal('generic');
    expect(brief(preview.rows)).to.deep.equal([
      [2, 'new', null, ['buy', 'MSFT', '2024-01-16', 12, 388.47, 1]],
      [3, 'new', null, ['buy', 'KO', '2024-02-01', 40, 60.12, 0]],
      [4, 'new', null, ['dividend', 'KO', '2024-03-15', 19.4, undefined, undefined]],
      [5, 'new', null, ['sell', 'MSFT', '2024-04-02', 5, 420.45, 1]],
      [6, 'new', null, ['fee', 'KO', '2024-05-20', 2.5, undefined, undefined]],
    ]);
    expect(preview.toRecord.map((t) => t.date)).to.deep.equal([
      '2024-01-16',
      '2024-02-01',
      '2024-03-15',
      '2024-04-02',
      '2024-05-20',
    ]);
  });

  it('reads the stock trades and dividends of an Interactive Brokers activity statement, prices kept to the cent, and says so', () => {
    const preview = previewImport(fixture('ibkr-activity-statement.csv'), options);
    expect(brief(preview.rows)).to.deep.equal([
      [9, 'new', null, ['buy', 'AAPL', '2024-01-10', 20, 185.14, 1]],
      [10, 'new', 'T. Price', ['buy', 'NVDA', '2024-02-05', 15, 69.32, 0.35]],
      [11, 'new', null, ['buy', 'AAPL', '2024-03-12', 10, 173.23, 1]],
      [13, 'skipped', 'Asset Category', null],
      [16, 'new', null, ['dividend', 'AAPL', '2024-05-16', 7.5, undefined, undefined]],
      [17, 'skipped', null, null],
    ]);
    // The file's T. Price 69.3213 is recorded as 69.32: the preview says so on the row, rather than nothing.
    expect(preview.rows[1]!.message).to.equal('T. Price 69.3213 is kept as 69.32, to the cent');
    expect(preview.rows.filter((r) => r.verdict === 'new' && r.message !== null)).to.have.length(1);
  });

  it('names every money column of a row kept to the cent, and keys the row by what is recorded', () => {
    const csv = 'date,kind,symbol,quantity,price,fee,amount\n2024-01-16,buy,MSFT,12,388.4712,1.005,\n';
    const preview = previewImport(readCsv(csv), options);
    expect(preview.rows[0]).to.deep.include({
      verdict: 'new',
      column: 'price',
      message: 'price 388.4712 is kept as 388.47; fee 1.005 is kept as 1.01, to the cent',
    });
    // The same trade written to the cent is the same transaction: importing it after the first adds nothing.
    const rounded = previewImport(readCsv(csv.replace('388.4712', '388.47').replace('1.005', '1.01')), options);
    expect(rounded.toRecord.map((t) => t.id)).to.deep.equal(preview.toRecord.map((t) => t.id));
    expect(rounded.rows[0]!.message).to.equal(null);
  });

  it('reads a Schwab transaction history written newest first, recording it oldest first', () => {
    const preview = previewImport(fixture('schwab-transactions.csv'), options);
    expect(brief(preview.rows)).to.deep.equal([
      [2, 'new', null, ['sell', 'JNJ', '2024-06-03', 4, 147.1, 0.02]],
      [3, 'new', null, ['dividend', 'JNJ', '2024-04-09', 11.9, undefined, undefined]],
      [4, 'new', null, ['buy', 'PG', '2024-03-01', 6, 159.02, 0]],
      [5, 'skipped', 'Action', null],
      [6, 'new', null, ['buy', 'JNJ', '2024-02-12', 10, 158.6, 0]],
      [7, 'skipped', null, null],
    ]);
    expect(preview.toRecord.map((t) => [t.kind, t.symbol])).to.deep.equal([
      ['buy', 'JNJ'],
      ['buy', 'PG'],
      ['dividend', 'JNJ'],
      ['sell', 'JNJ'],
    ]);
  });

  it('marks every row of a file recorded already as a duplicate, so importing it again adds nothing', () => {
    const first = previewImport(fixture('generic.csv'), options);
    const events: PortfolioEvent[] = portfolioDecider.decide(
      { type: 'RecordTransactions', data: { transactions: first.toRecord, at: AT } },
      portfolioDecider.initialState,
    );
    const state = fold(portfolioDecider, events);
    const again = previewImport(fixture('generic.csv'), { ...options, state });
    expect(again.rows.map((r) => r.verdict)).to.deep.equal(Array(5).fill('duplicate'));
    expect(again.toRecord).to.deep.equal([]);
    given(portfolioDecider, events)
      .when({ type: 'RecordTransactions', data: { transactions: first.toRecord, at: AT } })
      .thenNothing();
  });

  it('says a file in UTF-16 is to be saved in UTF-8, rather than that it lacks its columns', () => {
    const utf16 = Buffer.from('\ufeffdate,kind,symbol,quantity,price\n2024-01-02,buy,KO,1,60\n', 'utf16le').toString(
      'utf8',
    );
    const [row] = previewImport(readCsv(utf16), options).rows;
    expect(row!.message).to.match(/^the file is not CSV: it is not UTF-8 text \(it looks like UTF-16/);
  });

  it('skips a row of commas alone, as a spreadsheet leaves after the data, like an empty line', () => {
    const csv = 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,1,60\n,,,,\n , , ,,\n';
    const preview = previewImport(readCsv(csv), options);
    expect(preview.rows.map((r) => [r.line, r.verdict])).to.deep.equal([[2, 'new']]);
  });

  it('says in words where a quote breaks the file, and how to write it', () => {
    const csv = 'date,kind,symbol,quantity,price\n2024-01-02,buy,=HYPERLINK("x"),1,60\n';
    const [row] = previewImport(readCsv(csv), options).rows;
    expect(row!.message).to.equal(
      'the file is not CSV: a double quote inside a cell that does not start with one: put the whole cell in ' +
        'double quotes and double each quote inside it ("=HYPERLINK(""x"")")',
    );
    const header = previewImport(readCsv('date,kind,symbol,price\n2024-01-02,buy,KO,60\n'), options).rows;
    expect(header.map((r) => r.message)).to.deep.equal([
      'the header has no column quantity (buy and sell rows need it)',
    ]);
  });

  it('keys two identical rows of one file as two transactions', () => {
    const csv = 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,1,60\n2024-01-02,buy,KO,1,60\n';
    const preview = previewImport(readCsv(csv), options);
    expect(preview.toRecord).to.have.length(2);
    expect(new Set(preview.toRecord.map((t) => t.id)).size).to.equal(2);
  });

  const refusals: [string, string, number, string | null][] = [
    ['a price that is not a number', 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,1,abc\n', 2, 'price'],
    ['a quantity with a decimal comma', 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,"1,5",60\n', 2, 'quantity'],
    ['a price with a decimal comma', 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,1,"60,25"\n', 2, 'price'],
    ['a missing quantity', 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,,60\n', 2, 'quantity'],
    ['a kind it does not know', 'date,kind,symbol,quantity,price\n2024-01-02,gift,KO,1,60\n', 2, 'kind'],
    ['a date that is not real', 'date,kind,symbol,quantity,price\n2024-02-30,buy,KO,1,60\n', 2, 'date'],
    ['a date in the future', 'date,kind,symbol,quantity,price\n2030-01-02,buy,KO,1,60\n', 2, 'date'],
    ['an unknown symbol', 'date,kind,symbol,quantity,price\n2024-01-02,buy,ZZZZ,1,60\n', 2, 'symbol'],
    ['a dividend of a symbol not held', 'date,kind,symbol,amount\n2024-01-02,dividend,KO,5\n', 2, 'symbol'],
    ['a header without a symbol column', 'date,kind,ticker\n2024-01-02,buy,KO\n', 1, 'symbol'],
    ['an unclosed quote', 'date,kind,symbol,quantity,price\n2024-01-02,buy,"KO,1,60\n', 2, 'symbol'],
    ['a quote inside a cell', 'date,kind,symbol,quantity,price\n2024-01-02,buy,=HYPERLINK("x"),1,60\n', 2, 'symbol'],
    ['a header without the quantity buy rows need', 'date,kind,symbol,price\n2024-01-02,buy,KO,60\n', 1, 'quantity'],
    [
      'a Schwab date February 30',
      '"Date","Action","Symbol","Description","Quantity","Price","Fees & Comm","Amount"\n"02/30/2024","Buy","KO","","1","60","",""\n',
      2,
      'Date',
    ],
    [
      'a Schwab price that is not money',
      '"Date","Action","Symbol","Description","Quantity","Price","Fees & Comm","Amount"\n"01/02/2024","Buy","KO","","1","sixty","",""\n',
      2,
      'Price',
    ],
  ];
  for (const [what, csv, line, column] of refusals) {
    it(`refuses ${what}, naming line ${line} and column ${String(column)}, and records nothing`, () => {
      const preview = previewImport(readCsv(csv), options);
      const refused = preview.rows.find((r) => r.verdict === 'refused');
      expect(refused, JSON.stringify(preview.rows)).to.include({ line, column });
      expect(refused?.message).to.be.a('string');
      expect(preview.toRecord).to.deep.equal([]);
    });
  }

  it('reads a comma only as a thousands separator, and says to use a point for decimals', () => {
    const csv = 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,"1,500","$1,234.50"\n2024-01-03,buy,KO,"1,5",60\n';
    const preview = previewImport(readCsv(csv), options);
    expect(brief(preview.rows)).to.deep.equal([
      [2, 'new', null, ['buy', 'KO', '2024-01-02', 1500, 1234.5, 0]],
      [3, 'refused', 'quantity', null],
    ]);
    expect(preview.rows[1]!.message).to.equal('quantity "1,5" is not a number; use a point for decimals');
  });

  it('says a file whose columns are separated by semicolons or tabs should be saved with commas', () => {
    for (const [separator, words] of [
      [';', 'semicolons'],
      ['\t', 'tabs'],
    ] as const) {
      const csv = ['date', 'kind', 'symbol', 'quantity', 'price'].join(separator) + '\n2024-01-02;buy;KO;10;60\n';
      const preview = previewImport(readCsv(csv), options);
      expect(preview.rows.map((r) => [r.verdict, r.column, r.message])).to.deep.equal([
        [
          'refused',
          'date',
          `the header has no column date (its columns are separated by ${words}: save the file with commas)`,
        ],
      ]);
    }
    // A header of commas that lacks a column says only that.
    const missing = previewImport(readCsv('day,kind,symbol\n2024-01-02,buy,KO\n'), options);
    expect(missing.rows[0]!.message).to.equal('the header has no column date');
  });

  it('reads back a cell the export quoted against formulas as it was', () => {
    const cells = ['=HYPERLINK("x")', '@SUM(1)', '+1', '-1', "'quoted", 'plain'];
    const read = readCsv(
      writeCsv(
        ['id'],
        cells.map((cell) => [cell]),
      ),
    ) as CsvRecord[];
    expect(read.slice(1).map((r) => r.cells[0])).to.deep.equal(cells);
  });

  it('refuses a file without the header or sections of the format chosen, naming the file', () => {
    expect(() => previewImport(fixture('generic.csv'), { ...options, format: 'schwab' }))
      .to.throw(/^csv: no Schwab header/)
      .with.property('code', 'wrong_format');
    expect(() => previewImport(fixture('schwab-transactions.csv'), { ...options, format: 'ibkr' }))
      .to.throw(/^csv: no Interactive Brokers Trades or Dividends section/)
      .with.property('field', 'csv');
  });

  it(`refuses a file of more than ${MAX_IMPORT_ROWS} rows`, () => {
    const csv = `date,kind,symbol,quantity,price\n${'2024-01-02,buy,KO,1,60\n'.repeat(MAX_IMPORT_ROWS + 1)}`;
    const preview = previewImport(readCsv(csv), options);
    expect(preview.rows).to.have.length(1);
    expect(preview.rows[0]).to.include({ verdict: 'refused', line: MAX_IMPORT_ROWS + 2 });
  });
});

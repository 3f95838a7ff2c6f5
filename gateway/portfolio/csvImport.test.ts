import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { useTestGateway, type TestGateway } from '../testing/harness.ts';
import type { AnswerOf } from '../../domain/contract/route.ts';
import { portfolioApi } from '../../domain/contract/portfolio.ts';

type Preview = AnswerOf<typeof portfolioApi.postPortfolioImportPreview>;

const fixture = (name: string) => readFileSync(new URL(`../../data/portfolio-import/${name}`, import.meta.url), 'utf8');
const HEADER = 'date,kind,symbol,quantity,price';

describe('transaction files through the import routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  const eventCount = (username: string) => gw.eventCount(`portfolio-${username}`);

  describe('numbers', function () {
    it('reads a comma that groups thousands, with or without a currency sign', async function () {
      const user = await gw.user();
      const csv = `${HEADER}\n2024-01-02,buy,KO,"1,500","$1,234.50"\n2024-01-03,buy,KO,"1,000,000.5",60\n`;
      const res = await user.post('/api/portfolio/import/preview', { csv });
      expect(res.status).to.equal(200, res.text);
      const rows = (res.body as Preview).rows;
      const read = rows.map(
        (r) => [r.verdict, r.transaction && 'price' in r.transaction ? r.transaction : null] as const,
      );
      expect(read.map(([verdict, t]) => [verdict, t?.quantity, t?.price])).to.deep.equal([
        ['new', 1500, 1234.5],
        ['new', 1_000_000.5, 60],
      ]);
    });

    const decimalCommas: [string, string, string][] = [
      ['a quantity', `${HEADER}\n2024-01-02,buy,AAPL,"1,5",150\n`, 'quantity'],
      ['a price', `${HEADER}\n2024-01-02,buy,AAPL,1,"150,25"\n`, 'price'],
      ['a price of four decimals', `${HEADER}\n2024-01-02,buy,AAPL,1,"150,2500"\n`, 'price'],
      ['a grouping gone wrong', `${HEADER}\n2024-01-02,buy,AAPL,"12,34.5",150\n`, 'quantity'],
      [
        'a Schwab price',
        '"Date","Action","Symbol","Description","Quantity","Price","Fees & Comm","Amount"\n' +
          '"01/02/2024","Buy","KO","","1","$60,12","",""\n',
        'Price',
      ],
    ];
    for (const [what, csv, column] of decimalCommas) {
      it(`refuses a decimal comma in ${what}, naming line 2 and column ${column}`, async function () {
        const user = await gw.user();
        const preview = await user.post('/api/portfolio/import/preview', { csv });
        expect(preview.status).to.equal(200, preview.text);
        const row = (preview.body as Preview).rows[0]!;
        expect([row.line, row.verdict, row.column]).to.deep.equal([2, 'refused', column]);
        expect(row.message).to.match(/ is not a number; use a point for decimals$/);
        const res = await user.post('/api/portfolio/import', { csv });
        expect(res.status).to.equal(400, res.text);
        expect((res.body as { message: string }).message).to.match(
          new RegExp(`^body\\.csv: line 2, column ${column}: ${column} ".*" is not a number; use a point`),
        );
        expect(await eventCount(user.username)).to.equal(0);
      });
    }
  });

  it('imports its own export again as duplicates only, formula-like ids included', async function () {
    const user = await gw.user();
    const ids = ['=HYPERLINK("x")', '@SUM(1)', '+1', '-1'];
    const csv = `id,${HEADER}\n${ids
      .map((id, i) => `"${id.replaceAll('"', '""')}",2024-01-0${i + 2},buy,KO,1,60`)
      .join('\n')}\n`;
    const first = await user.post('/api/portfolio/import', { csv });
    expect(first.status).to.equal(200, first.text);
    expect((first.body as { counts: object }).counts).to.deep.equal({ new: 4, duplicate: 0, skipped: 0, refused: 0 });
    const exported = await user.get('/api/portfolio/export/transactions.csv');
    const cells = parse<Record<string, string>>(exported.text, { columns: true }).map((r) => r.id);
    expect(cells).to.deep.equal(ids.map((id) => `'${id}`));
    const preview = await user.post('/api/portfolio/import/preview', { csv: exported.text });
    expect((preview.body as Preview).rows.map((r) => [r.verdict, r.transaction?.id])).to.deep.equal(
      ids.map((id) => ['duplicate', id]),
    );
    const events = await eventCount(user.username);
    const again = await user.post('/api/portfolio/import', { csv: exported.text });
    expect((again.body as { counts: object }).counts).to.deep.equal({ new: 0, duplicate: 4, skipped: 0, refused: 0 });
    expect(await eventCount(user.username)).to.equal(events);
  });

  describe('a format chosen that is not the file', function () {
    const wrong: [string, string, string, RegExp][] = [
      ['a generic file as Schwab', 'schwab', 'generic.csv', /^body\.csv: no Schwab header \(Date,Action,Symbol,…\) /],
      [
        'a Schwab file as Interactive Brokers',
        'ibkr',
        'schwab-transactions.csv',
        /^body\.csv: no Interactive Brokers Trades or Dividends section \(Trades,Header,…\) /,
      ],
      [
        'an Interactive Brokers statement as Schwab',
        'schwab',
        'ibkr-activity-statement.csv',
        /^body\.csv: no Schwab header/,
      ],
    ];
    for (const [what, format, file, message] of wrong) {
      it(`refuses ${what} with 400 naming body.csv, on preview and import, and records nothing`, async function () {
        const user = await gw.user();
        for (const path of ['/api/portfolio/import/preview', '/api/portfolio/import']) {
          const res = await user.post(path, { format, csv: fixture(file) });
          expect(res.status).to.equal(400, `${path}: ${res.text}`);
          const text = (res.body as { message: string }).message;
          expect(text).to.match(message);
          expect(text).to.match(/; is it another broker's file\?$/);
        }
        expect(await eventCount(user.username)).to.equal(0);
      });
    }

    it('still reads a statement whose sections hold no rows as no rows', async function () {
      const user = await gw.user();
      const csv = 'Trades,Header,DataDiscriminator,Asset Category,Symbol,Date/Time,Quantity,T. Price,Comm/Fee\n';
      const res = await user.post('/api/portfolio/import/preview', { format: 'ibkr', csv });
      expect(res.status).to.equal(200, res.text);
      expect((res.body as Preview).rows).to.deep.equal([]);
    });
  });

  it('refuses the row that would open one lot too many as a whole row, in plain words', async function () {
    const user = await gw.user();
    const csv = `${HEADER}\n${'2024-01-02,buy,AAPL,1,150\n'.repeat(1005)}`;
    const preview = await user.post('/api/portfolio/import/preview', { csv });
    expect(preview.status).to.equal(200, preview.text);
    const refused = (preview.body as Preview).rows.filter((r) => r.verdict === 'refused');
    expect([refused[0]?.line, refused[0]?.column, refused[0]?.message]).to.deep.equal([
      1002,
      null,
      'would give AAPL more than 1000 open lots',
    ]);
    const res = await user.post('/api/portfolio/import', { csv });
    expect(res.status).to.equal(400, res.text);
    expect((res.body as { message: string }).message).to.equal(
      'body.csv: line 1002: would give AAPL more than 1000 open lots',
    );
    expect(await eventCount(user.username)).to.equal(0);
  });
});

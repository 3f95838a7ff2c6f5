import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import {
  useTestGateway,
  TEST_MARKET_DATE,
  type TestClient,
  type TestGateway,
  type TestInput,
} from '../testing/harness.ts';
import type { AnswerOf } from '../../domain/contract/route.ts';
import { portfolioApi } from '../../domain/contract/portfolio.ts';
import type { Quote } from '../../domain/market/types.ts';

interface Ledger {
  readonly symbols: string[];
  readonly lots: Record<string, { id: string; date: string; close: number; position: number }[]>;
  readonly transactions: { kind: string; id: string; symbol: string; date: string; quantity?: number }[];
  readonly closings: { lotId: string; quantity: number; gainCents: number }[];
}
type Preview = AnswerOf<typeof portfolioApi.postPortfolioImportPreview>;

const fixture = (name: string) => readFileSync(new URL(`../../data/portfolio-import/${name}`, import.meta.url), 'utf8');
const buy = (symbol: string, date: string, quantity: number, price: number, fee = 0) => ({
  kind: 'buy',
  symbol,
  date,
  quantity,
  price,
  fee,
});

describe('portfolio transaction routes', function () {
  let gw: TestGateway;
  useTestGateway((started) => {
    gw = started;
  });

  const eventCount = (username: string) => gw.eventCount(`portfolio-${username}`);

  async function record(user: TestClient, body: unknown): Promise<Ledger> {
    const res = await user.post('/api/portfolio/transactions', body);
    expect(res.status).to.equal(200, res.text);
    return res.body as Ledger;
  }

  describe('transactions', function () {
    it('sells first in, first out and keeps the rest of the lot open, with the realized gain', async function () {
      const user = await gw.user();
      await record(user, buy('AAPL', '2024-01-02', 10, 100, 1));
      await record(user, buy('aapl', '2024-01-03', 5, 120));
      const ledger = await record(user, { kind: 'sell', symbol: 'AAPL', date: '2024-01-04', quantity: 12, price: 130 });
      expect(ledger.closings.map((c) => [c.quantity, c.gainCents])).to.deep.equal([
        [10, 30_000],
        [2, 2_000],
      ]);
      expect(ledger.lots.AAPL!.map((l) => [l.date, l.close, l.position])).to.deep.equal([['2024-01-03', 120, 3]]);
      const read = (await user.get('/api/portfolio/ledger')).body as Ledger;
      expect(read.transactions.map((t) => t.kind)).to.deep.equal(['buy', 'buy', 'sell']);
      const lots = await user.get('/personalize/userPositions/AAPL');
      expect((lots.body as { positions: { position: number }[] }).positions.map((p) => p.position)).to.deep.equal([3]);
    });

    it('says in its answer when a sale of more than is held opens a short, and only then', async function () {
      const user = await gw.user();
      const bought = await user.post('/api/portfolio/transactions', buy('PFE', '2024-01-02', 10, 30));
      expect(bought.body).to.not.have.property('opensShort');
      const within = await user.post('/api/portfolio/transactions', {
        kind: 'sell',
        symbol: 'PFE',
        date: '2024-01-03',
        quantity: 4,
        price: 31,
      });
      expect(within.status).to.equal(200, within.text);
      expect(within.body).to.not.have.property('opensShort');
      const beyond = await user.post('/api/portfolio/transactions', {
        kind: 'sell',
        symbol: 'pfe',
        date: '2024-01-04',
        quantity: 15,
        price: 32,
      });
      expect(beyond.status).to.equal(200, beyond.text);
      const answer = beyond.body as Ledger & { opensShort?: unknown };
      // 6 long shares were left: 15 sold closes them and opens a short of 9.
      expect(answer.opensShort).to.deep.equal({ sold: 15, held: 6, short: 9 });
      expect(answer.lots.PFE!.map((l) => l.position)).to.deep.equal([-9]);
      expect((await user.get('/api/portfolio/ledger')).body).to.not.have.property('opensShort');
      // Selling more while short opens a further short of all it sells.
      const more = await record(user, { kind: 'sell', symbol: 'PFE', date: '2024-01-05', quantity: 2, price: 33 });
      expect((more as Ledger & { opensShort?: unknown }).opensShort).to.deep.equal({ sold: 2, held: 0, short: 2 });
    });

    it('sells the lots named, and records dividends and fees', async function () {
      const user = await gw.user();
      await record(user, buy('MSFT', '2024-01-02', 10, 100));
      const second = await record(user, buy('MSFT', '2024-01-03', 10, 200));
      const lot = second.lots.MSFT![1]!;
      const sold = await record(user, {
        kind: 'sell',
        symbol: 'MSFT',
        date: '2024-01-04',
        quantity: 4,
        price: 150,
        lots: [{ id: lot.id, quantity: 4 }],
      });
      expect(sold.closings.map((c) => [c.lotId, c.gainCents])).to.deep.equal([[lot.id, -20_000]]);
      await record(user, { kind: 'dividend', symbol: 'MSFT', date: '2024-01-05', amount: 7.5 });
      const ledger = await record(user, { kind: 'fee', symbol: 'MSFT', date: '2024-01-05', amount: 1.25 });
      expect(ledger.transactions.map((t) => t.kind)).to.deep.equal(['buy', 'buy', 'sell', 'dividend', 'fee']);
    });

    it('refuses with 409 to remove by hand a lot partly sold, and keeps its lot and trades; an untouched one goes with its buy', async function () {
      const user = await gw.user();
      await record(user, buy('KO', '2024-01-02', 10, 60));
      const opened = await record(user, buy('KO', '2024-01-03', 2, 61));
      const [first, second] = opened.lots.KO!;
      await record(user, { kind: 'sell', symbol: 'KO', date: '2024-01-04', quantity: 4, price: 62 });
      const before = await eventCount(user.username);
      const refused = await user.post('/personalize/deluserPositions/KO', { id: first!.id });
      expect(refused.status).to.equal(409, refused.text);
      expect(refused.body).to.include({
        error: 'conflict',
        message:
          'body.id: 4 shares of the 2024-01-02 lot of KO were sold, the last on 2024-01-04; record a sale of the 6 ' +
          'left to close it, or remove KO with its transactions',
      });
      expect(await eventCount(user.username)).to.equal(before);
      const removed = await user.post('/personalize/deluserPositions/KO', { id: second!.id });
      expect(removed.status).to.equal(200, removed.text);
      const ledger = (await user.get('/api/portfolio/ledger')).body as Ledger;
      expect(ledger.lots.KO!.map((l) => [l.date, l.position])).to.deep.equal([['2024-01-02', 6]]);
      expect(ledger.transactions.map((t) => [t.kind, t.date])).to.deep.equal([
        ['buy', '2024-01-02'],
        ['sell', '2024-01-04'],
      ]);
    });

    it('folds lots added through the lot routes in as buys that sell like any other, shorts included', async function () {
      const user = await gw.user();
      await user.post('/personalize/userPositions/IBM', [
        { date: '2024-01-02', close: 100, position: 5 },
        { date: '2024-01-02', close: 90, position: -2 },
      ]);
      const ledger = await record(user, buy('IBM', '2024-01-03', 3, 80));
      // The buy covers the short lot first: (80 − 90) × −2 = +20.00; 1 share opens a long lot.
      expect(ledger.closings.map((c) => [c.quantity, c.gainCents])).to.deep.equal([[-2, 2_000]]);
      expect(ledger.lots.IBM!.map((l) => l.position)).to.deep.equal([5, 1]);
      expect(ledger.transactions.map((t) => t.kind)).to.deep.equal(['buy', 'sell', 'buy']);
    });

    it('lists the transactions by trade date, oldest first, one date in the order recorded', async function () {
      const user = await gw.user();
      const first = await record(user, buy('KO', '2024-03-04', 2, 60));
      await record(user, buy('KO', '2024-01-02', 1, 58));
      const answered = await record(user, { kind: 'dividend', symbol: 'KO', date: '2024-03-04', amount: 0.97 });
      const imported = await user.post('/api/portfolio/import', {
        csv: 'date,kind,symbol,quantity,price\n2024-02-01,buy,KO,3,59\n',
      });
      expect(imported.status).to.equal(200, imported.text);
      const dated = (ledger: Ledger) => ledger.transactions.map((t) => [t.date, t.kind]);
      expect(dated(answered)).to.deep.equal([
        ['2024-01-02', 'buy'],
        ['2024-03-04', 'buy'],
        ['2024-03-04', 'dividend'],
      ]);
      const read = (await user.get('/api/portfolio/ledger')).body as Ledger;
      expect(dated(read)).to.deep.equal([
        ['2024-01-02', 'buy'],
        ['2024-02-01', 'buy'],
        ['2024-03-04', 'buy'],
        ['2024-03-04', 'dividend'],
      ]);
      expect(read.transactions[2]!.id).to.equal(first.transactions[0]!.id);
    });

    it('answers a repeated read of the ledger as it was sent until a trade, an import or a removal changes it', async function () {
      const user = await gw.user();
      await record(user, buy('AAPL', '2024-01-02', 10, 100));
      const first = await user.get('/api/portfolio/ledger');
      const again = await user.get('/api/portfolio/ledger');
      expect(again.text).to.equal(first.text);
      expect(again.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
      expect(again.headers.get('x-read-model-position')).to.equal(first.headers.get('x-read-model-position'));
      const symbols = async () =>
        ((await user.get('/api/portfolio/ledger')).body as Ledger).transactions.map((t) => t.symbol);
      await record(user, buy('MSFT', '2024-01-03', 2, 300));
      expect(await symbols()).to.deep.equal(['AAPL', 'MSFT']);
      const imported = await user.post('/api/portfolio/import', {
        csv: 'date,kind,symbol,quantity,price\n2024-01-04,buy,KO,3,59\n',
      });
      expect(imported.status).to.equal(200, imported.text);
      expect(await symbols()).to.deep.equal(['AAPL', 'MSFT', 'KO']);
      expect((await user.post('/personalize/delstockfromportfolio/MSFT', {})).status).to.equal(200);
      expect(await symbols()).to.deep.equal(['AAPL', 'KO']);
      // Another user's ledger is their own.
      const other = await gw.user();
      expect(((await other.get('/api/portfolio/ledger')).body as Ledger).transactions).to.deep.equal([]);
    });

    it('matches the trades again oldest first when one comes dated before trades recorded already', async function () {
      const user = await gw.user();
      // The sale recorded first opened a short; the buy dated before it is the lot it sold.
      await record(user, { kind: 'sell', symbol: 'JNJ', date: '2024-01-05', quantity: 10, price: 160 });
      const ledger = await record(user, buy('JNJ', '2024-01-02', 10, 150));
      expect(ledger.closings.map((c) => [c.quantity, c.gainCents])).to.deep.equal([[10, 10_000]]);
      expect(ledger.lots.JNJ ?? []).to.deep.equal([]);
      const positions = await user.get('/personalize/userPositions/JNJ');
      expect((positions.body as { positions: unknown[] }).positions).to.deep.equal([]);
      // Exported and imported by another user, the same trades give the same realized gain.
      const csv = (await user.get('/api/portfolio/export/transactions.csv')).text;
      const other = await gw.user();
      expect((await other.post('/api/portfolio/import', { csv })).status).to.equal(200);
      const again = (await other.get('/api/portfolio/ledger')).body as Ledger;
      expect(again.closings.map((c) => [c.quantity, c.gainCents])).to.deep.equal([[10, 10_000]]);
    });

    it('refuses a trade dated before a sale whose named lot it would take, naming its date', async function () {
      const user = await gw.user();
      const bought = await record(user, buy('PFE', '2024-01-02', 10, 30));
      const lot = bought.lots.PFE![0]!;
      await record(user, {
        kind: 'sell',
        symbol: 'PFE',
        date: '2024-01-10',
        quantity: 10,
        price: 31,
        lots: [{ id: lot.id, quantity: 10 }],
      });
      const before = await eventCount(user.username);
      const res = await user.post('/api/portfolio/transactions', {
        kind: 'sell',
        symbol: 'PFE',
        date: '2024-01-05',
        quantity: 5,
        price: 29,
      });
      expect(res.status).to.be.oneOf([400, 409], res.text);
      expect((res.body as { message: string }).message).to.match(/^body\.date 2024-01-05 comes before a trade of PFE/);
      expect(await eventCount(user.username)).to.equal(before);
    });

    const refusals: [string, TestInput, number, string][] = [
      ['an unknown kind', { body: { kind: 'gift', symbol: 'AAPL', date: '2024-01-02' } }, 400, 'body.kind'],
      [
        'a missing price',
        { body: { kind: 'buy', symbol: 'AAPL', date: '2024-01-02', quantity: 1 } },
        400,
        'body.price',
      ],
      ['a date that is not real', { body: buy('AAPL', '2024-02-30', 1, 1) }, 400, 'body.date'],
      ['a date in the future', { body: buy('AAPL', '2099-01-02', 1, 1) }, 400, 'body.date'],
      ['a quantity of 0', { body: buy('AAPL', '2024-01-02', 0, 1) }, 400, 'body.quantity'],
      ['an unknown symbol', { body: buy('ZZZZZZ', '2024-01-02', 1, 1) }, 400, 'body.symbol'],
      [
        'a dividend of a symbol not held',
        { body: { kind: 'dividend', symbol: 'KO', date: '2024-01-02', amount: 1 } },
        400,
        'body.symbol',
      ],
      [
        'a lot named that is not held',
        {
          body: {
            kind: 'sell',
            symbol: 'AAPL',
            date: '2024-01-02',
            quantity: 1,
            price: 1,
            lots: [{ id: 'x', quantity: 1 }],
          },
        },
        404,
        'body.lots[0].id',
      ],
      ['a body that is a list', { body: [] }, 400, 'body'],
      ['invalid JSON', { raw: '{"kind":', headers: { 'content-type': 'application/json' } }, 400, 'body'],
    ];
    for (const [what, input, status, field] of refusals) {
      it(`refuses ${what} with ${status} naming ${field}, appending nothing`, async function () {
        const user = await gw.user();
        const before = await eventCount(user.username);
        const res = await user.postInput('/api/portfolio/transactions', input);
        expect(res.status).to.equal(status, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(`${field}:`) || message.startsWith(`${field} `)).to.equal(true, message);
        expect(await eventCount(user.username)).to.equal(before);
      });
    }

    it('asks for a session', async function () {
      const res = await gw.client().post('/api/portfolio/transactions', buy('AAPL', '2024-01-02', 1, 1));
      expect(res.status).to.equal(401);
    });
  });

  describe('import', function () {
    it('previews each row of a broker file with its verdict and records nothing', async function () {
      const user = await gw.user();
      const res = await user.post('/api/portfolio/import/preview', { csv: fixture('ibkr-activity-statement.csv') });
      expect(res.status).to.equal(200, res.text);
      const preview = res.body as Preview;
      expect(preview.format).to.equal('ibkr');
      expect(preview.counts).to.deep.equal({ new: 4, duplicate: 0, skipped: 2, refused: 0 });
      expect(await eventCount(user.username)).to.equal(0);
    });

    it('commits every new row, and adds nothing when the same file comes again', async function () {
      const user = await gw.user();
      const csv = fixture('schwab-transactions.csv');
      const first = await user.post('/api/portfolio/import', { format: 'schwab', csv });
      expect(first.status).to.equal(200, first.text);
      expect((first.body as { counts: object }).counts).to.deep.equal({ new: 4, duplicate: 0, skipped: 2, refused: 0 });
      const events = await eventCount(user.username);
      const ledger = (await user.get('/api/portfolio/ledger')).body as Ledger;
      expect(ledger.transactions.map((t) => [t.kind, t.symbol, t.date])).to.deep.equal([
        ['buy', 'JNJ', '2024-02-12'],
        ['buy', 'PG', '2024-03-01'],
        ['dividend', 'JNJ', '2024-04-09'],
        ['sell', 'JNJ', '2024-06-03'],
      ]);
      const again = await user.post('/api/portfolio/import', { csv });
      expect((again.body as { counts: object }).counts).to.deep.equal({ new: 0, duplicate: 4, skipped: 2, refused: 0 });
      expect(await eventCount(user.username)).to.equal(events);
    });

    it('previews a back-dated row as the commit judges it, matched again with the trades after its date', async function () {
      const user = await gw.user();
      const bought = await record(user, buy('PFE', '2024-01-02', 10, 30));
      const lot = bought.lots.PFE![0]!;
      await record(user, {
        kind: 'sell',
        symbol: 'PFE',
        date: '2024-01-10',
        quantity: 10,
        price: 31,
        lots: [{ id: lot.id, quantity: 10 }],
      });
      // On the lots as they stand (none open) this sale would open a short; matched again, it takes 5 of the lot
      // the recorded sale named whole.
      const csv = 'date,kind,symbol,quantity,price\n2024-01-03,buy,KO,1,60\n2024-01-05,sell,PFE,5,29\n';
      const preview = (await user.post('/api/portfolio/import/preview', { csv })).body as Preview;
      expect(preview.rows.map((r) => [r.line, r.verdict, r.column])).to.deep.equal([
        [2, 'new', null],
        [3, 'refused', 'date'],
      ]);
      expect(preview.rows[1]!.message).to.match(/^date 2024-01-05 comes before a trade of PFE/);
      const res = await user.post('/api/portfolio/import', { csv });
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^body\.csv: line 3, column date: /);
    });

    it('refuses a file with a wrong row as a whole, naming its line and column', async function () {
      const user = await gw.user();
      const csv = 'date,kind,symbol,quantity,price\n2024-01-02,buy,KO,1,60\n2024-01-03,buy,KO,1,sixty\n';
      const preview = (await user.post('/api/portfolio/import/preview', { csv })).body as Preview;
      expect(preview.rows.map((r) => [r.line, r.verdict, r.column])).to.deep.equal([
        [2, 'new', null],
        [3, 'refused', 'price'],
      ]);
      const res = await user.post('/api/portfolio/import', { csv });
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^body\.csv: line 3, column price: /);
      expect(await eventCount(user.username)).to.equal(0);
    });

    const refusals: [string, TestInput, number, string][] = [
      ['a missing file', { body: {} }, 400, 'body.csv'],
      ['an empty file', { body: { csv: '' } }, 400, 'body.csv'],
      ['a file that is not text', { body: { csv: 42 } }, 400, 'body.csv'],
      ['an unknown format', { body: { format: 'excel', csv: 'a' } }, 400, 'body.format'],
      ['a file over the limit', { body: { csv: 'x'.repeat(1024 * 1024 + 1) } }, 400, 'body.csv'],
      ['a body over the limit', { raw: JSON.stringify({ csv: '"'.repeat(1_700_000) }) }, 413, 'body'],
    ];
    for (const [what, input, status, field] of refusals) {
      it(`refuses ${what} with ${status} naming ${field}`, async function () {
        const user = await gw.user();
        for (const path of ['/api/portfolio/import/preview', '/api/portfolio/import']) {
          const res = await user.postInput(path, input);
          expect(res.status).to.equal(status, res.text);
          expect((res.body as { message: string }).message.startsWith(field)).to.equal(true, res.text);
        }
        expect(await eventCount(user.username)).to.equal(0);
      });
    }
  });

  describe('export', function () {
    it('writes the transactions in the generic format, which imports again as duplicates only', async function () {
      const user = await gw.user();
      await user.post('/api/portfolio/import', { csv: fixture('generic.csv') });
      const res = await user.get('/api/portfolio/export/transactions.csv');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/csv/);
      expect(res.headers.get('content-disposition')).to.equal('attachment; filename="transactions.csv"');
      const rows = parse<Record<string, string>>(res.text, { columns: true });
      expect(rows.map((r) => [r.date, r.kind, r.symbol, r.quantity, r.price, r.fee, r.amount])).to.deep.equal([
        ['2024-01-16', 'buy', 'MSFT', '12', '388.47', '1', ''],
        ['2024-02-01', 'buy', 'KO', '40', '60.12', '0', ''],
        ['2024-03-15', 'dividend', 'KO', '', '', '', '19.4'],
        ['2024-04-02', 'sell', 'MSFT', '5', '420.45', '1', ''],
        ['2024-05-20', 'fee', 'KO', '', '', '', '2.5'],
      ]);
      const again = await user.post('/api/portfolio/import/preview', { csv: res.text });
      expect((again.body as Preview).counts).to.deep.equal({ new: 0, duplicate: 5, skipped: 0, refused: 0 });
    });

    it('writes the lots a sale names, so the file imports elsewhere with the same realized gain', async function () {
      const user = await gw.user();
      await record(user, buy('XOM', '2024-01-02', 10, 100));
      const second = await record(user, buy('XOM', '2024-01-03', 10, 110));
      const newer = second.lots.XOM![1]!;
      const sold = await record(user, {
        kind: 'sell',
        symbol: 'XOM',
        date: '2024-01-04',
        quantity: 4,
        price: 120,
        lots: [{ id: newer.id, quantity: 4 }],
      });
      const csv = (await user.get('/api/portfolio/export/transactions.csv')).text;
      const rows = parse<Record<string, string>>(csv, { columns: true });
      expect(rows.map((r) => r.lots)).to.deep.equal(['', '', `${newer.id}:4`]);
      const other = await gw.user();
      const imported = await other.post('/api/portfolio/import', { csv });
      expect(imported.status).to.equal(200, imported.text);
      const again = (await other.get('/api/portfolio/ledger')).body as Ledger;
      // (120 − 110) × 4 from the newer lot, not (120 − 100) × 4 first in, first out.
      expect(again.closings.map((c) => [c.lotId, c.gainCents])).to.deep.equal([[newer.id, 4_000]]);
      expect(sold.closings.map((c) => [c.lotId, c.gainCents])).to.deep.equal([[newer.id, 4_000]]);
      const bad = await other.post('/api/portfolio/import/preview', {
        csv: 'date,kind,symbol,quantity,price,lots\n2024-01-05,sell,XOM,1,120,nonsense\n',
      });
      const row = (bad.body as Preview).rows[0]!;
      expect([row.verdict, row.column, row.message]).to.deep.equal([
        'refused',
        'lots',
        'lots "nonsense" is not <lot id>:<quantity>',
      ]);
    });

    it('writes the open lots with their P&L, at the last close before any tick, and a total per symbol', async function () {
      const user = await gw.user();
      await user.post('/api/portfolio/import', { csv: fixture('generic.csv') });
      const res = await user.get('/api/portfolio/export/positions.csv');
      expect(res.status).to.equal(200);
      const rows = parse<Record<string, string>>(res.text, { columns: true });
      const msft = rows.find((r) => r.symbol === 'MSFT' && r.lot === 'total')!;
      // 5 of 12 sold at 420.45 against 388.47: (420.45 − 388.47) × 5 = 159.90; fees 1 + 1.
      expect([msft.quantity, msft.realized, msft.fees]).to.deep.equal(['7', '159.9', '2']);
      const ko = rows.find((r) => r.symbol === 'KO' && r.lot !== 'total')!;
      const [quote] = await user.getOk<{ price: number; source: string }[]>('/api/quotes?symbols=KO');
      expect(quote!.source).to.equal('close');
      expect(Number(ko.marketPrice)).to.equal(quote!.price);
      expect(Number(ko.value)).to.be.closeTo(40 * quote!.price, 0.01);
      // The close of the market's last day, 16:00 in New York (winter time).
      expect(ko.priceAt).to.equal(`${TEST_MARKET_DATE}T16:00:00-05:00`);
      expect(rows.at(-1)!.lot).to.equal('portfolio');
      // Each symbol's lots, then its total row.
      const symbols = rows.slice(0, -1).map((r) => r.symbol);
      const runs = symbols.filter((symbol, i) => i === 0 || symbols[i - 1] !== symbol);
      expect(runs, symbols.join(' ')).to.deep.equal([...new Set(symbols)]);
      for (const symbol of runs) expect(rows.findLast((r) => r.symbol === symbol)!.lot).to.equal('total');
    });

    it('values the open lots at the live price the portfolio reads, stating its time in market time', async function () {
      const user = await gw.user();
      await record(user, buy('NVDA', '2024-01-02', 10, 100));
      await record(user, { kind: 'sell', symbol: 'NVDA', date: '2024-01-03', quantity: 14, price: 110 });
      const quoteOf = async () => (await user.getOk<Quote[]>('/api/quotes?symbols=NVDA'))[0]!;
      const close = (await quoteOf()).price;
      const live = Number((close + 12.34).toFixed(2));
      const ts = Date.parse('2025-02-25T15:30:00.000Z');
      await gw.pushTicks([{ symbol: 'NVDA', price: live, ts }]);

      // What the screen reads: the lots and the live quote.
      const quote = await quoteOf();
      expect([quote.price, quote.ts, quote.source]).to.deep.equal([live, new Date(ts).toISOString(), 'feed']);
      const lots = (await user.getOk<{ positions: { position: number }[] }>('/personalize/userPositions/NVDA'))
        .positions;
      expect(lots.map((l) => l.position)).to.deep.equal([-4]);

      const res = await user.get('/api/portfolio/export/positions.csv');
      expect(res.status).to.equal(200);
      const rows = parse<Record<string, string>>(res.text, { columns: true });
      const lot = rows.find((r) => r.symbol === 'NVDA' && r.lot !== 'total')!;
      const total = rows.find((r) => r.symbol === 'NVDA' && r.lot === 'total')!;
      // A short of 4 opened at 110: value −4 × live, unrealized (live − 110) × −4.
      const value = (Math.round(live * 100) * -4) / 100;
      for (const row of [lot, total]) {
        expect(Number(row.marketPrice)).to.equal(quote.price);
        expect(Number(row.value)).to.equal(value);
        expect(Number(row.unrealized)).to.be.closeTo(value + 440, 0.001);
        // 15:30 UTC is 10:30 in New York in February.
        expect(row.priceAt).to.equal('2025-02-25T10:30:00-05:00');
      }
      expect(Number(lot.value)).to.not.be.closeTo(-4 * close, 0.001);
      expect(Object.keys(lot)).to.not.include('close');
    });
  });

  describe('performance', function () {
    it('answers value and time-weighted return per trading day since the first transaction, with a benchmark', async function () {
      const user = await gw.user();
      await user.post('/api/portfolio/import', { csv: fixture('generic.csv') });
      const res = await user.get('/api/portfolio/performance?benchmark=aapl');
      expect(res.status).to.equal(200, res.text);
      const perf = res.body as {
        benchmark: string;
        dates: string[];
        value: number[];
        twr: number[];
        benchmarkReturn: number[];
      };
      expect(perf.benchmark).to.equal('AAPL');
      expect(perf.dates[0]).to.equal('2024-01-16');
      expect(perf.dates.at(-1)).to.equal('2025-02-24');
      expect(perf.value).to.have.length(perf.dates.length);
      // Day 1: 12 MSFT bought at 388.47 with a fee of 1, valued at the simulated close of that day.
      expect(perf.twr[0]).to.be.closeTo(((perf.value[0]! - 4661.64 - 1) / 4661.64) * 100, 0.0001);
      expect(perf.benchmarkReturn[0]).to.equal(0);
      const ew = (await user.get('/api/portfolio/performance')).body as typeof perf;
      expect(ew.benchmark).to.equal('EW');
      expect(ew.benchmarkReturn).to.have.length(perf.dates.length);
      expect(ew.benchmarkReturn[0]).to.equal(0);
      expect(ew.benchmarkReturn.some((v) => v !== 0)).to.equal(true);
    });

    it('answers an empty series without transactions, and refuses an unknown benchmark naming it', async function () {
      const user = await gw.user();
      expect(((await user.get('/api/portfolio/performance')).body as { dates: string[] }).dates).to.deep.equal([]);
      const res = await user.get('/api/portfolio/performance?benchmark=ZZZZZZ');
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^query\.benchmark/);
      const bad = await user.get('/api/portfolio/performance?benchmark=$$');
      expect(bad.status).to.equal(400);
      expect((bad.body as { message: string }).message).to.match(/^query\.benchmark/);
    });
  });

  it('answers no request of any shape with a 500', async function () {
    const user = await gw.user();
    await user.post('/api/portfolio/import', { csv: fixture('generic.csv') });
    const bodies: unknown[] = [
      null,
      'text',
      42,
      [],
      [{}],
      {},
      { kind: null },
      { kind: 'sell', symbol: 'MSFT', date: '2024-05-01', quantity: 1, price: 1, lots: 'all' },
      { kind: 'sell', symbol: 'MSFT', date: '2024-05-01', quantity: 1, price: 1, lots: [null] },
      { kind: 'sell', symbol: 'MSFT', date: '2024-05-01', quantity: 1e9, price: 1e7, fee: 1e9 },
      { kind: 'buy', symbol: 'MSFT', date: '2024-05-01', quantity: 1e-7, price: 0.001 },
      { kind: 'dividend', symbol: ['KO'], date: '2024-05-01', amount: '5' },
      { csv: ['a'] },
      { csv: 'a', format: ['ibkr'] },
      { csv: '\u0000"\n\r,,"', format: 'ibkr' },
      { csv: 'Trades,Header\nTrades,Data', format: 'ibkr' },
      { csv: 'x,y\n'.repeat(3000), format: 'schwab' },
      { csv: '"Date","Action"\n"13/45/2024","Buy"', format: 'schwab' },
      { csv: 'date,kind,symbol,quantity,price\n2024-01-02,sell,KO,1e400,1', format: 'generic' },
      { csv: 'date,kind,symbol,quantity,price,id\n2024-01-02,buy,KO,1,1,' + 'i'.repeat(500) },
    ];
    const paths = ['/api/portfolio/transactions', '/api/portfolio/import/preview', '/api/portfolio/import'];
    for (const path of paths) {
      for (const body of bodies) {
        const res = await user.post(path, body);
        expect(res.status, `${path} ${JSON.stringify(body).slice(0, 80)}: ${res.text}`).to.be.below(500);
      }
    }
    for (const query of ['', '?benchmark=', '?benchmark=a&benchmark=b', '?benchmark=%00', '?benchmark=EW&x=1']) {
      for (const path of [
        '/api/portfolio/performance',
        '/api/portfolio/ledger',
        '/api/portfolio/export/positions.csv',
      ]) {
        const res = await user.get(`${path}${query}`);
        expect(res.status, `${path}${query}: ${res.text}`).to.be.below(500);
      }
    }
  });
});

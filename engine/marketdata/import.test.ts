import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { capClassOf, type Sector, type UniverseEntry } from '../../domain/market/types.ts';
import { FUNDAMENTAL_TYPES } from './fundamentals.ts';
import {
  ImportError,
  importBarsCsv,
  importCompanyFacts,
  parseBarsCsv,
  parseCompanyFacts,
  symbolFromFileName,
} from './import.ts';
import { buildMarket, openMarketStore, type MarketStore } from './store.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

function entry(symbol: string, name: string, sector: Sector, shares: number, close: number): UniverseEntry {
  const marketcap = shares * close;
  return { symbol, name, sector, industry: 'Test', shares, close, marketcap, capclass: capClassOf(marketcap) };
}

const UNIVERSE = [
  entry('AAPL', 'Apple Inc.', 'Information Technology', 15_037_900_000, 250.42),
  entry('DUK', 'Duke Energy Corporation', 'Utilities', 773_000_000, 107.74),
];

const HEADER = 'Date,Open,High,Low,Close,Adj Close,Volume';

/** The message of the ImportError thrown by `work`. */
function refusal(work: () => unknown): string {
  try {
    work();
  } catch (err) {
    expect(err).to.be.instanceOf(ImportError);
    return (err as Error).message;
  }
  throw new Error('expected an ImportError');
}

/** Everything the store holds for the test universe, to compare before and after a refused import. */
function snapshot(store: MarketStore): unknown {
  return {
    status: store.status(),
    meta: store.meta(),
    bars: UNIVERSE.map((e) => store.bars(e.symbol)),
    facts: UNIVERSE.flatMap((e) =>
      FUNDAMENTAL_TYPES.flatMap((t) => [
        store.fundamentals(t, e.symbol, 0, 'A'),
        store.fundamentals(t, e.symbol, 0, 'Q'),
      ]),
    ),
  };
}

describe('parseBarsCsv', () => {
  it('reads the common download format', () => {
    const bars = parseBarsCsv(fixture('AAPL.csv'));
    expect(bars).to.have.length(11);
    expect(bars[0]).to.deep.equal({
      date: '2024-12-16',
      open: 247.990005,
      high: 251.380005,
      low: 247.649994,
      close: 251.039993,
      volume: 51694800,
    });
    expect(bars.at(-1)!.date).to.equal('2024-12-31');
  });

  it('accepts CRLF line ends and reports progress', () => {
    const progress: [number, number][] = [];
    expect(parseBarsCsv(fixture('AAPL-crlf.csv'), (d, t) => progress.push([d, t]))).to.have.length(2);
    expect(progress.at(-1)).to.deep.equal([2, 2]);
  });

  it('names the line whose high is below its close', () => {
    expect(refusal(() => parseBarsCsv(fixture('AAPL-bad-high.csv')))).to.equal(
      'line 5: High 249.5 is below Close 249.789993',
    );
  });

  const cases: [string, string, string][] = [
    ['a wrong header', 'Date,Open,High,Low,Close,Volume\n', 'line 1: the header must be'],
    ['a header without bars', `${HEADER}\n`, 'no bars'],
    ['a missing field', `${HEADER}\n2024-12-30,1,2,1,1.5,1.5\n`, 'line 2: expected 7 fields, got 6'],
    ['an invalid date', `${HEADER}\n2024-02-30,1,2,1,1.5,1.5,10\n`, 'line 2: Date "2024-02-30" is not a valid'],
    ['a weekend date', `${HEADER}\n2024-12-28,1,2,1,1.5,1.5,10\n`, 'line 2: Date 2024-12-28 is a Saturday'],
    [
      'dates out of order',
      `${HEADER}\n2024-12-30,1,2,1,1.5,1.5,10\n2024-12-27,1,2,1,1.5,1.5,10\n`,
      'line 3: Date 2024-12-27 is not after 2024-12-30 (line 2)',
    ],
    [
      'a repeated date',
      `${HEADER}\n2024-12-30,1,2,1,1.5,1.5,10\n2024-12-30,1,2,1,1.5,1.5,10\n`,
      'line 3: Date 2024-12-30 is not after',
    ],
    ['a null price', `${HEADER}\n2024-12-30,null,2,1,1.5,1.5,10\n`, 'line 2: Open "null" is not a positive number'],
    ['a zero price', `${HEADER}\n2024-12-30,1,2,0,1.5,1.5,10\n`, 'line 2: Low "0" is not a positive number'],
    ['a negative price', `${HEADER}\n2024-12-30,1,2,1,-1.5,1.5,10\n`, 'line 2: Close "-1.5" is not a positive number'],
    ['a fractional volume', `${HEADER}\n2024-12-30,1,2,1,1.5,1.5,10.5\n`, 'line 2: Volume "10.5" is not a whole'],
    ['a high below the open', `${HEADER}\n2024-12-30,3,2,1,1.5,1.5,10\n`, 'line 2: High 2 is below Open 3'],
    ['a low above the close', `${HEADER}\n2024-12-30,2,3,1.6,1.5,1.5,10\n`, 'line 2: Low 1.6 is above Close 1.5'],
  ];
  for (const [what, text, message] of cases) {
    it(`refuses ${what}`, () => expect(refusal(() => parseBarsCsv(text))).to.contain(message));
  }
});

describe('symbolFromFileName', () => {
  it('takes the symbol from the file name, or asks for --symbol', () => {
    expect(symbolFromFileName('/data/downloads/aapl.csv')).to.equal('AAPL');
    expect(symbolFromFileName('BRK-B.csv')).to.equal('BRK-B');
    expect(refusal(() => symbolFromFileName('my prices (1).csv'))).to.contain('pass --symbol');
  });
});

describe('parseCompanyFacts', () => {
  const parsed = parseCompanyFacts(fixture('companyfacts-AAPL.json'));

  it('reads the company and keeps fiscal years and quarters, not year-to-date figures', () => {
    expect(parsed.cik).to.equal(320193);
    expect(parsed.entityName).to.equal('Apple Inc.');
    const revenue = parsed.facts.filter((f) => f.type === 'revenue');
    expect(revenue.filter((f) => f.period === 'A').map((f) => [f.end, f.fy, f.val])).to.deep.equal([
      ['2017-09-30', 2017, 229234000000],
      ['2021-09-25', 2021, 365817000000],
      ['2022-09-24', 2022, 394328000000],
      ['2023-09-30', 2023, 383285000000],
    ]);
    expect(revenue.filter((f) => f.period === 'Q').map((f) => [f.end, f.fy, f.fp, f.form])).to.deep.equal([
      ['2023-04-01', 2023, 'Q2', '10-Q'],
      ['2023-07-01', 2023, 'Q3', '10-Q'],
      ['2023-12-30', 2024, 'Q1', '10-Q'],
    ]);
    expect(parsed.facts.every((f) => f.label === 'SEC')).to.equal(true);
    expect(parsed.facts.find((f) => f.type === 'earningspershare' && f.end === '2023-09-30')).to.include({
      val: 6.16,
      fp: 'FY',
      form: '10-K',
    });
  });

  it('names the entry whose value is not a number', () => {
    expect(refusal(() => parseCompanyFacts(fixture('companyfacts-AAPL-bad.json')))).to.equal(
      'facts.us-gaap.NetIncomeLoss.units.USD[1]: val "99803000000" is not a number',
    );
  });

  it('refuses text that is not company facts', () => {
    expect(refusal(() => parseCompanyFacts('{"cik": 1'))).to.contain('not JSON');
    expect(refusal(() => parseCompanyFacts('{"cik": "x", "entityName": "A", "facts": {}}'))).to.contain('cik "x"');
    expect(refusal(() => parseCompanyFacts('{"cik": 1, "entityName": "A", "facts": {}}'))).to.contain('us-gaap');
    expect(refusal(() => parseCompanyFacts('{"cik": 1, "entityName": "A", "facts": {"us-gaap": {}}}'))).to.contain(
      'no annual or quarterly',
    );
    const badDate = JSON.stringify({
      cik: 1,
      entityName: 'A',
      facts: {
        'us-gaap': {
          GrossProfit: { units: { USD: [{ end: '2023-13-31', val: 1, fy: 2023, fp: 'FY', form: '10-K' }] } },
        },
      },
    });
    expect(refusal(() => parseCompanyFacts(badDate))).to.equal(
      'facts.us-gaap.GrossProfit.units.USD[0]: end "2023-13-31" is not a YYYY-MM-DD date',
    );
  });
});

describe('imports into the store', () => {
  let store: MarketStore;
  beforeEach(() => {
    store = openMarketStore({ file: ':memory:' });
    buildMarket(store, { seed: 42, universe: UNIVERSE, now: () => new Date('2025-01-02T00:00:00Z') });
  });
  afterEach(() => store.close());

  it('replaces the generated bars of a symbol with the imported ones', () => {
    const progress: number[] = [];
    const result = importBarsCsv(store, {
      text: fixture('AAPL.csv'),
      symbol: 'aapl',
      onProgress: (d) => progress.push(d),
    });
    expect(result).to.deep.equal({ symbol: 'AAPL', bars: 11, from: '2024-12-16', to: '2024-12-31' });
    expect(store.bars('AAPL')).to.deep.equal(parseBarsCsv(fixture('AAPL.csv')));
    expect(store.meta().barSources).to.deep.equal({ AAPL: 'imported', DUK: 'generated' });
    expect(store.status().importedBars).to.equal(1);
    expect(progress.at(-1)).to.equal(11);
  });

  it('refuses a bad bars file whole and leaves the store unchanged', () => {
    const before = snapshot(store);
    expect(refusal(() => importBarsCsv(store, { text: fixture('AAPL-bad-high.csv'), symbol: 'AAPL' }))).to.contain(
      'line 5',
    );
    expect(snapshot(store)).to.deep.equal(before);
  });

  it('refuses bars of a symbol outside the universe', () => {
    expect(refusal(() => importBarsCsv(store, { text: fixture('AAPL.csv'), symbol: 'ZZZZ' }))).to.contain(
      'not in the universe',
    );
  });

  it('replaces derived fundamentals with SEC figures, matching the company by name, then by CIK', () => {
    const result = importCompanyFacts(store, { text: fixture('companyfacts-AAPL.json') });
    expect(result).to.deep.include({ symbol: 'AAPL', cik: 320193, entityName: 'Apple Inc.' });
    expect(result.counts).to.deep.equal({ revenue: 7, grossprofit: 3, income: 4, earningspershare: 4 });
    const annual = store.fundamentals('revenue', 'AAPL', 2, 'A');
    expect(annual).to.deep.equal([
      { end: '2023-09-30', val: 383285000000, fy: 2023, fp: 'FY', form: '10-K', label: 'SEC' },
      { end: '2022-09-24', val: 394328000000, fy: 2022, fp: 'FY', form: '10-K', label: 'SEC' },
    ]);
    expect(store.fundamentals('income', 'AAPL', 0, 'Q').map((r) => r.label)).to.deep.equal(['SEC']);
    expect(store.fundamentals('revenue', 'DUK', 1, 'A')[0]!.label).to.equal('derived');
    expect(store.symbolOfCik(320193)).to.equal('AAPL');

    const renamed = fixture('companyfacts-AAPL.json').replace('"Apple Inc."', '"Apple Computer"');
    expect(importCompanyFacts(store, { text: renamed }).symbol).to.equal('AAPL');
  });

  it('refuses company facts it cannot place, or a bad file, and leaves the store unchanged', () => {
    const before = snapshot(store);
    const stranger = fixture('companyfacts-AAPL.json').replace('"Apple Inc."', '"Stranger Things Ltd"');
    expect(refusal(() => importCompanyFacts(store, { text: stranger }))).to.equal(
      'no symbol of the universe for CIK 320193 (Stranger Things Ltd); pass --symbol',
    );
    expect(refusal(() => importCompanyFacts(store, { text: fixture('companyfacts-AAPL-bad.json') }))).to.contain(
      'NetIncomeLoss',
    );
    expect(refusal(() => importCompanyFacts(store, { text: stranger, symbol: 'ZZZZ' }))).to.contain(
      'not in the universe',
    );
    expect(snapshot(store)).to.deep.equal(before);
  });

  it('takes the symbol given over the company name', () => {
    expect(importCompanyFacts(store, { text: fixture('companyfacts-AAPL.json'), symbol: 'DUK' }).symbol).to.equal(
      'DUK',
    );
    expect(store.fundamentals('grossprofit', 'DUK', 0, 'A').map((r) => r.label)).to.deep.equal(['SEC', 'SEC']);
  });
});

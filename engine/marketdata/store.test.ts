import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { capClassOf, type DailyBar, type Sector, type UniverseEntry } from '../../domain/market/types.ts';
import type { FundamentalFact } from './fundamentals.ts';
import { buildMarket, openMarketStore, type MarketStore } from './store.ts';

function entry(symbol: string, sector: Sector, shares: number, close: number): UniverseEntry {
  const marketcap = shares * close;
  return {
    symbol,
    name: `${symbol} Corp.`,
    sector,
    industry: 'Test',
    shares,
    close,
    marketcap,
    capclass: capClassOf(marketcap),
  };
}

const UNIVERSE = [
  entry('AAA', 'Information Technology', 1_000_000_000, 150.25),
  entry('BBB', 'Utilities', 300_000_000, 61.07),
  entry('CCC', 'Energy', 50_000_000, 9.99),
];

function bar(date: string, close: number): DailyBar {
  return { date, open: close, high: close + 1, low: close - 1, close, volume: 1000 };
}

function fact(
  type: FundamentalFact['type'],
  end: string,
  val: number,
  label: FundamentalFact['label'],
): FundamentalFact {
  return { type, period: 'A', end, val, fy: Number(end.slice(0, 4)), fp: 'FY', form: '10-K', label };
}

describe('MarketStore', () => {
  let dir: string;
  let store: MarketStore;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'stockpulse-market-'));
    store = openMarketStore({ file: path.join(dir, 'market.db') });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts empty', () => {
    expect(store.allSymbols()).to.deep.equal([]);
    expect(store.status()).to.deep.equal({
      symbols: 0,
      bars: 0,
      from: null,
      to: null,
      importedBars: 0,
      importedFundamentals: 0,
      seed: null,
      asOf: null,
    });
    expect(store.meta()).to.deep.equal({ seed: null, builtAt: null, asOf: null, barSources: {} });
  });

  it('reads bars by range and by the most recent count, in date order', () => {
    const bars = ['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05'].map((d, i) => bar(d, 10 + i));
    store.replaceBars('AAA', bars, 'imported');
    expect(store.bars('AAA')).to.deep.equal(bars);
    expect(store.bars('AAA', { from: '2024-01-03', to: '2024-01-04' })).to.deep.equal(bars.slice(1, 3));
    expect(store.bars('AAA', { limit: 2 })).to.deep.equal(bars.slice(2));
    expect(store.bars('AAA', { to: '2024-01-04', limit: 1 })).to.deep.equal([bars[2]]);
    expect(store.lastBars(['AAA', 'ZZZ'], 1)).to.deep.equal(
      new Map([
        ['AAA', [bars[3]]],
        ['ZZZ', []],
      ]),
    );
    expect(store.meta().barSources).to.deep.equal({ AAA: 'imported' });
  });

  it('refuses inconsistent bars and keeps what was there', () => {
    store.replaceBars('AAA', [bar('2024-01-02', 10)], 'generated');
    const bad = [bar('2024-01-03', 10), { ...bar('2024-01-04', 10), high: 9 }];
    expect(() => store.replaceBars('AAA', bad, 'imported')).to.throw(RangeError, /AAA bar 2 \(2024-01-04\): high/);
    expect(() => store.replaceBars('AAA', [bar('2024-01-03', 10), bar('2024-01-03', 11)], 'imported')).to.throw(
      /not after/,
    );
    expect(store.bars('AAA')).to.deep.equal([bar('2024-01-02', 10)]);
  });

  it('appends the bar of a new day, replaces the last day, and refuses an earlier day', () => {
    store.replaceBars('AAA', [bar('2024-01-02', 10), bar('2024-01-03', 11)], 'generated');
    store.appendBar('AAA', bar('2024-01-04', 12));
    store.appendBar('AAA', bar('2024-01-04', 12.5));
    expect(() => store.appendBar('AAA', bar('2024-01-03', 9))).to.throw(RangeError, /not after 2024-01-04/);
    expect(store.bars('AAA').map((b) => b.close)).to.deep.equal([10, 11, 12.5]);
  });

  it('answers fundamentals newest first with a limit, 0 meaning all', () => {
    const facts = [2021, 2022, 2023].map((y) => fact('revenue', `${y}-12-31`, y * 1000, 'derived'));
    store.replaceFundamentals('AAA', [...facts, fact('income', '2023-12-31', 5, 'derived')]);
    const rows = store.fundamentals('revenue', 'AAA', 0, 'A');
    expect(rows.map((r) => r.end)).to.deep.equal(['2023-12-31', '2022-12-31', '2021-12-31']);
    expect(rows[0]).to.deep.equal({
      end: '2023-12-31',
      val: 2023000,
      fy: 2023,
      fp: 'FY',
      form: '10-K',
      label: 'derived',
    });
    expect(store.fundamentals('revenue', 'AAA', 2, 'A')).to.have.length(2);
    expect(store.fundamentals('revenue', 'AAA', 0, 'Q')).to.deep.equal([]);

    store.replaceFundamentals('AAA', [fact('revenue', '2023-12-31', 7, 'SEC')]);
    expect(store.fundamentals('revenue', 'AAA', 0, 'A')).to.deep.equal([
      { end: '2023-12-31', val: 7, fy: 2023, fp: 'FY', form: '10-K', label: 'SEC' },
    ]);
    expect(store.fundamentals('income', 'AAA', 0, 'A')).to.have.length(1);
    expect(store.fundamentalTypesFrom('AAA', 'SEC')).to.deep.equal(['revenue']);
    expect(store.status().importedFundamentals).to.equal(1);
  });

  it('rolls back everything written in a failed transaction', () => {
    expect(() =>
      store.transaction(() => {
        store.replaceBars('AAA', [bar('2024-01-02', 10)], 'imported');
        throw new Error('stop');
      }),
    ).to.throw('stop');
    expect(store.allSymbols()).to.deep.equal([]);
  });

  it('remembers the symbol of a CIK', () => {
    store.setCik('AAA', 320193);
    expect(store.symbolOfCik(320193)).to.equal('AAA');
    expect(store.symbolOfCik(1)).to.equal(undefined);
  });
});

describe('buildMarket', () => {
  let dir: string;
  let store: MarketStore;
  const at = new Date('2025-01-02T08:00:00Z');
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'stockpulse-market-'));
    store = openMarketStore({ file: path.join(dir, 'market.db') });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds bars and derived fundamentals of every symbol in batches, with progress', () => {
    const progress: [number, number][] = [];
    const result = buildMarket(store, {
      seed: 42,
      universe: UNIVERSE,
      batchSize: 2,
      onProgress: (done, total) => progress.push([done, total]),
      now: () => at,
    });
    expect(result).to.deep.equal({ built: 3, extended: 0, keptImported: 0 });
    expect(progress).to.deep.equal([
      [0, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(store.allSymbols()).to.deep.equal(['AAA', 'BBB', 'CCC']);
    expect(store.universe().map((e) => e.symbol)).to.deep.equal(['AAA', 'BBB', 'CCC']);
    const status = store.status();
    expect(status).to.include({ symbols: 3, from: '2020-01-02', to: '2024-12-31', seed: 42, asOf: '2024-12-31' });
    expect(status.bars).to.equal(3 * 1258);
    expect(store.bars('AAA', { limit: 1 })[0]!.close).to.equal(150.25);
    expect(store.fundamentals('revenue', 'CCC', 0, 'A')).to.have.length(6);
    expect(store.fundamentals('earningspershare', 'CCC', 0, 'Q')).to.have.length(16);
    expect(store.meta()).to.deep.include({ seed: 42, builtAt: '2025-01-02T08:00:00.000Z', asOf: '2024-12-31' });
  });

  it('does nothing when already built with the same seed', () => {
    buildMarket(store, { seed: 42, universe: UNIVERSE, now: () => at });
    const before = store.bars('BBB');
    let calls = 0;
    const again = buildMarket(store, { seed: 42, universe: UNIVERSE, onProgress: () => calls++ });
    expect(again).to.deep.equal({ built: 0, extended: 0, keptImported: 0 });
    expect(calls).to.equal(0);
    expect(store.bars('BBB')).to.deep.equal(before);
    expect(store.meta().builtAt).to.equal('2025-01-02T08:00:00.000Z');
  });

  it('rebuilds for another seed but keeps imported bars and SEC figures', () => {
    buildMarket(store, { seed: 42, universe: UNIVERSE, now: () => at });
    const imported = [bar('2024-12-30', 20), bar('2024-12-31', 21)];
    store.replaceBars('AAA', imported, 'imported');
    store.replaceFundamentals('AAA', [fact('revenue', '2024-12-31', 99, 'SEC')]);
    const bbb = store.bars('BBB');
    const result = buildMarket(store, { seed: 7, universe: UNIVERSE, now: () => at });
    expect(result).to.deep.equal({ built: 2, extended: 0, keptImported: 1 });
    expect(store.bars('AAA')).to.deep.equal(imported);
    expect(store.fundamentals('revenue', 'AAA', 0, 'A').map((r) => r.label)).to.deep.equal(['SEC']);
    expect(store.fundamentals('income', 'AAA', 0, 'A')).to.have.length(6);
    expect(store.bars('BBB')).to.not.deep.equal(bbb);
    expect(store.meta().seed).to.equal(7);
  });

  /** Every bar and fundamental figure of the universe in a store. */
  function contents(of: MarketStore) {
    return UNIVERSE.map((e) => ({
      bars: of.bars(e.symbol),
      revenue: of.fundamentals('revenue', e.symbol, 0, 'Q'),
      income: of.fundamentals('income', e.symbol, 0, 'A'),
    }));
  }

  it('extends a store on a later day to exactly what a build to that day holds', () => {
    buildMarket(store, { seed: 42, universe: UNIVERSE, endDate: '2025-03-14', now: () => at });
    const before = store.bars('AAA');
    const progress: [number, number][] = [];
    const later = new Date('2025-08-01T12:00:00Z');
    const result = buildMarket(store, {
      seed: 42,
      universe: UNIVERSE,
      endDate: '2025-07-31',
      batchSize: 2,
      onProgress: (done, total) => progress.push([done, total]),
      now: () => later,
    });
    expect(result).to.deep.equal({ built: 0, extended: 3, keptImported: 0 });
    expect(progress).to.deep.equal([
      [0, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(store.bars('AAA').slice(0, before.length)).to.deep.equal(before);
    expect(store.status()).to.include({ to: '2025-07-31', asOf: '2025-07-31' });
    expect(store.meta().builtAt).to.equal(later.toISOString());

    const scratch = openMarketStore({ file: ':memory:' });
    try {
      buildMarket(scratch, { seed: 42, universe: UNIVERSE, endDate: '2025-07-31', now: () => at });
      expect(contents(store)).to.deep.equal(contents(scratch));
    } finally {
      scratch.close();
    }
  });

  it('keeps the universe date at the universe close and every stored bar when extending', () => {
    buildMarket(store, { seed: 42, universe: UNIVERSE, now: () => at });
    expect(store.bars('CCC', { to: '2024-12-31', limit: 1 })[0]?.close).to.equal(9.99);
    buildMarket(store, { seed: 42, universe: UNIVERSE, endDate: '2025-01-10', now: () => at });
    expect(store.bars('CCC', { to: '2024-12-31', limit: 1 })[0]?.close).to.equal(9.99);
    expect(store.bars('CCC', { from: '2025-01-01' }).map((b) => b.date)).to.deep.equal([
      '2025-01-02',
      '2025-01-03',
      '2025-01-06',
      '2025-01-07',
      '2025-01-08',
      // The calendar holds no unscheduled closing (the exchange closed on 2025-01-09 for a day of mourning).
      '2025-01-09',
      '2025-01-10',
    ]);
  });

  it('goes on from the close of a day rolled from live ticks, and never extends imported bars', () => {
    buildMarket(store, { seed: 42, universe: UNIVERSE, endDate: '2025-03-14', now: () => at });
    const generated = store.bars('AAA', { limit: 1 })[0]!;
    // The day rolled live closed 10% above the generated close.
    store.appendBar('AAA', { ...generated, high: generated.high * 1.1, close: generated.close * 1.1 });
    const imported = [bar('2025-03-13', 20), bar('2025-03-14', 21)];
    store.replaceBars('BBB', imported, 'imported');
    const result = buildMarket(store, { seed: 42, universe: UNIVERSE, endDate: '2025-03-21', now: () => at });
    expect(result).to.deep.equal({ built: 0, extended: 2, keptImported: 1 });
    expect(store.bars('BBB')).to.deep.equal(imported);

    const scratch = openMarketStore({ file: ':memory:' });
    try {
      buildMarket(scratch, { seed: 42, universe: UNIVERSE, endDate: '2025-03-21', now: () => at });
      const plain = scratch.bars('AAA', { from: '2025-03-15' });
      const rolled = store.bars('AAA', { from: '2025-03-15' });
      expect(rolled.map((b) => b.date)).to.deep.equal(plain.map((b) => b.date));
      rolled.forEach((b, i) => expect(b.close).to.be.closeTo(plain[i]!.close * 1.1, 0.011));
    } finally {
      scratch.close();
    }
  });

  it('adds only the symbols missing from a store built with the same seed', () => {
    buildMarket(store, { seed: 42, universe: UNIVERSE.slice(0, 2), now: () => at });
    const result = buildMarket(store, { seed: 42, universe: UNIVERSE, now: () => at });
    expect(result.built).to.equal(1);
    expect(store.allSymbols()).to.deep.equal(['AAA', 'BBB', 'CCC']);
  });
});

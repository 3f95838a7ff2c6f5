import { expect } from 'chai';
import type { StoredPatternRow } from '../marketdata/store.ts';
import { PatternIndex } from './patternIndex.ts';

const row = (symbol: string, date: string, patterns: string, r1: number | null = null): StoredPatternRow => ({
  symbol,
  date,
  patterns,
  r1,
  r5: null,
  r20: null,
});

const CALENDAR = ['2024-12-23', '2024-12-24', '2024-12-26', '2024-12-27', '2024-12-30', '2024-12-31'];

/** Rows given in no particular order: the index orders them itself. */
const ROWS = [
  row('MSFT', '2024-12-31', 'doji'),
  row('AAPL', '2024-12-24', 'hammer,bullish_marubozu', 0.01),
  row('AAPL', '2024-12-31', 'bearish_engulfing', -0.02),
  row('XOM', '2024-12-26', 'doji,shooting_star'),
  row('AAPL', '2024-12-30', 'doji', 0.005),
  row('MSFT', '2024-12-23', 'hanging_man,not_a_pattern'),
];

describe('PatternIndex', () => {
  const index = new PatternIndex(ROWS, CALENDAR);

  it('answers the newest rows by date, newest first, then by symbol, with stable ids', () => {
    expect(index.newest(3)).to.deep.equal([
      {
        id: 'AAPL:2024-12-31',
        symbol: 'AAPL',
        date: '2024-12-31',
        stockpatterns: [{ name: 'bearish_engulfing', bullish: false }],
      },
      { id: 'MSFT:2024-12-31', symbol: 'MSFT', date: '2024-12-31', stockpatterns: [{ name: 'doji', bullish: null }] },
      { id: 'AAPL:2024-12-30', symbol: 'AAPL', date: '2024-12-30', stockpatterns: [{ name: 'doji', bullish: null }] },
    ]);
    expect(index.newest(100)).to.have.length(6);
  });

  it('keeps the hits of a row in the order of the pattern list and leaves unknown names out', () => {
    expect(index.onDate('2024-12-24')[0]?.stockpatterns.map((h) => h.name)).to.deep.equal([
      'hammer',
      'bullish_marubozu',
    ]);
    expect(index.onDate('2024-12-23')[0]?.stockpatterns.map((h) => h.name)).to.deep.equal(['hanging_man']);
  });

  it('counts the patterns of the newest dates that have any', () => {
    expect(index.dates(3)).to.deep.equal([
      { date: '2024-12-31', patterncount: 2 },
      { date: '2024-12-30', patterncount: 1 },
      { date: '2024-12-26', patterncount: 2 },
    ]);
  });

  it('answers one date by symbol and nothing for a date without patterns', () => {
    expect(index.onDate('2024-12-31').map((r) => r.symbol)).to.deep.equal(['AAPL', 'MSFT']);
    expect(index.onDate('2024-12-27')).to.deep.equal([]);
    expect(index.latestDate()).to.equal('2024-12-31');
  });

  it("answers a symbol's rows of the market's last N trading days, newest first", () => {
    expect(index.recentOfSymbol('AAPL', 2).map((r) => r.date)).to.deep.equal(['2024-12-31', '2024-12-30']);
    expect(index.recentOfSymbol('AAPL', 5).map((r) => r.date)).to.deep.equal([
      '2024-12-31',
      '2024-12-30',
      '2024-12-24',
    ]);
    expect(index.recentOfSymbol('NVDA', 5)).to.deep.equal([]);
    expect(index.latestOfSymbol('XOM')?.date).to.equal('2024-12-26');
    expect(index.latestOfSymbol('NVDA')).to.equal(undefined);
  });

  it('ranks symbols by pattern days in the window, ties by symbol', () => {
    expect(index.countBySymbol(2)).to.deep.equal([
      { symbol: 'AAPL', count: 2 },
      { symbol: 'MSFT', count: 1 },
    ]);
    expect(index.countBySymbol(6)).to.deep.equal([
      { symbol: 'AAPL', count: 3 },
      { symbol: 'MSFT', count: 2 },
      { symbol: 'XOM', count: 1 },
    ]);
  });

  it('summarises every hit with its forward returns', () => {
    const stats = index.performance();
    const hammer = stats.find((s) => s.name === 'hammer');
    expect(hammer?.detections).to.equal(1);
    expect(hammer?.horizons[1]).to.deep.equal({ count: 1, hitRate: 1, median: 0.01 });
    expect(hammer?.horizons[5]).to.deep.equal({ count: 0, hitRate: null, median: null });
    const doji = stats.find((s) => s.name === 'doji');
    expect(doji?.detections).to.equal(3);
    expect(doji?.horizons[1]).to.deep.equal({ count: 1, hitRate: null, median: 0.005 });
  });

  it('is empty without rows', () => {
    const empty = new PatternIndex([], CALENDAR);
    expect(empty.newest(10)).to.deep.equal([]);
    expect(empty.dates(10)).to.deep.equal([]);
    expect(empty.latestDate()).to.equal(undefined);
    expect(empty.countBySymbol(10)).to.deep.equal([]);
    expect(empty.performance()).to.deep.equal([]);
  });
});

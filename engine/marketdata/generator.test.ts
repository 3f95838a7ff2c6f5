import { expect } from 'chai';
import type { DailyBar, Sector, UniverseEntry } from '../../domain/market/types.ts';
import { capClassOf } from '../../domain/market/types.ts';
import { isTradingDay, tradingDays } from './calendar.ts';
import { SECTOR_PROFILES, generateHistory, historyDays, sectorLoadings } from './generator.ts';
import { UNIVERSE_DATE, loadUniverse } from './universe.ts';

function entry(symbol: string, sector: Sector, shares: number, close: number): UniverseEntry {
  const marketcap = shares * close;
  return {
    symbol,
    name: `${symbol} Inc.`,
    sector,
    industry: 'Test',
    shares,
    close,
    marketcap,
    capclass: capClassOf(marketcap),
  };
}

const UNIVERSE: UniverseEntry[] = [
  entry('AAA', 'Information Technology', 1_000_000_000, 187.42),
  entry('BBB', 'Information Technology', 300_000_000, 45.1),
  entry('CCC', 'Utilities', 500_000_000, 61.07),
  entry('DDD', 'Utilities', 80_000_000, 12.5),
  entry('EEE', 'Energy', 40_000_000, 3.21),
  entry('FFF', 'Financials', 2_000_000_000, 98.76),
];

function onTick(price: number): boolean {
  return Math.abs(Math.round(price * 100) - price * 100) < 1e-6;
}

describe('generateHistory', () => {
  let history: Map<string, DailyBar[]>;
  before(() => {
    history = generateHistory(UNIVERSE, { seed: 42 });
  });

  it('covers five years of trading days ending on the universe date', () => {
    const days = historyDays(UNIVERSE_DATE, 5);
    expect(days[0]).to.equal('2020-01-02');
    expect(days[days.length - 1]).to.equal('2024-12-31');
    expect(days).to.deep.equal(tradingDays('2020-01-01', '2024-12-31'));
    for (const e of UNIVERSE) expect(history.get(e.symbol)!.map((b) => b.date)).to.deep.equal(days);
  });

  it('closes the last bar exactly at the universe close', () => {
    for (const e of UNIVERSE) expect(history.get(e.symbol)!.at(-1)!.close).to.equal(e.close);
  });

  it('draws consistent bars on $0.01 ticks with positive whole volumes', () => {
    for (const bars of history.values()) {
      for (const b of bars) {
        expect(isTradingDay(b.date)).to.equal(true);
        for (const p of [b.open, b.high, b.low, b.close]) {
          expect(p).to.be.greaterThan(0);
          expect(onTick(p), `${b.date} ${p}`).to.equal(true);
        }
        expect(b.high).to.be.at.least(Math.max(b.open, b.close));
        expect(b.low).to.be.at.most(Math.min(b.open, b.close));
        expect(Number.isInteger(b.volume) && b.volume > 0).to.equal(true);
      }
    }
  });

  it('is deterministic for a seed and differs between seeds', () => {
    expect(generateHistory(UNIVERSE, { seed: 42 })).to.deep.equal(history);
    const other = generateHistory(UNIVERSE, { seed: 43 });
    expect(other.get('AAA')!.slice(0, -1)).to.not.deep.equal(history.get('AAA')!.slice(0, -1));
    expect(other.get('AAA')!.at(-1)!.close).to.equal(187.42);
  });

  it('ends on another date and length when asked', () => {
    const short = generateHistory(UNIVERSE.slice(0, 1), { seed: 1, endDate: '2023-06-30', years: 1 });
    const bars = short.get('AAA')!;
    expect(bars[0]!.date).to.equal('2022-07-01');
    expect(bars.at(-1)).to.include({ date: '2023-06-30', close: 187.42 });
  });

  it('goes on past the universe date: a later end date only adds days, from the universe close', () => {
    const year = generateHistory(UNIVERSE, { seed: 42, endDate: '2025-12-31' });
    const quarter = generateHistory(UNIVERSE, { seed: 42, endDate: '2025-03-31' });
    for (const e of UNIVERSE) {
      const bars = year.get(e.symbol)!;
      const until = history.get(e.symbol)!.length;
      expect(bars.slice(0, until), e.symbol).to.deep.equal(history.get(e.symbol));
      expect(bars.slice(0, quarter.get(e.symbol)!.length), e.symbol).to.deep.equal(quarter.get(e.symbol));
      expect(bars.slice(until).map((b) => b.date)).to.deep.equal(tradingDays('2025-01-01', '2025-12-31'));
      // The first day after opens near the universe close: an overnight gap, not a jump to another price.
      expect(Math.abs(Math.log(bars[until]!.open / e.close))).to.be.below(0.1);
      expect(bars.at(-1)!.close).to.not.equal(e.close);
    }
  });

  it('moves past the universe date as before it, with a like daily volatility', () => {
    const universe = loadUniverse().filter((e) => e.sector === 'Information Technology');
    const all = generateHistory(universe, { seed: 42, endDate: '2026-12-31' });
    const logReturns = (bars: readonly DailyBar[]) => bars.slice(1).map((b, i) => Math.log(b.close / bars[i]!.close));
    const sd = (xs: readonly number[]) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const before: number[] = [];
    const after: number[] = [];
    for (const bars of all.values()) {
      const at = bars.findIndex((b) => b.date > UNIVERSE_DATE);
      before.push(sd(logReturns(bars.slice(at - 500, at))));
      after.push(sd(logReturns(bars.slice(at - 1))));
    }
    expect(median(after) / median(before)).to.be.within(0.75, 1.33);
  });

  it('refuses a seed or a length that is not a whole number', () => {
    expect(() => generateHistory(UNIVERSE, { seed: 1.5 })).to.throw(RangeError, /seed/);
    expect(() => generateHistory(UNIVERSE, { seed: 1, years: 0 })).to.throw(RangeError, /years/);
  });

  it('generates the whole shipped universe', function () {
    this.timeout(20_000);
    const universe = loadUniverse();
    const all = generateHistory(universe, { seed: 42 });
    expect([...all.keys()].sort()).to.deep.equal(universe.map((u) => u.symbol).sort());
  });
});

describe('sectorLoadings', () => {
  it('meets each sector in-sector correlation with market and sector loadings', () => {
    const loadings = sectorLoadings(loadUniverse());
    expect(loadings.size).to.equal(11);
    for (const [sector, l] of loadings) {
      expect(l.market ** 2 + l.sector ** 2).to.be.closeTo(SECTOR_PROFILES[sector].corrIn, 1e-9);
      expect(l.market).to.be.within(0.2, 0.9);
    }
  });
});

import { expect } from 'chai';
import type { DailyBar } from '../../domain/market/types.ts';
import {
  barBases,
  betaOf,
  gapOf,
  marketReturns,
  metricsAt,
  modelledDividend,
  perfBases,
  smaCrossOf,
  volatilityOf,
  type MetricBases,
} from './metrics.ts';

/**
 * 22 bars whose closes alternate 100 (even index) and 110 (odd index), each bar's high and low 1 away from its
 * close, its open the close before; bar 0 trades 1,000,000 shares, bar i (1–20) i × 100, the latest (21) opens
 * at 105 and reaches a high of 130.
 */
function alternatingBars(): DailyBar[] {
  return Array.from({ length: 22 }, (_, i): DailyBar => {
    const close = i % 2 === 0 ? 100 : 110;
    const previous = i % 2 === 0 ? 110 : 100;
    const latest = i === 21;
    return {
      date: `2025-01-${String(i + 1).padStart(2, '0')}`,
      open: latest ? 105 : previous,
      high: latest ? 130 : close + 1,
      low: close - 1,
      close,
      volume: i === 0 ? 1_000_000 : i * 100,
    };
  });
}

const NO_BASES: MetricBases = {
  gap: null,
  averageVolume: null,
  high52: null,
  low52: null,
  atr: null,
  volatility: null,
  perfBase: { '1W': null, '1M': null, '3M': null, '6M': null, YTD: null, '1Y': null },
  sma: { 20: null, 50: null, 200: null },
  beta: null,
  smaCross: null,
  eps: null,
  previousEps: null,
  dividend: null,
};

describe('screener metrics', () => {
  describe('bases of the last bars', () => {
    const bases = barBases(alternatingBars());

    it('gap: the latest open 105 against the close 100 before it is +5%', () => {
      expect(bases.gap).to.be.closeTo(5, 1e-9);
    });

    it('average volume: the 20 bars before the latest (100 … 2,000 shares), bar 0 left out', () => {
      // (100 + 200 + … + 2000) / 20 = 100 × 210 / 20
      expect(bases.averageVolume).to.equal(1050);
    });

    it('52-week range: the highest high 111 and lowest low 99 before the latest bar, its high 130 left out', () => {
      expect(bases.high52).to.equal(111);
      expect(bases.low52).to.equal(99);
    });

    it('ATR: 13 true ranges of 11 and the latest of 30 (130 − the close 100), averaged', () => {
      // A bar closing 110 after 100: max(111 − 109, |111 − 100|, |109 − 100|) = 11; closing 100 after 110: also 11.
      expect(bases.atr).to.be.closeTo((13 * 11 + 30) / 14, 1e-9);
    });

    it('volatility: returns of +10% and −100/11% alternating have a standard deviation of 105/11%', () => {
      expect(bases.volatility).to.be.closeTo(105 / 11, 1e-9);
      expect(volatilityOf([100, 110, 100])).to.equal(null);
    });

    it('is unknown where the history is too short', () => {
      const short = barBases(alternatingBars().slice(0, 10));
      expect(short).to.deep.include({ averageVolume: null, atr: null, volatility: null });
      expect(short.high52).to.equal(111);
      expect(barBases(alternatingBars().slice(0, 1))).to.deep.equal({
        gap: null,
        averageVolume: null,
        high52: null,
        low52: null,
        atr: null,
        volatility: null,
      });
    });
  });

  describe('performance bases', () => {
    const dates = [
      '2024-05-20',
      '2024-08-20',
      '2024-10-18',
      '2024-11-20',
      '2024-12-31',
      '2025-02-10',
      '2025-02-11',
      '2025-02-12',
      '2025-02-13',
      '2025-02-14',
      '2025-02-18',
      '2025-02-19',
      '2025-02-20',
    ];
    const closes = dates.map((_, i) => 10 + 10 * i);
    const base = perfBases(dates, closes);

    it('1W: the close 5 trading days before the latest (2025-02-12)', () => {
      expect(base['1W']).to.equal(80);
    });

    it('months: the last trading day on or before the same day 1, 3 and 6 months before', () => {
      expect(base['1M']).to.equal(50); // 2025-01-20 → 2024-12-31
      expect(base['3M']).to.equal(40); // 2024-11-20 itself
      expect(base['6M']).to.equal(20); // 2024-08-20 itself
    });

    it('YTD: the last close of the previous year; 1Y unknown when the history starts later', () => {
      expect(base.YTD).to.equal(50);
      expect(base['1Y']).to.equal(null);
    });

    it('as percent changes of the price', () => {
      const metrics = metricsAt({ ...NO_BASES, perfBase: base }, 130, 0);
      expect(metrics.perf_1W).to.be.closeTo(62.5, 1e-9);
      expect(metrics.perf_1M).to.be.closeTo(160, 1e-9);
      expect(metrics.perf_YTD).to.be.closeTo(160, 1e-9);
      expect(metrics.perf_1Y).to.equal(null);
    });
  });

  describe('beta', () => {
    // A moves +2%, −2%, … ; B never moves: the market (their mean) moves half as much as A.
    const dates = Array.from({ length: 21 }, (_, i) => `2025-03-${String(i + 1).padStart(2, '0')}`);
    const a = dates.reduce<number[]>(
      (acc, _, i) => [...acc, i === 0 ? 100 : (acc[i - 1] as number) * (i % 2 ? 1.02 : 0.98)],
      [],
    );
    const b = dates.map(() => 50);
    const market = marketReturns([
      { dates, closes: a },
      { dates, closes: b },
    ]);

    it('the market return of a day is the mean of the stocks’ returns', () => {
      expect(market.get('2025-03-02')).to.be.closeTo(0.01, 1e-12);
      expect(market.get('2025-03-03')).to.be.closeTo(-0.01, 1e-12);
      expect(market.has('2025-03-01')).to.equal(false);
    });

    it('is 2 for the stock that moves twice the market, 0 for the one that never moves', () => {
      expect(betaOf({ dates, closes: a }, market)).to.be.closeTo(2, 1e-9);
      expect(betaOf({ dates, closes: b }, market)).to.be.closeTo(0, 1e-12);
    });

    it('is unknown under 20 returns', () => {
      expect(betaOf({ dates: dates.slice(0, 20), closes: a.slice(0, 20) }, market)).to.equal(null);
    });
  });

  describe('SMA 50/200 cross', () => {
    const flat = Array.from({ length: 200 }, () => 100);

    it('is 0 when the averages are equal', () => {
      expect(smaCrossOf(flat)).to.equal(0);
    });

    it('is 1 on the bar the 50-day crosses above (102 against 100.5), then counts the days', () => {
      expect(smaCrossOf([...flat, 200])).to.equal(1);
      expect(smaCrossOf([...flat, 200, 200, 200])).to.equal(3);
    });

    it('is −1 on the bar it crosses below', () => {
      expect(smaCrossOf([...flat, 50])).to.equal(-1);
    });

    it('is unknown without a cross since both averages exist, or under 200 closes', () => {
      expect(smaCrossOf(Array.from({ length: 250 }, (_, i) => i + 1))).to.equal(null);
      expect(smaCrossOf(flat.slice(1))).to.equal(null);
    });
  });

  describe('at a price', () => {
    const bases: MetricBases = {
      ...NO_BASES,
      ...barBases(alternatingBars()),
      sma: { 20: 80, 50: 125, 200: null },
      eps: 5,
      previousEps: 4,
      dividend: modelledDividend('Utilities', 5),
      beta: 1.5,
      smaCross: -7,
    };
    const metrics = metricsAt(bases, 122.1, 2100);

    it('relative volume: 2,100 shares against the average 1,050 is 2', () => {
      expect(metrics.volume).to.equal(2100);
      expect(metrics.relvolume).to.be.closeTo(2, 1e-12);
    });

    it('52-week distances: 122.1 is 10% above the high 111 and 23⅓% above the low 99', () => {
      expect(metrics.high52).to.be.closeTo(10, 1e-9);
      expect(metrics.low52).to.be.closeTo(70 / 3, 1e-9);
    });

    it('price against the averages: +52.625% of SMA 20, −2.32% of SMA 50, unknown SMA 200', () => {
      expect(metrics.price_vs_sma_20).to.be.closeTo(52.625, 1e-9);
      expect(metrics.price_vs_sma_50).to.be.closeTo(-2.32, 1e-9);
      expect(metrics.price_vs_sma_200).to.equal(null);
    });

    it('P/E, EPS growth and the modelled yield (Utilities pay 65% of EPS 5)', () => {
      const at100 = metricsAt(bases, 100, 0);
      expect(at100.pe).to.be.closeTo(20, 1e-12);
      expect(at100.eps_growth).to.be.closeTo(25, 1e-9);
      expect(at100.div_yield).to.be.closeTo(3.25, 1e-9);
    });

    it('no P/E or yield without positive earnings, no growth from a loss', () => {
      const loss = metricsAt(
        { ...bases, eps: -1, previousEps: -2, dividend: modelledDividend('Utilities', -1) },
        100,
        0,
      );
      expect(loss).to.deep.include({ pe: null, eps_growth: null, div_yield: 0 });
      expect(metricsAt({ ...bases, eps: null, dividend: modelledDividend('Energy', null) }, 100, 0)).to.deep.include({
        pe: null,
        div_yield: null,
      });
    });

    it('carries the bases that do not move with the price', () => {
      expect(metrics).to.deep.include({ gap: bases.gap, atr: bases.atr, volatility: bases.volatility, beta: 1.5 });
      expect(metrics.sma_cross).to.equal(-7);
    });

    it("takes a live session's gap when given: its open against the previous close", () => {
      expect(gapOf(103, 100)).to.be.closeTo(3, 1e-9);
      expect(gapOf(97, 100)).to.be.closeTo(-3, 1e-9);
      expect(gapOf(97, null)).to.equal(null);
      expect(gapOf(97, 0)).to.equal(null);
      expect(metricsAt(bases, 120, 500, gapOf(103, 100)).gap).to.be.closeTo(3, 1e-9);
      expect(metricsAt(bases, 120, 500, null).gap).to.equal(null);
    });
  });
});

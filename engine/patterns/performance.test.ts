import { expect } from 'chai';
import { type DailyBar } from '../../domain/market/types.ts';
import { type PatternDetection } from './patterns.ts';
import { forwardSamples, patternPerformance, summarisePerformance, type ForwardSample } from './performance.ts';

/** Bars with the given closes (open = close, a 1% range), one trading day apart. */
function barsOf(closes: readonly number[]): DailyBar[] {
  return closes.map((close, day) => ({
    date: new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10),
    open: close,
    high: close * 1.005,
    low: close * 0.995,
    close,
    volume: 1000,
  }));
}

function sample(
  name: ForwardSample['name'],
  bullish: boolean | null,
  r1: number | null,
  r5 = r1,
  r20 = r1,
): ForwardSample {
  return { name, bullish, date: '2024-01-01', returns: { 1: r1, 5: r5, 20: r20 } };
}

describe('pattern performance', () => {
  it('measures forward returns 1, 5 and 20 trading days after the detection bar', () => {
    const closes = Array.from({ length: 30 }, (_, i) => 100 + i);
    const bars = barsOf(closes);
    const detections: PatternDetection[] = [
      { index: 2, date: bars[2]!.date, hits: [{ name: 'hammer', bullish: true }] },
    ];
    const [first] = forwardSamples(bars, detections);
    expect(first?.returns[1]).to.be.closeTo(103 / 102 - 1, 1e-12);
    expect(first?.returns[5]).to.be.closeTo(107 / 102 - 1, 1e-12);
    expect(first?.returns[20]).to.be.closeTo(122 / 102 - 1, 1e-12);
    expect(first?.date).to.equal(bars[2]!.date);
  });

  it('leaves a horizon null when the history ends before it', () => {
    const bars = barsOf(Array.from({ length: 10 }, (_, i) => 10 + i));
    const detections: PatternDetection[] = [{ index: 6, date: bars[6]!.date, hits: [{ name: 'doji', bullish: null }] }];
    const [first] = forwardSamples(bars, detections);
    expect(first?.returns).to.deep.equal({ 1: 17 / 16 - 1, 5: null, 20: null });
  });

  it('gives one sample per pattern of a bar with several', () => {
    const bars = barsOf([10, 11, 12]);
    const hits = [
      { name: 'doji', bullish: null },
      { name: 'hammer', bullish: true },
    ] as const;
    expect(forwardSamples(bars, [{ index: 0, date: bars[0]!.date, hits }]).map((s) => s.name)).to.deep.equal([
      'doji',
      'hammer',
    ]);
  });

  it('counts the share of bullish returns strictly above zero as hits, and takes the median', () => {
    const [stats] = summarisePerformance([
      sample('hammer', true, 0.02),
      sample('hammer', true, -0.01),
      sample('hammer', true, 0),
      sample('hammer', true, 0.04),
    ]);
    expect(stats?.name).to.equal('hammer');
    expect(stats?.detections).to.equal(4);
    expect(stats?.horizons[1]).to.deep.equal({ count: 4, hitRate: 0.5, median: 0.01 });
  });

  it('counts returns strictly below zero as hits of a bearish pattern', () => {
    const [stats] = summarisePerformance([
      sample('shooting_star', false, -0.03),
      sample('shooting_star', false, 0.01),
      sample('shooting_star', false, -0.02),
    ]);
    expect(stats?.horizons[5]).to.deep.equal({ count: 3, hitRate: 2 / 3, median: -0.02 });
  });

  it('gives a neutral pattern no hit rate, and a horizon without samples no statistics', () => {
    const [stats] = summarisePerformance([
      sample('doji', null, 0.01, null, null),
      sample('doji', null, 0.03, null, null),
    ]);
    expect(stats?.horizons[1]).to.deep.equal({ count: 2, hitRate: null, median: 0.02 });
    expect(stats?.horizons[20]).to.deep.equal({ count: 0, hitRate: null, median: null });
    expect(stats?.detections).to.equal(2);
  });

  it('lists patterns in the order of the domain list, only those detected', () => {
    const stats = summarisePerformance([sample('three_black_crows', false, 0.01), sample('doji', null, 0.01)]);
    expect(stats.map((s) => s.name)).to.deep.equal(['doji', 'three_black_crows']);
  });

  it('pools the detections of several histories', () => {
    // Ten falling bars ending at 100, then a hammer on bar 10, then 20 closes moving by `rise` a day.
    const build = (rise: number): DailyBar[] => {
      const bars = Array.from({ length: 10 }, (_, k): DailyBar => {
        const close = 109 - k;
        return {
          date: `2024-01-${String(k + 1).padStart(2, '0')}`,
          open: close + 1,
          high: close + 1.5,
          low: close - 0.5,
          close,
          volume: 1,
        };
      });
      bars.push({ date: '2024-01-11', open: 100, high: 100.45, low: 98.9, close: 100.4, volume: 1 });
      for (let k = 1; k <= 20; k += 1) {
        const close = 100.4 + rise * k;
        bars.push({
          date: `2024-02-${String(k).padStart(2, '0')}`,
          open: close,
          high: close + 0.001,
          low: close - 0.001,
          close,
          volume: 1,
        });
      }
      return bars;
    };
    const stats = patternPerformance([build(1), build(-1)]).find((s) => s.name === 'hammer');
    expect(stats?.detections).to.equal(2);
    expect(stats?.horizons[1].count).to.equal(2);
    expect(stats?.horizons[1].hitRate).to.equal(0.5);
    expect(stats?.horizons[20].median).to.be.closeTo(0, 1e-12);
  });
});

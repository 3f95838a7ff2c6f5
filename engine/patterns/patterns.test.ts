import { expect } from 'chai';
import { type DailyBar } from '../../domain/market/types.ts';
import { PATTERNS, PATTERN_NAMES, type PatternName } from '../../domain/screener/patterns.ts';
import { AVERAGE_PERIOD, PATTERN_DEFINITIONS, detectAll, detectPatterns, measureCandles } from './patterns.ts';

type Ohlc = readonly [open: number, high: number, low: number, close: number];
type Trend = 'down' | 'up';

/**
 * Ten context bars ending on a close of 100, each with a body of 1 and a range of 2 (so the average body is 1
 * and the average range 2), falling or rising by 1 a day so the 5-bar SMA slopes the given way.
 */
function context(trend: Trend): DailyBar[] {
  return Array.from({ length: AVERAGE_PERIOD }, (_, k) => {
    const close = trend === 'down' ? 100 + (AVERAGE_PERIOD - 1 - k) : 100 - (AVERAGE_PERIOD - 1 - k);
    const open = trend === 'down' ? close + 1 : close - 1;
    return bar(k, [open, Math.max(open, close) + 0.5, Math.min(open, close) - 0.5, close]);
  });
}

function bar(day: number, [open, high, low, close]: Ohlc): DailyBar {
  if (high < Math.max(open, close) || low > Math.min(open, close)) {
    throw new Error(`fixture bar ${day} is not a candle: ${open} ${high} ${low} ${close}`);
  }
  const date = new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);
  return { date, open, high, low, close, volume: 1_000_000 };
}

/** The context bars followed by the pattern's candles; the last candle is the bar examined. */
function series(trend: Trend, ...candles: Ohlc[]): DailyBar[] {
  const bars = context(trend);
  candles.forEach((candle, i) => bars.push(bar(AVERAGE_PERIOD + i, candle)));
  return bars;
}

function namesAtEnd(bars: readonly DailyBar[]): PatternName[] {
  return detectPatterns(bars, bars.length - 1).map((hit) => hit.name);
}

interface Fixture {
  readonly name: PatternName;
  /** Bars whose last bar completes the pattern. */
  readonly positive: DailyBar[];
  /** A near miss: the pattern must not be found on its last bar. */
  readonly negative: DailyBar[];
  /** What the near miss changes. */
  readonly miss: string;
}

const FIXTURES: readonly Fixture[] = [
  {
    name: 'doji',
    positive: series('down', [100, 100.6, 99.5, 100.05]),
    negative: series('down', [100, 100.8, 99.5, 100.3]),
    miss: 'body 0.3, above 10% of the average range (0.2)',
  },
  {
    name: 'dragonfly_doji',
    positive: series('down', [100, 100.05, 98.5, 100.02]),
    negative: series('down', [100, 100.32, 98.5, 100.02]),
    miss: 'upper shadow 0.3, not very short',
  },
  {
    name: 'gravestone_doji',
    positive: series('up', [100, 101.5, 99.95, 99.98]),
    negative: series('up', [100, 101.5, 99.68, 99.98]),
    miss: 'lower shadow 0.3, not very short',
  },
  {
    name: 'hammer',
    positive: series('down', [100, 100.45, 98.9, 100.4]),
    negative: series('down', [100, 100.65, 98.9, 100.6]),
    miss: 'lower shadow 1.1, under twice the body of 0.6',
  },
  {
    name: 'inverted_hammer',
    positive: series('down', [100, 101.5, 99.95, 100.4]),
    negative: series('down', [100, 101.5, 99.75, 100.4]),
    miss: 'lower shadow 0.25, not very short',
  },
  {
    name: 'hanging_man',
    positive: series('up', [100, 100.45, 98.9, 100.4]),
    negative: series('down', [100, 100.45, 98.9, 100.4]),
    miss: 'the same candle after a downtrend (a hammer)',
  },
  {
    name: 'shooting_star',
    positive: series('up', [100, 101.5, 99.95, 100.4]),
    negative: series('down', [100, 101.5, 99.95, 100.4]),
    miss: 'the same candle after a downtrend (an inverted hammer)',
  },
  {
    name: 'bullish_engulfing',
    positive: series('down', [100, 100.2, 98.8, 99], [98.9, 100.3, 98.8, 100.2]),
    negative: series('down', [100, 100.2, 98.8, 99], [98.9, 100.1, 98.8, 99.9]),
    miss: 'the white body closes at 99.9, short of the black open 100',
  },
  {
    name: 'bearish_engulfing',
    positive: series('up', [100, 101.2, 99.8, 101], [101.1, 101.2, 99.7, 99.8]),
    negative: series('up', [100, 101.2, 99.8, 101], [101.1, 101.2, 100, 100.1]),
    miss: 'the black body closes at 100.1, above the white open 100',
  },
  {
    name: 'bullish_harami',
    positive: series('down', [100, 100.1, 97.9, 98], [98.5, 99.1, 98.4, 99]),
    negative: series('down', [100, 100.1, 97.9, 98], [99.5, 100.3, 99.4, 100.2]),
    miss: 'the short body ends at 100.2, above the black open 100',
  },
  {
    name: 'bearish_harami',
    positive: series('up', [100, 102.1, 99.9, 102], [101.5, 101.6, 100.9, 101]),
    negative: series('up', [100, 102.1, 99.9, 102], [100.5, 100.6, 99.7, 99.8]),
    miss: 'the short body ends at 99.8, below the white open 100',
  },
  {
    name: 'piercing_line',
    positive: series('down', [100, 100.1, 97.9, 98], [97.5, 99.4, 97.4, 99.3]),
    negative: series('down', [100, 100.1, 97.9, 98], [97.5, 98.9, 97.4, 98.8]),
    miss: 'the white candle closes at 98.8, below the middle (99) of the black body',
  },
  {
    name: 'dark_cloud_cover',
    positive: series('up', [100, 102.1, 99.9, 102], [102.5, 102.6, 100.6, 100.7]),
    negative: series('up', [100, 102.1, 99.9, 102], [102.5, 102.6, 101.1, 101.2]),
    miss: 'the black candle closes at 101.2, above the middle (101) of the white body',
  },
  {
    name: 'morning_star',
    positive: series('down', [100, 100.1, 97.9, 98], [97.5, 97.6, 97.1, 97.3], [97.6, 99.1, 97.5, 99]),
    negative: series('down', [100, 100.1, 97.9, 98], [97.5, 97.6, 97.1, 97.3], [97.4, 98.6, 97.3, 98.5]),
    miss: 'the third candle closes at 98.5, not 30% into the first body (98.6)',
  },
  {
    name: 'evening_star',
    positive: series('up', [100, 102.1, 99.9, 102], [102.5, 102.8, 102.4, 102.7], [102.6, 102.7, 100.9, 101]),
    negative: series('up', [100, 102.1, 99.9, 102], [102.5, 102.8, 102.4, 102.7], [102.6, 102.7, 101.4, 101.5]),
    miss: 'the third candle closes at 101.5, not 30% into the first body (101.4)',
  },
  {
    name: 'three_white_soldiers',
    positive: series('down', [99.9, 101.6, 99.8, 101.5], [100.5, 102.6, 100.4, 102.5], [101.8, 103.9, 101.7, 103.8]),
    negative: series('down', [99.9, 101.6, 99.8, 101.5], [100.5, 102.6, 100.4, 102.5], [101.8, 104.5, 101.7, 103.8]),
    miss: 'the third upper shadow is 0.7, above a quarter of its body',
  },
  {
    name: 'three_black_crows',
    positive: series('up', [100.1, 100.2, 98.4, 98.5], [99.5, 99.6, 97.4, 97.5], [98.2, 98.3, 95.7, 95.8]),
    negative: series('up', [100.1, 100.2, 98.4, 98.5], [99.5, 99.6, 97.4, 97.5], [97.3, 97.4, 95.7, 95.8]),
    miss: 'the third crow opens at 97.3, below the second body',
  },
  {
    name: 'bullish_marubozu',
    positive: series('down', [100, 101.55, 99.95, 101.5]),
    negative: series('down', [100, 101.75, 99.95, 101.5]),
    miss: 'upper shadow 0.25, not very short',
  },
  {
    name: 'bearish_marubozu',
    positive: series('up', [100, 100.05, 98.45, 98.5]),
    negative: series('up', [100, 100.05, 98.25, 98.5]),
    miss: 'lower shadow 0.25, not very short',
  },
];

/** A deterministic random walk of daily bars (a small LCG), for properties over many shapes. */
function randomBars(count: number, seed: number): DailyBar[] {
  let state = seed;
  const next = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const bars: DailyBar[] = [];
  let close = 50;
  for (let day = 0; day < count; day += 1) {
    const open = Math.round(close * (1 + (next() - 0.5) * 0.02) * 100) / 100;
    close = Math.round(open * (1 + (next() - 0.5) * 0.04) * 100) / 100;
    const high = Math.round((Math.max(open, close) + next() * next() * 1.5) * 100) / 100;
    const low = Math.round((Math.min(open, close) - next() * next() * 1.5) * 100) / 100;
    bars.push(bar(day, [open, high, low, close]));
  }
  return bars;
}

describe('candlestick patterns', () => {
  it('defines at least 16 patterns, exactly the names of the domain list with the same directions', () => {
    expect(PATTERN_DEFINITIONS.length).to.be.at.least(16);
    expect(PATTERN_DEFINITIONS.map((d) => d.name)).to.deep.equal(PATTERN_NAMES);
    expect(PATTERN_DEFINITIONS.map((d) => d.bullish)).to.deep.equal(PATTERNS.map((p) => p.bullish));
    for (const name of PATTERN_NAMES) expect(name).to.match(/^[a-z]+(_[a-z]+)*$/);
  });

  it('has a positive and a negative fixture for every pattern', () => {
    expect(FIXTURES.map((f) => f.name)).to.have.members([...PATTERN_NAMES]);
  });

  for (const fixture of FIXTURES) {
    describe(fixture.name, () => {
      it('is found on the bar that completes it', () => {
        expect(namesAtEnd(fixture.positive)).to.include(fixture.name);
      });

      it(`is not found on a near miss: ${fixture.miss}`, () => {
        expect(namesAtEnd(fixture.negative)).not.to.include(fixture.name);
      });

      it('reports the direction of the domain list', () => {
        const hit = detectPatterns(fixture.positive, fixture.positive.length - 1).find((h) => h.name === fixture.name);
        expect(hit?.bullish).to.equal(PATTERNS.find((p) => p.name === fixture.name)?.bullish);
      });
    });
  }

  it('reports a doji as neutral and not as a dragonfly or gravestone doji', () => {
    expect(detectPatterns(FIXTURES[0]!.positive, AVERAGE_PERIOD)).to.deep.include({ name: 'doji', bullish: null });
    expect(namesAtEnd(series('down', [100, 100.05, 98.5, 100.02]))).not.to.include('doji');
  });

  it('finds nothing on a bar with fewer than 10 bars before it', () => {
    const bars = series('down', [100, 100.45, 98.9, 100.4]).slice(1);
    expect(detectPatterns(bars, bars.length - 1)).to.deep.equal([]);
  });

  it('finds nothing on bars that never moved (zero average range)', () => {
    const bars = Array.from({ length: 15 }, (_, day) => bar(day, [10, 10, 10, 10]));
    expect(detectAll(bars)).to.deep.equal([]);
  });

  it('finds nothing for an index outside the history', () => {
    const bars = randomBars(30, 1);
    expect(detectPatterns(bars, 30)).to.deep.equal([]);
    expect(detectPatterns(bars, -1)).to.deep.equal([]);
  });

  it('judges a bar only from the bars up to it', () => {
    const bars = series('down', [100, 100.45, 98.9, 100.4]);
    const longer = [...bars, ...randomBars(5, 3).map((b, i) => ({ ...b, date: `2025-01-0${i + 1}` }))];
    expect(detectPatterns(longer, AVERAGE_PERIOD)).to.deep.equal(detectPatterns(bars, AVERAGE_PERIOD));
  });

  it('detects over a whole history exactly what it detects bar by bar', () => {
    for (const seed of [7, 11, 42]) {
      const bars = randomBars(600, seed);
      const all = detectAll(bars);
      const one = bars.flatMap((b, index) => {
        const hits = detectPatterns(bars, index);
        return hits.length > 0 ? [{ index, date: b.date, hits }] : [];
      });
      expect(all).to.deep.equal(one);
      expect(all.length).to.be.greaterThan(0);
    }
  });

  it('measures a bar against the mean body and range of the 10 bars before it and the SMA(5) slope', () => {
    const candles = measureCandles(series('down', [100, 100.45, 98.9, 100.4]));
    const candle = candles[AVERAGE_PERIOD]!;
    expect(candle.avgBody).to.be.closeTo(1, 1e-12);
    expect(candle.avgRange).to.be.closeTo(2, 1e-12);
    expect(candle.trend).to.equal(-1);
    expect(candle.ready).to.be.true;
    expect(candles[AVERAGE_PERIOD - 1]!.ready).to.be.false;
    expect(measureCandles(series('up', [100, 100.45, 98.9, 100.4]))[AVERAGE_PERIOD]!.trend).to.equal(1);
  });
});

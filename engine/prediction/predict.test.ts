import { expect } from 'chai';
import { DomainError } from '../../domain/decider.ts';
import type { DailyBar } from '../../domain/market/types.ts';
import { parsePredictionSpec, type PredictionSpec, type PredictionSpecInput } from '../../domain/prediction/spec.ts';
import { isTradingDay, nextTradingDay } from '../marketdata/calendar.ts';
import { streamOf } from '../marketdata/random.ts';
import { buildDesign, polynomialTerms } from './features.ts';
import {
  fitPrediction,
  fitPredictionAsync,
  HISTORY_BARS,
  MIN_SAMPLES,
  MIN_TRAINING_ROWS,
  quantile,
  requiredBars,
  walkForward,
} from './predict.ts';
import { RidgeAccumulator } from './ridge.ts';

/** Bars on consecutive trading days from closes (open = previous close, volume from the seeded stream). */
function barsOf(closes: readonly number[], seed = 1): DailyBar[] {
  const random = streamOf(seed, 'volume');
  let date = '2019-12-31';
  return closes.map((close, i) => {
    date = nextTradingDay(date);
    const open = i === 0 ? close : closes[i - 1]!;
    const volume = Math.round(1_000_000 * Math.exp(0.3 * random.normal()));
    return { date, open, high: Math.max(open, close), low: Math.min(open, close), close, volume };
  });
}

/** Closes of a random walk of log returns (no drift), from a seeded stream. */
function randomWalk(length: number, seed: number, sd = 0.015): number[] {
  const random = streamOf(seed, 'walk');
  const closes = [100];
  for (let i = 1; i < length; i++) closes.push(closes[i - 1]! * Math.exp(sd * random.normal()));
  return closes;
}

/** Closes whose daily log returns follow r[t+1] = phi · r[t] + noise. */
function autoregressive(length: number, phi: number, seed: number): number[] {
  const random = streamOf(seed, 'ar');
  const closes = [100];
  let r = 0;
  for (let i = 1; i < length; i++) {
    r = phi * r + 0.01 * random.normal();
    closes.push(closes[i - 1]! * Math.exp(r));
  }
  return closes;
}

const spec = (input: Partial<PredictionSpecInput>): PredictionSpec =>
  parsePredictionSpec({ symbol: 'TEST', horizon: 1, model: 'ridge', features: { lagReturns: 1 }, ...input });

const ALL_FEATURES = { lagReturns: 5, rsi: true, smaDistance: true, volume: true };
const FIVE_YEARS = 1258;

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  expect.fail('expected a refusal');
}

describe('price forecasts', () => {
  describe('the design', () => {
    it('computes each feature from the bar and the ones before it only', () => {
      const bars = barsOf(randomWalk(300, 3));
      const design = buildDesign(bars, ALL_FEATURES, 5);
      expect(design.names).to.deep.equal([
        'lagReturn1',
        'lagReturn2',
        'lagReturn3',
        'lagReturn4',
        'lagReturn5',
        'rsi14',
        'smaDistance50',
        'smaDistance200',
        'volumeZ',
      ]);
      expect(design.first).to.equal(199);
      const t = 250;
      const row = design.rows.subarray(t * design.width, (t + 1) * design.width);
      expect(row[0]).to.be.closeTo(Math.log(bars[t]!.close / bars[t - 1]!.close), 1e-15);
      expect(row[4]).to.be.closeTo(Math.log(bars[t - 4]!.close / bars[t - 5]!.close), 1e-15);
      const sma200 = bars.slice(t - 199, t + 1).reduce((sum, bar) => sum + bar.close, 0) / 200;
      expect(row[7]).to.be.closeTo(bars[t]!.close / sma200 - 1, 1e-9);
      expect(design.targets[t]).to.be.closeTo(Math.log(bars[t + 5]!.close / bars[t]!.close), 1e-15);
      expect(Number.isNaN(design.targets[bars.length - 5]!)).to.equal(true);
    });

    it('expands to polynomial terms: pairs up to degree 2, cubes at degree 3', () => {
      expect(polynomialTerms(['a', 'b'], 2).map((t) => t.name)).to.deep.equal(['a', 'b', 'a^2', 'a*b', 'b^2']);
      expect(polynomialTerms(['a', 'b'], 3).map((t) => t.name)).to.deep.equal([
        'a',
        'b',
        'a^2',
        'a*b',
        'b^2',
        'a^3',
        'b^3',
      ]);
      expect(polynomialTerms(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n'], 3)).to.have.length(
        133,
      );
    });
  });

  describe('the ridge fit', () => {
    it('recovers a true linear relation and beats the naive baseline by far', () => {
      const bars = barsOf(autoregressive(1000, 0.6, 7));
      const design = buildDesign(bars, { lagReturns: 1, rsi: false, smaDistance: false, volume: false }, 1);
      const accumulator = new RidgeAccumulator(1);
      for (let t = design.first; t < design.length - 1; t++) accumulator.add(design.rows, design.targets[t]!, t);
      const fit = accumulator.fit(1e-6);
      expect(fit.weights[0]! / fit.scales[0]!).to.be.closeTo(0.6, 0.05);

      const result = fitPrediction(bars, spec({ lambda: 0.001 }));
      expect(result.metrics.beatsBaseline).to.equal(true);
      expect(result.metrics.model.rmse / result.metrics.baseline.rmse).to.be.below(0.9);
      expect(result.metrics.model.hitRate).to.be.above(result.metrics.baseline.hitRate + 0.1);
      expect(result.metrics.verdict).to.match(/^It beats the naive baseline/);
    });

    it('matches the textbook ridge solution on standardised features', () => {
      const rows = [
        [1, 2],
        [2, 1],
        [3, 5],
        [4, 3],
        [5, 8],
      ];
      const ys = [1, 2, 2, 4, 5];
      const accumulator = new RidgeAccumulator(2);
      rows.forEach((row, i) => accumulator.add(row, ys[i]!));
      const fit = accumulator.fit(0.5);
      // By hand: z-scores with population deviations, then (ZᵀZ/n + λI) w = Zᵀy/n.
      const mean = [3, 3.8];
      const sd = [Math.sqrt(2), Math.sqrt(6.16)];
      const z = rows.map((row) => row.map((v, j) => (v - mean[j]!) / sd[j]!));
      const yMean = 2.8;
      const g = [0, 1].map((j) =>
        [0, 1].map((k) => z.reduce((s, r) => s + r[j]! * r[k]!, 0) / 5 + (j === k ? 0.5 : 0)),
      );
      const c = [0, 1].map((j) => z.reduce((s, r, i) => s + r[j]! * (ys[i]! - yMean), 0) / 5);
      const det = g[0]![0]! * g[1]![1]! - g[0]![1]! * g[1]![0]!;
      const w = [(c[0]! * g[1]![1]! - g[0]![1]! * c[1]!) / det, (g[0]![0]! * c[1]! - g[1]![0]! * c[0]!) / det];
      expect(fit.intercept).to.be.closeTo(yMean, 1e-12);
      expect(fit.means[1]).to.be.closeTo(3.8, 1e-12);
      expect(fit.scales[1]).to.be.closeTo(sd[1]!, 1e-12);
      expect(fit.weights[0]).to.be.closeTo(w[0]!, 1e-12);
      expect(fit.weights[1]).to.be.closeTo(w[1]!, 1e-12);
    });

    it('gives a constant feature no weight instead of failing', () => {
      const accumulator = new RidgeAccumulator(2);
      [1, 2, 3, 4].forEach((x) => accumulator.add([x, 7], 2 * x));
      const fit = accumulator.fit(0);
      expect(fit.weights[1]).to.equal(0);
      expect(fit.weights[0]! / fit.scales[0]!).to.be.closeTo(2, 1e-12);
    });
  });

  describe('on a pure random walk', () => {
    for (const [label, input] of [
      ['ridge on lagged returns, 1 day', { horizon: 1, features: { lagReturns: 5 } }],
      ['ridge on every feature, 5 days', { horizon: 5, features: ALL_FEATURES }],
      ['a degree-2 polynomial, 5 days', { horizon: 5, model: 'poly', degree: 2, features: ALL_FEATURES }],
    ] as const) {
      it(`does not meaningfully beat the baseline: ${label}`, () => {
        for (const seed of [11, 12]) {
          const result = fitPrediction(barsOf(randomWalk(FIVE_YEARS, seed), seed), spec(input));
          const ratio = result.metrics.model.rmse / result.metrics.baseline.rmse;
          expect(result.metrics.beatsBaseline === false || ratio >= 0.97, `ratio ${ratio}`).to.equal(true);
          if (!result.metrics.beatsBaseline) expect(result.metrics.verdict).to.match(/^It does not beat/);
        }
      });
    }

    it('overfits without a penalty and less with one, as the walk-forward shows', () => {
      const bars = barsOf(randomWalk(FIVE_YEARS, 21), 21);
      const input = { horizon: 5, model: 'poly', degree: 3, features: ALL_FEATURES } as const;
      const loose = fitPrediction(bars, spec({ ...input, lambda: 0 }));
      const firm = fitPrediction(bars, spec({ ...input, lambda: 100 }));
      expect(loose.metrics.model.rmse).to.be.above(firm.metrics.model.rmse);
      expect(loose.metrics.beatsBaseline).to.equal(false);
    });
  });

  describe('no look-ahead', () => {
    for (const [label, input] of [
      ['ridge', { horizon: 3, features: ALL_FEATURES }],
      ['poly, refitted every 5 steps', { horizon: 3, model: 'poly', degree: 3, features: ALL_FEATURES }],
    ] as const) {
      it(`keeps every forecast up to a day when the bars after it change: ${label}`, () => {
        const bars = barsOf(randomWalk(900, 5), 5);
        const cut = 700;
        const changed = bars.map((bar, i) =>
          i <= cut ? bar : { ...bar, close: bar.close * (1 + 0.2 * Math.sin(i)), volume: bar.volume * 3 },
        );
        const before = walkForward(bars, spec(input)).filter((p) => p.index <= cut);
        const after = walkForward(changed, spec(input)).filter((p) => p.index <= cut);
        const truncated = walkForward(bars.slice(0, cut + 1), spec(input));
        expect(before.length).to.be.above(100);
        expect(after.map((p) => p.predicted)).to.deep.equal(before.map((p) => p.predicted));
        expect(truncated.map((p) => p.predicted)).to.deep.equal(before.map((p) => p.predicted));
        // The changed future does change forecasts after the cut, so the comparison can fail.
        const later = walkForward(changed, spec(input)).find((p) => p.index === cut + 10)!;
        expect(later.predicted).not.to.equal(
          walkForward(bars, spec(input)).find((p) => p.index === cut + 10)!.predicted,
        );
      });
    }

    it('leaves the realised return of the last horizon days unknown', () => {
      const points = walkForward(barsOf(randomWalk(600, 8)), spec({ horizon: 4 }));
      expect(points.slice(-4).every((p) => p.actual === null)).to.equal(true);
      expect(points.at(-5)!.actual).not.to.equal(null);
    });
  });

  describe('the answer', () => {
    const bars = barsOf(randomWalk(FIVE_YEARS, 31), 31);
    const request = spec({ horizon: 5, features: ALL_FEATURES });

    it('has the figures, the forecast path with its interval, the last closes and the weights', () => {
      const result = fitPrediction(bars, request);
      expect(result.symbol).to.equal('TEST');
      expect(result.horizon).to.equal(5);
      expect(result.asOf).to.equal(bars.at(-1)!.date);
      expect(result.metrics.samples).to.equal(FIVE_YEARS - 199 - 2 * 5 - MIN_TRAINING_ROWS + 1);
      expect(result.history).to.have.length(HISTORY_BARS);
      expect(result.history.at(-1)).to.deep.equal({ date: bars.at(-1)!.date, close: bars.at(-1)!.close });
      expect(result.coefficients.map((c) => c.feature)).to.deep.equal([
        'intercept',
        'lagReturn1',
        'lagReturn2',
        'lagReturn3',
        'lagReturn4',
        'lagReturn5',
        'rsi14',
        'smaDistance50',
        'smaDistance200',
        'volumeZ',
      ]);
      expect(result.forecast).to.have.length(5);
      let previous = result.asOf;
      let width = 0;
      for (const point of result.forecast) {
        expect(point.date > previous && isTradingDay(point.date)).to.equal(true);
        expect(point.low).to.be.below(point.price);
        expect(point.high).to.be.above(point.price);
        expect(point.high - point.low).to.be.above(width);
        width = point.high - point.low;
        previous = point.date;
      }
    });

    it('bounds the last step by the 10% and 90% quantiles of the out-of-sample errors', () => {
      const result = fitPrediction(bars, request);
      const errors = walkForward(bars, request)
        .filter((p) => p.actual !== null)
        .map((p) => p.actual! - p.predicted)
        .sort((a, b) => a - b);
      const last = result.forecast.at(-1)!;
      const close = bars.at(-1)!.close;
      const centre = Math.log(last.price / close);
      expect(Math.log(last.low / close) - centre).to.be.closeTo(quantile(errors, 0.1), 1e-4);
      expect(Math.log(last.high / close) - centre).to.be.closeTo(quantile(errors, 0.9), 1e-4);
    });

    it('answers the same to the same request', () => {
      expect(fitPrediction(bars, request)).to.deep.equal(fitPrediction(bars, request));
    });

    it('answers the same without holding the event loop, handing it back between slices', async () => {
      const input = spec({ horizon: 5, model: 'poly', degree: 2, features: ALL_FEATURES });
      let turns = 0;
      const timer = setInterval(() => (turns += 1), 0);
      const result = await fitPredictionAsync(bars, input, 0);
      clearInterval(timer);
      expect(result).to.deep.equal(fitPrediction(bars, input));
      expect(turns).to.be.above(2);
    });
  });

  describe('refusals', () => {
    it('refuses a history too short for the request, naming the symbol and what it needs', () => {
      const need = requiredBars(199, 5);
      expect(need).to.equal(199 + 10 + MIN_TRAINING_ROWS + MIN_SAMPLES - 1);
      const error = refusal(() =>
        fitPrediction(barsOf(randomWalk(need - 1, 2)), spec({ horizon: 5, features: ALL_FEATURES })),
      );
      expect(error.code).to.equal('insufficient_history');
      expect(error.message).to.match(/^symbol: TEST has \d+ daily bars; this model needs at least/);
      expect(() =>
        fitPrediction(barsOf(randomWalk(need, 2)), spec({ horizon: 5, features: ALL_FEATURES })),
      ).not.to.throw();
    });

    it('refuses collinear features without a penalty, naming lambda, and fits them with one', () => {
      // Alternating closes make yesterday's return exactly minus today's.
      const bars = barsOf(Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 100 : 101)));
      const error = refusal(() => fitPrediction(bars, spec({ lambda: 0, features: { lagReturns: 2 } })));
      expect(error.code).to.equal('singular');
      expect(error.message).to.match(/^lambda: /);
      expect(() => fitPrediction(bars, spec({ lambda: 0.1, features: { lagReturns: 2 } }))).not.to.throw();
    });

    it('refuses a history with a price that is not positive', () => {
      const bars = barsOf(randomWalk(600, 2));
      bars[10] = { ...bars[10]!, close: 0 };
      expect(refusal(() => fitPrediction(bars, spec({}))).code).to.equal('invalid_bars');
    });
  });
});

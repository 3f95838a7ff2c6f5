/**
 * Honest price forecasts: a ridge (or polynomial ridge) model of the log return over the next `horizon` trading
 * days, validated walk-forward against the naive baseline (the price stays where it is), and a forecast path from
 * the last bar with an interval taken from the model's own out-of-sample errors. Deterministic: the same bars
 * and request always give the same answer.
 */
import { DomainError } from '../../domain/decider.ts';
import type { DailyBar } from '../../domain/market/types.ts';
import type { ErrorFigures, PredictionMetrics } from '../../domain/prediction/predictions.ts';
import type { PredictionSpec } from '../../domain/prediction/spec.ts';
import { nextTradingDay } from '../marketdata/calendar.ts';
import { buildDesign, type Design } from './features.ts';
import { SingularMatrixError } from './linalg.ts';
import { predictRidge, RidgeAccumulator, type RidgeFit } from './ridge.ts';

/** Training rows (about a trading year) the first walk-forward forecast is fitted on, at least. */
export const MIN_TRAINING_ROWS = 252;

/** Out-of-sample forecasts the validation needs, at least. */
export const MIN_SAMPLES = 20;

/** Bars of history the answer carries for the plot. */
export const HISTORY_BARS = 120;

/** The quantiles of the out-of-sample errors that bound the forecast interval. */
export const INTERVAL_QUANTILES = Object.freeze({ low: 0.1, high: 0.9 });

/** Milliseconds of work {@link fitPredictionAsync} does before handing the event loop back. */
export const SLICE_MS = 5;

/** Digits prices and errors are rounded to in the answer. */
const PRICE_DIGITS = 4;

/** How often the walk-forward refits: every step for a linear model, every 5 steps for a polynomial one. */
export function refitInterval(spec: Pick<PredictionSpec, 'model'>): number {
  return spec.model === 'poly' ? 5 : 1;
}

/** One walk-forward forecast: made at the close of `date` from bars up to it, of the log return `horizon` days on. */
export interface WalkForwardPoint {
  /** Bar index the forecast was made at. */
  readonly index: number;
  /** The bar's date. */
  readonly date: string;
  /** The close the forecast starts from. */
  readonly close: number;
  /** The forecast log return. */
  readonly predicted: number;
  /** The realised log return, or null when the horizon is past the last bar. */
  readonly actual: number | null;
}

/** A point of the forecast path. */
export interface ForecastPoint {
  /** A trading day after the last bar. */
  readonly date: string;
  /** The forecast price. */
  readonly price: number;
  /** Lower bound of the interval (10% quantile of the out-of-sample errors, scaled to the step). */
  readonly low: number;
  /** Upper bound of the interval (90% quantile, scaled to the step). */
  readonly high: number;
}

/** What a fit answers: the validation figures, the forecast, the recent closes and the model's weights. */
export interface PredictionResult {
  /** The symbol. */
  readonly symbol: string;
  /** Trading days ahead. */
  readonly horizon: number;
  /** The date of the last bar. */
  readonly asOf: string;
  /** The walk-forward figures of the model and of the naive baseline. */
  readonly metrics: PredictionMetrics;
  /** The next `horizon` trading days' forecast path with its interval. */
  readonly forecast: ForecastPoint[];
  /** The last {@link HISTORY_BARS} closes. */
  readonly history: { date: string; close: number }[];
  /** The final model's intercept and weights (per standard deviation of each feature). */
  readonly coefficients: { feature: string; weight: number }[];
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return rounded === 0 ? 0 : rounded;
}

/** The bars a request needs at least, given where its features start to be known. */
export function requiredBars(first: number, horizon: number): number {
  return first + 2 * horizon + MIN_TRAINING_ROWS + MIN_SAMPLES - 1;
}

function fitOrRefuse(accumulator: RidgeAccumulator, lambda: number): RidgeFit {
  try {
    return accumulator.fit(lambda);
  } catch (error) {
    if (error instanceof SingularMatrixError) {
      throw new DomainError(
        'singular',
        'lambda: the features are collinear, so the model has no unique fit without a penalty; choose lambda above 0',
        'lambda',
      );
    }
    throw error;
  }
}

function checkHistory(design: Design, spec: PredictionSpec): void {
  const need = requiredBars(design.first, spec.horizon);
  if (design.length < need) {
    throw new DomainError(
      'insufficient_history',
      `symbol: ${spec.symbol} has ${design.length} daily bars; this model needs at least ${need} (features from bar ${design.first + 1}, ${MIN_TRAINING_ROWS} training rows, ${MIN_SAMPLES} forecasts to validate)`,
      'symbol',
    );
  }
}

/** The walk-forward run and the state it ends in. */
interface WalkForwardRun {
  readonly design: Design;
  readonly points: WalkForwardPoint[];
  /** Every row whose target is known at the last bar. */
  readonly accumulator: RidgeAccumulator;
}

/**
 * The walk-forward run as steps: it pauses (yields) after each forecast, so a caller can let other work in
 * between; {@link runNow} runs it through at once.
 */
function* runSteps(bars: readonly DailyBar[], spec: PredictionSpec): Generator<void, WalkForwardRun, void> {
  const design = buildDesign(bars, spec.features, spec.horizon, spec.model === 'poly' ? spec.degree : undefined);
  checkHistory(design, spec);
  const { width, rows, targets, first } = design;
  const h = spec.horizon;
  const accumulator = new RidgeAccumulator(width);
  // At the close of bar t, a row s is a training row once its target is known: s + h <= t.
  const start = first + h + MIN_TRAINING_ROWS - 1;
  for (let s = first; s < start - h; s++) accumulator.add(rows, targets[s]!, s * width);
  const every = refitInterval(spec);
  const points: WalkForwardPoint[] = [];
  let fit: RidgeFit | undefined;
  for (let t = start; t < design.length; t++) {
    accumulator.add(rows, targets[t - h]!, (t - h) * width);
    // The schedule counts from the first forecast, so cutting the history never moves an earlier refit.
    if (fit === undefined || (t - start) % every === 0) fit = fitOrRefuse(accumulator, spec.lambda);
    const actual = targets[t]!;
    points.push({
      index: t,
      date: bars[t]!.date,
      close: bars[t]!.close,
      predicted: predictRidge(fit, rows, t * width),
      actual: Number.isNaN(actual) ? null : actual,
    });
    yield;
  }
  return { design, points, accumulator };
}

function runNow<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs steps, handing the event loop back whenever a slice of `sliceMs` has been used. */
async function runInSlices<T>(steps: Generator<void, T, void>, sliceMs: number): Promise<T> {
  let deadline = performance.now() + sliceMs;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() >= deadline) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      deadline = performance.now() + sliceMs;
    }
  }
}

/**
 * The walk-forward forecasts of a request over a history (oldest first): an expanding training window, refitted
 * every {@link refitInterval} steps, each forecast made from bars up to its day only. The last `horizon` points
 * have no realised return yet.
 */
export function walkForward(bars: readonly DailyBar[], spec: PredictionSpec): WalkForwardPoint[] {
  return runNow(runSteps(bars, spec)).points;
}

/** The `q` quantile (0–1) of sorted values, interpolating between neighbours. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

function figuresOf(
  predicted: readonly number[],
  realised: readonly number[],
  returns: readonly number[][],
): ErrorFigures {
  let absolute = 0;
  let squared = 0;
  let hits = 0;
  predicted.forEach((price, i) => {
    const error = price - realised[i]!;
    absolute += Math.abs(error);
    squared += error * error;
    const [forecast, actual] = returns[i]!;
    if (forecast! >= 0 === actual! >= 0) hits += 1;
  });
  const n = predicted.length;
  return {
    mae: round(absolute / n, PRICE_DIGITS),
    rmse: round(Math.sqrt(squared / n), PRICE_DIGITS),
    hitRate: round(hits / n, 4),
  };
}

/** A plain sentence on whether the model beats the naive baseline. */
export function verdictOf(model: ErrorFigures, baseline: ErrorFigures, samples: number, horizon: number): string {
  const ahead = horizon === 1 ? '1 trading day ahead' : `${horizon} trading days ahead`;
  const over = `over ${samples} walk-forward forecasts ${ahead}`;
  const m = model.rmse.toFixed(2);
  const b = baseline.rmse.toFixed(2);
  if (baseline.rmse === 0) {
    return model.rmse === 0
      ? `It does not beat the naive baseline: ${over} both forecast every price exactly.`
      : `It does not beat the naive baseline: ${over} today's price was always right and the model's RMSE is ${m}.`;
  }
  const ratio = model.rmse / baseline.rmse;
  const percent = (Math.abs(1 - ratio) * 100).toFixed(1);
  if (model.rmse < baseline.rmse) {
    const margin = ratio > 0.99 ? ' The margin is under 1%, too small to rely on.' : '';
    return `It beats the naive baseline: ${over}, its RMSE of ${m} is ${percent}% below the baseline's ${b} (today's price as the forecast).${margin}`;
  }
  const how = model.rmse === baseline.rmse ? 'equal to' : `${percent}% above`;
  return `It does not beat the naive baseline: ${over}, its RMSE of ${m} is ${how} the baseline's ${b}, so today's price is as good a forecast or better.`;
}

/**
 * Fits a request on a symbol's daily bars (oldest first): walk-forward validation beside the naive baseline, then
 * a final fit on every row whose target is known, its forecast path for the next `horizon` trading days with an
 * interval from the empirical 10% and 90% quantiles of the out-of-sample errors (scaled by the square root of the
 * share of the horizon each step covers), the last closes and the final weights. Refuses a history too short for
 * the request, and a collinear design without a penalty, with a `DomainError` naming the field.
 */
export function fitPrediction(bars: readonly DailyBar[], spec: PredictionSpec): PredictionResult {
  return resultOf(bars, spec, runNow(runSteps(bars, spec)));
}

/**
 * {@link fitPrediction} without holding the event loop: the walk-forward hands it back every `sliceMs`
 * milliseconds (default {@link SLICE_MS}), so quotes and alerts keep flowing while a large model is fitted.
 * The answer is the same.
 */
export async function fitPredictionAsync(
  bars: readonly DailyBar[],
  spec: PredictionSpec,
  sliceMs = SLICE_MS,
): Promise<PredictionResult> {
  return resultOf(bars, spec, await runInSlices(runSteps(bars, spec), sliceMs));
}

function resultOf(bars: readonly DailyBar[], spec: PredictionSpec, run: WalkForwardRun): PredictionResult {
  const { design, points, accumulator } = run;
  const h = spec.horizon;

  const modelPrices: number[] = [];
  const baselinePrices: number[] = [];
  const realisedPrices: number[] = [];
  const modelReturns: number[][] = [];
  const baselineReturns: number[][] = [];
  const errors: number[] = [];
  for (const point of points) {
    if (point.actual === null) continue;
    modelPrices.push(point.close * Math.exp(point.predicted));
    baselinePrices.push(point.close);
    realisedPrices.push(bars[point.index + h]!.close);
    modelReturns.push([point.predicted, point.actual]);
    baselineReturns.push([0, point.actual]);
    errors.push(point.actual - point.predicted);
  }
  const samples = errors.length;
  const model = figuresOf(modelPrices, realisedPrices, modelReturns);
  const baseline = figuresOf(baselinePrices, realisedPrices, baselineReturns);
  const metrics: PredictionMetrics = {
    model,
    baseline,
    beatsBaseline: model.rmse < baseline.rmse,
    verdict: verdictOf(model, baseline, samples, h),
    samples,
  };

  const final = fitOrRefuse(accumulator, spec.lambda);
  const last = design.length - 1;
  const predicted = predictRidge(final, design.rows, last * design.width);
  const sorted = Float64Array.from(errors).sort();
  const low = quantile(sorted, INTERVAL_QUANTILES.low);
  const high = quantile(sorted, INTERVAL_QUANTILES.high);
  const close = bars[last]!.close;
  const forecast: ForecastPoint[] = [];
  let date = bars[last]!.date;
  for (let step = 1; step <= h; step++) {
    date = nextTradingDay(date);
    const share = step / h;
    const centre = predicted * share;
    const spread = Math.sqrt(share);
    forecast.push({
      date,
      price: round(close * Math.exp(centre), PRICE_DIGITS),
      low: round(close * Math.exp(centre + low * spread), PRICE_DIGITS),
      high: round(close * Math.exp(centre + high * spread), PRICE_DIGITS),
    });
  }

  return {
    symbol: spec.symbol,
    horizon: h,
    asOf: bars[last]!.date,
    metrics,
    forecast,
    history: bars.slice(-HISTORY_BARS).map((bar) => ({ date: bar.date, close: bar.close })),
    coefficients: [
      { feature: 'intercept', weight: round(final.intercept, 6) },
      ...design.names.map((feature, j) => ({ feature, weight: round(final.weights[j]!, 6) })),
    ],
  };
}

/**
 * The design of a forecasting model: per bar, the feature values computed from that bar and the ones before it
 * only (lagged log returns, RSI 14, distance from SMA 50 and SMA 200, log volume z-score), optionally expanded
 * into polynomial terms, and the target, the log return over the next `horizon` bars.
 */
import { DomainError } from '../../domain/decider.ts';
import type { DailyBar } from '../../domain/market/types.ts';
import type { PredictionFeatures } from '../../domain/prediction/spec.ts';
import { rsiSeries, smaSeries } from '../indicators/indicators.ts';

/** Days of log volume the volume z-score compares a day with (the days before it). */
export const VOLUME_WINDOW = 20;

/** The moving averages the SMA distance measures against. */
export const SMA_DISTANCE_PERIODS = Object.freeze([50, 200] as const);

/** The design of a model over a history: feature rows (row-major, one per bar) and targets. */
export interface Design {
  /** The feature names, in column order. */
  readonly names: readonly string[];
  /** Columns per row. */
  readonly width: number;
  /** The first bar index at which every feature is known; rows before it are not used. */
  readonly first: number;
  /** Bars in the history (rows, counting the ones before `first`). */
  readonly length: number;
  /** Feature values, `length × width`, row `t` at `t * width`. */
  readonly rows: Float64Array;
  /** Per bar, the log return from its close to the close `horizon` bars later; NaN where not yet known. */
  readonly targets: Float64Array;
}

/** The base features of every bar, as columns (NaN where not yet known), with their names. */
function baseColumns(
  bars: readonly DailyBar[],
  features: PredictionFeatures,
): { names: string[]; columns: Float64Array[] } {
  const n = bars.length;
  const closes = bars.map((bar) => bar.close);
  const names: string[] = [];
  const columns: Float64Array[] = [];
  for (let lag = 1; lag <= features.lagReturns; lag++) {
    const column = new Float64Array(n).fill(Number.NaN);
    // Lag 1 is the return into the forecast day itself, lag 2 the one before, and so on.
    for (let t = lag; t < n; t++) column[t] = Math.log(closes[t - lag + 1]! / closes[t - lag]!);
    names.push(`lagReturn${lag}`);
    columns.push(column);
  }
  if (features.rsi) {
    // Centred and scaled to [-1, 1] so its polynomial terms stay of the same size as the others.
    const rsi = rsiSeries(closes);
    names.push('rsi14');
    columns.push(Float64Array.from(rsi, (v) => (v === null ? Number.NaN : (v - 50) / 50)));
  }
  if (features.smaDistance) {
    for (const period of SMA_DISTANCE_PERIODS) {
      const sma = smaSeries(closes, period);
      names.push(`smaDistance${period}`);
      columns.push(Float64Array.from(sma, (v, t) => (v === null ? Number.NaN : closes[t]! / v - 1)));
    }
  }
  if (features.volume) {
    const logVolume = bars.map((bar) => Math.log1p(Math.max(0, bar.volume)));
    const column = new Float64Array(n).fill(Number.NaN);
    for (let t = VOLUME_WINDOW; t < n; t++) {
      let sum = 0;
      let squares = 0;
      for (let k = t - VOLUME_WINDOW; k < t; k++) {
        sum += logVolume[k]!;
        squares += logVolume[k]! * logVolume[k]!;
      }
      const mean = sum / VOLUME_WINDOW;
      const sd = Math.sqrt(Math.max(0, squares / VOLUME_WINDOW - mean * mean));
      column[t] = sd > 1e-12 ? (logVolume[t]! - mean) / sd : 0;
    }
    names.push('volumeZ');
    columns.push(column);
  }
  return { names, columns };
}

/**
 * The polynomial terms of base features up to a degree: the features, every product of two (squares
 * included), and from degree 3 the cube of each feature (products of three different features are left out,
 * which keeps 14 base features at 133 terms rather than 679).
 */
export function polynomialTerms(names: readonly string[], degree: number): { name: string; factors: number[] }[] {
  const terms = names.map((name, i) => ({ name, factors: [i] }));
  if (degree >= 2) {
    for (let i = 0; i < names.length; i++) {
      for (let j = i; j < names.length; j++) {
        terms.push({ name: i === j ? `${names[i]}^2` : `${names[i]}*${names[j]}`, factors: [i, j] });
      }
    }
  }
  if (degree >= 3) names.forEach((name, i) => terms.push({ name: `${name}^3`, factors: [i, i, i] }));
  return terms;
}

/** Refuses a history whose closes are not positive finite numbers (log returns need them). */
function checkBars(bars: readonly DailyBar[]): void {
  const bad = bars.findIndex((bar) => !(Number.isFinite(bar.close) && bar.close > 0));
  if (bad >= 0) {
    throw new DomainError(
      'invalid_bars',
      `bars[${bad}].close must be a positive price, got ${bars[bad]!.close}`,
      'bars',
    );
  }
}

/**
 * The design of a model over a history (oldest first): the chosen features (expanded to polynomial terms of
 * `degree` when given) and the log-return targets `horizon` bars ahead. Row `t` reads bars `0..t` only.
 */
export function buildDesign(
  bars: readonly DailyBar[],
  features: PredictionFeatures,
  horizon: number,
  degree?: number,
): Design {
  checkBars(bars);
  const n = bars.length;
  const base = baseColumns(bars, features);
  let first = 0;
  for (const column of base.columns) {
    let t = 0;
    while (t < n && Number.isNaN(column[t]!)) t++;
    first = Math.max(first, t);
  }
  const terms =
    degree === undefined ? base.names.map((name, i) => ({ name, factors: [i] })) : polynomialTerms(base.names, degree);
  const width = terms.length;
  const rows = new Float64Array(n * width).fill(Number.NaN);
  for (let t = first; t < n; t++) {
    for (let c = 0; c < width; c++) {
      let value = 1;
      for (const f of terms[c]!.factors) value *= base.columns[f]![t]!;
      rows[t * width + c] = value;
    }
  }
  const targets = new Float64Array(n).fill(Number.NaN);
  for (let t = 0; t + horizon < n; t++) targets[t] = Math.log(bars[t + horizon]!.close / bars[t]!.close);
  return { names: terms.map((term) => term.name), width, first, length: n, rows, targets };
}

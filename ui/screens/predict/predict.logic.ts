/**
 * The Predict page's pure parts: the form and the request it makes, the answers of the Predict routes, and the
 * figures drawn from a fit (the forecast chart, the error table, the coefficient bars).
 */
import type { Data, Layout } from 'plotly.js';
import {
  DEGREE_RANGE,
  HORIZON_RANGE,
  LAG_RETURNS_RANGE,
  LAMBDA_RANGE,
  type PredictionModelKind,
} from '../../../domain/prediction/spec.ts';
import type { PredictionFit, PredictionModelAnswer } from '../../../domain/contract/prediction.ts';
import { PREDICTION_NAME_MAX_LENGTH } from '../../../domain/prediction/predictions.ts';
import { formatPrice } from '../../../domain/format.ts';
import { tradingDayAxis } from '../../components/dateAxis.ts';

/** A saved model as `GET /personalize/predictions` lists it: the request it was fitted with, and more. */
export type SavedModel = PredictionModelAnswer;

/** The features of a request as the fit route reads them. */
export type PredictFeatures = SavedModel['features'];

/** A fit request, as `POST /api/prediction/fit` takes it (and a saved model keeps it). */
export type PredictRequest = Pick<SavedModel, 'symbol' | 'horizon' | 'model' | 'degree' | 'lambda' | 'features'>;

/** A fit as `POST /api/prediction/fit` answers it. */
export type FitResult = PredictionFit;

/** The walk-forward figures of a fit beside the naive baseline's. */
export type PredictMetrics = FitResult['metrics'];

/** MAE, RMSE and direction hit rate of one forecaster. */
export type ErrorFigures = PredictMetrics['model'];

/** The form as the user fills it; numbers are kept as typed and checked by {@link requestFromForm}. */
export interface PredictForm {
  /** The symbol picked. */
  readonly symbol: string;
  /** Trading days ahead, as typed. */
  readonly horizon: string;
  /** `ridge` or `poly`. */
  readonly model: PredictionModelKind;
  /** Polynomial degree (used with `poly`). */
  readonly degree: number;
  /** The L2 penalty, as typed. */
  readonly lambda: string;
  /** Whether lagged returns are read. */
  readonly lagOn: boolean;
  /** How many lagged returns, as typed. */
  readonly lagK: string;
  /** RSI 14. */
  readonly rsi: boolean;
  /** SMA distance. */
  readonly smaDistance: boolean;
  /** Volume. */
  readonly volume: boolean;
}

/** The form a page opens with. */
export const DEFAULT_FORM: PredictForm = Object.freeze({
  symbol: 'AAPL',
  horizon: '5',
  model: 'ridge',
  degree: DEGREE_RANGE.default,
  lambda: String(LAMBDA_RANGE.default),
  lagOn: true,
  lagK: '5',
  rsi: true,
  smaDistance: true,
  volume: false,
});

/** Longest name of a saved model. */
export const MODEL_NAME_MAX = PREDICTION_NAME_MAX_LENGTH;

function wholeIn(text: string, min: number, max: number): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return value >= min && value <= max ? value : null;
}

/** The request a form makes, or what is wrong with it (naming the field as the page labels it). */
export function requestFromForm(form: PredictForm): { readonly request: PredictRequest } | { readonly error: string } {
  const symbol = form.symbol.trim().toUpperCase();
  if (symbol === '') return { error: 'Symbol: pick a symbol' };
  const horizon = wholeIn(form.horizon, HORIZON_RANGE.min, HORIZON_RANGE.max);
  if (horizon === null) {
    return { error: `Horizon: a whole number of days from ${HORIZON_RANGE.min} to ${HORIZON_RANGE.max}` };
  }
  const lambdaText = form.lambda.trim();
  const lambda = lambdaText === '' ? LAMBDA_RANGE.default : Number(lambdaText);
  if (!Number.isFinite(lambda) || lambda < LAMBDA_RANGE.min || lambda > LAMBDA_RANGE.max) {
    return { error: `Lambda: a number from ${LAMBDA_RANGE.min} to ${LAMBDA_RANGE.max}` };
  }
  let lagReturns = 0;
  if (form.lagOn) {
    const k = wholeIn(form.lagK, 1, LAG_RETURNS_RANGE.max);
    if (k === null) return { error: `Lagged returns: a whole number from 1 to ${LAG_RETURNS_RANGE.max}` };
    lagReturns = k;
  }
  const features: PredictFeatures = {
    lagReturns,
    rsi: form.rsi,
    smaDistance: form.smaDistance,
    volume: form.volume,
  };
  if (lagReturns === 0 && !form.rsi && !form.smaDistance && !form.volume) {
    return { error: 'Features: choose at least one' };
  }
  const degree = Math.min(DEGREE_RANGE.max, Math.max(DEGREE_RANGE.min, Math.round(form.degree)));
  return {
    request: {
      symbol,
      horizon,
      model: form.model,
      ...(form.model === 'poly' ? { degree } : {}),
      lambda,
      features,
    },
  };
}

/** The form that fits a saved model again with its parameters. */
export function formFromModel(model: SavedModel): PredictForm {
  return {
    symbol: model.symbol,
    horizon: String(model.horizon),
    model: model.model,
    degree: model.degree ?? DEGREE_RANGE.default,
    lambda: String(model.lambda),
    lagOn: model.features.lagReturns > 0,
    lagK: String(model.features.lagReturns > 0 ? model.features.lagReturns : 5),
    rsi: model.features.rsi,
    smaDistance: model.features.smaDistance,
    volume: model.features.volume,
  };
}

/** The request of a saved model. */
export function requestOfModel(model: SavedModel): PredictRequest {
  return {
    symbol: model.symbol,
    horizon: model.horizon,
    model: model.model,
    ...(model.model === 'poly' ? { degree: model.degree ?? DEGREE_RANGE.default } : {}),
    lambda: model.lambda,
    features: model.features,
  };
}

/** The model in words: `Ridge` or `Polynomial (degree 2)`, with its penalty. */
export function modelText(request: Pick<PredictRequest, 'model' | 'degree' | 'lambda'>): string {
  const kind = request.model === 'poly' ? `Polynomial (degree ${request.degree ?? DEGREE_RANGE.default})` : 'Ridge';
  return `${kind}, λ ${request.lambda}`;
}

/** The features in words: `5 lagged returns, RSI, SMA distance`. */
export function featuresText(features: PredictFeatures): string {
  const parts: string[] = [];
  if (features.lagReturns > 0) {
    parts.push(`${features.lagReturns} lagged return${features.lagReturns === 1 ? '' : 's'}`);
  }
  if (features.rsi) parts.push('RSI');
  if (features.smaDistance) parts.push('SMA distance');
  if (features.volume) parts.push('volume');
  return parts.join(', ');
}

/** A share 0–1 as a percentage with one decimal. */
export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** A price with 2 decimals and thousands separators (`7,483.75`, never the display rule's `0.01M`). */
export { formatPrice };

/**
 * The last forecast day as the forecast card's heading shows it: `2025-01-10: 7,483.75 (10%–90%: 7,210.40 –
 * 7,755.10)`; null when the fit has no forecast.
 */
export function forecastHeading(result: FitResult): string | null {
  const last = result.forecast.at(-1);
  if (!last) return null;
  return `${last.date}: ${formatPrice(last.price)} (10%–90%: ${formatPrice(last.low)} – ${formatPrice(last.high)})`;
}

/** One row of the error table: the figure, the model's and the baseline's values, and which is better. */
export interface ErrorRow {
  readonly label: string;
  readonly model: string;
  readonly baseline: string;
  /** Which side is better, or `tie`. */
  readonly better: 'model' | 'baseline' | 'tie';
}

function betterOf(model: number, baseline: number, higherIsBetter: boolean): ErrorRow['better'] {
  if (model === baseline) return 'tie';
  return model > baseline === higherIsBetter ? 'model' : 'baseline';
}

/**
 * The rows of the error table: MAE, RMSE (in dollars, written as prices; lower is better) and the direction hit
 * rate (higher is better).
 */
export function errorRows(metrics: PredictMetrics): readonly ErrorRow[] {
  const { model, baseline } = metrics;
  return [
    {
      label: 'Mean absolute error',
      model: formatPrice(model.mae),
      baseline: formatPrice(baseline.mae),
      better: betterOf(model.mae, baseline.mae, false),
    },
    {
      label: 'Root mean square error',
      model: formatPrice(model.rmse),
      baseline: formatPrice(baseline.rmse),
      better: betterOf(model.rmse, baseline.rmse, false),
    },
    {
      label: 'Direction hit rate',
      model: percent(model.hitRate),
      baseline: percent(baseline.hitRate),
      better: betterOf(model.hitRate, baseline.hitRate, true),
    },
  ];
}

/** A feature's weight with its bar: the share of the largest feature weight. */
export interface CoefficientBar {
  readonly feature: string;
  readonly weight: number;
  /** |weight| / largest |weight| of the features, 0–1. */
  readonly share: number;
}

/**
 * The coefficients of a fit as shown: a bar per feature weight, sized against the largest of them, and the
 * intercept apart as a number (null when the fit has none): it is in the target's units, not per standard
 * deviation of a feature, so a bar beside theirs would compare nothing.
 */
export function coefficientBars(coefficients: FitResult['coefficients']): {
  readonly bars: readonly CoefficientBar[];
  readonly intercept: number | null;
} {
  const features = coefficients.filter((c) => c.feature !== 'intercept');
  const largest = Math.max(0, ...features.map((c) => Math.abs(c.weight)));
  return {
    bars: features.map((c) => ({
      feature: c.feature,
      weight: c.weight,
      share: largest === 0 ? 0 : Math.abs(c.weight) / largest,
    })),
    intercept: coefficients.find((c) => c.feature === 'intercept')?.weight ?? null,
  };
}

/** The forecast chart: the recent closes, the forecast and its 10%–90% band, joined at the last close. */
export function forecastFigure(result: FitResult): { data: Data[]; layout: Partial<Layout> } {
  const last = result.history.at(-1);
  const join = <T>(value: (p: FitResult['forecast'][number]) => T, start: T | undefined): T[] => [
    ...(start === undefined ? [] : [start]),
    ...result.forecast.map(value),
  ];
  const dates = join((p) => p.date, last?.date);
  const data: Data[] = [
    {
      type: 'scatter',
      mode: 'lines',
      name: `${result.symbol} close`,
      x: result.history.map((h) => h.date),
      y: result.history.map((h) => h.close),
      line: { color: '#2563eb', width: 2 },
      hovertemplate: '%{x}<br>close %{y:.2f}<extra></extra>',
    },
    {
      type: 'scatter',
      mode: 'lines',
      name: '10% bound',
      x: dates,
      y: join((p) => p.low, last?.close),
      line: { width: 0, color: 'rgba(234,88,12,0.4)' },
      showlegend: false,
      hovertemplate: '%{x}<br>low %{y:.2f}<extra></extra>',
    },
    {
      type: 'scatter',
      mode: 'lines',
      name: '10%–90% interval',
      x: dates,
      y: join((p) => p.high, last?.close),
      fill: 'tonexty',
      fillcolor: 'rgba(234,88,12,0.18)',
      line: { width: 0, color: 'rgba(234,88,12,0.4)' },
      hovertemplate: '%{x}<br>high %{y:.2f}<extra></extra>',
    },
    {
      type: 'scatter',
      mode: 'lines+markers',
      name: `Forecast (${result.horizon} day${result.horizon === 1 ? '' : 's'})`,
      x: dates,
      y: join((p) => p.price, last?.close),
      line: { color: '#ea580c', width: 2, dash: 'dash' },
      marker: { size: 5 },
      hovertemplate: '%{x}<br>forecast %{y:.2f}<extra></extra>',
    },
  ];
  const layout: Partial<Layout> = {
    xaxis: tradingDayAxis(),
    yaxis: { title: { text: 'Price' }, zeroline: false },
    legend: { orientation: 'h', y: 1.12, x: 0 },
    hovermode: 'x unified',
    shapes: [
      {
        type: 'line',
        xref: 'x',
        yref: 'paper',
        x0: result.asOf,
        x1: result.asOf,
        y0: 0,
        y1: 1,
        line: { color: '#98a2b3', width: 1, dash: 'dot' },
      },
    ],
  };
  return { data, layout };
}

/**
 * What a price forecast is asked for: a symbol, a horizon in trading days, a model (ridge regression, or ridge
 * on polynomial features) with its L2 penalty, and the features it reads. One rule for the fit route, the saved
 * models and the engine.
 */
import { DomainError } from '../decider.ts';
import { parseSymbol } from '../symbol.ts';

/** The models: `ridge` (linear with an L2 penalty) and `poly` (ridge on polynomial features). */
export const PREDICTION_MODELS = Object.freeze(['ridge', 'poly'] as const);

/** A model kind. */
export type PredictionModelKind = (typeof PREDICTION_MODELS)[number];

/** Trading days ahead a forecast looks, at least and at most. */
export const HORIZON_RANGE = Object.freeze({ min: 1, max: 20 });

/** Lagged daily returns a model may read: 0 (none) to 10. */
export const LAG_RETURNS_RANGE = Object.freeze({ min: 0, max: 10 });

/** Degree of a polynomial model, at least, at most and by default. */
export const DEGREE_RANGE = Object.freeze({ min: 2, max: 3, default: 2 });

/**
 * The L2 penalty, at least, at most and by default. It is the penalty per sample on standardised features, so 1
 * halves the weight of a lone uncorrelated feature whatever the length of the history; the default shrinks
 * firmly, since returns are mostly noise and an unshrunk model fits it.
 */
export const LAMBDA_RANGE = Object.freeze({ min: 0, max: 1000, default: 10 });

/** The features a model reads, each computed from bars up to the forecast's day only. */
export interface PredictionFeatures {
  /** How many lagged daily log returns (the last k days' returns), 0 for none. */
  readonly lagReturns: number;
  /** RSI 14 of the closes. */
  readonly rsi: boolean;
  /** Distance of the close from its moving averages: close / SMA 50 − 1 and close / SMA 200 − 1. */
  readonly smaDistance: boolean;
  /** Log volume as a z-score against the 20 days before. */
  readonly volume: boolean;
}

/** A forecast request, normalised: every field present, `degree` only for a polynomial model. */
export interface PredictionSpec {
  /** The symbol, upper case. */
  readonly symbol: string;
  /** Trading days ahead, 1–20. */
  readonly horizon: number;
  /** The model. */
  readonly model: PredictionModelKind;
  /** Polynomial degree (2–3), present only when `model` is `poly`. */
  readonly degree?: number;
  /** The L2 penalty, 0–1000. */
  readonly lambda: number;
  /** The features, at least one chosen. */
  readonly features: PredictionFeatures;
}

/** A forecast request as a client may send it: optional parts missing, to be checked. */
export interface PredictionSpecInput {
  /** The symbol. */
  readonly symbol: unknown;
  /** Trading days ahead. */
  readonly horizon: unknown;
  /** `ridge` or `poly`. */
  readonly model: unknown;
  /** Polynomial degree; only with `poly` (2 when absent). */
  readonly degree?: unknown;
  /** The L2 penalty ({@link LAMBDA_RANGE} default when absent). */
  readonly lambda?: unknown;
  /** `{lagReturns?, rsi?, smaDistance?, volume?}`. */
  readonly features: unknown;
}

const FEATURE_KEYS = Object.freeze(['lagReturns', 'rsi', 'smaDistance', 'volume'] as const);

/** A value as a message shows it: numbers as written (NaN included), anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? typeof value);
}

function wholeNumber(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new DomainError(
      `invalid_${field.replace(/^.*\./, '')}`,
      `${field} must be a whole number from ${min} to ${max}, got ${shown(value)}`,
      field,
    );
  }
  return value;
}

function flag(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    throw new DomainError('invalid_features', `${field} must be true or false, got ${shown(value)}`, field);
  }
  return value;
}

/** Checks and normalises the features: known keys only, lag count 0–10, flags true or false, one at least. */
export function parseFeatures(value: unknown, field = 'features'): PredictionFeatures {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DomainError(
      'invalid_features',
      `${field} must be an object {lagReturns, rsi, smaDistance, volume}`,
      field,
    );
  }
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !(FEATURE_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    throw new DomainError(
      'invalid_features',
      `${field}.${unknown} is not a feature (${FEATURE_KEYS.join(', ')})`,
      `${field}.${unknown}`,
    );
  }
  const lags = record.lagReturns ?? 0;
  const features: PredictionFeatures = {
    lagReturns: wholeNumber(lags, `${field}.lagReturns`, LAG_RETURNS_RANGE.min, LAG_RETURNS_RANGE.max),
    rsi: flag(record.rsi, `${field}.rsi`),
    smaDistance: flag(record.smaDistance, `${field}.smaDistance`),
    volume: flag(record.volume, `${field}.volume`),
  };
  if (features.lagReturns === 0 && !features.rsi && !features.smaDistance && !features.volume) {
    throw new DomainError('invalid_features', `${field} must choose at least one feature`, field);
  }
  return features;
}

/** Checks and normalises a forecast request, refusing with a {@link DomainError} that names the field. */
export function parsePredictionSpec(input: PredictionSpecInput): PredictionSpec {
  const symbol = parseSymbol(input.symbol, 'symbol');
  const horizon = wholeNumber(input.horizon, 'horizon', HORIZON_RANGE.min, HORIZON_RANGE.max);
  if (typeof input.model !== 'string' || !(PREDICTION_MODELS as readonly string[]).includes(input.model)) {
    throw new DomainError(
      'invalid_model',
      `model must be one of ${PREDICTION_MODELS.join(', ')}, got ${shown(input.model)}`,
      'model',
    );
  }
  const model = input.model as PredictionModelKind;
  let degree: number | undefined;
  if (model === 'poly') {
    degree = wholeNumber(input.degree ?? DEGREE_RANGE.default, 'degree', DEGREE_RANGE.min, DEGREE_RANGE.max);
  } else if (input.degree !== undefined && input.degree !== null) {
    throw new DomainError('invalid_degree', 'degree is only for the poly model; leave it out for ridge', 'degree');
  }
  const lambda = input.lambda ?? LAMBDA_RANGE.default;
  if (
    typeof lambda !== 'number' ||
    !Number.isFinite(lambda) ||
    lambda < LAMBDA_RANGE.min ||
    lambda > LAMBDA_RANGE.max
  ) {
    throw new DomainError(
      'invalid_lambda',
      `lambda must be a number from ${LAMBDA_RANGE.min} to ${LAMBDA_RANGE.max}, got ${shown(lambda)}`,
      'lambda',
    );
  }
  const features = parseFeatures(input.features);
  return { symbol, horizon, model, ...(degree !== undefined ? { degree } : {}), lambda, features };
}

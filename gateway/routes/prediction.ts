/**
 * Predict routes: fit a forecasting model on a symbol's daily bars with walk-forward validation beside the naive
 * baseline, and save, list and delete a user's models.
 */
import { z } from 'zod';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../../domain/text.ts';
import { isDomainError, type DomainError } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import {
  PREDICTIONS_CONCERN,
  PREDICTIONS_LIMIT,
  PREDICTION_NAME_MAX_LENGTH,
  parsePredictionName,
  predictionNameKey,
  predictionsDecider,
  type PredictionsState,
  type SavedPredictionModel,
} from '../../domain/prediction/predictions.ts';
import {
  DEGREE_RANGE,
  HORIZON_RANGE,
  LAG_RETURNS_RANGE,
  LAMBDA_RANGE,
  PREDICTION_MODELS,
  parsePredictionSpec,
  type PredictionSpec,
  type PredictionSpecInput,
} from '../../domain/prediction/spec.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { fitPredictionAsync, type PredictionResult } from '../../engine/prediction/predict.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { predictionsProjection } from '../../projections/predictions/predictions.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { ApiError, DOMAIN_ERROR_STATUS, notFound } from '../errors.ts';
import { PerUserConcurrency } from '../http/concurrency.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { symbolSchema } from '../http/schemas.ts';
import { requireSymbol } from './market.ts';

/** What the Predict routes need. */
export interface PredictionDeps {
  /** Runs the commands on the user's stream. */
  readonly commands: CommandService;
  /** The read models the list answers from. */
  readonly readModels: ReadModelStore;
  /** The market data the models are fitted on. */
  readonly market: MarketData;
}

/** Fits kept per gateway, so saving a request just fitted does not fit it again. */
export const FIT_CACHE_SIZE = 32;

/** Fits one user may run at once; one more is refused with 429. */
export const MAX_PARALLEL_FITS_PER_USER = 2;

const concern = { concern: PREDICTIONS_CONCERN, decider: predictionsDecider };

function wholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

const flag = z.boolean({ error: 'must be true or false' }).optional();

const featuresSchema = z.strictObject(
  {
    lagReturns: wholeNumber(LAG_RETURNS_RANGE.min, LAG_RETURNS_RANGE.max)
      .optional()
      .describe('lagged daily log returns, 0 (none) to 10'),
    rsi: flag.describe('RSI 14'),
    smaDistance: flag.describe('close / SMA 50 − 1 and close / SMA 200 − 1'),
    volume: flag.describe('log volume z-score against the 20 days before'),
  },
  { error: 'must be an object {lagReturns?, rsi?, smaDistance?, volume?}' },
);

const lambdaMessage = `must be a number from ${LAMBDA_RANGE.min} to ${LAMBDA_RANGE.max}`;

/** The request of a fit; `degree` only with `poly`, at least one feature. */
const specFields = {
  symbol: symbolSchema,
  horizon: wholeNumber(HORIZON_RANGE.min, HORIZON_RANGE.max).describe('trading days ahead'),
  model: z.enum(PREDICTION_MODELS, { error: `must be one of ${PREDICTION_MODELS.join(', ')}` }),
  degree: wholeNumber(DEGREE_RANGE.min, DEGREE_RANGE.max)
    .nullish()
    .describe(`polynomial degree, only with poly (${DEGREE_RANGE.default} when absent)`),
  lambda: z
    .number({ error: lambdaMessage })
    .min(LAMBDA_RANGE.min, lambdaMessage)
    .max(LAMBDA_RANGE.max, lambdaMessage)
    .nullish()
    .describe(`L2 penalty per sample on standardised features (${LAMBDA_RANGE.default} when absent)`),
  features: featuresSchema,
};

const fitBody = z.object(specFields, { error: 'must be {symbol, horizon, model, degree?, lambda?, features}' });

const saveBody = z.object(
  {
    name: z
      .string({ error: 'must be a text' })
      .refine(isPlainText, PLAIN_TEXT_MESSAGE)
      .trim()
      .min(1, 'must not be empty')
      .max(PREDICTION_NAME_MAX_LENGTH, `must be at most ${PREDICTION_NAME_MAX_LENGTH} characters`),
    ...specFields,
  },
  { error: 'must be {name, symbol, horizon, model, degree?, lambda?, features}' },
);

const errorFigures = z.object({ mae: z.number(), rmse: z.number(), hitRate: z.number() });

const metricsAnswer = z.object({
  model: errorFigures,
  baseline: errorFigures,
  beatsBaseline: z.boolean(),
  verdict: z.string(),
  samples: z.number(),
});

const featuresAnswer = z.object({
  lagReturns: z.number(),
  rsi: z.boolean(),
  smaDistance: z.boolean(),
  volume: z.boolean(),
});

const fitAnswer = z.object({
  symbol: z.string(),
  horizon: z.number(),
  asOf: z.string(),
  metrics: metricsAnswer,
  forecast: z.array(z.object({ date: z.string(), price: z.number(), low: z.number(), high: z.number() })),
  history: z.array(z.object({ date: z.string(), close: z.number() })),
  coefficients: z.array(z.object({ feature: z.string(), weight: z.number() })),
});

const modelAnswer = z.object({
  id: z.string(),
  name: z.string(),
  symbol: z.string(),
  horizon: z.number(),
  model: z.enum(PREDICTION_MODELS),
  degree: z.number().optional(),
  lambda: z.number(),
  features: featuresAnswer,
  metrics: metricsAnswer,
  asOf: z.string(),
  createdt: z.string(),
});

const idParams = z.object({
  id: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
});

/** A saved model as the API answers it. */
export type PredictionModelAnswer = z.infer<typeof modelAnswer>;

/** A fit as the API answers it. */
export type PredictionFitAnswer = PredictionResult;

/** A saved model in the API's shape: the model id as `id`, `degree` only for a polynomial model. */
export function predictionModelView(saved: SavedPredictionModel): PredictionModelAnswer {
  return {
    id: saved.modelId,
    name: saved.name,
    symbol: saved.symbol,
    horizon: saved.horizon,
    model: saved.model,
    ...(saved.degree !== undefined ? { degree: saved.degree } : {}),
    lambda: saved.lambda,
    features: saved.features,
    metrics: saved.metrics,
    asOf: saved.asOf,
    createdt: saved.createdt,
  };
}

/** A domain refusal of a request field as a 400-class answer naming the field in the body (`body.lambda: …`). */
function inBody(error: DomainError): ApiError {
  return new ApiError(DOMAIN_ERROR_STATUS[error.code] ?? 400, error.code, `body.${error.message}`);
}

function refusingInBody<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw isDomainError(error) ? inBody(error) : error;
  }
}

function specInput(body: z.infer<typeof fitBody>): PredictionSpecInput {
  return {
    symbol: body.symbol,
    horizon: body.horizon,
    model: body.model,
    degree: body.degree ?? undefined,
    lambda: body.lambda ?? undefined,
    features: body.features,
  };
}

/** The Predict routes. */
export function predictionRoutes(deps: PredictionDeps) {
  const { market } = deps;
  const fits = new Map<string, PredictionResult>();
  const fitting = new PerUserConcurrency(MAX_PARALLEL_FITS_PER_USER, 'prediction fits');

  /** Checks a request against the domain's rules and the universe, naming the field as the body spells it. */
  function checkedSpec(body: z.infer<typeof fitBody>): PredictionSpec {
    const spec = refusingInBody(() => parsePredictionSpec(specInput(body)));
    requireSymbol(market, spec.symbol, 'body.symbol');
    return spec;
  }

  /**
   * Fits a request on the symbol's bars as stored now, handing the event loop back as it goes; the same request on
   * the same bars is answered from memory.
   */
  async function fit(spec: PredictionSpec): Promise<PredictionResult> {
    const bars = market.store.bars(spec.symbol);
    const last = bars.at(-1);
    const key = `${JSON.stringify(spec)}|${bars.length}|${bars[0]?.date}|${last?.date}|${last?.close}`;
    let result = fits.get(key);
    if (result === undefined) {
      result = await fitPredictionAsync(bars, spec).catch((error: unknown) => {
        throw isDomainError(error) ? inBody(error) : error;
      });
      if (fits.size >= FIT_CACHE_SIZE) fits.delete(fits.keys().next().value!);
    } else fits.delete(key);
    fits.set(key, result);
    return structuredClone(result);
  }

  return [
    defineRoute({
      method: 'POST',
      path: '/api/prediction/fit',
      summary:
        "Fit a forecasting model on a symbol's daily bars: walk-forward validation (expanding window) with the model's and the naive baseline's MAE, RMSE and direction hit rate, whether it beats the baseline and a sentence saying so; the next horizon days' forecast with a 10%-90% interval from the out-of-sample errors; the last 120 closes; the final weights per standard deviation",
      tag: 'predict',
      access: 'user',
      body: fitBody,
      response: fitAnswer,
      handle: async ({ body, ctx, userId }) => fitting.run(ctx, userId, () => fit(checkedSpec(body))),
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/predictions',
      summary: `Fit a forecasting model and save it under a name (1-${PREDICTION_NAME_MAX_LENGTH} characters, unique regardless of case: 409 if taken) with its walk-forward figures; at most ${PREDICTIONS_LIMIT} per user; answers the saved model`,
      tag: 'predict',
      access: 'user',
      body: saveBody,
      response: modelAnswer,
      handle: async ({ body, ctx, userId, meta }) => {
        const name = refusingInBody(() => parsePredictionName(body.name));
        const spec = checkedSpec(body);
        const m = meta();
        const modelId = uuidV5(`${m.commandId}/prediction`, STOCKPULSE_NAMESPACE);
        // Refuse what the decider would refuse before spending a fit on it (a retry finds its own model).
        const doc = await readDocument<PredictionsState>(deps.readModels, predictionsProjection, userId);
        const models = doc?.value.models ?? [];
        if (!models.some((saved) => saved.modelId === modelId)) {
          if (models.some((saved) => predictionNameKey(saved.name) === predictionNameKey(name))) {
            throw new ApiError(409, 'taken', `body.name ${JSON.stringify(name)} is already the name of a saved model`);
          }
          if (models.length >= PREDICTIONS_LIMIT) {
            throw new ApiError(
              400,
              'limit',
              `models: already ${models.length} saved; at most ${PREDICTIONS_LIMIT}, delete one first`,
            );
          }
        }
        const result = await fitting.run(ctx, userId, () => fit(spec));
        const outcome = await deps.commands
          .execute(
            concern,
            {
              type: 'SavePredictionModel',
              data: { modelId, name, ...spec, metrics: result.metrics, asOf: result.asOf, createdt: m.at },
            },
            m,
          )
          .catch((error: unknown) => {
            throw isDomainError(error) && error.field !== 'models' ? inBody(error) : error;
          });
        const saved = outcome.state.models.find((model) => model.modelId === modelId);
        if (!saved) throw notFound(`body.name: no saved model ${JSON.stringify(name)}`);
        return predictionModelView(saved);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/personalize/predictions',
      summary: "The user's saved forecasting models, newest first",
      tag: 'predict',
      access: 'user',
      response: z.array(modelAnswer),
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<PredictionsState>(deps.readModels, predictionsProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.models ?? []).map(predictionModelView).reverse();
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/delprediction/:id',
      summary: "Delete one of the user's saved forecasting models",
      tag: 'predict',
      access: 'user',
      params: idParams,
      response: z.object({ id: z.string(), deleted: z.literal(true) }),
      handle: async ({ params, meta }) => {
        const modelId = params.id.toLowerCase();
        if (!isUuid(modelId)) throw notFound(`params.id: no saved model ${JSON.stringify(params.id)}`);
        await deps.commands.execute(concern, { type: 'DeletePredictionModel', data: { modelId } }, meta());
        return { id: modelId, deleted: true as const };
      },
    }),
  ];
}

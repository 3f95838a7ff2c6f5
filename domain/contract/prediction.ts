/**
 * The prediction routes of the API: request and answer schemas, shared by the gateway and the web app.
 */
import { z } from './zod.ts';
import { PREDICTIONS_LIMIT, PREDICTION_NAME_MAX_LENGTH } from '../prediction/predictions.ts';
import { DEGREE_RANGE, HORIZON_RANGE, LAG_RETURNS_RANGE, LAMBDA_RANGE, PREDICTION_MODELS } from '../prediction/spec.ts';
import { deletedAnswer, idParams, symbolSchema } from './common.ts';
import { route } from './route.ts';
import { PLAIN_TEXT_MESSAGE, isPlainText } from '../text.ts';

/** A whole number from `min` to `max` in a JSON body (not coerced from text). */
function bodyWholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

const flag = z.boolean({ error: 'must be true or false' }).optional();

const featuresSchema = z.strictObject(
  {
    lagReturns: bodyWholeNumber(LAG_RETURNS_RANGE.min, LAG_RETURNS_RANGE.max)
      .optional()
      .describe('lagged daily log returns, 0 (none) to 10'),
    rsi: flag.describe('RSI 14'),
    smaDistance: flag.describe('close / SMA 50 − 1 and close / SMA 200 − 1'),
    volume: flag.describe('log volume z-score against the 20 days before'),
  },
  { error: 'must be an object {lagReturns?, rsi?, smaDistance?, volume?}' },
);

/** The request of a fit; `degree` only with `poly`, at least one feature. */
const lambdaMessage = `must be a number from ${LAMBDA_RANGE.min} to ${LAMBDA_RANGE.max}`;

const specFields = {
  symbol: symbolSchema,
  horizon: bodyWholeNumber(HORIZON_RANGE.min, HORIZON_RANGE.max).describe('trading days ahead'),
  model: z.enum(PREDICTION_MODELS, { error: `must be one of ${PREDICTION_MODELS.join(', ')}` }),
  degree: bodyWholeNumber(DEGREE_RANGE.min, DEGREE_RANGE.max)
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

const fitBody = z.strictObject(specFields, { error: 'must be {symbol, horizon, model, degree?, lambda?, features}' });

const saveBody = z.strictObject(
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

/** A saved model as the API answers it. */
export type PredictionModelAnswer = z.infer<typeof modelAnswer>;
/** A fit as the API answers it. */
export type PredictionFit = z.infer<typeof fitAnswer>;
/** A fit request once checked. */
export type PredictionFitRequest = z.output<typeof fitBody>;

/** The prediction routes. */
export const predictionApi = {
  postPredictionFit: route({
    method: 'POST',
    path: '/api/prediction/fit',
    summary:
      "Fit a forecasting model on a symbol's daily bars: walk-forward validation (expanding window) with the model's and the naive baseline's MAE, RMSE and direction hit rate, whether it beats the baseline and a sentence saying so; the next horizon days' forecast with a 10%-90% interval from the out-of-sample errors; the last 120 closes; the final weights per standard deviation",
    tag: 'predict',
    access: 'user',
    body: fitBody,
    response: fitAnswer,
  }),
  postPredictions: route({
    method: 'POST',
    path: '/personalize/predictions',
    summary: `Fit a forecasting model and save it under a name (1-${PREDICTION_NAME_MAX_LENGTH} characters, unique regardless of case: 409 if taken) with its walk-forward figures; at most ${PREDICTIONS_LIMIT} per user; answers the saved model`,
    tag: 'predict',
    access: 'user',
    body: saveBody,
    response: modelAnswer,
  }),
  getPredictions: route({
    method: 'GET',
    path: '/personalize/predictions',
    summary: "The user's saved forecasting models, newest first",
    tag: 'predict',
    access: 'user',
    response: z.array(modelAnswer),
  }),
  postDelpredictionById: route({
    method: 'POST',
    path: '/personalize/delprediction/:id',
    summary: "Delete one of the user's saved forecasting models",
    tag: 'predict',
    access: 'user',
    params: idParams,
    response: deletedAnswer,
  }),
};

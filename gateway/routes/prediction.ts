/**
 * Predict routes: fit a forecasting model on a symbol's daily bars with walk-forward validation beside the naive
 * baseline, and save, list and delete a user's models.
 */
import {
  predictionApi,
  type PredictionModelAnswer,
  type PredictionFitRequest,
} from '../../domain/contract/prediction.ts';
import { isDomainError, type DomainError } from '../../domain/decider.ts';
import { STOCKPULSE_NAMESPACE, isUuid, uuidV5 } from '../../domain/ids.ts';
import {
  PREDICTIONS_CONCERN,
  PREDICTIONS_LIMIT,
  parsePredictionName,
  predictionNameKey,
  predictionsDecider,
  type PredictionsState,
  type SavedPredictionModel,
} from '../../domain/prediction/predictions.ts';
import { parsePredictionSpec, type PredictionSpec, type PredictionSpecInput } from '../../domain/prediction/spec.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { fitPredictionAsync, type PredictionResult } from '../../engine/prediction/predict.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { predictionsProjection } from '../../projections/predictions/predictions.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { ApiError, DOMAIN_ERROR_STATUS, notFound } from '../errors.ts';
import { PerUserConcurrency } from '../http/concurrency.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { requireSymbol } from '../http/schemas.ts';

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

/** A fit as the API answers it. */
export type PredictionFitAnswer = PredictionResult;

export type { PredictionModelAnswer };

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

/** The Predict routes. */
function specInput(body: PredictionFitRequest): PredictionSpecInput {
  return {
    symbol: body.symbol,
    horizon: body.horizon,
    model: body.model,
    degree: body.degree ?? undefined,
    lambda: body.lambda ?? undefined,
    features: body.features,
  };
}

/** The prediction routes. */
export function predictionRoutes(deps: PredictionDeps) {
  const { market } = deps;
  const fits = new Map<string, PredictionResult>();
  const fitting = new PerUserConcurrency(MAX_PARALLEL_FITS_PER_USER, 'prediction fits');

  /** Checks a request against the domain's rules and the universe, naming the field as the body spells it. */
  function checkedSpec(body: PredictionFitRequest): PredictionSpec {
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
      ...predictionApi.postPredictionFit,
      handle: async ({ body, ctx, userId }) => fitting.run(ctx, userId, () => fit(checkedSpec(body))),
    }),
    defineRoute({
      ...predictionApi.postPredictions,
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
      ...predictionApi.getPredictions,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<PredictionsState>(deps.readModels, predictionsProjection, userId);
        markPosition(ctx, doc?.position);
        return (doc?.value.models ?? []).map(predictionModelView).reverse();
      },
    }),
    defineRoute({
      ...predictionApi.postDelpredictionById,
      handle: async ({ params, meta }) => {
        const modelId = params.id.toLowerCase();
        if (!isUuid(modelId)) throw notFound(`params.id: no saved model ${JSON.stringify(params.id)}`);
        await deps.commands.execute(concern, { type: 'DeletePredictionModel', data: { modelId } }, meta());
        return { id: modelId, deleted: true as const };
      },
    }),
  ];
}

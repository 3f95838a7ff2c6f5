/**
 * Saved forecasting models: a user keeps a named forecast request (symbol, horizon, model, penalty, features)
 * with the walk-forward figures it had when saved, to fit it again later or compare it with others.
 */
import { DomainError, type Decider, type DomainEvent, eventTypes, unknownCommand } from '../decider.ts';
import { isUuid } from '../ids.ts';
import { parsePredictionSpec, type PredictionSpec, type PredictionSpecInput } from './spec.ts';

/** The concern name of saved-model streams (`predictions-<userId>`). */
export const PREDICTIONS_CONCERN = 'predictions';

/** Most saved models one user may hold. */
export const PREDICTIONS_LIMIT = 50;

/** Longest model name, in characters. */
export const PREDICTION_NAME_MAX_LENGTH = 60;

/** Error figures of a forecaster over the walk-forward forecasts. */
export interface ErrorFigures {
  /** Mean absolute error of the forecast price. */
  readonly mae: number;
  /** Root mean squared error of the forecast price. */
  readonly rmse: number;
  /** Share (0–1) of forecasts whose direction (up, or down) was right; no change counts as up. */
  readonly hitRate: number;
}

/** How a model did in walk-forward validation, beside the naive baseline (the price stays where it is). */
export interface PredictionMetrics {
  /** The model's errors. */
  readonly model: ErrorFigures;
  /** The naive baseline's errors (forecast price = today's close). */
  readonly baseline: ErrorFigures;
  /** Whether the model's RMSE is below the baseline's. */
  readonly beatsBaseline: boolean;
  /** A plain sentence saying whether the model beats the baseline, and by how much. */
  readonly verdict: string;
  /** How many out-of-sample forecasts the figures are over. */
  readonly samples: number;
}

/** A saved model as the user sees it. */
export interface SavedPredictionModel extends PredictionSpec {
  /** The model id, derived from the id of the command that saved it. */
  readonly modelId: string;
  /** The name, 1–60 characters, unique per user regardless of case. */
  readonly name: string;
  /** The walk-forward figures when it was saved. */
  readonly metrics: PredictionMetrics;
  /** The date of the last bar the figures were computed on. */
  readonly asOf: string;
  /** When it was saved (ISO 8601). */
  readonly createdt: string;
}

/** Saves a model under a new name, with the figures its fit gave. */
export type SavePredictionModel = DomainEvent<
  'SavePredictionModel',
  PredictionSpecInput & {
    /** The id the model gets (derived from the command id). */
    readonly modelId: string;
    /** The name. */
    readonly name: unknown;
    /** The walk-forward figures of the fit. */
    readonly metrics: PredictionMetrics;
    /** The date of the last bar of the fit. */
    readonly asOf: string;
    /** The command's time. */
    readonly createdt: string;
  }
>;

/** Deletes a saved model. */
export type DeletePredictionModel = DomainEvent<'DeletePredictionModel', { readonly modelId: string }>;

/** Every command of the saved-models concern. */
export type PredictionsCommand = SavePredictionModel | DeletePredictionModel;

/** A model was saved. */
export type PredictionModelSaved = DomainEvent<'PredictionModelSaved', SavedPredictionModel>;

/** A saved model was deleted. */
export type PredictionModelDeleted = DomainEvent<'PredictionModelDeleted', { readonly modelId: string }>;

/** Every event of the saved-models concern. */
export type PredictionsEvent = PredictionModelSaved | PredictionModelDeleted;

/** Every event type of the forecasting models concern. */
export const PREDICTIONS_EVENT_TYPES = eventTypes<PredictionsEvent>()('PredictionModelSaved', 'PredictionModelDeleted');

/** A user's saved models, oldest first. */
export interface PredictionsState {
  /** The models, in the order they were saved. */
  readonly models: readonly SavedPredictionModel[];
}

/** The key under which names count as equal: trimmed and lower-cased. */
export function predictionNameKey(name: string): string {
  return name.trim().toLowerCase();
}

/** Checks a model name: a text of 1–60 characters once trimmed; answers it trimmed. */
export function parsePredictionName(name: unknown): string {
  const text = typeof name === 'string' ? name.trim() : '';
  if (text.length === 0 || text.length > PREDICTION_NAME_MAX_LENGTH) {
    throw new DomainError(
      'invalid_name',
      `name must be a text of 1 to ${PREDICTION_NAME_MAX_LENGTH} characters, got ${JSON.stringify(name) ?? 'nothing'}`,
      'name',
    );
  }
  return text;
}

/** The saved model of a name (case and surrounding spaces aside), if any. */
export function findPredictionByName(state: PredictionsState, name: string): SavedPredictionModel | undefined {
  const key = predictionNameKey(name);
  return state.models.find((saved) => predictionNameKey(saved.name) === key);
}

function parseModelId(modelId: unknown): string {
  if (typeof modelId !== 'string' || !isUuid(modelId)) {
    throw new DomainError('invalid_id', `modelId ${JSON.stringify(modelId)} is not a model id`, 'modelId');
  }
  return modelId.toLowerCase();
}

function isFigure(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isErrorFigures(value: unknown): value is ErrorFigures {
  if (typeof value !== 'object' || value === null) return false;
  const { mae, rmse, hitRate } = value as Record<string, unknown>;
  return isFigure(mae) && isFigure(rmse) && isFigure(hitRate) && hitRate <= 1;
}

function parseMetrics(metrics: unknown): PredictionMetrics {
  const m = (typeof metrics === 'object' && metrics !== null ? metrics : {}) as Record<string, unknown>;
  if (
    !isErrorFigures(m.model) ||
    !isErrorFigures(m.baseline) ||
    typeof m.beatsBaseline !== 'boolean' ||
    typeof m.verdict !== 'string' ||
    !Number.isSafeInteger(m.samples) ||
    (m.samples as number) < 1
  ) {
    throw new DomainError(
      'invalid_metrics',
      'metrics must hold the model and baseline figures {mae, rmse, hitRate}, beatsBaseline, verdict and samples',
      'metrics',
    );
  }
  const figures = ({ mae, rmse, hitRate }: ErrorFigures): ErrorFigures => ({ mae, rmse, hitRate });
  return {
    model: figures(m.model),
    baseline: figures(m.baseline),
    beatsBaseline: m.beatsBaseline,
    verdict: m.verdict,
    samples: m.samples as number,
  };
}

function decide(command: PredictionsCommand, state: PredictionsState): PredictionsEvent[] {
  switch (command.type) {
    case 'SavePredictionModel': {
      const { data } = command;
      const modelId = parseModelId(data.modelId);
      const name = parsePredictionName(data.name);
      const spec = parsePredictionSpec(data);
      const metrics = parseMetrics(data.metrics);
      if (typeof data.asOf !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(data.asOf)) {
        throw new DomainError(
          'invalid_asof',
          `asOf must be a date YYYY-MM-DD, got ${JSON.stringify(data.asOf)}`,
          'asOf',
        );
      }
      if (typeof data.createdt !== 'string' || data.createdt.length === 0) {
        throw new DomainError('invalid_createdt', 'createdt must be the time of the command', 'createdt');
      }
      const taken = findPredictionByName(state, name);
      if (taken) {
        throw new DomainError('taken', `name ${JSON.stringify(name)} is already the name of a saved model`, 'name');
      }
      if (state.models.some((saved) => saved.modelId === modelId)) {
        throw new DomainError('taken', `modelId ${modelId}: a model with this id exists`, 'modelId');
      }
      if (state.models.length >= PREDICTIONS_LIMIT) {
        throw new DomainError(
          'limit',
          `models: already ${state.models.length} saved; at most ${PREDICTIONS_LIMIT}, delete one first`,
          'models',
        );
      }
      return [
        {
          type: 'PredictionModelSaved',
          data: { modelId, name, ...spec, metrics, asOf: data.asOf, createdt: data.createdt },
        },
      ];
    }
    case 'DeletePredictionModel': {
      const modelId = parseModelId(command.data.modelId);
      if (!state.models.some((saved) => saved.modelId === modelId)) {
        throw new DomainError('not_found', `modelId ${modelId}: no such saved model`, 'modelId');
      }
      return [{ type: 'PredictionModelDeleted', data: { modelId } }];
    }
    default:
      throw unknownCommand(command, 'saved-models');
  }
}

function evolve(state: PredictionsState, event: PredictionsEvent): PredictionsState {
  switch (event.type) {
    case 'PredictionModelSaved':
      return state.models.some((saved) => saved.modelId === event.data.modelId)
        ? state
        : { models: [...state.models, event.data] };
    case 'PredictionModelDeleted':
      return state.models.some((saved) => saved.modelId === event.data.modelId)
        ? { models: state.models.filter((saved) => saved.modelId !== event.data.modelId) }
        : state;
    default: {
      // An event type this version does not know leaves the state as it is, so replaying the log never fails.
      const _exhaustive: never = event;
      return state;
    }
  }
}

/**
 * The saved models' rules: a valid forecast request, names of 1–60 characters unique regardless of case, and at
 * most {@link PREDICTIONS_LIMIT} per user.
 */
export const predictionsDecider: Decider<PredictionsCommand, PredictionsEvent, PredictionsState> = {
  initialState: Object.freeze({ models: Object.freeze([]) }),
  decide,
  evolve,
};

import {
  predictionsDecider,
  type PredictionsEvent,
  type PredictionsState,
} from '../../domain/prediction/predictions.ts';
import { deciderProjection, type Projection } from '../projection.ts';

/** `GET /personalize/predictions`: each user's saved forecasting models, folded with the decider's own `evolve`. */
export const predictionsProjection: Projection<PredictionsState> = deciderProjection(
  'predictions',
  1,
  predictionsDecider,
  ['PredictionModelSaved', 'PredictionModelDeleted'] satisfies PredictionsEvent['type'][],
);

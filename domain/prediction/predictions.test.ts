import { expect } from 'chai';
import { fold } from '../decider.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../ids.ts';
import { given } from '../testing/givenWhenThen.ts';
import {
  PREDICTIONS_LIMIT,
  predictionsDecider,
  type PredictionMetrics,
  type PredictionsCommand,
  type PredictionsEvent,
  type SavedPredictionModel,
} from './predictions.ts';

const id = (name: string): string => uuidV5(`model-${name}`, STOCKPULSE_NAMESPACE);
const metrics: PredictionMetrics = {
  model: { mae: 1.2, rmse: 1.5, hitRate: 0.52 },
  baseline: { mae: 1.1, rmse: 1.4, hitRate: 0.55 },
  beatsBaseline: false,
  verdict: 'It does not beat the naive baseline.',
  samples: 800,
};
const AT = '2025-03-03T15:00:00.000Z';

const save = (name: string, extra: Record<string, unknown> = {}): PredictionsCommand => ({
  type: 'SavePredictionModel',
  data: {
    modelId: id(name),
    name,
    symbol: 'aapl',
    horizon: 5,
    model: 'ridge',
    features: { lagReturns: 3 },
    metrics,
    asOf: '2024-12-31',
    createdt: AT,
    ...extra,
  },
});
const saved = (name: string, extra: Partial<SavedPredictionModel> = {}): PredictionsEvent => ({
  type: 'PredictionModelSaved',
  data: {
    modelId: id(name),
    name,
    symbol: 'AAPL',
    horizon: 5,
    model: 'ridge',
    lambda: 10,
    features: { lagReturns: 3, rsi: false, smaDistance: false, volume: false },
    metrics,
    asOf: '2024-12-31',
    createdt: AT,
    ...extra,
  },
});
const remove = (name: string): PredictionsCommand => ({ type: 'DeletePredictionModel', data: { modelId: id(name) } });
const deleted = (name: string): PredictionsEvent => ({ type: 'PredictionModelDeleted', data: { modelId: id(name) } });

describe('saved forecasting models decider', () => {
  describe('saving', () => {
    it('saves a model with its normalised request, figures and times', () => {
      given(predictionsDecider)
        .when(save('Apple weekly'))
        .then([saved('Apple weekly')]);
    });

    it('keeps the degree of a polynomial model and trims the name', () => {
      given(predictionsDecider)
        .when(save('  Poly  ', { model: 'poly', degree: 3, lambda: 2 }))
        .then([saved('Poly', { modelId: id('  Poly  '), model: 'poly', degree: 3, lambda: 2 })]);
    });

    it('refuses a name another saved model has, whatever its case', () => {
      given(predictionsDecider, [saved('Apple weekly')])
        .when(save('APPLE WEEKLY '))
        .thenError('taken');
    });

    it('accepts the name of a deleted model again', () => {
      given(predictionsDecider, [saved('Apple weekly'), deleted('Apple weekly')])
        .when(save('Apple weekly', { modelId: id('again') }))
        .then([saved('Apple weekly', { modelId: id('again') })]);
    });

    it('refuses an id a saved model already has', () => {
      given(predictionsDecider, [saved('First')])
        .when(save('Second', { modelId: id('First') }))
        .thenError('taken');
    });

    for (const [what, change, code] of [
      ['an empty name', { name: '  ' }, 'invalid_name'],
      ['a name of 61 characters', { name: 'n'.repeat(61) }, 'invalid_name'],
      ['a name that is not text', { name: 42 }, 'invalid_name'],
      ['a bad symbol', { symbol: 'A A' }, 'invalid_symbol'],
      ['horizon 21', { horizon: 21 }, 'invalid_horizon'],
      ['an unknown model', { model: 'forest' }, 'invalid_model'],
      ['no features', { features: {} }, 'invalid_features'],
      ['a model id that is not a UUID', { modelId: 'm1' }, 'invalid_id'],
      ['metrics without figures', { metrics: { samples: 3 } }, 'invalid_metrics'],
      ['an asOf that is not a date', { asOf: 'yesterday' }, 'invalid_asof'],
    ] as const) {
      it(`refuses ${what}`, () => {
        given(predictionsDecider).when(save('Model', change)).thenError(code);
      });
    }

    it(`fills up to exactly ${PREDICTIONS_LIMIT} models and refuses one more`, () => {
      const past = Array.from({ length: PREDICTIONS_LIMIT - 1 }, (_, i) => saved(`m${i}`));
      given(predictionsDecider, past)
        .when(save('last'))
        .then([saved('last')]);
      given(predictionsDecider, [...past, saved('last')])
        .when(save('one more'))
        .thenError('limit');
    });

    it('has room again after a deletion', () => {
      const full = Array.from({ length: PREDICTIONS_LIMIT }, (_, i) => saved(`m${i}`));
      given(predictionsDecider, [...full, deleted('m3')])
        .when(save('new'))
        .then([saved('new')]);
    });
  });

  describe('deleting', () => {
    it('deletes a saved model', () => {
      given(predictionsDecider, [saved('A'), saved('B')])
        .when(remove('A'))
        .then([deleted('A')]);
    });

    it('refuses a model that is not saved, or no longer', () => {
      given(predictionsDecider, [saved('A')])
        .when(remove('B'))
        .thenError('not_found');
      given(predictionsDecider, [saved('A'), deleted('A')])
        .when(remove('A'))
        .thenError('not_found');
    });

    it('refuses an id that is not a UUID', () => {
      given(predictionsDecider)
        .when({ type: 'DeletePredictionModel', data: { modelId: 'nope' } })
        .thenError('invalid_id');
    });
  });

  it('refuses a command type it does not know', () => {
    const unknown = { type: 'RenamePredictionModel', data: {} } as unknown as PredictionsCommand;
    given(predictionsDecider).when(unknown).thenError('unknown_command');
  });

  describe('evolve', () => {
    it('folds saves and deletions into the models, oldest first', () => {
      const state = fold(predictionsDecider, [saved('A'), saved('B'), deleted('A'), saved('C')]);
      expect(state.models.map((m) => m.name)).to.deep.equal(['B', 'C']);
    });

    it('is total: a repeated save or an absent deletion changes nothing', () => {
      const state = fold(predictionsDecider, [saved('A')]);
      expect(predictionsDecider.evolve(state, saved('A'))).to.equal(state);
      expect(predictionsDecider.evolve(state, deleted('Z'))).to.equal(state);
    });

    it('ignores an event type it does not know', () => {
      const state = fold(predictionsDecider, [saved('A')]);
      const unknown = { type: 'PredictionModelRenamed', data: {} } as unknown as PredictionsEvent;
      expect(predictionsDecider.evolve(state, unknown)).to.equal(state);
    });
  });
});

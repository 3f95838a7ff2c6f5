import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import type { PredictionsState, SavedPredictionModel } from '../../domain/prediction/predictions.ts';
import type { StoredDocument } from '../projection.ts';
import { applyToDocuments, recorded } from '../testing/inMemory.ts';
import { predictionsProjection } from './predictions.projection.ts';

const M1 = uuidV5('m1', STOCKPULSE_NAMESPACE);
const M2 = uuidV5('m2', STOCKPULSE_NAMESPACE);

const model = (modelId: string, name: string): SavedPredictionModel => ({
  modelId,
  name,
  symbol: 'AAPL',
  horizon: 5,
  model: 'poly',
  degree: 2,
  lambda: 10,
  features: { lagReturns: 3, rsi: true, smaDistance: false, volume: false },
  metrics: {
    model: { mae: 1, rmse: 2, hitRate: 0.5 },
    baseline: { mae: 1, rmse: 2, hitRate: 0.5 },
    beatsBaseline: false,
    verdict: 'It does not beat the naive baseline.',
    samples: 100,
  },
  asOf: '2024-12-31',
  createdt: '2025-03-03T15:00:00.000Z',
});

const saved = (userId: string, modelId: string, name: string) =>
  recorded(userId, 'PredictionModelSaved', model(modelId, name), 'predictions');
const deleted = (userId: string, modelId: string) =>
  recorded(userId, 'PredictionModelDeleted', { modelId }, 'predictions');

describe('saved forecasting models projection', () => {
  it("holds each user's saved models, oldest first, without the deleted ones", async () => {
    const docs = await applyToDocuments(predictionsProjection, [
      saved('ada', M1, 'Weekly'),
      saved('ada', M2, 'Daily'),
      deleted('ada', M1),
      saved('bob', M1, 'Mine'),
    ]);
    const ada = docs.get('ada') as StoredDocument<PredictionsState>;
    expect(ada.value.models).to.deep.equal([model(M2, 'Daily')]);
    expect((docs.get('bob') as StoredDocument<PredictionsState>).value.models.map((m) => m.name)).to.deep.equal([
      'Mine',
    ]);
  });

  it('leaves the documents unchanged when the same events come again', async () => {
    const events = [saved('ada', M1, 'Weekly'), deleted('ada', M1), saved('ada', M2, 'Daily')];
    const once = await applyToDocuments(predictionsProjection, events);
    const snapshot = structuredClone([...once]);
    await applyToDocuments(predictionsProjection, events, once);
    expect([...once]).to.deep.equal(snapshot);
  });
});

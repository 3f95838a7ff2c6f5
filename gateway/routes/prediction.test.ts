import { expect } from 'chai';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import { PREDICTIONS_LIMIT, predictionsDecider, type PredictionMetrics } from '../../domain/prediction/predictions.ts';
import { CommandService } from '../commands.ts';
import { startTestGateway, type TestClient, type TestGateway } from '../testing/harness.ts';
import type { PredictionFitAnswer, PredictionModelAnswer } from './prediction.ts';

type User = TestClient & { readonly username: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const weekly = { symbol: 'AAPL', horizon: 5, model: 'ridge', features: { lagReturns: 3, rsi: true } };
const poly = {
  symbol: 'msft',
  horizon: 3,
  model: 'poly',
  degree: 2,
  lambda: 20,
  features: { lagReturns: 2, smaDistance: true, volume: true },
};

describe('Predict routes', function () {
  this.timeout(20_000);
  let gw: TestGateway;
  before(async function () {
    this.timeout(120_000);
    gw = await startTestGateway();
  });
  after(async function () {
    await gw.close();
  });

  async function events(username: string): Promise<string[]> {
    const recorded = await gw.running.system.events.readStream(`predictions-${username}`).catch(() => []);
    return recorded.map((e) => e.type);
  }

  async function fit(user: User, body: unknown): Promise<PredictionFitAnswer> {
    const res = await user.post('/api/prediction/fit', body);
    expect(res.status).to.equal(200, res.text);
    return res.body as PredictionFitAnswer;
  }

  async function save(user: User, body: unknown, headers?: Record<string, string>): Promise<PredictionModelAnswer> {
    const res = await user.post('/personalize/predictions', body, headers);
    expect(res.status).to.equal(200, res.text);
    return res.body as PredictionModelAnswer;
  }

  const list = async (user: User) => (await user.get('/personalize/predictions')).body as PredictionModelAnswer[];

  function expectMetricsShape(metrics: PredictionMetrics): void {
    expect(Object.keys(metrics)).to.have.members(['model', 'baseline', 'beatsBaseline', 'verdict', 'samples']);
    for (const figures of [metrics.model, metrics.baseline]) {
      expect(Object.keys(figures)).to.have.members(['mae', 'rmse', 'hitRate']);
      expect(figures.rmse).to.be.at.least(figures.mae);
      expect(figures.hitRate).to.be.within(0, 1);
    }
    expect(metrics.beatsBaseline).to.equal(metrics.model.rmse < metrics.baseline.rmse);
    expect(metrics.verdict).to.match(metrics.beatsBaseline ? /^It beats the naive baseline/ : /^It does not beat/);
    expect(metrics.samples).to.be.above(500);
  }

  describe('fitting', function () {
    it('answers the figures beside the baseline, the forecast with its interval, the closes and the weights', async function () {
      const user = await gw.user();
      const res = await user.post('/api/prediction/fit', weekly);
      expect(res.status).to.equal(200, res.text);
      const answer = res.body as PredictionFitAnswer;
      expect(Object.keys(answer)).to.have.members([
        'symbol',
        'horizon',
        'asOf',
        'metrics',
        'forecast',
        'history',
        'coefficients',
      ]);
      expect(answer).to.deep.include({ symbol: 'AAPL', horizon: 5 });
      expectMetricsShape(answer.metrics);
      expect(answer.history).to.have.length(120);
      expect(answer.history.at(-1)!.date).to.equal(answer.asOf);
      expect(answer.forecast).to.have.length(5);
      expect(answer.forecast[0]!.date > answer.asOf).to.equal(true);
      for (const point of answer.forecast) {
        expect(Object.keys(point)).to.have.members(['date', 'price', 'low', 'high']);
        expect(point.low).to.be.below(point.price);
        expect(point.high).to.be.above(point.price);
      }
      expect(answer.coefficients.map((c) => c.feature)).to.deep.equal([
        'intercept',
        'lagReturn1',
        'lagReturn2',
        'lagReturn3',
        'rsi14',
      ]);
      expect(await events(user.username)).to.deep.equal([]);
    });

    it('fits a polynomial model, its terms named after the features they multiply', async function () {
      const user = await gw.user();
      const answer = await fit(user, poly);
      expect(answer).to.deep.include({ symbol: 'MSFT', horizon: 3 });
      expect(answer.forecast).to.have.length(3);
      const names = answer.coefficients.map((c) => c.feature);
      expect(names).to.include.members(['lagReturn1', 'smaDistance200^2', 'lagReturn2*volumeZ']);
      expect(names).to.have.length(1 + 5 + 15);
    });

    it('answers the same fit to the same request', async function () {
      const user = await gw.user();
      expect(await fit(user, weekly)).to.deep.equal(await fit(user, { ...weekly, symbol: 'aapl', lambda: null }));
    });

    it('refuses a symbol outside the universe as the market routes do, naming body.symbol', async function () {
      const user = await gw.user();
      const res = await user.post('/api/prediction/fit', { ...weekly, symbol: 'ZZZZZZ' });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({
        error: 'unknown_symbol',
        message: 'body.symbol: unknown symbol ZZZZZZ',
        requestId: res.headers.get('x-request-id'),
      });
    });
  });

  const badSpecs: [string, Record<string, unknown>, string][] = [
    ['horizon 0', { horizon: 0 }, 'body.horizon'],
    ['horizon 21', { horizon: 21 }, 'body.horizon'],
    ['a horizon in text', { horizon: '5' }, 'body.horizon'],
    ['a fractional horizon', { horizon: 2.5 }, 'body.horizon'],
    ['an unknown model', { model: 'lasso' }, 'body.model'],
    ['degree 4', { model: 'poly', degree: 4 }, 'body.degree'],
    ['a degree on a ridge model', { degree: 2 }, 'body.degree'],
    ['a negative lambda', { lambda: -1 }, 'body.lambda'],
    ['lambda above 1000', { lambda: 5000 }, 'body.lambda'],
    ['lambda in text', { lambda: 'small' }, 'body.lambda'],
    ['no features chosen', { features: {} }, 'body.features'],
    ['features turned off', { features: { lagReturns: 0, rsi: false } }, 'body.features'],
    ['an unknown feature', { features: { rsi: true, macd: true } }, 'body.features'],
    ['11 lags', { features: { lagReturns: 11 } }, 'body.features.lagReturns'],
    ['a feature flag in text', { features: { rsi: 'yes' } }, 'body.features.rsi'],
    ['features missing', { features: undefined }, 'body.features'],
    ['a symbol breaking the rule', { symbol: 'BAD SYMBOL!' }, 'body.symbol'],
    ['a symbol outside the universe', { symbol: 'ZZZZZZ' }, 'body.symbol'],
  ];

  describe('refusing a bad fit request', function () {
    for (const [what, change, field] of badSpecs) {
      it(`refuses ${what} with 400 naming ${field}`, async function () {
        const user = await gw.user();
        const res = await user.post('/api/prediction/fit', { ...weekly, ...change });
        expect(res.status).to.equal(400, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(field), message).to.equal(true);
      });
    }

    it('refuses a body that is not an object, and invalid JSON, naming body', async function () {
      const user = await gw.user();
      for (const raw of ['[1,2]', '"AAPL"', '{"symbol":']) {
        const res = await user.request('POST', '/api/prediction/fit', {
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status).to.equal(400, res.text);
        expect((res.body as { message: string }).message).to.match(/^body/);
      }
    });
  });

  describe('saving', function () {
    it('fits and saves a model under a name, answering it with its walk-forward figures', async function () {
      const user = await gw.user();
      const res = await user.post('/personalize/predictions', { name: ' Apple weekly ', ...weekly });
      expect(res.status).to.equal(200, res.text);
      const saved = res.body as PredictionModelAnswer;
      expect(Object.keys(saved)).to.have.members([
        'id',
        'name',
        'symbol',
        'horizon',
        'model',
        'lambda',
        'features',
        'metrics',
        'asOf',
        'createdt',
      ]);
      expect(saved.id).to.match(UUID);
      expect(saved).to.deep.include({
        name: 'Apple weekly',
        symbol: 'AAPL',
        horizon: 5,
        model: 'ridge',
        lambda: 10,
        features: { lagReturns: 3, rsi: true, smaDistance: false, volume: false },
      });
      expectMetricsShape(saved.metrics);
      const fitted = await fit(user, weekly);
      expect(saved.metrics).to.deep.equal(fitted.metrics);
      expect(saved.asOf).to.equal(fitted.asOf);
      expect(Date.parse(saved.createdt)).to.be.closeTo(Date.now(), 60_000);
      expect(await events(user.username)).to.deep.equal(['PredictionModelSaved']);
    });

    it('keeps the degree of a polynomial model', async function () {
      const user = await gw.user();
      const saved = await save(user, { name: 'Poly', ...poly });
      expect(saved).to.deep.include({ model: 'poly', degree: 2, lambda: 20, symbol: 'MSFT' });
    });

    it('lists the models right after a save, newest first, with the position', async function () {
      const user = await gw.user();
      const first = await save(user, { name: 'First', ...weekly });
      const second = await save(user, { name: 'Second', ...poly });
      const res = await user.get('/personalize/predictions');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([second, first]);
      expect(res.headers.get('x-read-model-position')).to.match(/^\d+\/\d+$/);
    });

    it('answers an empty list to a new user', async function () {
      const user = await gw.user();
      expect(await list(user)).to.deep.equal([]);
    });

    it('refuses a name already saved, whatever its case, with 409 and appends nothing', async function () {
      const user = await gw.user();
      await save(user, { name: 'Apple weekly', ...weekly });
      const res = await user.post('/personalize/predictions', { name: 'APPLE WEEKLY', ...poly });
      expect(res.status).to.equal(409, res.text);
      expect(res.body).to.deep.include({ error: 'taken' });
      expect((res.body as { message: string }).message).to.match(/^body\.name/);
      expect(await events(user.username)).to.deep.equal(['PredictionModelSaved']);
    });

    const badSaves: [string, Record<string, unknown>, number, string][] = [
      ['an empty name', { name: '  ' }, 400, 'body.name'],
      ['a name of 61 characters', { name: 'n'.repeat(61) }, 400, 'body.name'],
      ['a name that is not text', { name: 7 }, 400, 'body.name'],
      ['no name', { name: undefined }, 400, 'body.name'],
      ...badSpecs.map(([what, change, field]): [string, Record<string, unknown>, number, string] => [
        what,
        change,
        400,
        field,
      ]),
    ];
    for (const [what, change, status, field] of badSaves) {
      it(`refuses to save ${what} with ${status} naming ${field}, appending nothing`, async function () {
        const user = await gw.user();
        const res = await user.post('/personalize/predictions', { name: 'Model', ...weekly, ...change });
        expect(res.status).to.equal(status, res.text);
        const message = (res.body as { message: string }).message;
        expect(message.startsWith(field), message).to.equal(true);
        expect(await events(user.username)).to.deep.equal([]);
      });
    }

    it(`refuses model number ${PREDICTIONS_LIMIT + 1}, appending nothing`, async function () {
      const user = await gw.user();
      const template = await save(user, { name: 'm0', ...weekly });
      const commands = new CommandService(gw.running.system.events, gw.running.system.projections!);
      const at = new Date().toISOString();
      for (let i = 1; i < PREDICTIONS_LIMIT; i++) {
        await commands.execute(
          { concern: 'predictions', decider: predictionsDecider },
          {
            type: 'SavePredictionModel',
            data: {
              ...template,
              modelId: uuidV5(`${user.username}-${i}`, STOCKPULSE_NAMESPACE),
              name: `m${i}`,
              createdt: at,
            },
          },
          { commandId: `seed-${i}`, userId: user.username, at, actor: `user:${user.username}` },
        );
      }
      const res = await user.post('/personalize/predictions', { name: 'one more', ...weekly });
      expect(res.status).to.equal(400, res.text);
      expect(res.body).to.deep.include({ error: 'limit' });
      expect(await events(user.username)).to.have.length(PREDICTIONS_LIMIT);
      expect(await list(user)).to.have.length(PREDICTIONS_LIMIT);
    });
  });

  describe('deleting', function () {
    it('deletes a saved model and answers {id, deleted: true}', async function () {
      const user = await gw.user();
      const keep = await save(user, { name: 'Keep', ...weekly });
      const drop = await save(user, { name: 'Drop', ...poly });
      const res = await user.post(`/personalize/delprediction/${drop.id}`);
      expect(res.status).to.equal(200, res.text);
      expect(res.body).to.deep.equal({ id: drop.id, deleted: true });
      expect(await list(user)).to.deep.equal([keep]);
      expect(await events(user.username)).to.deep.equal([
        'PredictionModelSaved',
        'PredictionModelSaved',
        'PredictionModelDeleted',
      ]);
    });

    it('answers 404 for a model deleted already or never saved, appending nothing', async function () {
      const user = await gw.user();
      const saved = await save(user, { name: 'Once', ...weekly });
      await user.post(`/personalize/delprediction/${saved.id}`);
      expect((await user.post(`/personalize/delprediction/${saved.id}`)).status).to.equal(404);
      expect((await user.post('/personalize/delprediction/not-a-model')).status).to.equal(404);
      expect(await events(user.username)).to.deep.equal(['PredictionModelSaved', 'PredictionModelDeleted']);
    });

    it('refuses an id longer than 100 characters naming params.id', async function () {
      const user = await gw.user();
      const res = await user.post(`/personalize/delprediction/${'m'.repeat(101)}`);
      expect(res.status).to.equal(400);
      expect((res.body as { message: string }).message).to.match(/^params\.id:/);
    });

    it('frees the name of a deleted model', async function () {
      const user = await gw.user();
      const saved = await save(user, { name: 'Reuse', ...weekly });
      await user.post(`/personalize/delprediction/${saved.id}`);
      const again = await save(user, { name: 'reuse', ...poly });
      expect(again.id).not.to.equal(saved.id);
    });
  });

  it('never shows one user the models of another, nor lets them delete them', async function () {
    const ada = await gw.user('ada');
    const bob = await gw.user('bob');
    const adas = await save(ada, { name: 'Weekly', ...weekly });
    expect(await list(bob)).to.deep.equal([]);
    expect((await bob.post(`/personalize/delprediction/${adas.id}`)).status).to.equal(404);
    const bobs = await save(bob, { name: 'Weekly', ...weekly });
    expect(bobs.id).not.to.equal(adas.id);
    expect(await list(ada)).to.deep.equal([adas]);
    expect(await events(ada.username)).to.deep.equal(['PredictionModelSaved']);
    expect(await events(bob.username)).to.deep.equal(['PredictionModelSaved']);
  });

  describe('retries', function () {
    it('appends nothing for a retried save with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const headers = { 'Idempotency-Key': 'save-weekly' };
      const first = await save(user, { name: 'Weekly', ...weekly }, headers);
      const retried = await save(user, { name: 'Weekly', ...weekly }, headers);
      expect(retried).to.deep.equal(first);
      expect(await events(user.username)).to.deep.equal(['PredictionModelSaved']);
    });

    it('appends nothing for a retried delete with the same Idempotency-Key and answers the same', async function () {
      const user = await gw.user();
      const saved = await save(user, { name: 'Weekly', ...weekly });
      const headers = { 'Idempotency-Key': 'delete-weekly' };
      const first = await user.post(`/personalize/delprediction/${saved.id}`, undefined, headers);
      const retried = await user.post(`/personalize/delprediction/${saved.id}`, undefined, headers);
      expect(retried.status).to.equal(200);
      expect(retried.body).to.deep.equal(first.body);
      expect(await events(user.username)).to.deep.equal(['PredictionModelSaved', 'PredictionModelDeleted']);
    });
  });

  it('refuses every Predict route without a session', async function () {
    const anonymous = gw.client();
    expect((await anonymous.post('/api/prediction/fit', weekly)).status).to.equal(401);
    expect((await anonymous.get('/personalize/predictions')).status).to.equal(401);
    expect((await anonymous.post('/personalize/predictions', { name: 'x', ...weekly })).status).to.equal(401);
    const id = uuidV5('m', STOCKPULSE_NAMESPACE);
    expect((await anonymous.post(`/personalize/delprediction/${id}`)).status).to.equal(401);
  });

  it('documents every Predict route in the API reference', async function () {
    const user = await gw.user();
    const paths = ((await user.get('/api/docs')).body as { paths: Record<string, Record<string, unknown>> }).paths;
    expect(paths['/api/prediction/fit']).to.have.property('post');
    expect(paths['/personalize/predictions']).to.have.keys(['get', 'post']);
    expect(paths['/personalize/delprediction/{id}']).to.have.property('post');
  });

  it('keeps the saved models across a restart', async function () {
    this.timeout(60_000);
    const gw2 = await startTestGateway();
    const user = await gw2.user();
    const saved = await save(user, { name: 'Weekly', ...weekly });
    const dataDir = gw2.dataDir;
    await gw2.close({ keepData: true });
    const restarted = await startTestGateway({ dataDir });
    const again = restarted.client();
    for (const [k, v] of user.cookies) again.cookies.set(k, v);
    expect((await again.get('/personalize/predictions')).body).to.deep.equal([saved]);
    await restarted.close();
  });
});

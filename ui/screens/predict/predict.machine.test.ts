import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import {
  DEFAULT_FORM,
  coefficientBars,
  errorRows,
  featuresText,
  forecastFigure,
  forecastHeading,
  formFromModel,
  requestFromForm,
  requestOfModel,
  type FitResult,
  type PredictRequest,
  type SavedModel,
} from './predict.logic.ts';
import { nameError, predictMachine, type PredictEvent, type SaveRequest } from './predict.machine.ts';
import type { UniverseHit } from '../../components/symbolSearch.machine.ts';

function fitOf(request: PredictRequest, beats = false): FitResult {
  return {
    symbol: request.symbol,
    horizon: request.horizon,
    asOf: '2024-12-31',
    metrics: {
      model: { mae: 5.4, rmse: 7.71, hitRate: 0.5778 },
      baseline: { mae: 5.45, rmse: 7.7, hitRate: 0.5809 },
      beatsBaseline: beats,
      verdict: beats ? 'It beats the naive baseline.' : 'It does not beat the naive baseline.',
      samples: 983,
    },
    forecast: [
      { date: '2025-01-02', price: 250.7, low: 245.2, high: 256.3 },
      { date: '2025-01-03', price: 251, low: 243.3, high: 259 },
    ],
    history: [
      { date: '2024-12-30', close: 249 },
      { date: '2024-12-31', close: 250 },
    ],
    coefficients: [
      { feature: 'intercept', weight: 0.006 },
      { feature: 'lagReturn1', weight: -0.0002 },
      { feature: 'rsi14', weight: 0.0004 },
    ],
  };
}

function saved(id: string, name: string, request: PredictRequest): SavedModel {
  return {
    id,
    name,
    ...request,
    lambda: request.lambda,
    metrics: fitOf(request).metrics,
    asOf: '2024-12-31',
    createdt: '2026-01-01T00:00:00Z',
  };
}

const POLY: PredictRequest = {
  symbol: 'MSFT',
  horizon: 10,
  model: 'poly',
  degree: 3,
  lambda: 50,
  features: { lagReturns: 0, rsi: true, smaDistance: false, volume: true },
};

/** The symbols of the fake universe. */
const KNOWN = ['AAPL', 'MSFT', 'NVDA'];

function company(symbol: string): UniverseHit {
  return {
    symbol,
    name: `${symbol} Inc.`,
    sector: 'Financials',
    industry: 'Banks',
    marketcap: 1e11,
    capclass: 'large',
  };
}

function page(
  options: {
    models?: SavedModel[];
    failModels?: boolean;
    failFit?: string;
    failSave?: string;
    symbol?: string;
    /** Holds the symbol check until released. */
    holdCheck?: boolean;
  } = {},
) {
  const calls = {
    fits: [] as PredictRequest[],
    saves: [] as SaveRequest[],
    deletes: [] as string[],
    loads: 0,
    notes: [] as string[],
    checks: [] as string[],
  };
  const released: (() => void)[] = [];
  let push: ((event: PredictEvent) => void) | null = null;
  let models = options.models ?? [];
  const actor = createActor(
    predictMachine.provide({
      actors: {
        fitModel: fromPromise<FitResult, PredictRequest>(async ({ input }) => {
          calls.fits.push(input);
          if (options.failFit) throw new Error(options.failFit);
          return Promise.resolve(fitOf(input));
        }),
        loadModels: fromPromise(async () => {
          calls.loads += 1;
          if (options.failModels) throw new Error('The server could not answer');
          return Promise.resolve(models);
        }),
        saveModel: fromPromise<SavedModel, SaveRequest>(async ({ input }) => {
          calls.saves.push(input);
          if (options.failSave) throw new Error(options.failSave);
          const { name, ...request } = input;
          const model = saved(`m${calls.saves.length}`, name, request);
          models = [model, ...models];
          return Promise.resolve(model);
        }),
        deleteModel: fromPromise<{ id: string }, { id: string }>(async ({ input }) => {
          calls.deletes.push(input.id);
          models = models.filter((m) => m.id !== input.id);
          return Promise.resolve({ id: input.id });
        }),
        liveChanges: fromCallback<PredictEvent>(({ sendBack }) => {
          push = sendBack;
        }),
        checkSymbol: fromPromise<UniverseHit | null, { symbol: string }>(async ({ input }) => {
          calls.checks.push(input.symbol);
          if (options.holdCheck) await new Promise<void>((resolve) => released.push(resolve));
          return Promise.resolve(KNOWN.includes(input.symbol) ? company(input.symbol) : null);
        }),
      },
      actions: { notify: (_, params: { text: string }) => void calls.notes.push(params.text) },
    }),
    { input: { symbol: options.symbol ?? null } },
  ).start();
  return {
    actor,
    calls,
    push: (event: PredictEvent) => push?.(event),
    setModels: (m: SavedModel[]) => (models = m),
    releaseCheck: () => released.splice(0).forEach((release) => release()),
  };
}

describe('predict machine', () => {
  it('opens with the default form (or the symbol of the address), idle, and loads the saved models', async () => {
    const model = saved('a', 'AAPL ridge', requestOfModel(saved('x', 'x', POLY)));
    const { actor } = page({ models: [model], symbol: 'nvda' });
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    const s = actor.getSnapshot();
    expect(s.matches({ fit: 'idle' })).to.equal(true);
    expect(s.context.form.symbol).to.equal('NVDA');
    expect(s.context.models.map((m) => m.name)).to.deep.equal(['AAPL ridge']);
  });

  it('checks the symbol of the address against the universe on load, and only that one', async () => {
    const known = page({ symbol: 'nvda' });
    await waitFor(known.actor, (s) => s.matches({ symbol: 'checked' }));
    expect(known.calls.checks).to.deep.equal(['NVDA']);
    expect(known.actor.getSnapshot().context.unknownSymbol).to.equal(null);
    expect(known.actor.getSnapshot().context.form.symbol).to.equal('NVDA');
    const none = page();
    await waitFor(none.actor, (s) => s.matches({ models: 'ready' }));
    expect(none.actor.getSnapshot().matches({ symbol: 'checked' })).to.equal(true);
    expect(none.calls.checks, 'the default symbol is not asked about').to.deep.equal([]);
  });

  it('says at once that the market data has no company of the address, and fits nothing for it', async () => {
    const { actor, calls } = page({ symbol: 'zzzz' });
    await waitFor(actor, (s) => s.matches({ symbol: 'unknown' }));
    expect(actor.getSnapshot().context.unknownSymbol).to.equal('ZZZZ');
    expect(actor.getSnapshot().context.form.symbol, 'the form has no symbol').to.equal('');
    actor.send({ type: 'user.fit' });
    expect(actor.getSnapshot().context.formError).to.equal('Symbol: pick a symbol');
    expect(calls.fits).to.deep.equal([]);
    actor.send({ type: 'user.edit', patch: { symbol: 'MSFT' } });
    expect(actor.getSnapshot().context.unknownSymbol, 'a symbol picked ends the message').to.equal(null);
    actor.send({ type: 'user.fit' });
    await waitFor(actor, (s) => s.matches({ fit: 'fitted' }));
    expect(calls.fits.map((f) => f.symbol)).to.deep.equal(['MSFT']);
  });

  it('keeps a symbol picked while the address was being checked', async () => {
    const { actor, releaseCheck } = page({ symbol: 'zzzz', holdCheck: true });
    await waitFor(actor, (s) => s.matches({ symbol: 'checking' }));
    actor.send({ type: 'user.edit', patch: { symbol: 'AAPL' } });
    releaseCheck();
    await waitFor(actor, (s) => !s.matches({ symbol: 'checking' }));
    expect(actor.getSnapshot().context.form.symbol).to.equal('AAPL');
    expect(actor.getSnapshot().context.unknownSymbol).to.equal(null);
  });

  it('fits the request the form makes and shows the result with the request it belongs to', async () => {
    const { actor, calls } = page();
    actor.send({ type: 'user.edit', patch: { horizon: '10', volume: true } });
    actor.send({ type: 'user.fit' });
    expect(actor.getSnapshot().matches({ fit: 'fitting' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ fit: 'fitted' }));
    const expected: PredictRequest = {
      symbol: 'AAPL',
      horizon: 10,
      model: 'ridge',
      lambda: 10,
      features: { lagReturns: 5, rsi: true, smaDistance: true, volume: true },
    };
    expect(calls.fits).to.deep.equal([expected]);
    expect(actor.getSnapshot().context.result?.metrics.samples).to.equal(983);
    expect(actor.getSnapshot().context.fitted).to.deep.equal(expected);
    actor.send({ type: 'user.edit', patch: { horizon: '3' } });
    expect(actor.getSnapshot().context.fitted?.horizon, 'the shown fit keeps its own request').to.equal(10);
  });

  it('refuses a form without features in place and sends nothing', () => {
    const { actor, calls } = page();
    actor.send({ type: 'user.edit', patch: { lagOn: false, rsi: false, smaDistance: false, volume: false } });
    actor.send({ type: 'user.fit' });
    expect(actor.getSnapshot().matches({ fit: 'idle' })).to.equal(true);
    expect(actor.getSnapshot().context.formError).to.equal('Features: choose at least one');
    expect(calls.fits).to.have.length(0);
    actor.send({ type: 'user.edit', patch: { rsi: true } });
    expect(actor.getSnapshot().context.formError, 'an edit clears the message').to.equal(null);
  });

  it("keeps a failed fit's message and fits the same request again on retry", async () => {
    const { actor, calls } = page({ failFit: 'body.symbol: unknown symbol ZZZZ' });
    actor.send({ type: 'user.fit' });
    await waitFor(actor, (s) => s.matches({ fit: 'failed' }));
    expect(actor.getSnapshot().context.fitError).to.equal('body.symbol: unknown symbol ZZZZ');
    actor.send({ type: 'user.retryFit' });
    expect(actor.getSnapshot().matches({ fit: 'fitting' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ fit: 'failed' }));
    expect(calls.fits).to.have.length(2);
    expect(calls.fits[1]).to.deep.equal(calls.fits[0]);
  });

  it('saves the model shown under a name, newest first, and refuses a taken name or nothing fitted', async () => {
    const { actor, calls } = page();
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    actor.send({ type: 'user.save', name: 'first' });
    expect(actor.getSnapshot().context.actionError).to.equal('Fit a model before saving it');
    actor.send({ type: 'user.fit' });
    await waitFor(actor, (s) => s.matches({ fit: 'fitted' }));
    actor.send({ type: 'user.save', name: '  AAPL 5-day  ' });
    expect(actor.getSnapshot().matches({ models: 'saving' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    expect(calls.saves).to.have.length(1);
    expect(calls.saves[0]).to.include({ name: 'AAPL 5-day', symbol: 'AAPL', horizon: 5 });
    expect(actor.getSnapshot().context.models.map((m) => m.name)).to.deep.equal(['AAPL 5-day']);
    expect(calls.notes).to.deep.equal(['Model “AAPL 5-day” saved']);
    actor.send({ type: 'user.save', name: 'aapl 5-DAY' });
    expect(actor.getSnapshot().context.actionError).to.equal('Name: a saved model is already called aapl 5-DAY');
    expect(calls.saves).to.have.length(1);
  });

  it("keeps the server's refusal of a save", async () => {
    const { actor } = page({ failSave: 'models: already 50 saved; at most 50, delete one first' });
    actor.send({ type: 'user.fit' });
    await waitFor(actor, (s) => s.matches({ fit: 'fitted' }) && s.matches({ models: 'ready' }));
    actor.send({ type: 'user.save', name: 'one more' });
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    expect(actor.getSnapshot().context.actionError).to.equal('models: already 50 saved; at most 50, delete one first');
    actor.send({ type: 'user.dismissError' });
    expect(actor.getSnapshot().context.actionError).to.equal(null);
  });

  it('deletes a saved model', async () => {
    const models = [saved('a', 'one', POLY), saved('b', 'two', POLY)];
    const { actor, calls } = page({ models });
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    actor.send({ type: 'user.delete', id: 'a' });
    expect(actor.getSnapshot().matches({ models: 'deleting' })).to.equal(true);
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    expect(calls.deletes).to.deep.equal(['a']);
    expect(actor.getSnapshot().context.models.map((m) => m.id)).to.deep.equal(['b']);
    expect(calls.notes).to.deep.equal(['Model “one” deleted']);
  });

  it('opens a saved model: its parameters fill the form and it is fitted again with them', async () => {
    const { actor, calls } = page({ models: [saved('p', 'poly', POLY)] });
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    actor.send({ type: 'user.openModel', id: 'p' });
    await waitFor(actor, (s) => s.matches({ fit: 'fitted' }));
    expect(calls.fits).to.deep.equal([POLY]);
    const { form } = actor.getSnapshot().context;
    expect(form).to.include({ symbol: 'MSFT', horizon: '10', model: 'poly', degree: 3, lambda: '50', lagOn: false });
    expect(actor.getSnapshot().context.result?.symbol).to.equal('MSFT');
  });

  it('shows a failed load of the saved models with its message and retries', async () => {
    const { actor, calls } = page({ failModels: true });
    await waitFor(actor, (s) => s.matches({ models: 'failed' }));
    expect(actor.getSnapshot().context.modelsError).to.equal('The server could not answer');
    actor.send({ type: 'user.retryModels' });
    expect(actor.getSnapshot().matches({ models: 'loading' })).to.equal(true);
    expect(calls.loads).to.equal(2);
  });

  it('reads the saved models again when they change elsewhere', async () => {
    const { actor, push, setModels } = page();
    await waitFor(actor, (s) => s.matches({ models: 'ready' }));
    setModels([saved('z', 'from another tab', POLY)]);
    push({ type: 'server.modelsChanged' });
    await waitFor(actor, (s) => s.matches({ models: 'ready' }) && s.context.models.length === 1);
    expect(actor.getSnapshot().context.models[0]?.name).to.equal('from another tab');
  });
});

describe('predict logic', () => {
  it('makes the request of a form: degree only with poly, lagged returns 0 when off, lambda defaulted', () => {
    expect(requestFromForm(DEFAULT_FORM)).to.deep.equal({
      request: {
        symbol: 'AAPL',
        horizon: 5,
        model: 'ridge',
        lambda: 10,
        features: { lagReturns: 5, rsi: true, smaDistance: true, volume: false },
      },
    });
    const poly = requestFromForm({ ...DEFAULT_FORM, model: 'poly', degree: 3, lambda: ' ', lagOn: false });
    expect(poly).to.deep.equal({
      request: {
        symbol: 'AAPL',
        horizon: 5,
        model: 'poly',
        degree: 3,
        lambda: 10,
        features: { lagReturns: 0, rsi: true, smaDistance: true, volume: false },
      },
    });
  });

  it('names the field that is wrong, at the exact bounds', () => {
    expect(requestFromForm({ ...DEFAULT_FORM, horizon: '20' })).to.have.property('request');
    expect(requestFromForm({ ...DEFAULT_FORM, horizon: '21' })).to.deep.equal({
      error: 'Horizon: a whole number of days from 1 to 20',
    });
    expect(requestFromForm({ ...DEFAULT_FORM, horizon: '2.5' })).to.have.property('error');
    expect(requestFromForm({ ...DEFAULT_FORM, lambda: '1000' })).to.have.property('request');
    expect(requestFromForm({ ...DEFAULT_FORM, lambda: '1000.5' })).to.deep.equal({
      error: 'Lambda: a number from 0 to 1000',
    });
    expect(requestFromForm({ ...DEFAULT_FORM, lagK: '11' })).to.deep.equal({
      error: 'Lagged returns: a whole number from 1 to 10',
    });
    expect(requestFromForm({ ...DEFAULT_FORM, symbol: ' ' })).to.deep.equal({ error: 'Symbol: pick a symbol' });
  });

  it('turns a saved model back into the form and request it was made from', () => {
    const model = saved('p', 'poly', POLY);
    expect(requestFromForm(formFromModel(model))).to.deep.equal({ request: POLY });
    expect(requestOfModel(model)).to.deep.equal(POLY);
    expect(featuresText(POLY.features)).to.equal('RSI, volume');
  });

  it('checks a name before saving', () => {
    expect(nameError('', [])).to.equal('Name: enter a name for the model');
    expect(nameError('x'.repeat(61), [])).to.equal('Name: at most 60 characters');
    expect(nameError('Mine', [saved('a', 'mine', POLY)])).to.equal('Name: a saved model is already called Mine');
    expect(nameError('Yours', [saved('a', 'mine', POLY)])).to.equal(null);
  });

  it('marks the better side of each error figure: lower errors, higher hit rate', () => {
    const rows = errorRows(fitOf(POLY).metrics);
    expect(rows.map((r) => [r.label, r.model, r.baseline, r.better])).to.deep.equal([
      ['Mean absolute error', '5.40', '5.45', 'model'],
      ['Root mean square error', '7.71', '7.70', 'baseline'],
      ['Direction hit rate', '57.8%', '58.1%', 'baseline'],
    ]);
  });

  it('draws bars for the feature weights only, sized among themselves, and gives the intercept as a number', () => {
    const { bars, intercept } = coefficientBars(fitOf(POLY).coefficients);
    expect(bars.map((b) => [b.feature, b.share])).to.deep.equal([
      ['lagReturn1', 0.5],
      ['rsi14', 1],
    ]);
    expect(intercept).to.equal(0.006);
    const none = coefficientBars([{ feature: 'intercept', weight: 0.00527 }]);
    expect(none).to.deep.equal({ bars: [], intercept: 0.00527 });
    expect(coefficientBars([{ feature: 'volume', weight: 0 }]).bars[0]?.share, 'no weight, no bar').to.equal(0);
    expect(coefficientBars([{ feature: 'volume', weight: 0.1 }]).intercept).to.equal(null);
  });

  it('joins the forecast and its band to the last close', () => {
    const figure = forecastFigure(fitOf(POLY));
    expect(figure.data).to.have.length(4);
    const [history, low, high, forecast] = figure.data as { x: string[]; y: number[]; fill?: string }[];
    expect(history!.x).to.deep.equal(['2024-12-30', '2024-12-31']);
    expect(low!.x).to.deep.equal(['2024-12-31', '2025-01-02', '2025-01-03']);
    expect(low!.y).to.deep.equal([250, 245.2, 243.3]);
    expect(high!.fill).to.equal('tonexty');
    expect(high!.y).to.deep.equal([250, 256.3, 259]);
    expect(forecast!.y).to.deep.equal([250, 250.7, 251]);
  });

  it('heads the forecast with prices, thousands and all, never in millions', () => {
    expect(forecastHeading(fitOf(POLY))).to.equal('2025-01-03: 251.00 (10%–90%: 243.30 – 259.00)');
    const bkng = fitOf({ ...POLY, symbol: 'BKNG' });
    const forecast = [...bkng.forecast, { date: '2025-01-06', price: 7483.75, low: 7210.4, high: 7755.1 }];
    expect(forecastHeading({ ...bkng, forecast })).to.equal('2025-01-06: 7,483.75 (10%–90%: 7,210.40 – 7,755.10)');
    expect(forecastHeading({ ...bkng, forecast: [] })).to.equal(null);
  });
});

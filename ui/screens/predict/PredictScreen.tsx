/**
 * The Predict page (/Prediction): choose a symbol, horizon, model and features; "Fit" runs walk-forward
 * validation on the server and shows the model's errors beside the naive baseline's with the verdict, the
 * coefficients and the forecast with its interval; save the model shown, open a saved one to fit it again,
 * delete one.
 */
import { useMachine } from '@xstate/react';
import { useId, useMemo, useState, type FormEvent } from 'react';
import { DEGREE_RANGE, HORIZON_RANGE, LAG_RETURNS_RANGE, LAMBDA_RANGE } from '../../../domain/prediction/spec.ts';
import { formatPrice } from '../../../domain/format.ts';
import { Chart } from '../../components/Chart.tsx';
import { DeleteButton } from '../../components/DeleteButton.tsx';
import { Dismissible, Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { SymbolSearch } from '../../components/SymbolSearch.tsx';
import { unknownCompanyText } from '../../components/symbolSearch.machine.ts';
import { usePreferences } from '../../services/preferences.ts';
import { useLocation } from '../../services/router.ts';
import { formatDateTime, TRADING_DAY } from '../../services/time.ts';
import {
  MODEL_NAME_MAX,
  coefficientBars,
  errorRows,
  featuresText,
  forecastFigure,
  forecastHeading,
  modelText,
  percent,
  type FitResult,
  type PredictForm,
  type PredictRequest,
  type SavedModel,
} from './predict.logic.ts';
import { predictMachine, type PredictEvent } from './predict.machine.ts';
import './predict.css';

type Send = (event: PredictEvent) => void;

function FitForm(props: {
  readonly form: PredictForm;
  /** The symbol of the address the market data has no company of. */
  readonly unknownSymbol: string | null;
  readonly busy: boolean;
  readonly send: Send;
}) {
  const { form, unknownSymbol, busy, send } = props;
  const id = useId();
  const edit = (patch: Partial<PredictForm>) => send({ type: 'user.edit', patch });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send({ type: 'user.fit' });
  };
  return (
    <form className="card predict-form" onSubmit={submit} aria-label="Model">
      <div className="predict-symbol">
        <SymbolSearch
          label="Symbol"
          placeholder="Symbol or company, e.g. AAPL"
          onPick={(hit) => edit({ symbol: hit.symbol })}
        />
        {unknownSymbol !== null ? (
          <p className="empty" role="alert">
            {unknownCompanyText(unknownSymbol)}
          </p>
        ) : (
          <p className="hint" aria-live="polite">
            Forecasting <strong data-testid="predict-symbol">{form.symbol || 'no symbol yet'}</strong>
          </p>
        )}
      </div>
      <label htmlFor={`${id}-horizon`}>
        Horizon (trading days)
        <input
          id={`${id}-horizon`}
          type="number"
          min={HORIZON_RANGE.min}
          max={HORIZON_RANGE.max}
          step={1}
          value={form.horizon}
          onChange={(e) => edit({ horizon: e.target.value })}
        />
      </label>
      <label htmlFor={`${id}-model`}>
        Model
        <select
          id={`${id}-model`}
          value={form.model}
          onChange={(e) => edit({ model: e.target.value === 'poly' ? 'poly' : 'ridge' })}
        >
          <option value="ridge">Regularised linear (ridge)</option>
          <option value="poly">Polynomial</option>
        </select>
      </label>
      {form.model === 'poly' && (
        <label htmlFor={`${id}-degree`}>
          Degree
          <select id={`${id}-degree`} value={form.degree} onChange={(e) => edit({ degree: Number(e.target.value) })}>
            {Array.from({ length: DEGREE_RANGE.max - DEGREE_RANGE.min + 1 }, (_, i) => DEGREE_RANGE.min + i).map(
              (d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ),
            )}
          </select>
        </label>
      )}
      <label htmlFor={`${id}-lambda`}>
        Lambda (L2 penalty)
        <input
          id={`${id}-lambda`}
          type="number"
          min={LAMBDA_RANGE.min}
          max={LAMBDA_RANGE.max}
          step="any"
          value={form.lambda}
          onChange={(e) => edit({ lambda: e.target.value })}
        />
      </label>
      <fieldset className="predict-features">
        <legend>Features</legend>
        <div className="predict-lag">
          <label className="check">
            <input type="checkbox" checked={form.lagOn} onChange={(e) => edit({ lagOn: e.target.checked })} />
            Lagged returns
          </label>
          <label htmlFor={`${id}-lagk`} className="predict-lagk">
            <span className="sr-only">Number of lagged returns</span>
            <span aria-hidden="true">k</span>
            <input
              id={`${id}-lagk`}
              type="number"
              min={1}
              max={LAG_RETURNS_RANGE.max}
              step={1}
              disabled={!form.lagOn}
              value={form.lagK}
              onChange={(e) => edit({ lagK: e.target.value })}
            />
          </label>
        </div>
        <label className="check">
          <input type="checkbox" checked={form.rsi} onChange={(e) => edit({ rsi: e.target.checked })} />
          RSI 14
        </label>
        <label className="check">
          <input type="checkbox" checked={form.smaDistance} onChange={(e) => edit({ smaDistance: e.target.checked })} />
          SMA distance (50, 200)
        </label>
        <label className="check">
          <input type="checkbox" checked={form.volume} onChange={(e) => edit({ volume: e.target.checked })} />
          Volume
        </label>
      </fieldset>
      <div className="predict-fit">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Fitting…' : 'Fit'}
        </button>
      </div>
    </form>
  );
}

function Verdict({ result }: { readonly result: FitResult }) {
  const { metrics } = result;
  return (
    <div
      className={`predict-verdict ${metrics.beatsBaseline ? 'good' : 'bad'}`}
      role="status"
      data-testid="predict-verdict"
    >
      <strong>
        {metrics.beatsBaseline ? 'The model beats the naive baseline' : 'The model does not beat the naive baseline'}
      </strong>
      <p>{metrics.verdict}</p>
    </div>
  );
}

function Metrics({ result }: { readonly result: FitResult }) {
  const rows = errorRows(result.metrics);
  return (
    <table className="predict-metrics" aria-label="Walk-forward errors">
      <caption>
        {result.metrics.samples} walk-forward forecasts, {result.horizon} trading day{result.horizon === 1 ? '' : 's'}{' '}
        ahead
      </caption>
      <thead>
        <tr>
          <th scope="col">Figure</th>
          <th scope="col">Model</th>
          <th scope="col">Naive baseline (no change)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.label}>
            <th scope="row">{row.label}</th>
            <td className={row.better === 'model' ? 'better' : undefined}>{row.model}</td>
            <td className={row.better === 'baseline' ? 'better' : undefined}>{row.baseline}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Coefficients({ result }: { readonly result: FitResult }) {
  const { bars, intercept } = coefficientBars(result.coefficients);
  return (
    <table className="predict-coefficients" aria-label="Coefficients">
      <caption>Weights per standard deviation of each feature</caption>
      <thead>
        <tr>
          <th scope="col">Feature</th>
          <th scope="col">Weight</th>
          <th scope="col">
            <span className="sr-only">Relative size</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {bars.map((bar) => (
          <tr key={bar.feature}>
            <th scope="row">{bar.feature}</th>
            <td className={bar.weight >= 0 ? 'up' : 'down'}>{bar.weight.toPrecision(3)}</td>
            <td className="predict-bar-cell" aria-hidden="true">
              {bar.share > 0 && (
                <span
                  className={`predict-bar ${bar.weight >= 0 ? 'positive' : 'negative'}`}
                  style={{ width: `${Math.round(bar.share * 100)}%` }}
                />
              )}
            </td>
          </tr>
        ))}
      </tbody>
      {intercept !== null && (
        <tfoot>
          <tr className="predict-intercept">
            <th scope="row">intercept</th>
            <td data-testid="predict-intercept">{intercept.toPrecision(3)}</td>
            <td className="hint">the forecast when every feature is at its mean; not a weight, so not drawn</td>
          </tr>
        </tfoot>
      )}
    </table>
  );
}

function Result({ result, request }: { readonly result: FitResult; readonly request: PredictRequest | null }) {
  const figure = useMemo(() => forecastFigure(result), [result]);
  const heading = forecastHeading(result);
  return (
    <div className="predict-result">
      <Verdict result={result} />
      <div className="predict-result-grid">
        <div className="card">
          <h2>Errors beside the naive baseline</h2>
          <Metrics result={result} />
          {request && (
            <p className="hint">
              {modelText(request)}; {featuresText(request.features)}; data as of {result.asOf} ({TRADING_DAY})
            </p>
          )}
        </div>
        <div className="card">
          <h2>Coefficients</h2>
          <Coefficients result={result} />
        </div>
      </div>
      <div className="card">
        <h2>
          <SymbolChip symbol={result.symbol} /> forecast
          {heading && <span className="predict-forecast-last"> {heading}</span>}
        </h2>
        <Chart
          data={figure.data}
          layout={figure.layout}
          height={380}
          label={`${result.symbol}: the last ${result.history.length} closes and the ${result.horizon}-day forecast with its 10%–90% interval`}
        />
      </div>
    </div>
  );
}

function SaveForm({ send, saving }: { readonly send: Send; readonly saving: boolean }) {
  const [name, setName] = useState('');
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send({ type: 'user.save', name });
  };
  return (
    <form className="predict-save" onSubmit={submit}>
      <label htmlFor={`${id}-name`}>
        Model name
        <input
          id={`${id}-name`}
          value={name}
          maxLength={MODEL_NAME_MAX}
          placeholder="e.g. AAPL 5-day ridge"
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <button type="submit" className="button" disabled={saving}>
        {saving ? 'Saving…' : 'Save model'}
      </button>
    </form>
  );
}

function ModelCard(props: { readonly model: SavedModel; readonly deleting: boolean; readonly send: Send }) {
  const { model, deleting, send } = props;
  const { metrics } = model;
  const { timeZone } = usePreferences();
  return (
    <li className="card predict-model" aria-busy={deleting}>
      <header>
        <h3>{model.name}</h3>
        <DeleteButton
          label={`Delete model ${model.name}`}
          deleting={deleting}
          onDelete={() => send({ type: 'user.delete', id: model.id })}
        />
      </header>
      <p>
        <SymbolChip symbol={model.symbol} /> {model.horizon} day{model.horizon === 1 ? '' : 's'} ahead
      </p>
      <p className="hint">
        {modelText(model)}; {featuresText(model.features)}
      </p>
      <p className={metrics.beatsBaseline ? 'up' : 'down'}>
        RMSE {formatPrice(metrics.model.rmse)} vs baseline {formatPrice(metrics.baseline.rmse)}; hit rate{' '}
        {percent(metrics.model.hitRate)}
        {metrics.beatsBaseline ? ' (beats the baseline)' : ' (does not beat the baseline)'}
      </p>
      <p className="hint">
        Saved {formatDateTime(model.createdt, timeZone)}, data as of {model.asOf} ({TRADING_DAY})
      </p>
      <button
        type="button"
        className="button"
        aria-label={`Fit ${model.name} again`}
        onClick={() => send({ type: 'user.openModel', id: model.id })}
      >
        Fit again
      </button>
    </li>
  );
}

/** The Predict page. */
export default function PredictScreen() {
  const location = useLocation();
  const [state, send] = useMachine(predictMachine, { input: { symbol: location.params.get('stock') } });
  const { context } = state;
  const fitting = state.matches({ fit: 'fitting' });
  const saving = state.matches({ models: 'saving' });

  return (
    <section className="screen predict">
      <h1>Predict</h1>
      <p className="hint predict-intro">
        Fits a regression on the symbol's daily bars and checks it honestly: walk-forward validation (each forecast made
        only from the days before it) compared with the naive baseline that the price at the horizon is today's.
      </p>
      <div className="predict-layout">
        <FitForm form={context.form} unknownSymbol={context.unknownSymbol} busy={fitting} send={send} />
        <div className="predict-main">
          {context.formError && (
            <p className="error" role="alert">
              {context.formError}
            </p>
          )}
          {fitting && (
            <div className="card predict-progress" role="status" aria-live="polite">
              <span>Fitting {context.pending?.symbol}: walk-forward validation against the naive baseline…</span>
              <progress aria-label="Fitting the model" />
              <Skeleton lines={4} />
            </div>
          )}
          {!fitting && state.matches({ fit: 'failed' }) && (
            <Failed
              message={`The model could not be fitted: ${context.fitError ?? 'try again'}`}
              onRetry={() => send({ type: 'user.retryFit' })}
            />
          )}
          {!fitting && state.matches({ fit: 'idle' }) && (
            <div className="card">
              <Empty>
                Choose a symbol, a horizon, a model and its features, then press Fit to see how its forecasts would have
                done against the naive baseline.
              </Empty>
            </div>
          )}
          {!fitting && context.result && !state.matches({ fit: 'failed' }) && (
            <>
              <Result result={context.result} request={context.fitted} />
              <div className="card">
                <h2>Save this model</h2>
                <SaveForm send={send} saving={saving} />
              </div>
            </>
          )}
          {context.actionError && (
            <Dismissible message={context.actionError} onDismiss={() => send({ type: 'user.dismissError' })} />
          )}
          <section className="predict-saved" aria-labelledby="predict-saved-title">
            <h2 id="predict-saved-title">Saved models</h2>
            {state.matches({ models: 'loading' }) ? (
              <Skeleton lines={3} />
            ) : state.matches({ models: 'failed' }) ? (
              <Failed
                message={context.modelsError ?? 'The saved models could not be loaded'}
                onRetry={() => send({ type: 'user.retryModels' })}
              />
            ) : context.models.length === 0 ? (
              <Empty>No saved models yet: fit a model, name it and press Save model.</Empty>
            ) : (
              <ul className="cards predict-models" aria-label="Saved models">
                {context.models.map((model) => (
                  <ModelCard key={model.id} model={model} deleting={context.deleting === model.id} send={send} />
                ))}
              </ul>
            )}
          </section>
        </div>
      </div>
    </section>
  );
}

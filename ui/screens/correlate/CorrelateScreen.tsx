/**
 * Correlate (/Correlate): choose symbols, a sector or the watch list and a window; a heatmap of return
 * correlations, the clusters of stocks that move together, and a comparison of two symbols' rebased prices.
 */
import { useMachine } from '@xstate/react';
import { useMemo } from 'react';
import type { Data } from 'plotly.js';
import { formatFixed } from '../../../domain/format.ts';
import { Chart } from '../../components/Chart.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { lineColor } from '../perform/lines.ts';
import { SectorSelect } from '../perform/SectorSelect.tsx';
import {
  clusterOrder,
  clusterSummary,
  correlateMachine,
  correlationOf,
  CORRELATE_CHOSEN_MAX,
  CORRELATE_MAX,
  pairChoice,
  sectorChoices,
  WINDOWS,
  type Comparison,
  type Correlation,
  type CorrelateSource,
  type SymbolPair,
} from './correlate.machine.ts';
import { usePreferences } from '../../services/preferences.ts';
import { tradingDayAxis } from '../../components/dateAxis.ts';
import { heatmapTraces } from './heatmap.ts';
import { SymbolPicker } from './SymbolPicker.tsx';
import './correlate.css';

const SOURCES: readonly { readonly source: CorrelateSource; readonly label: string }[] = [
  { source: 'sector', label: 'A sector' },
  { source: 'watchlist', label: 'My watch list' },
  { source: 'symbols', label: 'Chosen symbols' },
];

function Heatmap({
  result,
  onPick,
}: {
  readonly result: Correlation;
  readonly onPick: (a: string, b: string) => void;
}) {
  const ordered = useMemo(() => clusterOrder(result), [result]);
  const data = useMemo(() => heatmapTraces(ordered.symbols, ordered.values), [ordered]);
  const n = ordered.symbols.length;
  const ticks = n > 30 ? 9 : 11;
  return (
    <Chart
      data={data}
      height={Math.min(900, Math.max(380, n * 22 + 110))}
      label={`Correlation heatmap of ${n} symbols over ${result.window} trading days`}
      layout={{
        showlegend: false,
        hovermode: 'closest',
        margin: { l: 64, r: 10, t: 10, b: 64 },
        xaxis: {
          type: 'category',
          tickangle: -60,
          tickfont: { size: ticks },
          showgrid: false,
          zeroline: false,
          fixedrange: true,
        },
        yaxis: { type: 'category', autorange: 'reversed', tickfont: { size: ticks }, fixedrange: true },
      }}
      config={{ displayModeBar: false }}
      onClick={(event) => {
        const point = event.points[0];
        if (point && typeof point.x === 'string' && typeof point.y === 'string') onPick(point.y, point.x);
      }}
    />
  );
}

function ComparisonChart({ comparison, correlation }: { comparison: Comparison; correlation: number | null }) {
  const { resolvedTheme: theme } = usePreferences();
  const data: Data[] = [
    {
      type: 'scatter',
      mode: 'lines',
      name: comparison.a,
      x: [...comparison.dates],
      y: [...comparison.aValues],
      line: { color: lineColor(0, theme), width: 2 },
    },
    {
      type: 'scatter',
      mode: 'lines',
      name: comparison.b,
      x: [...comparison.dates],
      y: [...comparison.bValues],
      line: { color: lineColor(1, theme), width: 2 },
    },
  ];
  return (
    <Chart
      data={data}
      height={340}
      label={`${comparison.a} and ${comparison.b} rebased to 100${correlation === null ? '' : `, correlation ${formatFixed(correlation)}`}`}
      layout={{
        hovermode: 'x unified',
        legend: { orientation: 'h', y: 1.08 },
        xaxis: tradingDayAxis(),
        yaxis: { title: { text: 'Rebased to 100' } },
        shapes: [
          {
            type: 'line',
            xref: 'paper',
            x0: 0,
            x1: 1,
            y0: 100,
            y1: 100,
            line: { color: '#9aa5b5', width: 1, dash: 'dot' },
          },
        ],
      }}
      config={{ displayModeBar: false }}
    />
  );
}

/** The Compare choices: the pair the machine holds (the last cell clicked, or the one chosen here). */
function PairForm({
  symbols,
  choice,
  onChoose,
  onPick,
}: {
  readonly symbols: readonly string[];
  readonly choice: SymbolPair;
  readonly onChoose: (patch: Partial<SymbolPair>) => void;
  readonly onPick: (a: string, b: string) => void;
}) {
  const { a: first, b: second } = pairChoice(symbols, choice);
  return (
    <form
      className="pair-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (first && second) onPick(first, second);
      }}
    >
      <label>
        Compare
        <select value={first} onChange={(event) => onChoose({ a: event.target.value })}>
          {symbols.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        with
        <select value={second} onChange={(event) => onChoose({ b: event.target.value })}>
          {symbols
            .filter((s) => s !== first)
            .map((s) => (
              <option key={s}>{s}</option>
            ))}
        </select>
      </label>
      <button type="submit" className="button">
        Compare
      </button>
    </form>
  );
}

/** The Correlate page. */
export default function CorrelateScreen() {
  const [state, send] = useMachine(correlateMachine);
  const { context } = state;
  const { setup, result, error, pair, comparison } = context;
  const pairCorrelation = pair === null ? null : correlationOf(result, pair.a, pair.b);
  const busy = state.matches({ data: 'loading' }) || state.matches({ data: 'correlating' });
  const failed = state.matches({ data: 'failed' });
  const incomplete = state.matches({ data: 'incomplete' });
  const pick = (a: string, b: string) => send({ type: 'user.pickPair', a, b });
  const summary = useMemo(() => clusterSummary(result?.groups ?? []), [result]);
  const watchCount = setup?.watchlist.length ?? 0;
  const capped =
    (context.source === 'watchlist' && watchCount > CORRELATE_MAX) ||
    (context.source === 'sector' &&
      (sectorChoices(setup).find((g) => g.id === context.sectorId)?.symbols.length ?? 0) > CORRELATE_MAX);

  let main;
  if (failed && (setup === null || result === null)) {
    main = (
      <Failed message={error ?? 'The correlations could not be loaded'} onRetry={() => send({ type: 'user.retry' })} />
    );
  } else if (incomplete) {
    main = (
      <Empty>
        {context.source === 'watchlist'
          ? 'Your watch list holds fewer than 2 symbols: add symbols to it, or choose a sector or symbols.'
          : context.source === 'symbols'
            ? 'Choose at least 2 symbols: search a symbol or company above.'
            : 'This sector holds fewer than 2 symbols: choose another sector.'}
      </Empty>
    );
  } else if (result === null) {
    main = <Skeleton lines={12} height={22} />;
  } else {
    main = (
      <div className={busy ? 'correlate-main analysis-stale' : 'correlate-main'}>
        <article className="card correlate-heatmap" aria-labelledby="heatmap-title">
          <h2 id="heatmap-title">
            Return correlations <span className="hint">{result.window} trading days, click a cell to compare</span>
          </h2>
          <Heatmap result={result} onPick={pick} />
          <PairForm
            symbols={result.symbols}
            choice={context.choice}
            onChoose={(patch) => send({ type: 'user.choosePair', patch })}
            onPick={pick}
          />
        </article>
        <article className="card correlate-clusters" aria-labelledby="clusters-title">
          <h2 id="clusters-title">Stocks that move together</h2>
          {summary.clusters.length === 0 ? (
            <Empty>No two of these stocks move together closely over this window: try a longer one.</Empty>
          ) : (
            <ol className="clusters">
              {summary.clusters.map((cluster, i) => (
                <li key={cluster.members.map((m) => m.stock).join(',')} className="cluster">
                  <div className="cluster-head">
                    <strong>Cluster {i + 1}</strong>
                    <span className="hint">
                      {cluster.members.length} stocks, average correlation {formatFixed(cluster.average)}
                    </span>
                  </div>
                  <ul className="cluster-members">
                    {cluster.members.map((m) => (
                      <li key={m.stock}>
                        <SymbolChip symbol={m.stock} />
                        <span className="hint">{formatFixed(m.value)}</span>
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ol>
          )}
          {summary.alone.length > 0 && (
            <div className="cluster-alone">
              <strong>Move on their own</strong>
              <ul className="cluster-members">
                {summary.alone.map((s) => (
                  <li key={s}>
                    <SymbolChip symbol={s} />
                  </li>
                ))}
              </ul>
            </div>
          )}
        </article>
      </div>
    );
  }

  return (
    <section className="screen correlate">
      <h1>Correlate</h1>
      <div className="card correlate-controls">
        <fieldset className="segmented">
          <legend>Symbols from</legend>
          {SOURCES.map(({ source, label }) => (
            <label key={source} className={context.source === source ? 'segment active' : 'segment'}>
              <input
                type="radio"
                name="correlate-source"
                value={source}
                checked={context.source === source}
                disabled={setup === null}
                onChange={() => send({ type: 'user.setSource', source })}
              />
              {label}
              {source === 'watchlist' && setup !== null && ` (${watchCount})`}
              {source === 'symbols' && context.chosen.length > 0 && ` (${context.chosen.length})`}
            </label>
          ))}
        </fieldset>
        <SectorSelect
          groups={setup?.groups ?? null}
          sectorId={context.sectorId}
          onSelect={(sectorId) => send({ type: 'user.selectSector', sectorId })}
        />
        <SymbolPicker
          label="Add a symbol"
          chosen={context.chosen}
          max={CORRELATE_CHOSEN_MAX}
          onPick={(symbol) => send({ type: 'user.addSymbol', symbol })}
          onRemove={(symbol) => send({ type: 'user.removeSymbol', symbol })}
        />
        <fieldset className="segmented">
          <legend>Window (trading days)</legend>
          {WINDOWS.map((w) => (
            <label key={w} className={context.window === w ? 'segment active' : 'segment'}>
              <input
                type="radio"
                name="correlate-window"
                value={w}
                checked={context.window === w}
                onChange={() => send({ type: 'user.setWindow', window: w })}
              />
              {w}
            </label>
          ))}
        </fieldset>
        {busy && result !== null && (
          <span className="analysis-busy" role="status">
            Updating…
          </span>
        )}
      </div>
      {capped && <p className="hint">The first {CORRELATE_MAX} symbols are compared.</p>}
      {failed && setup !== null && result !== null && (
        <Failed
          message={error ?? 'The correlations could not be updated'}
          onRetry={() => send({ type: 'user.retry' })}
        />
      )}
      {main}
      {pair !== null && (
        <article className="card correlate-compare" aria-labelledby="compare-title">
          <div className="compare-head">
            <h2 id="compare-title">
              {pair.a} and {pair.b} rebased to 100
            </h2>
            {pairCorrelation !== null && (
              <span className="hint">
                correlation {formatFixed(pairCorrelation)} over {context.window} trading days
              </span>
            )}
            <SymbolChip symbol={pair.a} />
            <SymbolChip symbol={pair.b} />
            <button
              type="button"
              className="icon-button small"
              aria-label="Close the comparison"
              onClick={() => send({ type: 'user.closeComparison' })}
            >
              ×
            </button>
          </div>
          {state.matches({ comparison: 'failed' }) ? (
            <Failed
              message={context.compareError ?? 'The prices could not be loaded'}
              onRetry={() => send({ type: 'user.retryComparison' })}
            />
          ) : comparison === null ? (
            <Skeleton lines={5} height={24} />
          ) : (
            <ComparisonChart comparison={comparison} correlation={pairCorrelation} />
          )}
        </article>
      )}
    </section>
  );
}

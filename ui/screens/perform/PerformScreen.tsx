/**
 * Perform (/SectorPerformance): a grid of multi-line charts, one per sector, each line a stock's cumulative
 * % change over the slider's months.
 */
import { useMachine } from '@xstate/react';
import { Link } from '../../components/Link.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { plural } from '../../components/plural.ts';
import { chartPath, navigate } from '../../services/router.ts';
import { focusOf } from './lines.ts';
import { LinesChart } from './LinesChart.tsx';
import { MonthsSlider } from './MonthsSlider.tsx';
import {
  groupsOf,
  performMachine,
  sectorCharts,
  TOP_CHOICES,
  topLabel,
  type PerformSource,
} from './perform.machine.ts';
import './perform.css';

const screenMachine = performMachine.provide({
  actions: { openChart: (_, params) => navigate(chartPath(params.symbol)) },
});

/** The Perform page. */
export default function PerformScreen() {
  const [state, send] = useMachine(screenMachine);
  const { months, source, top, groups, data, focus, error } = state.context;
  const shown = groupsOf(groups, source);
  const charts = sectorCharts(shown, top, data);
  const busy = !state.matches('ready') && !state.matches('failed');
  const period = `${months} month${months === 1 ? '' : 's'}`;

  let body;
  if (state.matches('failed') && data === null) {
    body = <Failed message={error ?? 'The sectors could not be loaded'} onRetry={() => send({ type: 'user.retry' })} />;
  } else if (data === null) {
    body = <Skeleton lines={10} height={22} />;
  } else if (source === 'mine' && shown.length === 0) {
    body = (
      <Empty>
        You have no sectors of your own yet: create one on the <Link to="/SectorSetUp">Sectors</Link> page, or show the
        GICS sectors.
      </Empty>
    );
  } else {
    body = (
      <>
        {state.matches('failed') && (
          <Failed message={error ?? 'The charts could not be updated'} onRetry={() => send({ type: 'user.retry' })} />
        )}
        <div className={busy ? 'perform-grid analysis-stale' : 'perform-grid'}>
          {charts.map((chart) => (
            <article key={chart.id} className="card perform-card" aria-labelledby={`perform-${chart.id}`}>
              <h2 id={`perform-${chart.id}`}>
                {chart.name} <span className="hint">{plural(chart.series.length, 'stock')}</span>
              </h2>
              {chart.series.length === 0 ? (
                <Empty>
                  No stocks in this sector yet: add some on the <Link to="/SectorSetUp">Sectors</Link> page.
                </Empty>
              ) : (
                <LinesChart
                  dates={data.dates}
                  series={chart.series}
                  focus={focusOf(focus, chart.id)}
                  label={`Cumulative % change of the ${chart.name} stocks over ${period}`}
                  height={280}
                  openLabel={(line) => `Open the ${line.label} chart`}
                  openVerb="open its chart"
                  onHover={(key) => send({ type: 'user.hoverLine', chart: chart.id, key })}
                  onClick={(key) => send({ type: 'user.clickLine', chart: chart.id, key })}
                  onOpen={(key) => send({ type: 'user.openLine', chart: chart.id, key })}
                  onRemove={(key) => send({ type: 'user.removeLine', chart: chart.id, key })}
                  onShowAll={() => send({ type: 'user.showAll', chart: chart.id })}
                  onRestore={() => send({ type: 'user.restoreLines', chart: chart.id })}
                />
              )}
            </article>
          ))}
        </div>
      </>
    );
  }

  return (
    <section className="screen perform">
      <h1>Sector performance</h1>
      <p className="hint">Cumulative % change of each stock since the start of the period, one chart per sector.</p>
      <div className="toolbar">
        <MonthsSlider months={months} onChange={(m) => send({ type: 'user.setMonths', months: m })} />
        <label>
          Sectors
          <select
            value={source}
            onChange={(event) => send({ type: 'user.setSource', source: event.target.value as PerformSource })}
          >
            <option value="gics">GICS sectors ({groups.gics.length})</option>
            <option value="mine">My sectors ({groups.mine.length})</option>
          </select>
        </label>
        <label>
          Stocks per sector
          <select value={top} onChange={(event) => send({ type: 'user.setTop', top: Number(event.target.value) })}>
            {TOP_CHOICES.map((n) => (
              <option key={n} value={n}>
                {topLabel(n)}
              </option>
            ))}
          </select>
        </label>
        {busy && data !== null && (
          <span className="analysis-busy" role="status">
            Updating…
          </span>
        )}
      </div>
      {body}
    </section>
  );
}

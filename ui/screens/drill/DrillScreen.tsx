/**
 * Drill (/Charting): one large multi-line chart of cumulative % change (the user's positions, every sector,
 * one sector's stocks or chosen symbols) with its control panel.
 */
import { useMachine } from '@xstate/react';
import { Link } from '../../components/Link.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { chartPath, navigate } from '../../services/router.ts';
import { SymbolPicker } from '../correlate/SymbolPicker.tsx';
import { LinesChart } from '../perform/LinesChart.tsx';
import { MonthsSlider } from '../perform/MonthsSlider.tsx';
import { SectorSelect } from '../perform/SectorSelect.tsx';
import { chartTitle, drillMachine, DRILL_CHOSEN_MAX, type DrillMode } from './drill.machine.ts';
import './drill.css';

const screenMachine = drillMachine.provide({
  actions: { openChart: (_, params) => navigate(chartPath(params.symbol)) },
});

const MODES: readonly { readonly mode: DrillMode; readonly label: string }[] = [
  { mode: 'positions', label: 'My positions' },
  { mode: 'sectors', label: 'All sectors' },
  { mode: 'sector', label: 'One sector' },
  { mode: 'symbols', label: 'Chosen symbols' },
];

/** The Drill page. */
export default function DrillScreen() {
  const [state, send] = useMachine(screenMachine);
  const { context } = state;
  const { mode, months, setup, lines, focus, error, chosen } = context;
  const busy = !state.matches({ data: 'ready' }) && !state.matches({ data: 'failed' });
  const failed = state.matches({ data: 'failed' });
  const period = `${months} month${months === 1 ? '' : 's'}`;
  const title = chartTitle(context);

  let chart;
  if (failed && (lines === null || setup === null)) {
    chart = <Failed message={error ?? 'The chart could not be loaded'} onRetry={() => send({ type: 'user.retry' })} />;
  } else if (lines === null || (busy && lines.series.length === 0)) {
    chart = <Skeleton lines={12} height={24} />;
  } else if (lines.series.length === 0) {
    chart =
      mode === 'positions' ? (
        <Empty>
          You hold no positions yet: add symbols to your portfolio from the <Link to="/Dashboard">Dashboard</Link>, or
          plot all sectors.
        </Empty>
      ) : mode === 'symbols' ? (
        <Empty>No symbols chosen: search a symbol or company in the panel to plot it.</Empty>
      ) : (
        <Empty>
          This sector has no stocks yet: add some on the <Link to="/SectorSetUp">Sectors</Link> page.
        </Empty>
      );
  } else {
    const sectors = lines.kind === 'sectors';
    chart = (
      <>
        {failed && (
          <Failed message={error ?? 'The chart could not be updated'} onRetry={() => send({ type: 'user.retry' })} />
        )}
        <div className={busy ? 'analysis-stale' : undefined}>
          <LinesChart
            dates={lines.dates}
            series={lines.series}
            focus={focus}
            label={`Cumulative % change of ${title} over ${period}`}
            height={520}
            openLabel={(line) => (sectors ? `Drill into ${line.label}` : `Open the ${line.label} chart`)}
            openVerb={sectors ? 'drill into its stocks' : 'open its chart'}
            onHover={(key) => send({ type: 'user.hoverLine', key })}
            onClick={(key) => send({ type: 'user.clickLine', key })}
            onOpen={(key) => send({ type: 'user.openLine', key })}
            onRemove={(key) => send({ type: 'user.removeLine', key })}
            onShowAll={() => send({ type: 'user.showAll' })}
            onRestore={() => send({ type: 'user.restoreLines' })}
          />
        </div>
      </>
    );
  }

  return (
    <section className="screen drill">
      <h1>Drill</h1>
      <div className="drill-layout">
        <aside className="card drill-panel" aria-label="What to plot">
          <fieldset className="drill-modes">
            <legend>Plot</legend>
            {MODES.map(({ mode: m, label }) => (
              <label key={m} className="drill-mode">
                <input
                  type="radio"
                  name="drill-mode"
                  value={m}
                  checked={mode === m}
                  disabled={setup === null}
                  onChange={() => send({ type: 'user.setMode', mode: m })}
                />
                {label}
                {m === 'positions' && setup !== null && <span className="hint">({setup.positions.length})</span>}
                {m === 'symbols' && chosen.length > 0 && <span className="hint">({chosen.length})</span>}
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
            chosen={chosen}
            max={DRILL_CHOSEN_MAX}
            onPick={(symbol) => send({ type: 'user.addSymbol', symbol })}
            onRemove={(symbol) => send({ type: 'user.removeSymbol', symbol })}
          />
          <MonthsSlider months={months} onChange={(m) => send({ type: 'user.setMonths', months: m })} />
        </aside>
        <article className="card drill-chart" aria-labelledby="drill-title">
          <h2 id="drill-title">
            {title} <span className="hint">cumulative % change over {period}</span>
            {busy && lines !== null && (
              <span className="analysis-busy" role="status">
                Updating…
              </span>
            )}
          </h2>
          {chart}
        </article>
      </div>
    </section>
  );
}

/**
 * The screener's bottom container: the chart of the clicked row (daily candles with SMA 50/200, the day's candle
 * formed from its live quotes as on the price chart, or the intraday points streamed since it was clicked) and the
 * click-context list.
 */
import type { Data } from 'plotly.js';
import { Chart } from '../../components/Chart.tsx';
import { Failed, Skeleton } from '../../components/LoadState.tsx';
import { SymbolChip } from '../../components/SymbolChip.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { plotTime, timeAxisTitle, tradingDayTitle, zoneLabel } from '../../services/time.ts';
import { INTRA_DAY, type ChartPoint, type ContextEntry } from './search.logic.ts';
import { CHART_MONTHS, type ChartBar } from './search.machine.ts';

/** Props of {@link ChartPanel}. */
export interface ChartPanelProps {
  readonly id: string;
  readonly symbol: string | null;
  readonly status: 'empty' | 'loading' | 'ready' | 'failed';
  readonly mode: 'daily' | 'intraday';
  readonly bars: readonly ChartBar[];
  readonly points: readonly ChartPoint[];
  readonly error: string | null;
  readonly clickContext: readonly ContextEntry[];
  readonly onPick: (id: string) => void;
  readonly onRetry: () => void;
}

/** The traces of the daily chart. */
export function dailyTraces(bars: readonly ChartBar[]): Data[] {
  const x = bars.map((b) => b.date);
  return [
    {
      type: 'candlestick',
      name: 'Price',
      x,
      open: bars.map((b) => b.open),
      high: bars.map((b) => b.high),
      low: bars.map((b) => b.low),
      close: bars.map((b) => b.close),
      increasing: { line: { color: '#138a36' } },
      decreasing: { line: { color: '#c62828' } },
    },
    { type: 'scatter', mode: 'lines', name: 'SMA 50', x, y: bars.map((b) => b.SMA_50), line: { color: 'orange' } },
    { type: 'scatter', mode: 'lines', name: 'SMA 200', x, y: bars.map((b) => b.SMA_200), line: { color: 'purple' } },
  ];
}

function ContextList({
  entries,
  mode,
  onPick,
}: Pick<ChartPanelProps, 'onPick' | 'mode'> & { entries: readonly ContextEntry[] }) {
  return (
    <ul className="click-context" aria-label="Click context">
      {entries.map((entry) =>
        entry.id === INTRA_DAY ? (
          <li key={entry.id}>
            <button
              type="button"
              className={`context-chip intraday${mode === 'intraday' ? ' active' : ''}`}
              aria-pressed={mode === 'intraday'}
              onClick={() => onPick(entry.id)}
            >
              Intraday
            </button>
          </li>
        ) : (
          <li key={entry.id}>
            <button
              type="button"
              className={`context-chip ${entry.kind}`}
              aria-label={`Chart ${entry.id} (${entry.kind})`}
              onClick={() => onPick(entry.id)}
            >
              {entry.id}
              <span className="context-kind">{entry.kind}</span>
            </button>
          </li>
        ),
      )}
    </ul>
  );
}

function PanelChart(props: ChartPanelProps) {
  const { timeZone } = usePreferences();
  if (props.status === 'empty' || !props.symbol) {
    return (
      <p className="empty">Click a row of the results to chart it here; tick rows to keep them in the list above.</p>
    );
  }
  if (props.status === 'loading') return <Skeleton lines={5} height={28} />;
  if (props.status === 'failed') {
    return <Failed message={props.error ?? `The ${props.symbol} chart could not be loaded`} onRetry={props.onRetry} />;
  }
  if (props.mode === 'intraday') {
    if (props.points.length < 2) {
      return (
        <p className="empty">
          Intraday points of {props.symbol} appear here as its price moves; choose Intraday again for the daily chart.
        </p>
      );
    }
    return (
      <Chart
        label={`Intraday prices of ${props.symbol}`}
        height={280}
        data={[
          {
            type: 'scatter',
            mode: 'lines+markers',
            name: props.symbol,
            x: props.points.map((p) => plotTime(p.ts, timeZone)),
            y: props.points.map((p) => p.price),
            line: { color: '#2563eb' },
          },
        ]}
        layout={{
          showlegend: false,
          margin: { l: 48, r: 16, t: 24, b: 48 },
          xaxis: {
            title: { text: timeAxisTitle(timeZone), font: { size: 11 } },
            hoverformat: `%H:%M:%S ${zoneLabel(Date.now(), timeZone)}`,
          },
        }}
      />
    );
  }
  return (
    <Chart
      label={`Daily prices of ${props.symbol} over ${CHART_MONTHS} months`}
      height={280}
      data={dailyTraces(props.bars)}
      layout={{
        xaxis: { rangeslider: { visible: false }, title: { text: tradingDayTitle(), font: { size: 11 } } },
        legend: { orientation: 'h', y: 1.12 },
      }}
    />
  );
}

/** The bottom container. */
export function ChartPanel(props: ChartPanelProps) {
  return (
    <section id={props.id} className="search-bottom card" aria-label="Chart panel">
      <div className="search-bottom-header">
        <h2>
          {props.symbol ? (
            <>
              <SymbolChip symbol={props.symbol} />{' '}
              {props.mode === 'intraday' ? 'intraday' : `daily, ${CHART_MONTHS} months`}
            </>
          ) : (
            'Chart'
          )}
        </h2>
        <ContextList entries={props.clickContext} mode={props.mode} onPick={props.onPick} />
      </div>
      <PanelChart {...props} />
    </section>
  );
}

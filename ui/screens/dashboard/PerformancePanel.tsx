/**
 * Component 1: a bar chart of each dashboard stock's % change over the slider's period, highest first; a click
 * on a bar opens that stock's chart.
 */
import { useMachine } from '@xstate/react';
import { useEffect, useId, useMemo } from 'react';
import type { Data, Layout, PlotMouseEvent } from 'plotly.js';
import { Chart } from '../../components/Chart.tsx';
import { Empty, Failed, Skeleton } from '../../components/LoadState.tsx';
import { shownStocks, sliderLabel, sliderMonths } from './dashboard.logic.ts';
import { formatPercent } from '../watchlist/quotes.ts';
import { Dashboard, sameItems } from './dashboardActor.ts';
import { performanceMachine, type PerformanceBar, type PerformanceInput } from './panels.ts';

function PerformanceChart({ input, period }: { readonly input: PerformanceInput; readonly period: string }) {
  const dashboard = Dashboard.useActorRef();
  const [state, send] = useMachine(performanceMachine, { input });
  useEffect(() => send({ type: 'parent.input', input }), [input, send]);
  const bars = state.context.data as PerformanceBar[] | null;
  const figure = useMemo(() => {
    const list = bars ?? [];
    const data: Data[] = [
      {
        type: 'bar',
        x: list.map((b) => b.symbol),
        y: list.map((b) => b.pct),
        marker: { color: list.map((b) => (b.pct >= 0 ? '#138a36' : '#c62828')) },
        text: list.map((b) => formatPercent(b.pct)),
        textposition: 'outside',
        cliponaxis: false,
        hovertemplate: '%{x}: %{y:.2f}%<extra>click to open the chart</extra>',
      },
    ];
    const layout: Partial<Layout> = {
      margin: { l: 48, r: 12, t: 18, b: 40 },
      yaxis: { ticksuffix: '%', zeroline: true, zerolinecolor: '#9aa5b4' },
      xaxis: { type: 'category', tickfont: { size: 11 } },
      bargap: 0.25,
    };
    return { data, layout };
  }, [bars]);
  const open = (event: PlotMouseEvent) => {
    const symbol = event.points[0]?.x;
    if (typeof symbol === 'string') dashboard.send({ type: 'user.openChart', symbol });
  };
  if (state.matches('loading') || (state.matches('refreshing') && bars === null)) return <Skeleton lines={5} />;
  if (state.matches('failed')) {
    return (
      <Failed
        message={`The performance could not be loaded: ${state.context.error ?? ''}`}
        onRetry={() => send({ type: 'user.retry' })}
      />
    );
  }
  if (!bars || bars.length === 0) return <Empty>Add stocks to the dashboard to compare their performance.</Empty>;
  const best = bars[0];
  const worst = bars.at(-1);
  return (
    <>
      <Chart
        data={figure.data}
        layout={figure.layout}
        config={{ displayModeBar: false }}
        height={260}
        label={`% change of the dashboard stocks over ${period}`}
        onClick={open}
      />
      <p className="hint">
        {best && `Best: ${best.symbol} ${formatPercent(best.pct)}`}
        {worst && worst !== best && ` · Worst: ${worst.symbol} ${formatPercent(worst.pct)}`} · click a bar to open its
        chart
      </p>
      <ul className="sr-only">
        {bars.map((b) => (
          <li key={b.symbol}>
            {b.symbol} {formatPercent(b.pct)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The performance panel. */
export function PerformancePanel() {
  const symbols = Dashboard.useSelector((s) => shownStocks(s.context.lists), sameItems);
  const slider = Dashboard.useSelector((s) => s.context.options.slider);
  const listLoading = Dashboard.useSelector((s) => s.matches({ list: 'loading' }) || s.matches({ list: 'failed' }));
  const months = sliderMonths(slider);
  const input = useMemo(() => ({ symbols, months }), [symbols, months]);
  const period = sliderLabel(slider);
  const titleId = useId();
  return (
    <section className="dash-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Performance over {period}</h2>
      {listLoading ? <Skeleton lines={5} /> : <PerformanceChart input={input} period={period} />}
    </section>
  );
}

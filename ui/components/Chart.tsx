/**
 * A Plotly chart, loaded on demand: the app's Plotly bundle (`plotly.ts`, the core and the traces the app
 * draws) is its own chunk, fetched the first time a screen draws a chart, so screens without charts never pay
 * for it.
 */
import { lazy, Suspense } from 'react';
import type { Config, Data, Layout, PlotMouseEvent, PlotRelayoutEvent } from 'plotly.js';
import { Skeleton } from './LoadState.tsx';

const Plot = lazy(async () => {
  const [factoryModule, plotly] = await Promise.all([import('react-plotly.js/factory'), import('./plotly.ts')]);
  const factory = factoryModule.default;
  return { default: factory(plotly.default) };
});

/** Layout defaults of every chart of the app. */
export const BASE_LAYOUT = Object.freeze({
  margin: { l: 48, r: 16, t: 24, b: 36 },
  paper_bgcolor: 'rgba(0,0,0,0)',
  plot_bgcolor: 'rgba(0,0,0,0)',
  font: { family: 'system-ui, sans-serif', size: 12 },
  autosize: true,
});

/** What a chart draws, typed with the plotly.js types (the React wrapper types them as unknown). */
export interface ChartProps {
  /** The traces. */
  readonly data: Data[];
  /** The layout, over {@link BASE_LAYOUT}. */
  readonly layout?: Partial<Layout>;
  /** The configuration. */
  readonly config?: Partial<Config>;
  /** Bump to redraw when the data changed in place. */
  readonly revision?: number;
  /** The height of the chart. */
  readonly height?: number | string;
  /** The accessible name of the chart. */
  readonly label?: string;
  /** A click on a point. */
  readonly onClick?: (event: PlotMouseEvent) => void;
  /** A zoom, pan or a moved shape. */
  readonly onRelayout?: (event: PlotRelayoutEvent) => void;
  /** Called with the chart's element once drawn (for image export). */
  readonly onInitialized?: (figure: unknown, graphDiv: HTMLElement) => void;
}

/** A chart filling its container's width at the given height. */
export function Chart(props: ChartProps) {
  const { height = 320, label, ...plot } = props;
  return (
    <div className="chart" role="img" aria-label={label ?? 'Chart'} style={{ height }}>
      <Suspense fallback={<Skeleton lines={Math.max(2, Math.round(Number(height) / 60) || 4)} height={24} />}>
        <Plot
          useResizeHandler
          style={{ width: '100%', height: '100%' }}
          {...plot}
          config={{ displaylogo: false, responsive: true, ...plot.config }}
          layout={{ ...BASE_LAYOUT, ...plot.layout }}
        />
      </Suspense>
    </div>
  );
}

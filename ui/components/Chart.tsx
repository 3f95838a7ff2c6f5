/**
 * A Plotly chart, loaded on demand: the app's Plotly bundle (`plotly.ts`, the core and the traces the app
 * draws) is its own chunk, fetched the first time a screen draws a chart, so screens without charts never pay
 * for it. Charts follow the app's theme: a Plotly template ({@link chartTemplate}) gives the text, grid, axis
 * and hover colours of the light or dark theme to every axis a screen's layout does not colour itself, over a
 * transparent background (the card's).
 */
import { lazy, Suspense } from 'react';
import type { Annotations, Config, Data, Layout, PlotMouseEvent, PlotRelayoutEvent, Template } from 'plotly.js';
import { usePreferences, type Theme } from '../services/preferences.ts';
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

/** The colours of a theme's charts. */
const CHART_COLOURS: Record<
  Theme,
  { ink: string; muted: string; grid: string; line: string; hover: string; label: string }
> = {
  light: {
    ink: '#1b2430',
    muted: '#5d6b7d',
    grid: '#edf0f5',
    line: '#c9d1dc',
    hover: '#ffffff',
    label: 'rgba(255,255,255,0.85)',
  },
  dark: {
    ink: '#e6edf3',
    muted: '#9aa7b6',
    grid: '#2a313b',
    line: '#3d4652',
    hover: '#1f2630',
    label: 'rgba(22,27,34,0.85)',
  },
};

/**
 * The Plotly template of a theme: defaults every layout of the app takes unless it sets its own, the boxes and
 * text of annotations (a chart's labels) included, which Plotly takes from `annotationdefaults`.
 */
export function chartTemplate(theme: Theme): Template {
  const c = CHART_COLOURS[theme];
  const axis = { gridcolor: c.grid, linecolor: c.line, zerolinecolor: c.line, tickcolor: c.line, color: c.muted };
  const layout: Partial<Layout> & { annotationdefaults: Partial<Annotations> } = {
    font: { color: c.ink },
    xaxis: axis,
    yaxis: axis,
    legend: { font: { color: c.ink } },
    hoverlabel: { bgcolor: c.hover, bordercolor: c.line, font: { color: c.ink } },
    annotationdefaults: { bgcolor: c.label, font: { color: c.muted } },
  };
  return { layout };
}

const TEMPLATES: Record<Theme, Template> = { light: chartTemplate('light'), dark: chartTemplate('dark') };

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
  const { resolvedTheme } = usePreferences();
  return (
    // A figure rather than an image: Plotly's toolbar and legend inside are controls a keyboard reaches.
    <div className="chart" role="figure" aria-label={label ?? 'Chart'} style={{ height }}>
      <Suspense fallback={<Skeleton lines={Math.max(2, Math.round(Number(height) / 60) || 4)} height={24} />}>
        <Plot
          useResizeHandler
          style={{ width: '100%', height: '100%' }}
          {...plot}
          config={{ displaylogo: false, responsive: true, ...plot.config }}
          layout={{ ...BASE_LAYOUT, template: TEMPLATES[resolvedTheme], ...plot.layout }}
        />
      </Suspense>
    </div>
  );
}

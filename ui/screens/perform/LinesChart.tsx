/**
 * A multi-line % change chart with its legend: hovering a line (or its legend entry) highlights it, a click
 * isolates it, a second click opens it, and each line can be removed and brought back. Presentational: the
 * screen's machine holds the focus.
 */
import { useEffect, useMemo, useRef } from 'react';
import type { PlotHoverEvent, PlotlyHTMLElement, PlotMouseEvent } from 'plotly.js';
import { formatSignedPercent } from '../../../domain/format.ts';
import { Chart } from '../../components/Chart.tsx';
import { usePreferences } from '../../services/preferences.ts';
import { tradingDayAxis } from '../../components/dateAxis.ts';
import { everyLineRemoved, legendEntries, lineTraces, type LineFocus, type LineSeries } from './lines.ts';
import './lines.css';

/** What the chart shows and what it reports. */
export interface LinesChartProps {
  /** Trading days of the values. */
  readonly dates: readonly string[];
  /** The lines. */
  readonly series: readonly LineSeries[];
  /** Hovered, isolated and removed lines. */
  readonly focus: LineFocus;
  /** The accessible name of the chart. */
  readonly label: string;
  /** Height of the plot. */
  readonly height?: number;
  /** What a second click on a line does, e.g. "Open the AAPL chart". */
  readonly openLabel: (entry: { key: string; label: string }) => string;
  /** The second click's effect in the hints: "open it" (the default) or "drill into it". */
  readonly openVerb?: string;
  /** The pointer entered a line, or left them all (null). */
  readonly onHover: (key: string | null) => void;
  /** A click on a line. */
  readonly onClick: (key: string) => void;
  /** Opens a line at once (the isolated line's action). */
  readonly onOpen: (key: string) => void;
  /** Removes a line. */
  readonly onRemove: (key: string) => void;
  /** Ends the isolation. */
  readonly onShowAll: () => void;
  /** Brings the removed lines back. */
  readonly onRestore: () => void;
}

/** The line a Plotly event names: the key its trace carries as `legendgroup`. */
function keyOfPoint(event: PlotMouseEvent): string | undefined {
  const group = event.points[0]?.data.legendgroup;
  return typeof group === 'string' && group !== '' ? group : undefined;
}

/** The chart and its legend. */
export function LinesChart(props: LinesChartProps) {
  const { dates, series, focus, label, height = 300, openVerb = 'open it' } = props;
  const { resolvedTheme } = usePreferences();
  const { data } = useMemo(
    () => lineTraces(dates, series, focus, resolvedTheme),
    [dates, series, focus, resolvedTheme],
  );
  const legend = useMemo(() => legendEntries(series, focus, resolvedTheme), [series, focus, resolvedTheme]);
  const onHoverRef = useRef(props.onHover);
  useEffect(() => {
    onHoverRef.current = props.onHover;
  });
  // The last line reported, so Plotly's repeated hover events (also after a redraw) report a change only once.
  const lastHover = useRef<string | null>(null);
  const wired = useRef(new WeakSet<HTMLElement>());
  const isolated = focus.isolated === null ? undefined : series.find((s) => s.key === focus.isolated);
  const allRemoved = everyLineRemoved(series, focus);

  const report = (key: string | null) => {
    if (key === lastHover.current) return;
    lastHover.current = key;
    onHoverRef.current(key);
  };
  const wireHover = (_figure: unknown, graphDiv: HTMLElement) => {
    if (wired.current.has(graphDiv)) return;
    wired.current.add(graphDiv);
    const plot = graphDiv as PlotlyHTMLElement;
    plot.on('plotly_hover', (event: PlotHoverEvent) => {
      const key = keyOfPoint(event);
      if (key !== undefined) report(key);
    });
    plot.on('plotly_unhover', () => {
      report(null);
    });
  };

  return (
    <div className="lines-chart">
      {!allRemoved && (
        <Chart
          data={data}
          height={height}
          label={label}
          layout={{
            showlegend: false,
            hovermode: 'closest',
            margin: { l: 52, r: 12, t: 10, b: 44 },
            xaxis: tradingDayAxis(),
            yaxis: { ticksuffix: '%', zeroline: true, zerolinecolor: '#9aa5b5' },
          }}
          config={{ displayModeBar: false }}
          onClick={(event) => {
            const key = keyOfPoint(event);
            if (key !== undefined) props.onClick(key);
          }}
          onInitialized={wireHover}
        />
      )}
      <div className="lines-status" aria-live="polite">
        {isolated ? (
          <>
            <span>
              <strong>{isolated.label}</strong> isolated: click it again to {openVerb}.
            </span>
            <button type="button" className="button small" onClick={() => props.onOpen(isolated.key)}>
              {props.openLabel(isolated)}
            </button>
            <button type="button" className="button small" onClick={props.onShowAll}>
              Show all
            </button>
          </>
        ) : allRemoved ? (
          <span className="empty">Every line is removed: restore some to draw the chart.</span>
        ) : (
          <span className="hint">Hover a line to highlight it; click to isolate it, click again to {openVerb}.</span>
        )}
        {focus.removed.length > 0 && (
          <button type="button" className="button small" onClick={props.onRestore}>
            Restore {focus.removed.length} removed
          </button>
        )}
      </div>
      <ul className="lines-legend" aria-label={`Lines of ${label}`}>
        {legend.map((entry) => (
          <li key={entry.key} className={`look-${entry.look}`}>
            <button
              type="button"
              className="line-key"
              aria-pressed={entry.look === 'isolated'}
              title={entry.look === 'isolated' ? props.openLabel(entry) : `Isolate ${entry.label}`}
              onMouseEnter={() => report(entry.key)}
              onMouseLeave={() => report(null)}
              onFocus={() => report(entry.key)}
              onBlur={() => report(null)}
              onClick={() => props.onClick(entry.key)}
            >
              <span className={`swatch dash-${entry.dash}`} style={{ color: entry.color }} aria-hidden="true" />
              {entry.label}
              <span className={entry.last === null ? 'muted' : entry.last >= 0 ? 'up' : 'down'}>
                {formatSignedPercent(entry.last, 'n/a', 1)}
              </span>
            </button>
            <button
              type="button"
              className="icon-button small"
              aria-label={`Remove ${entry.label}`}
              title={`Remove ${entry.label}`}
              onClick={() => props.onRemove(entry.key)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

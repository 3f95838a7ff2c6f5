/**
 * The correlation heatmap drawn with Plotly bars (the app's Plotly bundle has no heatmap trace): one stacked
 * horizontal bar trace per column, each bar one cell of width 1 coloured by its correlation; each point's
 * customdata is `[column symbol, correlation]`.
 */
import type { Data } from 'plotly.js';

/** The heatmap colours: blue for -1, white for 0, red for +1. */
export const HEATMAP_COLORSCALE: [number, string][] = [
  [0, '#2166ac'],
  [0.25, '#92c5de'],
  [0.5, '#f7f7f7'],
  [0.75, '#f4a582'],
  [1, '#b2182b'],
];

/** Matrices up to this size show each cell's value. */
export const HEATMAP_TEXT_MAX = 16;

/**
 * The traces of a correlation matrix: trace `j` is column `j`, its
 * bar on row `i` the correlation of row `i` with column `j`; the first trace carries the colour bar.
 */
export function heatmapTraces(symbols: readonly string[], values: readonly (readonly number[])[]): Data[] {
  const showText = symbols.length <= HEATMAP_TEXT_MAX;
  return symbols.map((column, j) => {
    const z = symbols.map((_, i) => values[i]?.[j] ?? Number.NaN);
    return {
      type: 'bar',
      orientation: 'h',
      name: column,
      y: [...symbols],
      x: symbols.map(() => 1),
      customdata: z.map((v) => [column, v]),
      marker: {
        color: z,
        colorscale: HEATMAP_COLORSCALE,
        cmin: -1,
        cmax: 1,
        showscale: j === 0,
        line: { color: '#ffffff', width: symbols.length > 40 ? 0 : 0.5 },
        ...(j === 0 ? { colorbar: { thickness: 12, tickvals: [-1, -0.5, 0, 0.5, 1], len: 0.9 } } : {}),
      },
      ...(showText
        ? {
            text: z.map((v) => (Number.isFinite(v) ? v.toFixed(2) : '')),
            textposition: 'inside',
            insidetextanchor: 'middle',
            textfont: { size: 10 },
          }
        : { textposition: 'none' }),
      hovertemplate: '%{y} and %{customdata[0]}: %{customdata[1]:.2f}<extra></extra>',
    };
  });
}

/** The x axis of the heatmap: the column symbols at the middle of their cells. */
export function heatmapColumns(symbols: readonly string[]): { tickvals: number[]; ticktext: string[] } {
  return { tickvals: symbols.map((_, j) => j + 0.5), ticktext: [...symbols] };
}

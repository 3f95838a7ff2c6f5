/**
 * The correlation heatmap: one Plotly `heatmap` trace, rows and columns the symbols, each cell the correlation
 * of its row with its column, on a blue-white-red scale from -1 to +1.
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

/** The heatmap trace of a correlation matrix: `z[i][j]` is the correlation of row `i` with column `j`. */
export function heatmapTraces(symbols: readonly string[], values: readonly (readonly number[])[]): Data[] {
  const z = symbols.map((_, i) => symbols.map((__, j) => values[i]?.[j] ?? Number.NaN));
  return [
    {
      type: 'heatmap',
      x: [...symbols],
      y: [...symbols],
      z,
      zmin: -1,
      zmax: 1,
      colorscale: HEATMAP_COLORSCALE,
      xgap: symbols.length > 40 ? 0 : 1,
      ygap: symbols.length > 40 ? 0 : 1,
      colorbar: { thickness: 12, tickvals: [-1, -0.5, 0, 0.5, 1], len: 0.9 },
      ...(symbols.length <= HEATMAP_TEXT_MAX ? { texttemplate: '%{z:.2f}', textfont: { size: 10 } } : {}),
      hovertemplate: '%{y} and %{x}: %{z:.2f}<extra></extra>',
    },
  ];
}

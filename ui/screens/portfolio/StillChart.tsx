/**
 * The portfolio's charts: a chart drawn again only when its own props change. Plotly draws a chart again each
 * time it renders, so the screen's live prices would redraw every chart; the screen keeps each chart's data and
 * layout the same objects until what they show changes.
 */
import type { Data } from 'plotly.js';
import { memo, useMemo } from 'react';
import { Chart } from '../../components/Chart.tsx';

/** {@link Chart}, rendered again only when one of its props is another value. */
export const StillChart = memo(Chart);

/**
 * A donut's trace of labelled values, the same object until a label or a value changes (a quote that moves no
 * slice redraws nothing); `textinfo` says what each slice is written with.
 */
export function useDonut(
  slices: readonly { readonly label: string; readonly value: number }[],
  textinfo: 'label+percent' | 'percent',
): Data[] {
  const key = JSON.stringify(slices.map((s) => [s.label, s.value]));
  return useMemo((): Data[] => {
    const shown = JSON.parse(key) as [string, number][];
    return [
      {
        type: 'pie',
        labels: shown.map(([label]) => label),
        values: shown.map(([, value]) => value),
        hole: 0.45,
        sort: false,
        textinfo,
        hovertemplate: '%{label}: $%{value:,.2f} (%{percent})<extra></extra>',
      },
    ];
  }, [key, textinfo]);
}

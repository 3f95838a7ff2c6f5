/**
 * The portfolio's charts: a chart drawn again only when its own props change. Plotly draws a chart again each
 * time it renders, so the screen's live prices would redraw every chart; the screen keeps each chart's data and
 * layout the same objects until what they show changes.
 */
import { memo } from 'react';
import { Chart } from '../../components/Chart.tsx';

/** {@link Chart}, rendered again only when one of its props is another value. */
export const StillChart = memo(Chart);

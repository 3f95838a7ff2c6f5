/**
 * The x axis of a chart of daily bars or daily values: dates, titled once as New York trading days (see
 * `tradingDayTitle`). Over a few days each date is a tick of its own, rather than Plotly's ticks at hours between
 * them (a portfolio a few days old, a short range).
 */
import type { LayoutAxis } from 'plotly.js';
import { tradingDayTitle } from '../services/time.ts';

/** How a date tick reads on every chart: the month and the day without a leading zero (`Oct 4`). */
export const DAY_TICK_FORMAT = '%b %-d';

/** At most this many dates get a tick each; more are left to Plotly's ticks. */
export const DATE_TICKS_MAX = 10;

/** The axis of `dates` (`YYYY-MM-DD`, oldest first), when known; else one whose ticks Plotly chooses. */
export function tradingDayAxis(dates?: readonly string[]): Partial<LayoutAxis> {
  const axis: Partial<LayoutAxis> = {
    type: 'date',
    showgrid: false,
    automargin: true,
    title: { text: tradingDayTitle(), font: { size: 11 } },
  };
  if (dates === undefined || dates.length === 0 || dates.length > DATE_TICKS_MAX) return axis;
  return { ...axis, tickmode: 'array', tickvals: [...dates], tickformat: DAY_TICK_FORMAT };
}

/**
 * Multi-line % change charts (Perform and Drill): which line is hovered, isolated or removed, and the Plotly
 * traces that show it. A first click isolates a line, a second click on the isolated line opens it.
 */
import type { Data } from 'plotly.js';
import type { Theme } from '../../services/preferences.ts';

/** One line of a chart: a key (symbol or sector), its label and its values by date (null where unknown). */
export interface LineSeries {
  /** What the line stands for: a symbol or a sector. */
  readonly key: string;
  /** The text shown for it. */
  readonly label: string;
  /** Cumulative % change by date. */
  readonly values: readonly (number | null)[];
}

/** What the user did to the lines of one chart. */
export interface LineFocus {
  /** The line under the pointer (or focused in the legend). */
  readonly hovered: string | null;
  /** The line shown alone, the others dimmed. */
  readonly isolated: string | null;
  /** Lines taken out of the chart. */
  readonly removed: readonly string[];
}

/** Nothing hovered, isolated or removed. */
export const NO_FOCUS: LineFocus = Object.freeze({ hovered: null, isolated: null, removed: Object.freeze([]) });

/** The spec's initial chart colour sequence, then more distinct colours for charts with many lines. */
export const LINE_COLORS: readonly string[] = Object.freeze([
  'red',
  'black',
  '#a7d129',
  'brown',
  'orange',
  'purple',
  'green',
  '#1f77b4',
  '#17becf',
  '#e377c2',
  '#bcbd22',
  '#7f7f7f',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#ff7f0e',
  '#393b79',
  '#637939',
  '#843c39',
]);

/**
 * The same sequence on the dark theme's cards: each colour that would stand out less than 3:1 from them is
 * replaced by a lighter one of its hue (black by the dark theme's ink, as the light theme's ink is near black),
 * the others kept.
 */
const DARK_REPLACEMENTS: Readonly<Record<string, string>> = {
  black: '#e6edf3',
  brown: '#e0745a',
  purple: '#c77ddb',
  '#8c564b': '#c49c94',
  '#393b79': '#8f93e0',
  '#843c39': '#d9837e',
};

/** {@link LINE_COLORS} on the dark theme's cards. */
export const DARK_LINE_COLORS: readonly string[] = Object.freeze(
  LINE_COLORS.map((color) => DARK_REPLACEMENTS[color] ?? color),
);

/** The colour of the line at `index` of its chart, on the theme's cards. */
export function lineColor(index: number, theme: Theme = 'light'): string {
  const colors = theme === 'dark' ? DARK_LINE_COLORS : LINE_COLORS;
  return colors[index % colors.length] as string;
}

/** How a line is drawn: solid, then, once the colours have all been used, dashed, dotted, dash-dotted. */
export type LineDash = 'solid' | 'dash' | 'dot' | 'dashdot';

const DASHES: readonly LineDash[] = ['solid', 'dash', 'dot', 'dashdot'];

/**
 * The pattern of the line at `index` of its chart: the first {@link LINE_COLORS}.length lines solid, the next as
 * many dashed in the same colours, and so on, so that no two of a chart's first 80 lines look alike.
 */
export function lineDash(index: number): LineDash {
  return DASHES[Math.floor(index / LINE_COLORS.length) % DASHES.length]!;
}

/** The focus of one chart in a map of charts. */
export function focusOf(map: Readonly<Record<string, LineFocus>>, chart: string): LineFocus {
  return map[chart] ?? NO_FOCUS;
}

/** The pointer entered a line (or left every line with null). */
export function hoverLine(focus: LineFocus, key: string | null): LineFocus {
  return focus.hovered === key ? focus : { ...focus, hovered: key };
}

/** A click on a line: the first click isolates it; a click on the isolated line asks to open it. */
export function clickLine(focus: LineFocus, key: string): { readonly focus: LineFocus; readonly open: string | null } {
  if (focus.isolated === key) return { focus, open: key };
  return { focus: { ...focus, isolated: key }, open: null };
}

/** Takes a line out of the chart (and out of isolation). */
export function removeLine(focus: LineFocus, key: string): LineFocus {
  if (focus.removed.includes(key)) return focus;
  return {
    hovered: focus.hovered === key ? null : focus.hovered,
    isolated: focus.isolated === key ? null : focus.isolated,
    removed: [...focus.removed, key],
  };
}

/** Ends the isolation: every line shown again. */
export function showAllLines(focus: LineFocus): LineFocus {
  return focus.isolated === null ? focus : { ...focus, isolated: null };
}

/** Brings the removed lines back and ends the isolation. */
export function restoreLines(focus: LineFocus): LineFocus {
  return focus.removed.length === 0 && focus.isolated === null ? focus : { ...focus, isolated: null, removed: [] };
}

/**
 * Whether the user removed every line of a chart that has some: it then draws no plot (whose axes would mean
 * nothing) but says so beside the button that restores them.
 */
export function everyLineRemoved(series: readonly LineSeries[], focus: LineFocus): boolean {
  return series.length > 0 && series.every((s) => focus.removed.includes(s.key));
}

/** How a line is drawn. */
export type LineLook = 'normal' | 'highlighted' | 'isolated' | 'dimmed';

/** How a line is drawn given the focus: the isolated line stands out, the others fade; else the hovered one does. */
export function lineLook(focus: LineFocus, key: string): LineLook {
  if (focus.isolated !== null) return focus.isolated === key ? 'isolated' : 'dimmed';
  if (focus.hovered === null) return 'normal';
  return focus.hovered === key ? 'highlighted' : 'dimmed';
}

/** The last known value of a series, or null. */
export function lastValue(values: readonly (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i -= 1) {
    const v = values[i];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** A line as the legend lists it: with its colour and pattern, last value and look. */
export interface LegendEntry {
  readonly key: string;
  readonly label: string;
  readonly color: string;
  readonly dash: LineDash;
  readonly last: number | null;
  readonly look: LineLook;
}

/** The legend of a chart: the lines not removed, best last value first (unknown last). */
export function legendEntries(series: readonly LineSeries[], focus: LineFocus, theme: Theme = 'light'): LegendEntry[] {
  return series
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => !focus.removed.includes(s.key))
    .map(({ s, i }) => ({
      key: s.key,
      label: s.label,
      color: lineColor(i, theme),
      dash: lineDash(i),
      last: lastValue(s.values),
      look: lineLook(focus, s.key),
    }))
    .sort((a, b) => (b.last ?? -Infinity) - (a.last ?? -Infinity) || (a.label < b.label ? -1 : 1));
}

const WIDTH: Readonly<Record<LineLook, number>> = { normal: 1.6, highlighted: 3.2, isolated: 3.2, dimmed: 1 };
const OPACITY: Readonly<Record<LineLook, number>> = { normal: 0.9, highlighted: 1, isolated: 1, dimmed: 0.15 };

/**
 * The Plotly traces of a chart (removed lines left out, the isolated line drawn last so it is on top) and the
 * key of each trace, also in its `legendgroup`, so a hovered or clicked point names its line.
 */
export function lineTraces(
  dates: readonly string[],
  series: readonly LineSeries[],
  focus: LineFocus,
  theme: Theme = 'light',
): { readonly data: Data[]; readonly keys: readonly string[] } {
  const shown = series
    .map((s, i) => ({ s, color: lineColor(i, theme), dash: lineDash(i), look: lineLook(focus, s.key) }))
    .filter(({ s }) => !focus.removed.includes(s.key));
  // Only the isolated line moves to the top: a hover keeps the order, so the line under the pointer stays put.
  shown.sort((a, b) => Number(a.look === 'isolated') - Number(b.look === 'isolated'));
  return {
    keys: shown.map(({ s }) => s.key),
    data: shown.map(({ s, color, dash, look }) => ({
      type: 'scatter',
      mode: 'lines',
      name: s.label,
      legendgroup: s.key,
      x: [...dates],
      y: [...s.values],
      connectgaps: true,
      opacity: OPACITY[look],
      line: { color, width: WIDTH[look], dash },
      hovertemplate: `<b>${s.label}</b> %{y:.2f}%<br>%{x}<extra></extra>`,
    })),
  };
}

/** The months the slider offers, at least and at most, and the spec's default (type M, 3). */
export const SLIDER_MONTHS = Object.freeze({ min: 3, max: 60, default: 3 });

/** A months value brought into the slider's range. */
export function clampMonths(months: number): number {
  if (!Number.isFinite(months)) return SLIDER_MONTHS.default;
  return Math.min(SLIDER_MONTHS.max, Math.max(SLIDER_MONTHS.min, Math.round(months)));
}

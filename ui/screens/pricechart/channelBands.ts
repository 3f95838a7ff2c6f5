/**
 * Where a channel alert is drawn on the price chart, as pure functions: the panel of its source (the price axis
 * for the price and its moving averages, the volume bars' axis for volume, the RSI panel for RSI(14)), and its
 * two bounds there, each a constant level or, for a bound that refers to another series (`{"ref": "sma:50"}`),
 * that series' values over the bars shown. A channel that has no place on the chart answers a note saying why,
 * which the alert list shows instead of drawing nothing.
 *
 * API: `sourcePanel(source)`, `emaValues(closes, period)`, `seriesValues(source, bars)`,
 * `channelPlacement(condition, bars, view)`.
 */
import {
  CHANNEL_OPS,
  sourceKind,
  sourcePeriod,
  sourceText,
  type AlertOperand,
  type AlertSource,
} from '../../../domain/alerts/conditions.ts';
import type { AlertAnswer } from '../../../domain/contract/alerts.ts';
import type { ChartBar as Bar } from '../../../domain/contract/market.ts';

/** A panel of the chart: the candles' price axis, the volume bars' axis, the RSI panel. */
export type Panel = 'price' | 'volume' | 'rsi';

/** What the chart shows: its panels, and whether it draws daily bars (else the 1D minute candles). */
export interface ChartView {
  readonly panels: readonly Panel[];
  readonly daily: boolean;
  /** Why a panel is missing, when there is more to say than that the chart does not show it. */
  readonly missing?: Partial<Readonly<Record<Panel, string>>>;
}

/** A bound of a band: a constant level, or one value per bar shown (null where the series has none). */
export type BandEdge = number | readonly (number | null)[];

/** A channel drawn (`drawn: true`, on a panel, bounds over the bars' dates) or why it is not (`note`). */
export type BandPlacement =
  | {
      readonly drawn: true;
      readonly panel: Panel;
      /** The bars' dates, the x of bounds that are series. */
      readonly x: readonly string[];
      readonly lower: BandEdge;
      readonly upper: BandEdge;
    }
  | { readonly drawn: false; readonly note: string };

const PANEL_NAMES: Readonly<Record<Panel, string>> = { price: 'price', volume: 'volume', rsi: 'RSI' };

/** The panel a source's values belong on, or null for a series the chart has no axis for (change %). */
export function sourcePanel(source: string): Panel | null {
  switch (sourceKind(source as AlertSource)) {
    case 'price':
    case 'sma':
    case 'ema':
      return 'price';
    case 'volume':
      return 'volume';
    case 'rsi':
      return 'rsi';
    default:
      return null;
  }
}

/**
 * The exponential moving average after each close (weight `2 / (period + 1)`, seeded with the first close),
 * null before the `period`-th close: the engine's definition, over the closes given.
 */
export function emaValues(closes: readonly number[], period: number): (number | null)[] {
  const weight = 2 / (period + 1);
  let ema: number | null = null;
  return closes.map((close, i) => {
    ema = ema === null ? close : close * weight + ema * (1 - weight);
    return i + 1 >= period ? ema : null;
  });
}

/** A series' value on each bar (null where the bars do not have it): closes, SMAs, EMAs, RSI, volume, change %. */
export function seriesValues(source: string, bars: readonly Bar[]): (number | null)[] {
  const period = sourcePeriod(source as AlertSource) ?? 0;
  switch (sourceKind(source as AlertSource)) {
    case 'price':
      return bars.map((b) => b.close);
    case 'sma': {
      const key = `SMA_${period}` as 'SMA_20' | 'SMA_50' | 'SMA_100' | 'SMA_200';
      return bars.map((b) => (typeof b[key] === 'number' ? b[key] : null));
    }
    case 'ema':
      return emaValues(
        bars.map((b) => b.close),
        period,
      );
    case 'rsi':
      return bars.map((b) => b.rsi_14);
    case 'volume':
      return bars.map((b) => b.volume);
    case 'changepct':
      return bars.map((b, i) => {
        const previous = bars[i - 1]?.close;
        return previous ? ((b.close - previous) / previous) * 100 : null;
      });
    default:
      return bars.map(() => null);
  }
}

function lastValue(values: readonly (number | null)[]): number | null {
  for (let i = values.length - 1; i >= 0; i -= 1) {
    const value = values[i];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return null;
}

/** A bound on the panel, or the note of why it cannot be drawn there. */
function edgeOf(
  operand: AlertOperand | { readonly ref: string } | null,
  panel: Panel,
  bars: readonly Bar[],
  view: ChartView,
): BandEdge | { readonly note: string } {
  if (typeof operand === 'number') return operand;
  if (operand === null) return { note: 'Not drawn: the channel lacks a bound' };
  const ref = operand.ref as AlertSource;
  if (sourcePanel(ref) !== panel) {
    return { note: `Not drawn: the ${sourceText(ref)} is not on the ${PANEL_NAMES[panel]} axis` };
  }
  const values = seriesValues(ref, bars);
  const last = lastValue(values);
  if (last === null) return { note: `Not drawn: the ${sourceText(ref)} has no value over the bars shown` };
  // The minute candles of 1D are all of today: a daily series stands at its last value.
  return view.daily ? values : last;
}

const isNote = (edge: BandEdge | { readonly note: string }): edge is { readonly note: string } =>
  typeof edge === 'object' && !Array.isArray(edge);

/** Why the chart cannot draw a series' values (no panel for it, or its panel not shown), or null when it can. */
export function panelNote(source: AlertSource, view: ChartView): string | null {
  const panel = sourcePanel(source);
  if (panel === null) return `Not drawn: the chart has no ${sourceText(source)} panel`;
  if (view.panels.includes(panel)) return null;
  const why = view.missing?.[panel];
  return `Not drawn: the chart shows no ${sourceText(source)} panel${why ? ` (${why})` : ''}`;
}

/**
 * Where a channel alert is drawn: on its source's panel, between its bounds (constants, or the referred series
 * over the bars shown; on 1D at their last value); or a note when the chart has no panel for the source, a bound
 * refers to a series in another unit, or a referred series has no value. Null for an alert that is no channel.
 */
export function channelPlacement(
  condition: AlertAnswer['condition'],
  bars: readonly Bar[],
  view: ChartView,
): BandPlacement | null {
  if (!CHANNEL_OPS.includes(condition.op)) return null;
  const source = condition.source as AlertSource;
  const panel = sourcePanel(source);
  const missing = panelNote(source, view);
  if (panel === null || missing !== null) return { drawn: false, note: missing ?? '' };
  const lower = edgeOf(condition.lower, panel, bars, view);
  if (isNote(lower)) return { drawn: false, note: lower.note };
  const upper = edgeOf(condition.upper, panel, bars, view);
  if (isNote(upper)) return { drawn: false, note: upper.note };
  return { drawn: true, panel, x: bars.map((b) => b.date), lower, upper };
}

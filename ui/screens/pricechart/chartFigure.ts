/**
 * The Plotly figure of the price chart, built from the machine's context: candlesticks on the price axis,
 * volume bars on a subplot below, the moving-average overlays, then the chart elements.
 */
import type { Annotations, Data, Layout } from 'plotly.js';
import { formatNumber } from '../../../domain/format.ts';
import {
  LABEL_HEIGHT_PX,
  renderElements,
  rightLabelShare,
  tracedPrices,
  visibleElements,
  type BandAxis,
  type BandBound,
  type BandData,
  type ChartElement,
  type RenderedElements,
} from './chartElements.ts';
import { LEVEL_COLORS, RSI_COLOR, SMA_COLORS, rightOffset, smaKey, type Bar, type Candle } from './chartData.ts';
import { finiteExtent } from '../../components/extent.ts';
import type { PriceChartContext } from './pricechart.machine.ts';
import {
  fromFieldValue,
  marketPlotTime,
  timeAxisTitle,
  tradingDayTitle,
  zoneLabel,
  type Zone,
} from '../../services/time.ts';
import { preferences } from '../../services/preferences.ts';

/** The figure and which element each shape and annotation draws. */
export interface Figure {
  readonly data: Data[];
  readonly layout: Partial<Layout>;
  readonly shapeIds: readonly string[];
  readonly annotationIds: readonly string[];
}

/** Whether the figure draws anything: daily bars, or on 1D at least one candle. */
export function hasPrices(context: Pick<PriceChartContext, 'duration' | 'bars' | 'intraday'>): boolean {
  return context.duration === '1D' ? context.intraday.length > 0 || context.bars.length > 0 : context.bars.length > 0;
}

/** The 1D candles: today's minute candles, or while none arrived the last daily bar at its close. */
export function intradayCandles(intraday: readonly Candle[], bars: readonly Bar[]): Candle[] {
  if (intraday.length > 0) return [...intraday];
  const last = bars.at(-1);
  return last
    ? [
        {
          time: `${last.date} 16:00`,
          open: last.open,
          high: last.high,
          low: last.low,
          close: last.close,
          volume: last.volume,
          sessionVolume: last.volume,
        },
      ]
    : [];
}

/** Below this top volume the display rule would write every tick as `0.00M`, so Plotly's own ticks are kept. */
export const VOLUME_RULE_MIN = 10_000;

/**
 * Volume axis ticks (none, half and the top) written with the product's number display rule; none (Plotly's
 * own) when the top is under {@link VOLUME_RULE_MIN}, where the rule's `M` would read 0.00M or 0.01M.
 */
export function volumeTicks(volumes: readonly number[]): { tickvals?: number[]; ticktext?: string[] } {
  const top = Math.max(0, ...volumes.filter((v) => Number.isFinite(v)));
  if (top < VOLUME_RULE_MIN) return {};
  const tickvals = [0, top / 2, top];
  return { tickvals, ticktext: tickvals.map(formatNumber) };
}

/** The shortest span the 1D chart shows, in minutes, so a few candles are not stretched over the width. */
export const INTRADAY_MIN_SPAN = 60;

const minuteMs = (time: string): number => Date.parse(`${time.replace(' ', 'T')}:00Z`);
const minuteText = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/**
 * The time range of the 1D chart: from five minutes before the first candle to five minutes after the last,
 * and at least {@link INTRADAY_MIN_SPAN} minutes from the first; undefined without candles.
 */
export function intradayRange(candles: readonly Pick<Candle, 'time'>[]): [string, string] | undefined {
  const first = candles[0];
  const last = candles.at(-1);
  if (!first || !last) return undefined;
  const start = minuteMs(first.time) - 5 * 60_000;
  const end = Math.max(minuteMs(last.time) + 5 * 60_000, start + (INTRADAY_MIN_SPAN + 5) * 60_000);
  return [minuteText(start), minuteText(end)];
}

/**
 * The x of the 1D candles in a zone: each New York minute as the zone's wall-clock minute (Plotly draws dates as
 * they are written), so the axis reads the viewer's time; a minute that cannot be read stays as it is.
 */
export function intradayX(candles: readonly Pick<Candle, 'time'>[], zone: Zone): string[] {
  return candles.map((c) => marketPlotTime(c.time, zone) ?? c.time);
}

/** The chart's margins, in pixels: the plot's height is the chart's less the top and the bottom. */
export const CHART_MARGIN = Object.freeze({ t: 36, b: 40 });

/**
 * How many dates the daily axis writes at most: one per 100 px of the plot's width, 3 to 8, so a phone's chart
 * writes them level and whole rather than turned and cut at the edge.
 */
export function dateTickCount(plotWidth = 800): number {
  return Math.max(3, Math.min(8, Math.floor(plotWidth / 100)));
}

/** The price one label's height spans on the price panel of a view: its range over the panel's height in pixels. */
export function priceNearOf(view: PriceView, rsi: boolean): number {
  return labelSpanOf(view, rsi, 'price');
}

/** What one label's height spans on a panel's axis fitted to a view: its range over the panel's height in pixels. */
function labelSpanOf(view: PriceView, rsi: boolean, panel: 'price' | 'volume'): number {
  const [bottom, top] = panelDomains(rsi)[panel];
  const panelPx = (chartHeight(rsi) - CHART_MARGIN.t - CHART_MARGIN.b) * (top - bottom);
  return ((view.range[1] - view.range[0]) * LABEL_HEIGHT_PX) / panelPx;
}

/**
 * Below this plot width (a phone's) Plotly's bar of zoom, pan and image buttons is not shown: it is drawn over the
 * legend there, whose entries then cannot be touched. The chart still zooms by a drag and returns by a double tap.
 */
export const MODEBAR_MIN_WIDTH = 600;

/** Whether the chart shows Plotly's mode bar at a plot width (px). */
export function showsModeBar(plotWidth: number): boolean {
  return plotWidth >= MODEBAR_MIN_WIDTH;
}

/** The chart's height in pixels: taller with the RSI panel, so the price panel keeps its height. */
export function chartHeight(rsi: boolean): number {
  return rsi ? 720 : 560;
}

/**
 * The vertical extent of each panel: price above volume, and the RSI panel at the bottom when shown (about a
 * quarter of the plot, so its 0 to 100 range reads); a gap under the price panel for the dates.
 */
export function panelDomains(rsi: boolean): {
  readonly price: [number, number];
  readonly volume: [number, number];
  readonly rsi: [number, number];
} {
  return rsi
    ? { price: [0.5, 1], volume: [0.29, 0.42], rsi: [0, 0.24] }
    : { price: [0.3, 1], volume: [0, 0.2], rsi: [0, 0] };
}

/** How far beyond the prices shown, as a fraction of their span, an alert's level still widens the price axis. */
export const LEVEL_REACH = 0.25;

/**
 * How far beyond the tallest volume bar, as a fraction of its height, a volume alert's level still raises the
 * volume axis: a level at twice or three times the volume seen (a volume surge) is drawn over the bars.
 */
export const VOLUME_LEVEL_REACH = 2;

/** A level drawn on the price (or volume) axis: a line (`lo` = `hi`) or a band between constant bounds. */
export interface PriceLevel {
  readonly lo: number;
  readonly hi: number;
  /** An alert's label, as drawn on the chart; null for a level that is not an alert (support, resistance). */
  readonly label: string | null;
}

/**
 * Where the price axis stops: `range` fits the values drawn on it and the levels near them, padded by 5%;
 * `clipLow`/`clipHigh` whether a level reaches beyond it on that side (a line, or a band's bound); and the labels
 * of the alerts wholly beyond it.
 */
export interface PriceView {
  readonly range: [number, number];
  readonly clipLow: boolean;
  readonly clipHigh: boolean;
  readonly above: readonly string[];
  readonly below: readonly string[];
}

/**
 * The price axis fitted to the values drawn on it (candles, averages, compared series) and to the levels within
 * `reach` of them ({@link LEVEL_REACH} of their span by default), padded by 5%: an alert far from the price does
 * not squeeze the candles into a strip of the plot (it shows once the axis is dragged or zoomed out to it, and is
 * counted above or below). The volume axis is fitted the same way. Null when there is no value to fit.
 */
export function priceView(
  values: Iterable<number>,
  levels: readonly PriceLevel[],
  reach = LEVEL_REACH,
): PriceView | null {
  const extent = finiteExtent(values);
  if (extent === null) return null;
  let { lo, hi } = extent;
  const span = hi > lo ? hi - lo : Math.max(Math.abs(hi) * 0.02, 0.01);
  const reachLo = lo - reach * span;
  const reachHi = hi + reach * span;
  for (const level of levels) {
    if (level.hi < reachLo || level.lo > reachHi) continue;
    lo = Math.min(lo, Math.max(level.lo, reachLo));
    hi = Math.max(hi, Math.min(level.hi, reachHi));
  }
  const pad = (hi > lo ? hi - lo : span) * 0.05;
  const range: [number, number] = [lo - pad, hi + pad];
  const isAbove = (level: PriceLevel) => level.lo > range[1];
  const isBelow = (level: PriceLevel) => level.hi < range[0];
  // A band reaching beyond the range (a channel from 1.00 to 100,000) stops the axis too, rather than squeeze the
  // candles into a strip of it; it fills the plot to the edge.
  return {
    range,
    clipLow: levels.some((level) => level.lo < range[0]),
    clipHigh: levels.some((level) => level.hi > range[1]),
    above: labelsWhere(levels, isAbove),
    below: labelsWhere(levels, isBelow),
  };
}

/**
 * The elements' labels with those of the bands that reach above the view of their axis (price or volume) and
 * start within it held at its top edge (inside the plot): a band's label sits at its upper bound, which the axis
 * may stop below.
 */
function withinView(
  rendered: Pick<RenderedElements, 'annotations' | 'annotationIds'>,
  elements: readonly ChartElement[],
  views: Partial<Record<BandAxis, PriceView | null>>,
): Partial<Annotations>[] {
  const bands = new Map<string, BandData>();
  for (const element of elements) if (element.type === 'BAND') bands.set(element.id, element.chartdata);
  return rendered.annotations.map((annotation, k) => {
    const band = bands.get(rendered.annotationIds[k] ?? '');
    const view = band && views[band.axis ?? 'y'];
    if (!band || !view || typeof annotation.y !== 'number' || annotation.y <= view.range[1]) return annotation;
    const top = view.range[1];
    return lowest(band.lower) > top ? annotation : { ...annotation, y: top, yanchor: 'top' };
  });
}

/** A bound's lowest value (Infinity when it has none). */
function lowest(bound: BandBound): number {
  if (typeof bound === 'number') return bound;
  let low = Infinity;
  for (const v of bound) if (v !== null && v < low) low = v;
  return low;
}

function labelsWhere(levels: readonly PriceLevel[], where: (level: PriceLevel) => boolean): string[] {
  const labels: string[] = [];
  for (const level of levels) if (level.label !== null && where(level)) labels.push(level.label);
  return labels;
}

/**
 * The levels of the alerts and support/resistance lines drawn on an axis (the price's by default, or the volume's),
 * and of the channels on it, a bound that follows a series spanning its values.
 */
export function priceLevels(elements: readonly ChartElement[], on: BandAxis = 'y'): PriceLevel[] {
  const levels: PriceLevel[] = [];
  for (const element of elements) {
    if (element.type === 'ALERT' || element.type === 'SAR') {
      const { y, label, axis } = element.chartdata;
      if ((axis ?? 'y') !== on) continue;
      const named = element.type === 'ALERT' ? withoutMark(label) : null;
      if (y !== null && Number.isFinite(y)) levels.push({ lo: y, hi: y, label: named });
    } else if (element.type === 'BAND') {
      const { lower, upper, axis, label } = element.chartdata;
      if ((axis ?? 'y') !== on) continue;
      // A bound that follows a series spans its values over the chart.
      let lo = Infinity;
      let hi = -Infinity;
      for (const bound of [lower, upper]) {
        for (const v of typeof bound === 'number' ? [bound] : bound) {
          if (v === null || !Number.isFinite(v)) continue;
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
      if (lo <= hi) levels.push({ lo, hi, label: withoutMark(label) });
    }
  }
  return levels;
}

const withoutMark = (label: string): string => label.replace(/ ✕$/, '');

/** The y values of the traces drawn on the price axis (candles by their low and high). */
function priceValues(data: readonly Data[]): number[] {
  const values: number[] = [];
  const push = (ys: unknown): void => {
    if (!Array.isArray(ys)) return;
    for (const y of ys) if (typeof y === 'number') values.push(y);
  };
  for (const trace of data) {
    const t = trace as { type?: string; yaxis?: string; y?: unknown; low?: unknown; high?: unknown };
    if ((t.yaxis ?? 'y') !== 'y') continue;
    if (t.type === 'candlestick') {
      push(t.low);
      push(t.high);
    } else push(t.y);
  }
  return values;
}

/**
 * Plotly's own fit of an axis, stopped at `bounds` when a level of its view lies beyond it: on that side, where the
 * level would stretch the axis, and on the other, where Plotly would pad by a share of the whole extent (the far
 * level's included) and squeeze the values into a strip; nothing when no level does.
 */
function clippedFit(
  view: PriceView | null,
  bounds: (view: PriceView) => readonly [number, number],
): Pick<Partial<Layout['yaxis']>, 'autorangeoptions'> {
  if (!view || !(view.clipLow || view.clipHigh)) return {};
  const [clipmin, clipmax] = bounds(view);
  return { autorangeoptions: { clipmin, clipmax } };
}

/** The alerts out of view on one side, written at that edge of their panel, price or volume (the first one named). */
export function offViewText(labels: readonly string[], side: 'above' | 'below'): string {
  const more = labels.length > 1 ? ` and ${labels.length - 1} more` : '';
  return `${side === 'above' ? '▲' : '▼'} ${labels.length === 1 ? 'alert' : `${labels.length} alerts`} ${side}: ${labels[0]}${more}`;
}

/**
 * Builds the figure of a chart state; the 1D chart's times are in `zone` (the viewer's setting), daily bars
 * are dated by their New York trading day whatever the zone.
 */
export function buildFigure(
  context: Pick<
    PriceChartContext,
    'symbol' | 'duration' | 'bars' | 'intraday' | 'elements' | 'removed' | 'smas' | 'rsiPanel'
  > &
    Partial<Pick<PriceChartContext, 'plotWidth'>>,
  zone: Zone = preferences.get().timeZone,
): Figure {
  const { symbol, duration } = context;
  const intraday = duration === '1D';
  const rsi = context.rsiPanel && !intraday;
  const domains = panelDomains(rsi);
  const candles = intraday ? intradayCandles(context.intraday, context.bars) : [];
  const times = intradayX(candles, zone);
  const series = intraday
    ? candles.map((c, i) => ({ ...c, x: times[i] ?? c.time }))
    : context.bars.map((b) => ({ ...b, x: b.date }));
  const x = series.map((s) => s.x);
  const data: Data[] = [
    {
      type: 'candlestick',
      name: symbol,
      x,
      open: series.map((s) => s.open),
      high: series.map((s) => s.high),
      low: series.map((s) => s.low),
      close: series.map((s) => s.close),
      increasing: { line: { color: LEVEL_COLORS.up } },
      decreasing: { line: { color: LEVEL_COLORS.down } },
      xaxis: 'x',
      yaxis: 'y',
    },
    {
      type: 'bar',
      name: 'Volume',
      x,
      y: series.map((s) => s.volume),
      marker: {
        color: series.map((s) => (s.close >= s.open ? 'rgba(19,138,54,0.45)' : 'rgba(198,40,40,0.45)')),
      },
      yaxis: 'y2',
      showlegend: false,
      hovertext: series.map((s) => formatNumber(s.volume)),
      hovertemplate: 'Volume %{hovertext}<extra></extra>',
    },
  ];
  if (!intraday) {
    for (const period of context.smas) {
      const key = smaKey(period);
      data.push({
        type: 'scatter',
        mode: 'lines',
        name: `SMA ${period}`,
        x,
        y: context.bars.map((b) => b[key]),
        line: { color: SMA_COLORS[period], width: 1.2 },
        hovertemplate: `SMA ${period} %{y:.2f}<extra></extra>`,
        yaxis: 'y',
      });
    }
  }
  if (rsi) {
    data.push({
      type: 'scatter',
      mode: 'lines',
      name: 'RSI 14',
      x,
      y: context.bars.map((b) => b.rsi_14),
      line: { color: RSI_COLOR, width: 1.2 },
      hovertemplate: 'RSI 14 %{y:.1f}<extra></extra>',
      yaxis: 'y4',
    });
  }
  // The zone's label at the last candle (its daylight time), for the 1D hover.
  const lastMinute = candles.at(-1)?.time.replace(' ', 'T') ?? '';
  const hoverZone = zoneLabel(fromFieldValue(lastMinute, 'market') || Date.now(), zone);
  // The price axis is fitted first, so the labels are placed by what it shows: two labels near in pixels keep
  // apart, however far apart in percent (a five-year chart spans a wide range of prices). A band's edges are
  // levels (`priceLevels`), not prices: a bound far off must not stretch the axis.
  const visible = visibleElements(context.elements, context.removed);
  // On 1D the previous close is the reference of the day's move: the axis always reaches it.
  const reference = intraday
    ? visible.flatMap((e) =>
        e.type === 'SAR' && e.charttype === 'close' && e.chartdata.y !== null ? [e.chartdata.y] : [],
      )
    : [];
  const view = priceView([...priceValues(data), ...tracedPrices(visible), ...reference], priceLevels(visible));
  const rendered = renderElements(context.elements, context.removed, {
    plotWidth: context.plotWidth,
    ...(view === null ? {} : { priceNear: priceNearOf(view, rsi) }),
  });
  data.push(...rendered.traces);
  // The volume axis likewise, from 0 to the tallest bar and the volume alerts' levels up to three times it: a level
  // far above (a day's volume of a trillion shares) does not flatten the bars.
  const volumes = series.map((s) => s.volume);
  const volumeView =
    volumes.length === 0 ? null : priceView([0, ...volumes], priceLevels(visible, 'y2'), VOLUME_LEVEL_REACH);
  const annotations = withinView(rendered, context.elements, { y: view, y2: volumeView });
  const annotationIds = [...rendered.annotationIds];
  const panels = [
    { view, domain: domains.price, id: 'offview' },
    { view: volumeView, domain: domains.volume, id: 'offview:volume' },
  ];
  for (const panel of panels) {
    for (const side of ['above', 'below'] as const) {
      const labels = panel.view?.[side] ?? [];
      if (labels.length === 0) continue;
      annotations.push({
        xref: 'paper',
        x: 0,
        xanchor: 'left',
        yref: 'paper',
        y: side === 'above' ? panel.domain[1] : panel.domain[0],
        yanchor: side === 'above' ? 'top' : 'bottom',
        text: offViewText(labels, side),
        showarrow: false,
        font: { size: 11 },
        borderpad: 2,
      });
      annotationIds.push(`${panel.id}:${side}`);
    }
  }
  const layout: Partial<Layout> = {
    height: chartHeight(rsi),
    margin: { l: 56, r: rendered.secondAxis ? 56 : 16, ...CHART_MARGIN },
    showlegend: true,
    legend: { orientation: 'h', x: 0, y: 1.08, font: { size: 11 } },
    hovermode: 'x',
    dragmode: 'zoom',
    uirevision: `${symbol}/${duration}`,
    xaxis: intraday
      ? {
          type: 'date',
          rangeslider: { visible: false },
          showgrid: false,
          range: intradayRange(series.map((s) => ({ time: s.x }))),
          title: { text: timeAxisTitle(zone), font: { size: 11 }, standoff: 4 },
          hoverformat: `%Y-%m-%d %H:%M ${hoverZone}`,
        }
      : {
          type: 'category',
          rangeslider: { visible: false },
          // Empty bars right of the latest candle (`rightOffset`), where the alerts' tags are written.
          range: [-0.5, series.length - 0.5 + rightOffset(series.length, rightLabelShare(visible, context.plotWidth))],
          nticks: dateTickCount(context.plotWidth),
          showgrid: false,
          title: { text: tradingDayTitle(), font: { size: 11 }, standoff: 4 },
        },
    yaxis: {
      domain: domains.price,
      title: { text: 'Price' },
      tickformat: '.2f',
      fixedrange: false,
      // Plotly's own fit (which leaves room for the markers' text), stopped where a level lies far off: a label's
      // height beyond the view leaves that room, and one more the note of the alerts beyond on that side.
      ...clippedFit(view, (v) => {
        const near = priceNearOf(v, rsi);
        return [v.range[0] - near * (v.below.length > 0 ? 2 : 1), v.range[1] + near * (v.above.length > 0 ? 2 : 1)];
      }),
    },
    yaxis2: {
      domain: domains.volume,
      showgrid: false,
      ...volumeTicks(volumes),
      // Bars rise from 0, with no text above them: room above for the note of the alerts beyond only.
      ...clippedFit(volumeView, (v) => [0, v.range[1] + (v.above.length > 0 ? labelSpanOf(v, rsi, 'volume') : 0)]),
    },
    shapes: rendered.shapes,
    annotations,
  };
  if (rsi) {
    layout.yaxis4 = {
      domain: domains.rsi,
      range: [0, 100],
      tickvals: [0, 30, 50, 70, 100],
      showgrid: true,
      // A frame at 0 and 100, so the panel's bounds show where the line is far from them.
      showline: true,
      mirror: true,
      zeroline: false,
      fixedrange: true,
      title: { text: 'RSI', font: { size: 11 } },
    };
  }
  if (rendered.secondAxis) {
    layout.yaxis3 = { overlaying: 'y', side: 'right', showgrid: false, tickformat: '.2f' };
  }
  return { data, layout, shapeIds: rendered.shapeIds, annotationIds };
}

/** The parts of a Plotly axis that turn a pixel into a value (from the graph's full layout). */
export interface PixelAxis {
  /** Pixels from the graph's top (or left) edge to the axis' start. */
  readonly _offset: number;
  /** The axis' length in pixels. */
  readonly _length: number;
  /** A pixel along the axis to a data value. */
  readonly p2d: (pixel: number) => unknown;
  /** A data value to a pixel along the axis. */
  readonly d2p?: (value: number) => number;
}

/**
 * The price at a point of the graph (pixels from its top-left corner) on the price axis, rounded to the cent;
 * null outside the price plot area or when the point cannot be read.
 */
export function priceAtPoint(
  axes: { readonly xaxis?: PixelAxis; readonly yaxis?: PixelAxis },
  left: number,
  top: number,
): number | null {
  const { xaxis, yaxis } = axes;
  if (!xaxis || !yaxis) return null;
  const px = left - xaxis._offset;
  const py = top - yaxis._offset;
  if (px < 0 || px > xaxis._length || py < 0 || py > yaxis._length) return null;
  const value = Number(yaxis.p2d(py));
  if (!Number.isFinite(value) || value <= 0) return null;
  return Math.round(value * 100) / 100;
}

/**
 * Where a point placed at `price`, a fraction `across` of the price plot's width from its left, is on the graph
 * now (pixels from its top-left corner): a popover opened at a click follows its price when the chart is laid out
 * again (the window resized). Kept within the plot area; null when the axes cannot tell.
 */
export function pointOfPrice(
  axes: { readonly xaxis?: PixelAxis; readonly yaxis?: PixelAxis },
  price: number,
  across: number,
): { left: number; top: number } | null {
  const { xaxis, yaxis } = axes;
  if (!xaxis || !yaxis?.d2p) return null;
  const py = yaxis.d2p(price);
  if (!Number.isFinite(py)) return null;
  const within = (value: number, length: number): number => Math.min(Math.max(value, 0), length);
  return {
    left: xaxis._offset + within(across, 1) * xaxis._length,
    top: yaxis._offset + within(py, yaxis._length),
  };
}

/**
 * Where a popover `width` wide, centred on `centre` (pixels from its container's left edge), goes so that it
 * stays `margin` inside a container `room` wide: moved inwards by what would stick out; centred in the
 * container when it is the wider.
 */
export function keptInside(centre: number, width: number, room: number, margin = 4): number {
  const min = width / 2 + margin;
  const max = room - width / 2 - margin;
  if (max < min) return room / 2;
  return Math.min(Math.max(centre, min), max);
}

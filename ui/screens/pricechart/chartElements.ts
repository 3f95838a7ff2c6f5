/**
 * Chart elements: everything drawn over a price chart besides the candles, kept as data
 * `{symbol, id, type, charttype, chartdata, color, normalize}` and rendered generically into Plotly traces,
 * shapes and annotations. ALERT and SAR are straight lines at a price, BAND a shaded band between two levels or
 * series (a channel alert, on the price, volume or RSI axis), LINE an added series on the price axis, AXIS a series on a second axis, IMAGE markers such
 * as pattern icons.
 */
import type { Annotations, Data, Shape } from 'plotly.js';

/** The kinds of chart element. */
export type ChartElementType = 'ALERT' | 'SAR' | 'BAND' | 'LINE' | 'AXIS' | 'IMAGE';

/** A straight line at a price (ALERT, SAR); `y` null when there is no price to draw it at. */
export interface LevelData {
  /** The price of the line, or null when it cannot be placed. */
  readonly y: number | null;
  /** The label drawn on the line. */
  readonly label: string;
  /** The line's dash. */
  readonly dash: 'solid' | 'dash' | 'dot';
  /** Whether the label deletes the element when clicked (alerts). */
  readonly clickable: boolean;
  /** The axis of `y` (default `y`, the price). */
  readonly axis?: BandAxis;
  /** What the label stands for in words, shown on hover (an alert's condition, when its label is a short tag). */
  readonly words?: string;
  /** The label written instead where `label` does not fit right of the latest candle (see {@link fittedLabel}). */
  readonly brief?: string;
}

/** A bound of a band: a constant level, or one value per date of `x` (null where there is none). */
export type BandBound = number | readonly (number | null)[];

/** The value axes a band may be drawn on: the price (`y`), the volume bars (`y2`), the RSI panel (`y4`). */
export type BandAxis = 'y' | 'y2' | 'y4';

/**
 * A shaded band between two levels (BAND): a rectangle across the plot when both bounds are constants, else an
 * area between two lines following the bounds over the dates `x`.
 */
export interface BandData {
  /** The band's lower bound. */
  readonly lower: BandBound;
  /** The band's upper bound. */
  readonly upper: BandBound;
  /** The dates of bounds that are series. */
  readonly x?: readonly string[];
  /** The axis of the band's values (default `y`, the price). */
  readonly axis?: BandAxis;
  /** The label drawn at the band's top. */
  readonly label: string;
  /** The edge lines' dash. */
  readonly dash: 'solid' | 'dash' | 'dot';
  /** Whether the label deletes the element when clicked (alerts). */
  readonly clickable: boolean;
  /** What the label stands for in words, shown on hover (see {@link LevelData}). */
  readonly words?: string;
  /** The label written instead where `label` does not fit (see {@link LevelData}). */
  readonly brief?: string;
}

/** A series of values by date (LINE, AXIS). */
export interface SeriesData {
  /** The dates. */
  readonly x: readonly string[];
  /** The values, one per date. */
  readonly y: readonly number[];
}

/** One marker of an IMAGE element. */
export interface MarkerPoint {
  /** The bar's date. */
  readonly x: string;
  /** The price the marker sits at. */
  readonly y: number;
  /** The text shown with the marker. */
  readonly text: string;
  /** The marker's shape. */
  readonly symbol: 'triangle-up' | 'triangle-down' | 'circle';
  /** The marker's colour. */
  readonly color: string;
  /** Whether the text is written above the marker (else it shows on hover only). */
  readonly label: boolean;
  /** Where the bar's centre is across the plot (a fraction of its width), when known: a written name that would
   * cover a level's label there is left to the hover. */
  readonly at?: number;
}

/** Markers on bars (IMAGE). */
export interface MarkerData {
  /** The markers. */
  readonly points: readonly MarkerPoint[];
}

interface ElementBase {
  /** The symbol the element belongs to (the compared symbol for LINE and AXIS). */
  readonly symbol: string;
  /** Unique within a chart. */
  readonly id: string;
  /** What the element shows within its type: `price`, `sma`, `support`, `resistance`, `close`, `compare`, `pattern`. */
  readonly charttype: string;
  /** The colour it is drawn in. */
  readonly color: string;
  /** Whether its values were rebased onto the main series' scale. */
  readonly normalize: boolean;
}

/** One element drawn over the chart. */
export type ChartElement =
  | (ElementBase & { readonly type: 'ALERT' | 'SAR'; readonly chartdata: LevelData })
  | (ElementBase & { readonly type: 'BAND'; readonly chartdata: BandData })
  | (ElementBase & { readonly type: 'LINE' | 'AXIS'; readonly chartdata: SeriesData })
  | (ElementBase & { readonly type: 'IMAGE'; readonly chartdata: MarkerData });

/** The colours of the first compared symbols, in order (spec section 9); later ones get a random colour. */
export const COMPARE_COLORS: readonly string[] = Object.freeze([
  'red',
  'black',
  '#a7d129',
  'brown',
  'orange',
  'purple',
  'green',
]);

/** The colour of the `index`-th added element: the spec's sequence, then a random colour from `random`. */
export function compareColor(index: number, random: () => number = Math.random): string {
  const fixed = COMPARE_COLORS[index];
  if (fixed !== undefined) return fixed;
  const value = Math.floor(random() * 0x1000000) & 0xffffff;
  return `#${value.toString(16).padStart(6, '0')}`;
}

/**
 * Rebases a series onto `base`: each value times `base` over the series' first positive value, rounded to
 * 4 decimals, so a compared symbol starts where the main series starts. A series without a positive value
 * is answered unchanged.
 */
export function normalizeSeries(values: readonly number[], base: number): number[] {
  const first = values.find((v) => Number.isFinite(v) && v > 0);
  if (first === undefined || !Number.isFinite(base)) return [...values];
  return values.map((v) => Math.round((v / first) * base * 10_000) / 10_000);
}

/** The last `length` items of a list (the whole list when it is not longer): the main series' length. */
export function trimToLength<T>(values: readonly T[], length: number): T[] {
  if (length <= 0) return [];
  return values.length > length ? values.slice(values.length - length) : [...values];
}

/** Whether an element was added by the user (a compared series). */
export function isAdded(element: ChartElement): boolean {
  return element.type === 'LINE' || element.type === 'AXIS';
}

/** Records ids as removed (hidden), keeping each once. */
export function hideElements(removed: readonly string[], ids: readonly string[]): string[] {
  const out = [...removed];
  for (const id of ids) if (!out.includes(id)) out.push(id);
  return out;
}

/** The ids of every added element, for "hide added elements". */
export function addedIds(elements: readonly ChartElement[]): string[] {
  return elements.filter(isAdded).map((e) => e.id);
}

/** The elements still drawn: those whose id is not recorded as removed. */
export function visibleElements(elements: readonly ChartElement[], removed: readonly string[]): ChartElement[] {
  if (removed.length === 0) return [...elements];
  const gone = new Set(removed);
  return elements.filter((e) => !gone.has(e.id));
}

/** Replaces the elements of some types by new ones, keeping the others in place. */
export function replaceElements(
  elements: readonly ChartElement[],
  types: readonly ChartElementType[],
  next: readonly ChartElement[],
): ChartElement[] {
  return [...elements.filter((e) => !types.includes(e.type)), ...next];
}

/** What a set of elements draws: traces, shapes and annotations, with the element id of each shape and annotation. */
export interface RenderedElements {
  /** Traces of LINE, AXIS and IMAGE elements, and the edges of BAND elements whose bounds follow a series. */
  readonly traces: Data[];
  /** Lines of ALERT and SAR elements, rectangles of BAND elements. */
  readonly shapes: Partial<Shape>[];
  /** The element id of each shape, by index. */
  readonly shapeIds: string[];
  /** Labels of ALERT, SAR and BAND elements. */
  readonly annotations: Partial<Annotations>[];
  /** The element id of each annotation, by index. */
  readonly annotationIds: string[];
  /** Whether a second price axis (`y3`) is used. */
  readonly secondAxis: boolean;
}

/** A label placed on an axis: its extent across the plot (fractions of its width), its level, its row. */
export interface PlacedLabel {
  readonly left: number;
  readonly right: number;
  readonly y: number;
  readonly below: boolean;
}

/** Where a label is written: `x` (fraction of the plot width) at its anchored side, above or below its level. */
export interface LabelPlace {
  readonly x: number;
  /** Written under its level (a second row) because the row above it is full there. */
  readonly below: boolean;
}

/** Labels whose prices differ by less than this fraction would overlap at the same place. */
const LABEL_CLEARANCE = 0.025;

/** On the RSI panel (0 to 100 over a short height), labels closer than this many points would overlap. */
export const RSI_LABEL_CLEARANCE = 12;

/** Horizontal steps (fraction of the plot width) between labels moved aside so they do not overlap. */
const LABEL_STEP = 0.17;

/** An estimate of a label's box: the plot's width (on the narrow side), a character and the padding, in pixels. */
export const LABEL_BOX = Object.freeze({ plotWidth: 760, charPx: 6.2, padPx: 10 });

/** The height of a label of 11 px text with its border, in pixels. */
export const LABEL_HEIGHT_PX = 17;

/**
 * The estimated width of a label of 11 px text, as a fraction of the plot's width (at most the whole): of the
 * plot measured when known, else of {@link LABEL_BOX}'s.
 */
export function labelWidth(text: string, plotWidth: number = LABEL_BOX.plotWidth): number {
  return Math.min(1, ([...text].length * LABEL_BOX.charPx + LABEL_BOX.padPx) / Math.max(1, plotWidth));
}

/** The most of the plot's width the empty bars right of the latest candle take for the alerts' tags. */
export const MAX_LABEL_SHARE = 0.3;

/**
 * The label a line or band writes on a plot `plotWidth` px wide: its label, or its brief one where the label is
 * wider than the room right of the latest candle ({@link MAX_LABEL_SHARE} of the plot; a phone's chart).
 */
export function fittedLabel(data: Pick<LevelData, 'label' | 'brief'>, plotWidth?: number): string {
  if (data.brief === undefined || labelWidth(data.label, plotWidth) <= MAX_LABEL_SHARE) return data.label;
  return data.brief;
}

/**
 * The widest label written at the plot's right edge, the alerts' lines' and bands' (those drawn, not a channel
 * being drawn), as a fraction of the plot's width ({@link labelWidth}, of the label {@link fittedLabel} writes);
 * 0 when there is none.
 */
export function rightLabelShare(elements: readonly ChartElement[], plotWidth?: number): number {
  let widest = 0;
  for (const element of elements) {
    if (element.type === 'ALERT' && (element.chartdata.y === null || !Number.isFinite(element.chartdata.y))) continue;
    // A channel being drawn keeps the axis as it is under the pointer.
    if ((element.type !== 'ALERT' && element.type !== 'BAND') || element.charttype === 'draft') continue;
    widest = Math.max(widest, labelWidth(fittedLabel(element.chartdata, plotWidth), plotWidth));
  }
  return widest;
}

/** What the chart knows of its plot when the labels are placed. */
export interface LabelMeasures {
  /** The plot's width in pixels (the screen measures it); {@link LABEL_BOX}'s when not known yet. */
  readonly plotWidth?: number;
  /**
   * The price that one label's height spans on the price axis as drawn (its range over its height in pixels):
   * labels closer than this on that axis would overlap, however far apart in percent. When not known, labels
   * within {@link LABEL_CLEARANCE} of the price of one another are taken as near.
   */
  readonly priceNear?: number;
}

/**
 * Where a label at level `y` goes: at the edge of its side, above its level or else under it, or moved inwards one
 * step at a time while both would cover a label already placed (a label spans `near` of the axis above or under
 * its level); at the edge when every place would. The edge comes first: the alerts' tags there sit right of the
 * latest candle (see `rightOffset`). `width` is the label's, as a fraction of the plot's. Records the place.
 */
export function labelSlot(
  placed: PlacedLabel[],
  y: number,
  side: 'left' | 'right',
  width = 0,
  near = LABEL_CLEARANCE * Math.max(Math.abs(y), 1e-9),
): LabelPlace {
  const epsilon = 1e-9;
  // The span of the axis a label covers in its row.
  const span = (level: number, below: boolean): [number, number] =>
    below ? [level - near, level] : [level, level + near];
  for (let step = 0; ; step += 1) {
    const x = side === 'left' ? step * LABEL_STEP : 1 - step * LABEL_STEP;
    const left = side === 'left' ? x : x - width;
    const right = side === 'left' ? x + width : x;
    if (step > 0 && (left < -epsilon || right > 1 + epsilon)) break;
    for (const below of [false, true]) {
      const [lo, hi] = span(y, below);
      const clash = placed.some((p) => {
        const [plo, phi] = span(p.y, p.below);
        // Spans that overlap (or one level twice in a row), and extents that overlap or share an anchor.
        const level = (plo < hi - epsilon && lo < phi - epsilon) || (p.below === below && Math.abs(p.y - y) <= near);
        return (
          level && ((p.left < right - epsilon && left < p.right - epsilon) || p.left === left || p.right === right)
        );
      });
      if (!clash) {
        placed.push({ left, right, y, below });
        return { x, below };
      }
    }
  }
  const x = side === 'left' ? 0 : 1;
  placed.push({ left: side === 'left' ? 0 : 1 - width, right: side === 'left' ? width : 1, y, below: false });
  return { x, below: false };
}

/** The translucent fill of a band in a colour given as `#rrggbb` (other colours are used as they are). */
export function bandFill(color: string): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!match) return color;
  const [r, g, b] = match.slice(1, 4).map((hex) => parseInt(hex, 16));
  return `rgba(${r},${g},${b},0.14)`;
}

const finite = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** The last finite value of a bound (itself when constant), or null. */
export function boundTop(bound: BandBound): number | null {
  if (typeof bound === 'number') return Number.isFinite(bound) ? bound : null;
  for (let i = bound.length - 1; i >= 0; i -= 1) if (finite(bound[i])) return bound[i] as number;
  return null;
}

/** What a band draws: a rectangle (constant bounds) or two traces (lower, then upper filled down to it). */
export interface RenderedBand {
  readonly shape: Partial<Shape> | null;
  readonly traces: Data[];
  /** The axis of its values. */
  readonly axis: BandAxis;
  /** Where its label sits: the upper bound's last value. */
  readonly top: number;
}

/**
 * A band as Plotly draws it: a translucent rectangle across the plot between constant bounds; between bounds
 * that follow series, a line for each bound over the dates, the upper one filled down to the lower
 * (`tonexty`), a constant bound repeated on every date. Null when a bound has no value to draw. The rectangle
 * is drawn below the traces (`layer: 'below'`), the layer the screen keeps from taking clicks and drags.
 */
export function renderBand(data: BandData, color: string): RenderedBand | null {
  const { lower, upper, dash, label } = data;
  const axis = data.axis ?? 'y';
  const top = boundTop(upper);
  if (top === null || boundTop(lower) === null) return null;
  if (typeof lower === 'number' && typeof upper === 'number') {
    const shape: Partial<Shape> = {
      type: 'rect',
      xref: 'paper',
      x0: 0,
      x1: 1,
      yref: axis,
      y0: lower,
      y1: upper,
      fillcolor: bandFill(color),
      line: { color, width: 1, dash },
      layer: 'below',
    };
    return { shape, traces: [], axis, top };
  }
  const x = [...(data.x ?? [])];
  const values = (bound: BandBound) => (typeof bound === 'number' ? x.map(() => bound) : [...bound]);
  const name = label.replace(/ ✕$/, '');
  const edge = (bound: BandBound, which: 'lower' | 'upper'): Data => ({
    type: 'scatter',
    mode: 'lines',
    x,
    y: values(bound),
    name: `${name} (${which})`,
    line: { color, width: 1, dash },
    yaxis: axis,
    showlegend: false,
    hovertemplate: `${which === 'lower' ? 'Lower' : 'Upper'} %{y:.2f}<extra></extra>`,
    ...(which === 'upper' ? { fill: 'tonexty' as const, fillcolor: bandFill(color) } : {}),
  });
  return { shape: null, traces: [edge(lower, 'lower'), edge(upper, 'upper')], axis, top };
}

/**
 * The prices the traces of elements draw on the price axis (a normalised compared symbol's line, the
 * patterns' markers), which the axis is fitted to with the candles: what {@link renderElements} would put there,
 * without rendering. Bands' edges and levels are not prices (see `priceLevels`), a compared symbol on its own
 * axis is on that axis.
 */
export function tracedPrices(elements: readonly ChartElement[]): number[] {
  const values: number[] = [];
  for (const element of elements) {
    if (element.type === 'LINE') values.push(...element.chartdata.y);
    else if (element.type === 'IMAGE') for (const point of element.chartdata.points) values.push(point.y);
  }
  return values;
}

/** A pattern's name, 10 px text over its marker: pixels a character, and from the marker's price to its top. */
const MARKER_TEXT = Object.freeze({ charPx: 6, padPx: 4, fromPx: 5, heightPx: 18 });

/**
 * Whether a marker's written name, centred at `at` across the plot above its price `y`, would cover one of the
 * labels `placed` on the price axis (`near`: the price a label's height spans, the default as in
 * {@link labelSlot}).
 */
export function coversLabel(
  point: Pick<MarkerPoint, 'y' | 'text'>,
  at: number,
  placed: readonly PlacedLabel[],
  plotWidth: number = LABEL_BOX.plotWidth,
  near?: number,
): boolean {
  const half = ([...point.text].length * MARKER_TEXT.charPx + MARKER_TEXT.padPx) / 2 / Math.max(1, plotWidth);
  return placed.some((label) => {
    const span = near ?? LABEL_CLEARANCE * Math.max(Math.abs(label.y), 1e-9);
    const perPx = span / LABEL_HEIGHT_PX;
    const bottom = point.y + MARKER_TEXT.fromPx * perPx;
    const top = point.y + (MARKER_TEXT.fromPx + MARKER_TEXT.heightPx) * perPx;
    const [lo, hi] = label.below ? [label.y - span, label.y] : [label.y, label.y + span];
    return label.left < at + half && at - half < label.right && lo < top && bottom < hi;
  });
}

/** A label's hover: its words, then that a click deletes it when it does. */
function hoverOf(clickable: boolean, words: string | undefined): Partial<Annotations> {
  const click = clickable ? 'Click to delete this alert' : '';
  const text = words === undefined ? click : clickable ? `${words}. ${click}` : words;
  return text === '' ? {} : { hovertext: text };
}

/** Renders elements (minus the removed ones) into Plotly traces, shapes and annotations. */
export function renderElements(
  elements: readonly ChartElement[],
  removed: readonly string[] = [],
  measures: LabelMeasures = {},
): RenderedElements {
  const traces: Data[] = [];
  const shapes: Partial<Shape>[] = [];
  const shapeIds: string[] = [];
  // Alert lines are drawn after every other shape, so a drag near a support line takes the alert's.
  const alertShapes: Partial<Shape>[] = [];
  const alertShapeIds: string[] = [];
  const annotations: Partial<Annotations>[] = [];
  const annotationIds: string[] = [];
  // The written names of markers, checked against the levels' labels once all are placed.
  const named: { readonly points: readonly MarkerPoint[]; readonly text: string[] }[] = [];
  let secondAxis = false;
  // Labels keep apart from those near them on the same axis; on the price axis, by a label's height as drawn.
  const byAxis = new Map<BandAxis, PlacedLabel[]>();
  const priceNear = measures.priceNear === undefined ? undefined : Math.max(measures.priceNear, 1e-9);
  const place = (axis: BandAxis, y: number, side: 'left' | 'right', text: string): LabelPlace => {
    let placed = byAxis.get(axis);
    if (!placed) byAxis.set(axis, (placed = []));
    const near = axis === 'y4' ? RSI_LABEL_CLEARANCE : axis === 'y' ? priceNear : undefined;
    return labelSlot(placed, y, side, labelWidth(text, measures.plotWidth), near);
  };
  for (const element of visibleElements(elements, removed)) {
    switch (element.type) {
      case 'ALERT':
      case 'SAR': {
        const { y, dash, clickable, words } = element.chartdata;
        const label = fittedLabel(element.chartdata, measures.plotWidth);
        const axis = element.chartdata.axis ?? 'y';
        if (y === null || !Number.isFinite(y)) break;
        const alert = element.type === 'ALERT';
        if (element.charttype !== 'sma') {
          (alert ? alertShapes : shapes).push({
            type: 'line',
            xref: 'paper',
            x0: 0,
            x1: 1,
            yref: axis,
            y0: y,
            y1: y,
            line: { color: element.color, width: alert ? 2 : 1, dash },
            layer: 'above',
          });
          (alert ? alertShapeIds : shapeIds).push(element.id);
        }
        const slot = place(axis, y, alert ? 'right' : 'left', label);
        annotations.push({
          xref: 'paper',
          x: slot.x,
          xanchor: alert ? 'right' : 'left',
          yref: axis,
          y,
          yanchor: slot.below ? 'top' : 'bottom',
          text: label,
          showarrow: false,
          font: { color: element.color, size: 11 },
          bordercolor: alert ? element.color : 'rgba(0,0,0,0)',
          borderwidth: alert ? 1 : 0,
          borderpad: 2,
          captureevents: clickable,
          ...hoverOf(clickable, words),
        });
        annotationIds.push(element.id);
        break;
      }
      case 'BAND': {
        const band = renderBand(element.chartdata, element.color);
        if (!band) break;
        traces.push(...band.traces);
        if (band.shape) {
          shapes.push(band.shape);
          shapeIds.push(element.id);
        }
        const { clickable, words } = element.chartdata;
        const label = fittedLabel(element.chartdata, measures.plotWidth);
        const slot = place(band.axis, band.top, 'right', label);
        annotations.push({
          xref: 'paper',
          x: slot.x,
          xanchor: 'right',
          yref: band.axis,
          y: band.top,
          yanchor: slot.below ? 'top' : 'bottom',
          text: label,
          showarrow: false,
          font: { color: element.color, size: 11 },
          bordercolor: element.color,
          borderwidth: 1,
          borderpad: 2,
          captureevents: clickable,
          ...hoverOf(clickable, words),
        });
        annotationIds.push(element.id);
        break;
      }
      case 'LINE':
      case 'AXIS': {
        const onAxis = element.type === 'AXIS';
        secondAxis ||= onAxis;
        traces.push({
          type: 'scatter',
          mode: 'lines',
          x: [...element.chartdata.x],
          y: [...element.chartdata.y],
          name: onAxis ? `${element.symbol} (right axis)` : element.symbol,
          line: { color: element.color, width: 1.5 },
          yaxis: onAxis ? 'y3' : 'y',
          hovertemplate: `${element.symbol} %{y:.2f}<extra></extra>`,
        });
        break;
      }
      case 'IMAGE': {
        const { points } = element.chartdata;
        if (points.length === 0) break;
        const text = points.map((p) => (p.label ? p.text : ''));
        named.push({ points, text });
        traces.push({
          type: 'scatter',
          mode: points.some((p) => p.label) ? 'text+markers' : 'markers',
          x: points.map((p) => p.x),
          y: points.map((p) => p.y),
          text,
          hovertext: points.map((p) => p.text),
          textposition: 'top center',
          textfont: { size: 10, color: points.map((p) => p.color) },
          marker: { symbol: points.map((p) => p.symbol), color: points.map((p) => p.color), size: 10 },
          name: 'Patterns',
          hovertemplate: '%{x}: %{hovertext}<extra></extra>',
          yaxis: 'y',
        });
        break;
      }
      default: {
        const unknown: never = element;
        throw new Error(`unknown chart element ${JSON.stringify(unknown)}`);
      }
    }
  }
  const levels = byAxis.get('y') ?? [];
  for (const { points, text } of named) {
    points.forEach((point, i) => {
      if (point.at !== undefined && text[i] && coversLabel(point, point.at, levels, measures.plotWidth, priceNear)) {
        text[i] = '';
      }
    });
  }
  shapes.push(...alertShapes);
  shapeIds.push(...alertShapeIds);
  return { traces, shapes, shapeIds, annotations, annotationIds, secondAxis };
}

/** A shape moved by dragging: the element's id and the price it now sits at. */
export interface ShapeMove {
  /** The element's id. */
  readonly id: string;
  /** The new price. */
  readonly y: number;
}

/**
 * The shapes a Plotly relayout event moved (`shapes[i].y0`, `shapes[i].y1`), as element ids and prices
 * rounded to the cent. A line dragged whole moves both ends alike; a line tilted by one end is taken at the
 * end that left the element's previous price (`previous`), or at the middle when that is unknown. A line
 * that ends where it was (a click on it) is no move.
 */
export function shapeMoves(
  event: Readonly<Record<string, unknown>>,
  shapeIds: readonly string[],
  previous: ReadonlyMap<string, number> = new Map(),
): ShapeMove[] {
  const ends = new Map<number, { y0?: number; y1?: number }>();
  for (const [key, value] of Object.entries(event)) {
    const match = /^shapes\[(\d+)\]\.(y0|y1)$/.exec(key);
    if (!match || typeof value !== 'number' || !Number.isFinite(value)) continue;
    const index = Number(match[1]);
    const entry = ends.get(index) ?? {};
    entry[match[2] as 'y0' | 'y1'] = value;
    ends.set(index, entry);
  }
  const moves: ShapeMove[] = [];
  for (const [index, { y0, y1 }] of [...ends].sort((a, b) => a[0] - b[0])) {
    const id = shapeIds[index];
    if (id === undefined) continue;
    const before = previous.get(id);
    let y: number | undefined;
    if (y0 !== undefined && y1 !== undefined) {
      if (before !== undefined && Math.abs(y0 - y1) > 1e-9) y = Math.abs(y0 - before) > Math.abs(y1 - before) ? y0 : y1;
      else y = (y0 + y1) / 2;
    } else y = y0 ?? y1;
    if (y === undefined) continue;
    const price = Math.round(y * 100) / 100;
    if (before === undefined || Math.abs(price - before) >= 0.005) moves.push({ id, y: price });
  }
  return moves;
}

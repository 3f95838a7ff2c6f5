/**
 * The dashboard's pure rules: layouts and their components, the stock list (where it comes from, the cap of
 * 30, no repeats), the slider's period, live quote updates with their flash, and the figures cards derive.
 */
import {
  DASHBOARD_LAYOUT_LIMIT,
  DEFAULT_DASHBOARD_LAYOUT,
  type DashboardLayoutEntry,
} from '../../../domain/dashboard/layout.ts';
import {
  DEFAULT_DASHBOARD_OPTIONS,
  type DashboardOptions,
  type DashboardSlider,
} from '../../../domain/dashboard/options.ts';
import { DASHBOARD_STOCKS_LIMIT } from '../../../domain/dashboard/stocks.ts';
import { CHANNEL_OPS, LEVEL_OPS, conditionTag, type AlertCondition } from '../../../domain/alerts/conditions.ts';
import type { AlertAnswer } from '../../../domain/contract/alerts.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { PATTERNS } from '../../../domain/screener/patterns.ts';
import { finiteExtent } from '../../components/extent.ts';
import { liveAverage, type AveragedBar } from '../../components/liveAverage.ts';
import { previousCloseOf, sameSession } from '../../components/quoteSession.ts';
import { wallClock } from '../../services/time.ts';
import type { MinuteCandles, NextAverages } from '../../../domain/contract/market.ts';
import { applyNearQuote, type Bar } from '../pricechart/chartData.ts';

export type { DashboardOptions };

/** Most stocks the dashboard list holds (spec section 9). */
export const DASHBOARD_STOCKS_MAX = DASHBOARD_STOCKS_LIMIT;

/** Most layouts a dashboard holds (the server's limit). */
export const DASHBOARD_LAYOUTS_MAX = DASHBOARD_LAYOUT_LIMIT;

/** Most live prices kept per symbol for the "today" chart of a card. */
export const TRAIL_MAX = 300;

/** One layout: its id and the component ids it shows, in order. */
export type LayoutEntry = DashboardLayoutEntry;

/** The layout of a dashboard nobody changed (spec section 3): layout 1 with comp 1, 2 with 2, 3 with 3. */
export const DEFAULT_LAYOUT: readonly LayoutEntry[] = DEFAULT_DASHBOARD_LAYOUT;

/** The components a layout can show, by id. */
export const COMPONENTS: readonly { readonly id: number; readonly name: string }[] = Object.freeze([
  { id: 1, name: 'Performance' },
  { id: 2, name: 'Stock cards' },
  { id: 3, name: 'Alerts and notifications' },
  { id: 4, name: 'Market movers' },
  { id: 5, name: 'Latest patterns' },
]);

/** The name of a component id. */
export function componentName(id: number): string {
  return COMPONENTS.find((c) => c.id === id)?.name ?? `Component ${id}`;
}

/** Toggles a component in a layout: added at the end when absent, removed when present (spec section 4). */
export function toggleComponent(layouts: readonly LayoutEntry[], layoutId: number, compId: number): LayoutEntry[] {
  return layouts.map((layout) => {
    if (layout.layoutId !== layoutId) return layout;
    const present = layout.compId.includes(compId);
    return { layoutId, compId: present ? layout.compId.filter((c) => c !== compId) : [...layout.compId, compId] };
  });
}

/** Adds an empty layout after the others, with the next free id; unchanged at the limit. */
export function addLayout(layouts: readonly LayoutEntry[]): readonly LayoutEntry[] {
  if (layouts.length >= DASHBOARD_LAYOUTS_MAX) return layouts;
  const next = layouts.reduce((max, l) => Math.max(max, l.layoutId), 0) + 1;
  return [...layouts, { layoutId: next, compId: [] }];
}

/** Removes a layout. */
export function removeLayout(layouts: readonly LayoutEntry[], layoutId: number): LayoutEntry[] {
  return layouts.filter((l) => l.layoutId !== layoutId);
}

/** The slider of the options: `val` units of `type` (D days, W weeks, M months, Y years). */
export type Slider = DashboardSlider;

/** The options nobody changed (spec section 3). */
export const DEFAULT_OPTIONS: DashboardOptions = DEFAULT_DASHBOARD_OPTIONS;

/** Months of history the slider asks for (1 to 60): days and weeks round up to whole months. */
export function sliderMonths(slider: Slider): number {
  const months =
    slider.type === 'M'
      ? slider.val
      : slider.type === 'Y'
        ? slider.val * 12
        : slider.type === 'W'
          ? Math.ceil(slider.val / 4)
          : Math.ceil(slider.val / 21);
  return Math.min(60, Math.max(1, months));
}

/** The slider's period in words, e.g. "3 months". */
export function sliderLabel(slider: Slider): string {
  const unit = { D: 'day', W: 'week', M: 'month', Y: 'year' }[slider.type];
  return `${slider.val} ${unit}${slider.val === 1 ? '' : 's'}`;
}

/** Where the dashboard's stocks come from; `custom` when the list was edited by hand. */
export type ListSource = 'portfolio' | 'watchlist' | 'sector' | 'custom';

/** The lists a dashboard's stocks can come from. */
export interface StockLists {
  /** The dashboard stock list saved on the server; empty means "follow the portfolio" (the default). */
  readonly saved: readonly string[];
  /** The portfolio's symbols. */
  readonly portfolio: readonly string[];
  /** The watch list. */
  readonly watchlist: readonly string[];
}

/** Symbols without repeats, the first {@link DASHBOARD_STOCKS_MAX} kept (spec section 4). */
export function capList(symbols: readonly string[]): string[] {
  return [...new Set(symbols)].slice(0, DASHBOARD_STOCKS_MAX);
}

/** The stocks the dashboard shows: the saved list, or the portfolio's first 30 while none is saved. */
export function shownStocks(lists: StockLists): string[] {
  return lists.saved.length > 0 ? capList(lists.saved) : capList(lists.portfolio);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** The options that say the list follows a source of its own. */
export type SourceFlags = Pick<DashboardOptions, 'sectorflag' | 'watchlistflag'>;

/**
 * Which source the shown list is: the sector or the watch list when its flag is on, else the one it matches
 * (portfolio, watch list) or custom.
 */
export function listSource(lists: StockLists, flags: SourceFlags): ListSource {
  if (flags.sectorflag) return 'sector';
  if (flags.watchlistflag) return 'watchlist';
  if (lists.saved.length === 0 || sameList(capList(lists.saved), capList(lists.portfolio))) return 'portfolio';
  if (sameList(capList(lists.saved), capList(lists.watchlist))) return 'watchlist';
  return 'custom';
}

/**
 * The list to save so that a dashboard showing the watch list follows it, as it follows the portfolio: the first 30
 * of the watch list read again, when the dashboard showed the one read before, its own list was not changed
 * meanwhile, and the watch list is not empty and moved; else null.
 */
export function followedWatchlist(before: StockLists, after: StockLists, flags: SourceFlags): string[] | null {
  if (listSource(before, flags) !== 'watchlist') return null;
  if (!sameList(after.saved, before.saved) || after.watchlist.length === 0) return null;
  const next = capList(after.watchlist);
  return sameList(next, capList(after.saved)) ? null : next;
}

/**
 * The list to save so that a dashboard following the watch list (its flag on) shows the watch list as it is now,
 * when the copy saved lags behind it (the watch list changed while no dashboard was open); else null.
 */
export function watchlistCopy(lists: StockLists, flags: SourceFlags): string[] | null {
  if (!flags.watchlistflag || flags.sectorflag || lists.watchlist.length === 0) return null;
  const now = capList(lists.watchlist);
  return sameList(now, capList(lists.saved)) ? null : now;
}

/** The outcome of adding a symbol to the list: the new list, or why it cannot be added. */
export type AddOutcome = { readonly list: string[] } | { readonly refused: string };

/** Adds a symbol at the end of the shown list; refused when already there or when the list is full. */
export function addStock(shown: readonly string[], symbol: string): AddOutcome {
  if (shown.includes(symbol)) return { refused: `${symbol} is already on the dashboard` };
  if (shown.length >= DASHBOARD_STOCKS_MAX) {
    return { refused: `The dashboard holds at most ${DASHBOARD_STOCKS_MAX} stocks: remove one first` };
  }
  return { list: [...shown, symbol] };
}

/** The shown list without a symbol. */
export function removeStock(shown: readonly string[], symbol: string): string[] {
  return shown.filter((s) => s !== symbol);
}

/** A brief colour flash of a price that moved; `seq` changes on every move so the animation restarts. */
export interface Flash {
  readonly dir: 'up' | 'down';
  readonly seq: number;
}

/** A live price for the "today" chart. */
export interface TrailPoint {
  readonly ts: string;
  readonly price: number;
  /** Its session's previous close. */
  readonly prevClose?: number;
}

/** The live state of the shown symbols. */
export interface LiveState {
  readonly quotes: Readonly<Record<string, Quote>>;
  readonly flashes: Readonly<Record<string, Flash>>;
  readonly trails: Readonly<Record<string, readonly TrailPoint[]>>;
}

/** No live data yet. */
export const EMPTY_LIVE: LiveState = Object.freeze({ quotes: {}, flashes: {}, trails: {} });

/**
 * Applies a streamed quote (spec section 4: it replaces the entry of the same symbol): a move from the price
 * held flashes up or down; the first quote of a symbol does not flash. The price joins the symbol's trail
 * unless it repeats the last point; a quote of a later session (another previous close: the next day, or the
 * demo clock's next session of a few minutes) starts the trail over.
 */
export function applyQuote(state: LiveState, quote: Quote): LiveState {
  const previous = state.quotes[quote.symbol];
  const quotes = { ...state.quotes, [quote.symbol]: quote };
  let flashes = state.flashes;
  if (previous !== undefined && previous.price !== quote.price) {
    const seq = (state.flashes[quote.symbol]?.seq ?? 0) + 1;
    flashes = { ...flashes, [quote.symbol]: { dir: quote.price > previous.price ? 'up' : 'down', seq } };
  }
  const prevClose = previousCloseOf(quote);
  const held = state.trails[quote.symbol] ?? [];
  const trail = sameSession(held.at(-1)?.prevClose, prevClose) ? held : [];
  const last = trail.at(-1);
  const trails =
    last !== undefined && last.ts === quote.ts && last.price === quote.price
      ? state.trails
      : {
          ...state.trails,
          [quote.symbol]: [...trail, { ts: quote.ts, price: quote.price, prevClose }].slice(-TRAIL_MAX),
        };
  return { quotes, flashes, trails };
}

/**
 * A card's "Today" line: the session's minute closes the server made of every tick (each at its minute), up to
 * the first live price the page received, then those live prices; the minutes only when they are of the live
 * prices' session (the same previous close), or when there are no live prices yet.
 */
export function todayLine(session: MinuteCandles | null, trail: readonly TrailPoint[]): readonly TrailPoint[] {
  if (session === null || session.candles.length === 0) return trail;
  const prevClose = session.prevClose ?? undefined;
  const first = trail[0];
  if (first !== undefined && prevClose !== undefined && !sameSession(first.prevClose, prevClose)) return trail;
  const from = first === undefined ? Infinity : Date.parse(first.ts);
  const minutes = session.candles
    .filter((candle) => Date.parse(candle.start) < from)
    .map((candle): TrailPoint => ({
      ts: candle.start,
      price: candle.close,
      ...(prevClose === undefined ? {} : { prevClose }),
    }));
  return minutes.length === 0 ? trail : [...minutes, ...trail];
}

/** Keeps only the live state of the symbols still shown. */
export function keepLive(state: LiveState, symbols: readonly string[]): LiveState {
  const keep = new Set(symbols);
  const pick = <T>(record: Readonly<Record<string, T>>) =>
    Object.fromEntries(Object.entries(record).filter(([symbol]) => keep.has(symbol)));
  return { quotes: pick(state.quotes), flashes: pick(state.flashes), trails: pick(state.trails) };
}

/** How the shown stocks move today: advancers, decliners, unchanged and the average % change. */
export interface Breadth {
  readonly up: number;
  readonly down: number;
  readonly flat: number;
  readonly averagePct: number | null;
}

/** The breadth of the shown stocks that have a quote. */
export function breadth(symbols: readonly string[], quotes: Readonly<Record<string, Quote>>): Breadth {
  const known = symbols.map((s) => quotes[s]).filter((q): q is Quote => q !== undefined);
  const up = known.filter((q) => q.changepct > 0).length;
  const down = known.filter((q) => q.changepct < 0).length;
  const averagePct =
    known.length === 0 ? null : Math.round((known.reduce((sum, q) => sum + q.changepct, 0) / known.length) * 100) / 100;
  return { up, down, flat: known.length - up - down, averagePct };
}

/** The change and % change from a base price to a price, or null without a usable base. */
export function changeSince(base: number | null | undefined, price: number): { change: number; pct: number } | null {
  if (base === null || base === undefined || !(base > 0) || !Number.isFinite(price)) return null;
  const change = price - base;
  return { change: Math.round(change * 100) / 100, pct: Math.round((change / base) * 10000) / 100 };
}

/** Price over earnings per share, or null when earnings are not positive. */
export function peRatio(price: number, eps: number | null | undefined): number | null {
  if (eps === null || eps === undefined || !(eps > 0)) return null;
  return Math.round((price / eps) * 100) / 100;
}

/** The lowest low and highest high of bars, or null without bars. */
export function priceRange(bars: readonly { low: number; high: number }[]): { low: number; high: number } | null {
  if (bars.length === 0) return null;
  let low = Infinity;
  let high = -Infinity;
  for (const bar of bars) {
    if (bar.low < low) low = bar.low;
    if (bar.high > high) high = bar.high;
  }
  return { low, high };
}

/** The share of a small chart's span left free above and below its values. */
const CHART_PAD = 0.1;

/**
 * A small chart's price axis: the values' span with {@link CHART_PAD} of it free on each side (a flat series
 * ±0.5% of its price), so neither the line nor the lowest price label sits on the dates below; null without a
 * finite value (the chart fits itself).
 */
export function paddedRange(values: readonly number[]): [number, number] | null {
  const extent = finiteExtent(values);
  if (extent === null) return null;
  const { lo, hi } = extent;
  const pad = hi > lo ? (hi - lo) * CHART_PAD : Math.max(Math.abs(hi) * 0.005, 0.01);
  return [lo - pad, hi + pad];
}

/** The steps a small chart's axis labels may be apart, times a power of ten. */
const TICK_STEPS = [1, 2, 2.5, 5];

/**
 * A small chart's price labels over its axis `range`: the multiples within it of the smallest step of 1, 2, 2.5 or
 * 5 times a power of ten that gives at most `most` of them, so there are always two or more (Plotly's own choice
 * under a cap of four labels left a card whose prices spanned 455 to 545 with 500 alone). Empty for an empty or
 * non-finite range.
 */
export function axisTicks(range: readonly [number, number], most = 5): number[] {
  const [lo, hi] = range;
  const span = hi - lo;
  if (!Number.isFinite(span) || span <= 0) return [];
  let power = 10 ** Math.floor(Math.log10(span / most));
  for (;;) {
    for (const m of TICK_STEPS) {
      const step = m * power;
      const first = Math.ceil(lo / step);
      const last = Math.floor(hi / step);
      if (last - first + 1 <= most) {
        const ticks: number[] = [];
        // Rounded to 12 significant digits, so 0.1 × 3 reads 0.3, not 0.30000000000000004.
        for (let k = first; k <= last; k++) ticks.push(Number((k * step).toPrecision(12)));
        return ticks;
      }
    }
    power *= 10;
  }
}

/** The last % change of each series, highest first; series without a value are left out. */
export function performanceBars(
  series: readonly { symbol: string; values: readonly (number | null)[] }[],
): { symbol: string; pct: number }[] {
  const out: { symbol: string; pct: number }[] = [];
  for (const s of series) {
    const last = [...s.values].reverse().find((v): v is number => v !== null && Number.isFinite(v));
    if (last !== undefined) out.push({ symbol: s.symbol, pct: last });
  }
  return out.sort((a, b) => b.pct - a.pct || (a.symbol < b.symbol ? -1 : 1));
}

const patternLabels: ReadonlyMap<string, string> = new Map(PATTERNS.map((p) => [p.name, p.label]));

/** The label of a pattern name (`bullish_engulfing` → `Bullish engulfing`); an unknown name with its underscores as spaces. */
export function patternLabel(name: string): string {
  return patternLabels.get(name) ?? name.replaceAll('_', ' ');
}

/**
 * A card's bars over its period ending at the live price: the day's bar formed from its quote (or the last bar
 * moved by a quote of its own session), as the price chart forms it; the bars as loaded without a quote, or with
 * one long after them (`applyNearQuote`).
 */
export function periodBars(bars: readonly Bar[], next: NextAverages | null, quote: Quote | undefined): readonly Bar[] {
  return quote === undefined ? bars : applyNearQuote(bars, quote, next);
}

/**
 * A card's moving average of `period` at its live quote, today's price counted as the alerts count it (see
 * `liveAverage`); the last bar's own without a quote, or with one older than it.
 */
export function cardAverage(
  period: 50 | 200,
  bars: readonly AveragedBar[],
  next: NextAverages | null,
  quote: Pick<Quote, 'price' | 'ts'> | undefined,
): number | null {
  const last = bars.at(-1);
  if (last === undefined) return null;
  const day = quote === undefined ? null : (wallClock(quote.ts, 'market')?.date ?? null);
  if (quote === undefined || day === null || day < last.date) return last[`SMA_${period}`] ?? null;
  return liveAverage(period, last, day, quote.price, next);
}

/** A price level a card's chart marks: a line at `y` with its tag. */
export interface CardLevel {
  readonly y: number;
  readonly text: string;
}

/** A channel of the price a card's chart marks: a band from `lower` to `upper`, its tag at the top. */
export interface CardBand {
  readonly lower: number;
  readonly upper: number;
  readonly text: string;
}

/** What a card's chart marks of its symbol's alerts (see {@link cardAlertMarks}). */
export interface CardMarks {
  readonly levels: readonly CardLevel[];
  readonly bands: readonly CardBand[];
}

/**
 * What a card's chart marks of its symbol's alerts: a line at a price alert's threshold (`▲ 190.00`) and at the
 * level of a condition of the price against one price (`▲ 190.00` crossing up, `≥ 190.00`), a band for a channel
 * of the price between two prices (`Enter`), tagged briefly as the price chart tags them on a narrow plot, so the
 * tags at the right edge of the card's small chart cover little of its latest prices; the others (other series,
 * moves) are not on its axis.
 */
export function cardAlertMarks(
  alerts: readonly Pick<AlertAnswer, 'kind' | 'threshold' | 'alerttype' | 'condition'>[],
): CardMarks {
  const levels: CardLevel[] = [];
  const bands: CardBand[] = [];
  for (const alert of alerts) {
    if (alert.kind === 'PRICE') {
      if (alert.threshold !== null) {
        levels.push({
          y: alert.threshold,
          text: `${alert.alerttype === 'U' ? '▲' : '▼'} ${alert.threshold.toFixed(2)}`,
        });
      }
      continue;
    }
    const { condition } = alert;
    if (alert.kind !== 'CONDITION' || condition.source !== 'price') continue;
    // The answer's sources are the contract's strings, checked by the server as `AlertSource`s.
    const text = conditionTag(condition as AlertCondition, true);
    if (LEVEL_OPS.includes(condition.op) && typeof condition.value === 'number') {
      levels.push({ y: condition.value, text });
    } else if (
      CHANNEL_OPS.includes(condition.op) &&
      typeof condition.lower === 'number' &&
      typeof condition.upper === 'number'
    ) {
      bands.push({ lower: condition.lower, upper: condition.upper, text });
    }
  }
  return { levels, bands };
}

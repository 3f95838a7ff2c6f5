/**
 * The price chart's data, as pure functions: durations and what they load, live quotes folded into the daily
 * bars and into today's minute candles, support and resistance from swing highs and lows, and the chart
 * elements of alerts, levels, patterns and compared symbols.
 */
import {
  ALERT_THRESHOLD_MAX,
  priceAlertFires,
  thresholdProblem as alertThresholdProblem,
  toCents,
  type ThresholdProblem,
} from '../../../domain/alerts/alerts.ts';
import {
  CHANNEL_OPS,
  LEVEL_OPS,
  MOVING_OPS,
  conditionTag,
  movingLevelOf,
  opDirection,
  type AlertCondition,
  type AlertOp,
  type AlertSource,
} from '../../../domain/alerts/conditions.ts';
import { formatNumber, formatPrice, formatSigned, formatSignedPercent } from '../../../domain/format.ts';
import type { AlertAnswer } from '../../../domain/contract/alerts.ts';
import type { ChartBar, MinuteCandle, MinuteCandles, NextAverages } from '../../../domain/contract/market.ts';
import type { PatternRowAnswer } from '../../../domain/contract/patterns.ts';
import type { Quote } from '../../../domain/market/types.ts';
import { SMA_PERIODS, type SmaPeriod } from '../../../domain/screener/query.ts';
import { previousCloseOf, sameSession } from '../../components/quoteSession.ts';
import { channelPlacement, panelNote, seriesValues, sourcePanel, type ChartView, type Panel } from './channelBands.ts';
import {
  MAX_LABEL_SHARE,
  normalizeSeries,
  trimToLength,
  type BandAxis,
  type ChartElement,
  type MarkerPoint,
} from './chartElements.ts';
import { wallClock } from '../../services/time.ts';
import { liveAverage, liveRsi } from '../../components/liveAverage.ts';

/**
 * A daily bar of the chart: the server's, or one the page formed from quotes, which keeps the close its session's
 * change is measured from (`prevClose`): what tells that session's later quotes from the next session's.
 */
export type Bar = ChartBar & { readonly prevClose?: number };

/**
 * A minute candle of the live session: the server's (every tick of the minute), or one live quotes moved or
 * formed, with the close its session's change is measured from (what tells a later session's quotes).
 */
export type Candle = Omit<MinuteCandle, 'start'> & { readonly prevClose?: number };

/** A pattern row as `GET /api/patterns/recentstkpattern/{stock}/{limitdays}` answers it. */
export type PatternRow = PatternRowAnswer;

/** An alert as the alert routes answer it. */
export type ChartAlert = AlertAnswer;

export { SMA_PERIODS, type SmaPeriod };

/** The overlays shown when the chart opens. */
export const DEFAULT_SMAS: readonly SmaPeriod[] = [50, 200];

/** The colour of each moving-average overlay. */
export const SMA_COLORS: Readonly<Record<SmaPeriod, string>> = {
  20: '#f59e0b',
  50: '#2563eb',
  100: '#9333ea',
  200: '#0f766e',
};

/** The colour of the RSI(14) panel's line. */
export const RSI_COLOR = '#db2777';

/** The durations of the picker, shortest first. */
export const DURATIONS = ['1D', '5D', '1M', '3M', '6M', '1Y', '2Y', '5Y'] as const;

/** A duration of the picker. */
export type Duration = (typeof DURATIONS)[number];

/** The duration the chart opens with (the product's 3-month default). */
export const DEFAULT_DURATION: Duration = '3M';

const MONTHS: Readonly<Record<Duration, number>> = {
  '1D': 1,
  '5D': 1,
  '1M': 1,
  '3M': 3,
  '6M': 6,
  '1Y': 12,
  '2Y': 24,
  '5Y': 60,
};

const PATTERN_DAYS: Readonly<Record<Duration, number>> = {
  '1D': 1,
  '5D': 5,
  '1M': 23,
  '3M': 66,
  '6M': 130,
  '1Y': 260,
  '2Y': 520,
  '5Y': 1250,
};

/** Whether a text is a duration of the picker. */
export function isDuration(value: string): value is Duration {
  return (DURATIONS as readonly string[]).includes(value);
}

/** Months of daily bars a duration loads (`GET /api/bars/{symbol}?months=N`; 1D and 5D load one month). */
export function durationMonths(duration: Duration): number {
  return MONTHS[duration];
}

/** Trading days of patterns a duration asks for. */
export function patternDays(duration: Duration): number {
  return PATTERN_DAYS[duration];
}

/** The bars a duration shows of those loaded: the last five for 5D, all of them otherwise. */
export function barsOfDuration(duration: Duration, bars: readonly Bar[]): Bar[] {
  return duration === '5D' ? trimToLength(bars, 5) : [...bars];
}

/** The New York wall-clock minute of an instant, `YYYY-MM-DD HH:MM`, or null for an invalid time. */
export function marketMinute(ts: string): string | null {
  const clock = wallClock(ts, 'market');
  return clock && `${clock.date} ${clock.time.slice(0, 5)}`;
}

/** The New York trading date of an instant, `YYYY-MM-DD`, or null for an invalid time. */
export function marketDate(ts: string): string | null {
  return marketMinute(ts)?.slice(0, 10) ?? null;
}

/**
 * Folds a live quote into the daily bars, by the session the server counts it of: its previous close (the price
 * less its change, the close the header measures the day's change from) tells which bar it moves. A quote whose
 * previous close is the close before the last stored bar is of that bar's own session and moves its close (and
 * high, low, volume); one whose previous close is that bar's close (the server's first tick after a stored day
 * starts the next session from it, even on the same New York date, after the close) or another is of a later
 * session and forms the bar after it (the session's open, high and low as the quote says them), never changing
 * the stored one; a quote of a later date forms it too. Such a bar is dated by the quote's date, or the weekday
 * after the stored bar's when the quote is of that bar's date (the session the server's clock opens next; its
 * holidays are not known here). A quote of the bar the page formed (of its session: the previous close the bar
 * keeps) moves it; on the demo clock a trading day is a session of a few minutes: a quote whose previous close
 * is another is of a later session, and the bar forms again from it, as a reload of the chart then shows it. An
 * older quote, or one that changes nothing, leaves the bars as they are (the same array). The moving averages
 * move with the price, as the alerts' do (today's close counted): a bar's by the change of its close over the
 * period, a new bar's from `next`, the sums the server's bars end with (none when the bars go on past them, or
 * it has none); so does a formed bar's RSI 14, from `next`'s average gain and loss.
 */
export function applyQuote(bars: readonly Bar[], quote: Quote, next: NextAverages | null = null): readonly Bar[] {
  const last = bars.at(-1);
  const day = marketDate(quote.ts);
  if (!last || day === null) return bars;
  const before = bars.at(-2);
  if (next !== null && before !== undefined && before.date === next.after) {
    // The bar the page formed after the server's last: its RSI from the stored close before it.
    if (day < before.date) return bars;
    if (day > last.date) return [...bars, formingBar(last, day, quote, next)];
    if (sameSession(last.prevClose ?? last.open, previousCloseOf(quote))) {
      return movedBar(bars, last, quote, next, liveRsi(before, quote.price, next));
    }
    // A late quote of the stored bar's own session changes neither bar.
    if (day === before.date && ofStoredSession(bars.slice(0, -1), quote)) return bars;
    return [...bars.slice(0, -1), formingBar(before, sessionDate(before, day), quote, next)];
  }
  if (day < last.date) return bars;
  if (day === last.date && ofStoredSession(bars, quote)) return movedBar(bars, last, quote, next, last.rsi_14);
  return [...bars, formingBar(last, sessionDate(last, day), quote, next)];
}

/** The most calendar days from a stored bar to the next session's: a long weekend with a holiday. */
const NEXT_SESSION_DAYS = 5;

/**
 * {@link applyQuote} on a chart whose dates are on a time axis (a card's line, the screener's panel): a quote more
 * than a long weekend after the last bar is of a market whose stored days stopped (the sessions between are not
 * there), and a bar at its date would draw a straight segment across the missing days; the bars are left as they
 * are then.
 */
export function applyNearQuote(bars: readonly Bar[], quote: Quote, next: NextAverages | null = null): readonly Bar[] {
  const last = bars.at(-1);
  const day = marketDate(quote.ts);
  if (last === undefined || day === null) return bars;
  const gap = (Date.parse(`${day}T00:00:00Z`) - Date.parse(`${last.date}T00:00:00Z`)) / 86_400_000;
  return gap > NEXT_SESSION_DAYS ? bars : applyQuote(bars, quote, next);
}

/**
 * Whether a quote is of the last bar's own session, as the server tells a session by its previous close: that
 * session's change is measured from the close before the bar (a symbol's first bar, its own close, as the live
 * quotes are seeded), while the session after it measures from the bar's close. When the two closes are one (a
 * flat day), only a quote at the bar's close is taken to be of its session: it changes nothing there.
 */
function ofStoredSession(bars: readonly Bar[], quote: Quote): boolean {
  const last = bars.at(-1);
  if (last === undefined) return false;
  const previousClose = previousCloseOf(quote);
  const fromBefore = sameSession(bars.at(-2)?.close ?? last.close, previousClose);
  return fromBefore && (!sameSession(last.close, previousClose) || quote.price === last.close);
}

/** The bars with their last, `last`, moved by a quote of its session: close, high, low, volume, averages; `rsi`. */
function movedBar(
  bars: readonly Bar[],
  last: Bar,
  quote: Quote,
  next: NextAverages | null,
  rsi: number | null,
): readonly Bar[] {
  const volume = Math.max(last.volume, quote.volume);
  // The session's high and low so far when the quote says them: a tick between two quotes may have set them.
  const high = Math.max(last.high, quote.price, quote.high ?? -Infinity);
  const low = Math.min(last.low, quote.price, quote.low ?? Infinity);
  if (last.close === quote.price && volume === last.volume && high === last.high && low === last.low) return bars;
  const moved = (period: SmaPeriod): number | null => liveAverage(period, last, last.date, quote.price, next);
  return [
    ...bars.slice(0, -1),
    {
      ...last,
      close: quote.price,
      high,
      low,
      volume,
      SMA_20: moved(20),
      SMA_50: moved(50),
      SMA_100: moved(100),
      SMA_200: moved(200),
      rsi_14: rsi,
    },
  ];
}

/**
 * The date of the bar a session after `base` forms with a quote of New York date `day`: that date when it is
 * later, else (a quote after `base`'s close, on its date) the weekday after `base`'s, where the next session is.
 */
function sessionDate(base: Bar, day: string): string {
  if (day > base.date) return day;
  const date = new Date(`${base.date}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  // Saturday and Sunday are no sessions.
  while (date.getUTCDay() === 0 || date.getUTCDay() === 6) date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/**
 * Whether a quote is of a day after the bar the page formed (a bar after `next.after`, the server's last): that
 * day has closed since the bars were loaded, so the server holds its bar and the averages after it (a page kept
 * open overnight). Without a formed bar, or on the formed bar's day (the demo clock's sessions of one date too),
 * false.
 */
export function formedDayClosed(bars: readonly Bar[], next: NextAverages | null, quote: Quote): boolean {
  const day = marketDate(quote.ts);
  return endsWithFormedBar(bars, next) && day !== null && day > bars.at(-1)!.date;
}

/** Whether the last bar is one the page formed from quotes, after `next.after` (the server's last bar). */
export function endsWithFormedBar(bars: readonly Bar[], next: NextAverages | null): boolean {
  const last = bars.at(-1);
  return next !== null && last !== undefined && last.date > next.after;
}

/**
 * The bar forming on `day` after the stored bar `base`, at the quote's price: it opens at the session's first
 * price (at the previous close when the quote does not say it).
 */
function formingBar(base: Bar, day: string, quote: Quote, next: NextAverages | null): Bar {
  // The session's own open, high and low when the quote says them (the ticks between two quotes included).
  const open = quote.open ?? previousCloseOf(quote);
  const average = (period: SmaPeriod): number | null => liveAverage(period, base, day, quote.price, next);
  return {
    date: day,
    open,
    high: Math.max(open, quote.price, quote.high ?? -Infinity),
    low: Math.min(open, quote.price, quote.low ?? Infinity),
    close: quote.price,
    volume: quote.volume,
    SMA_20: average(20),
    SMA_50: average(50),
    SMA_100: average(100),
    SMA_200: average(200),
    rsi_14: liveRsi(base, quote.price, next),
    prevClose: previousCloseOf(quote),
  };
}

/** Most minute candles kept for the 1D chart. */
export const INTRADAY_MAX = 1000;

/**
 * Folds a live quote into today's minute candles: the quote's minute updates the last candle or starts a new
 * one (a quote of another day starts over, and so does one of a later session: on the demo clock a trading day
 * is a session of a few minutes, told by its previous close); an older or unchanged quote leaves the list as it
 * is.
 */
export function addQuoteToIntraday(candles: readonly Candle[], quote: Quote): readonly Candle[] {
  const time = marketMinute(quote.ts);
  if (time === null) return candles;
  const prevClose = previousCloseOf(quote);
  const last = candles.at(-1);
  if (last && time < last.time) return candles;
  const ofSession = sameSession(last?.prevClose, prevClose);
  if (last && time === last.time && ofSession) {
    if (last.close === quote.price && last.sessionVolume === quote.volume) return candles;
    const traded = Math.max(0, quote.volume - last.sessionVolume);
    return [
      ...candles.slice(0, -1),
      {
        ...last,
        high: Math.max(last.high, quote.price),
        low: Math.min(last.low, quote.price),
        close: quote.price,
        volume: last.volume + traded,
        sessionVolume: Math.max(last.sessionVolume, quote.volume),
      },
    ];
  }
  const sameDay = last !== undefined && last.time.slice(0, 10) === time.slice(0, 10) && ofSession;
  const kept = sameDay ? candles : [];
  const open = sameDay ? last.close : quote.price;
  const traded = sameDay ? Math.max(0, quote.volume - last.sessionVolume) : 0;
  return trimToLength(
    [
      ...kept,
      {
        time,
        open,
        high: Math.max(open, quote.price),
        low: Math.min(open, quote.price),
        close: quote.price,
        volume: traded,
        sessionVolume: quote.volume,
        prevClose,
      },
    ],
    INTRADAY_MAX,
  );
}

/**
 * The 1D chart's candles from the server's minute candles of the session, each with the session's previous
 * close, and the latest quote folded in when it is of later trading (the session's volume past the last
 * candle's, or no candle yet): a quote received while they were loading moves what they show, an older one
 * does not take the close back.
 */
export function intradayOf(answer: MinuteCandles, quote: Quote | null): readonly Candle[] {
  const prevClose = answer.prevClose;
  const candles: readonly Candle[] =
    prevClose === null ? answer.candles : answer.candles.map((candle) => ({ ...candle, prevClose }));
  if (quote === null || quote.symbol !== answer.symbol) return candles;
  const last = candles.at(-1);
  if (last !== undefined && quote.volume <= last.sessionVolume) return candles;
  return addQuoteToIntraday(candles, quote);
}

/** Support levels below the last close and resistance levels above it, nearest first. */
export interface Levels {
  readonly support: readonly number[];
  readonly resistance: readonly number[];
}

/** Options of {@link supportResistance}. */
export interface LevelOptions {
  /** Bars on each side a swing high (low) must top (undercut). */
  readonly span?: number;
  /** Bars looked back. */
  readonly lookback?: number;
  /** Levels of each kind answered. */
  readonly count?: number;
  /** Levels closer than this fraction of the price count as one. */
  readonly merge?: number;
}

const round2 = (value: number): number => Math.round(value * 100) / 100;

function nearestLevels(candidates: readonly number[], count: number, merge: number): number[] {
  const kept: number[] = [];
  for (const level of candidates) {
    if (kept.some((k) => Math.abs(k - level) <= merge * k)) continue;
    kept.push(level);
    if (kept.length === count) break;
  }
  return kept.map(round2);
}

/**
 * Support and resistance from the recent swing highs and lows: a swing high is a bar whose high tops the
 * `span` bars before it and is not topped by the `span` bars after it (a swing low likewise); resistance is
 * the swing highs above the last close, support the swing lows below it, nearest first, close levels merged.
 * Without a swing on one side, the highest high (lowest low) of the window stands in when it is on that side.
 */
export function supportResistance(bars: readonly Bar[], options: LevelOptions = {}): Levels {
  const { span = 3, lookback = 120, count = 2, merge = 0.01 } = options;
  const window = trimToLength(bars, lookback);
  const last = window.at(-1);
  if (!last) return { support: [], resistance: [] };
  const highs: number[] = [];
  const lows: number[] = [];
  for (let i = span; i < window.length - span; i += 1) {
    const bar = window[i] as Bar;
    let high = true;
    let low = true;
    for (let j = i - span; j <= i + span; j += 1) {
      if (j === i) continue;
      const other = window[j] as Bar;
      if (j < i ? other.high >= bar.high : other.high > bar.high) high = false;
      if (j < i ? other.low <= bar.low : other.low < bar.low) low = false;
    }
    if (high) highs.push(bar.high);
    if (low) lows.push(bar.low);
  }
  const above = highs.filter((h) => h > last.close).sort((a, b) => a - b);
  const below = lows.filter((l) => l < last.close).sort((a, b) => b - a);
  const top = Math.max(...window.map((b) => b.high));
  const bottom = Math.min(...window.map((b) => b.low));
  return {
    resistance: nearestLevels(above.length > 0 ? above : top > last.close ? [top] : [], count, merge),
    support: nearestLevels(below.length > 0 ? below : bottom < last.close ? [bottom] : [], count, merge),
  };
}

/** Colours of the chart's own lines. */
export const LEVEL_COLORS = Object.freeze({
  support: '#0284c7',
  resistance: '#b45309',
  close: '#64748b',
  up: '#138a36',
  down: '#c62828',
  triggered: '#8a94a6',
  channel: '#7c3aed',
  crossing: '#2563eb',
});

/** The SAR elements of support and resistance levels. */
export function levelElements(symbol: string, levels: Levels): ChartElement[] {
  const make = (kind: 'support' | 'resistance', y: number, i: number): ChartElement => {
    const name = kind === 'support' ? 'Support' : 'Resistance';
    const label = `${name} ${y.toFixed(2)}`;
    return {
      symbol,
      id: `sar-${kind}-${i}`,
      type: 'SAR',
      charttype: kind,
      chartdata: {
        y,
        label,
        // On a phone's chart, where the words would crowd each other over the candles: `S 324.10`, `R 341.97`.
        brief: `${name[0]!} ${y.toFixed(2)}`,
        words: label,
        dash: 'dot',
        clickable: false,
      },
      color: LEVEL_COLORS[kind],
      normalize: false,
    };
  };
  return [
    ...levels.support.map((y, i) => make('support', y, i)),
    ...levels.resistance.map((y, i) => make('resistance', y, i)),
  ];
}

/** The SAR element of the previous close, the reference line of the 1D chart. */
export function closeElement(symbol: string, close: number): ChartElement {
  return {
    symbol,
    id: 'sar-close',
    type: 'SAR',
    charttype: 'close',
    chartdata: { y: close, label: `Previous close ${close.toFixed(2)}`, dash: 'dash', clickable: false },
    color: LEVEL_COLORS.close,
    normalize: false,
  };
}

/**
 * The name of an alert: direction and threshold (or moving average), or its condition in words; `brief`, a price
 * or SMA alert's without the direction's word (`▲ 190.00`, as the dashboard's cards write it).
 */
export function alertName(alert: ChartAlert, brief = false): string {
  if (alert.kind === 'CONDITION') return alert.conditiontext;
  const up = alert.alerttype === 'U';
  const arrow = brief ? (up ? '▲' : '▼') : up ? '▲ Up' : '▼ Down';
  const what = alert.kind === 'SMA' ? `SMA ${alert.period ?? ''}`.trim() : (alert.threshold ?? 0).toFixed(2);
  return `${arrow} ${what}`;
}

/** The label of an alert: its name, then its status (a price or SMA alert's only once triggered). */
export function alertLabel(alert: ChartAlert): string {
  const shown = alert.kind === 'CONDITION' ? alert.status !== 'armed' : alert.status === 'triggered';
  return `${alertName(alert)}${shown ? ` · ${alert.status}` : ''}`;
}

/**
 * The short tag an alert's line or band carries on the chart, the words of {@link alertLabel} shown on hover: a
 * condition's {@link conditionTag} (with today's level `level` of a moving one), then its status as the label
 * has it; a price or SMA alert's label is short already. `brief`, the tag written where that one does not fit
 * (see `fittedLabel`): the condition's brief tag, or the price or SMA alert's brief name, without the status
 * (its line's grey dots tell it).
 */
export function alertTag(alert: ChartAlert, level?: string, brief = false): string {
  if (alert.kind !== 'CONDITION') return brief ? alertName(alert, true) : alertLabel(alert);
  if (brief) return conditionTag(alert.condition as AlertCondition, true);
  const today = level === undefined ? '' : ` · ${level}`;
  // The answer's sources are the contract's strings, checked by the server as `AlertSource`s.
  const tag = conditionTag(alert.condition as AlertCondition);
  return `${tag}${today}${alert.status !== 'armed' ? ` · ${alert.status}` : ''}`;
}

/**
 * Why a price alert would fire at once: its condition (the domain's, `U` at or above the threshold, `D` at or
 * below, in cents) already holds at the last price, as in `the price (520.51) is already above 495.14`; null
 * when it does not, or when there is no last price.
 */
export function holdsAlready(threshold: number, alerttype: 'U' | 'D', last: number | null): string | null {
  if (last === null || !Number.isFinite(threshold) || !Number.isFinite(last)) return null;
  if (!priceAlertFires({ alerttype, thresholdCents: toCents(threshold) }, last)) return null;
  const cents = toCents(threshold);
  const where = toCents(last) === cents ? 'at' : alerttype === 'U' ? 'above' : 'below';
  return `the price (${(toCents(last) / 100).toFixed(2)}) is already ${where} ${(cents / 100).toFixed(2)}`;
}

/** A bar's field of a moving average. */
export function smaKey(period: SmaPeriod): 'SMA_20' | 'SMA_50' | 'SMA_100' | 'SMA_200' {
  return `SMA_${period}`;
}

/** The value of a moving average on the last bar that has it, or null. */
export function lastSma(bars: readonly Bar[], period: number): number | null {
  // Another period (0 for an alert without one) names no field of a bar: no value.
  const key = smaKey(period as SmaPeriod);
  for (let i = bars.length - 1; i >= 0; i -= 1) {
    const value = (bars[i] as Bar)[key];
    if (typeof value === 'number') return value;
  }
  return null;
}

/** The colour of a condition alert by its operator: channels purple, rises green, falls red, crossings blue. */
function conditionColor(op: AlertOp): string {
  if (CHANNEL_OPS.includes(op)) return LEVEL_COLORS.channel;
  const way = opDirection(op);
  return way === null ? LEVEL_COLORS.crossing : LEVEL_COLORS[way];
}

/** The axis each panel's values are drawn on. */
export const PANEL_AXES: Readonly<Record<Panel, BandAxis>> = { price: 'y', volume: 'y2', rsi: 'y4' };

/** The view of daily bars with the price and volume panels (the RSI panel is turned on by its chip). */
export const DAILY_VIEW: ChartView = Object.freeze<ChartView>({
  panels: ['price', 'volume'],
  daily: true,
  missing: { rsi: 'turn on the RSI 14 chip' },
});

/** The view of daily bars with the RSI panel too. */
export const DAILY_RSI_VIEW: ChartView = Object.freeze<ChartView>({ panels: ['price', 'volume', 'rsi'], daily: true });

/** The view of the 1D minute candles: the price panel (its volume bars are per minute, not the day's volume). */
export const INTRADAY_VIEW: ChartView = Object.freeze<ChartView>({
  panels: ['price'],
  daily: false,
  missing: { volume: 'the 1D volume bars are per minute, not the day', rsi: 'choose a daily duration' },
});

/** The view a duration shows, with the RSI panel when it is turned on (daily durations only). */
export function chartView(duration: Duration, rsiPanel = false): ChartView {
  if (duration === '1D') return INTRADAY_VIEW;
  return rsiPanel ? DAILY_RSI_VIEW : DAILY_VIEW;
}

/**
 * Today's level of a moving alert, as the engine sets it at the close: the series' value `bars` finished bars
 * back plus or minus the amount (or its percent of that value). `forming` says whether the last bar is today's,
 * still forming (then not a finished bar). Null for another operator, a series the chart has no axis for (the
 * day's change), or when the bars do not reach that far back.
 */
export function movingLevelToday(
  condition: AlertAnswer['condition'],
  bars: readonly Bar[],
  forming: boolean,
): number | null {
  const { op, source, value } = condition;
  if (!MOVING_OPS.includes(op) || typeof value !== 'number' || sourcePanel(source) === null) return null;
  const finished = seriesValues(source, forming ? bars.slice(0, -1) : bars);
  const base = finished[finished.length - (condition.bars ?? 1)];
  if (typeof base !== 'number' || !Number.isFinite(base)) return null;
  const up = op === 'moving_up' || op === 'moving_up_pct';
  return movingLevelOf(up, op.endsWith('_pct'), base, value);
}

/**
 * The element of a condition alert: a shaded BAND for a channel on its source's panel (bounds as constants or
 * following the series they refer to, see {@link channelPlacement}), an ALERT line for a series against one
 * level on its panel (the price, an average on the price axis, RSI on its panel, volume on the bars'), and one
 * at today's level of a move of a series ({@link movingLevelToday}); null for any other, which the alert list
 * shows in words (with {@link chartNote}'s reason for one whose panel is not shown).
 */
export function conditionElement(
  alert: ChartAlert,
  bars: readonly Bar[] = [],
  view: ChartView = DAILY_VIEW,
  forming = false,
): ChartElement | null {
  const { condition } = alert;
  const done = alert.status !== 'armed';
  const color = done ? LEVEL_COLORS.triggered : conditionColor(condition.op);
  const base = { symbol: alert.symbol, id: alert.id, charttype: 'condition', color, normalize: false };
  const label = `${alertTag(alert)} ✕`;
  const brief = `${alertTag(alert, undefined, true)} ✕`;
  const words = alertLabel(alert);
  const dash = done ? 'dot' : 'dash';
  const placement = channelPlacement(condition, bars, view);
  if (placement) {
    if (!placement.drawn) return null;
    const { lower, upper, x, panel } = placement;
    const series = typeof lower !== 'number' || typeof upper !== 'number';
    return {
      ...base,
      type: 'BAND',
      chartdata: {
        lower,
        upper,
        ...(series ? { x } : {}),
        axis: PANEL_AXES[panel],
        label,
        brief,
        words,
        dash,
        clickable: true,
      },
    };
  }
  const panel = sourcePanel(condition.source);
  const moving = panel !== null && view.panels.includes(panel) ? movingLevelToday(condition, bars, forming) : null;
  if (moving !== null && panel !== null) {
    const y = panel === 'volume' ? Math.round(moving) : Math.round(moving * 100) / 100;
    const shown = panel === 'price' ? y.toFixed(2) : panel === 'rsi' ? y.toFixed(1) : formatNumber(y);
    const today = `${alertTag(alert, shown)} ✕`;
    const axis = PANEL_AXES[panel];
    const said = `${words} (today at ${shown})`;
    const chartdata = { y, label: today, brief, words: said, dash, clickable: true, axis } as const;
    return { ...base, type: 'ALERT', chartdata };
  }
  if (!LEVEL_OPS.includes(condition.op) || typeof condition.value !== 'number') return null;
  if (condition.source === 'price') {
    return { ...base, type: 'ALERT', chartdata: { y: condition.value, label, brief, words, dash, clickable: true } };
  }
  // A level of another series on its panel: an average on the price axis, RSI on its panel, volume on the bars'.
  if (panel === null || !view.panels.includes(panel)) return null;
  const axis = PANEL_AXES[panel];
  const chartdata = { y: condition.value, label, brief, words, dash, clickable: true, axis } as const;
  return { ...base, type: 'ALERT', chartdata };
}

/** Why an alert is not drawn on the chart (a channel, a move or a level without a place there), or null. */
export function chartNote(alert: ChartAlert, bars: readonly Bar[], view: ChartView): string | null {
  if (alert.kind !== 'CONDITION') return null;
  const placement = channelPlacement(alert.condition, bars, view);
  if (placement) return placement.drawn ? null : placement.note;
  const { op, source, value } = alert.condition;
  const level = LEVEL_OPS.includes(op) && typeof value === 'number' && source !== 'price';
  return MOVING_OPS.includes(op) || level ? panelNote(source as AlertSource, view) : null;
}

/**
 * The element of an alert: a price alert is a line at its threshold, an SMA alert a label at the average's
 * last value (armed alerts green up or red down and dashed, triggered ones grey and dotted), a condition alert
 * as {@link conditionElement} draws it; the label (✕) deletes it when clicked.
 */
export function alertElement(
  alert: ChartAlert,
  bars: readonly Bar[],
  view: ChartView = DAILY_VIEW,
  forming = false,
): ChartElement | null {
  if (alert.kind === 'CONDITION') return conditionElement(alert, bars, view, forming);
  const triggered = alert.status === 'triggered';
  const y = alert.kind === 'SMA' ? lastSma(bars, alert.period ?? 0) : alert.threshold;
  return {
    symbol: alert.symbol,
    id: alert.id,
    type: 'ALERT',
    charttype: alert.kind === 'SMA' ? 'sma' : 'price',
    chartdata: {
      y,
      label: `${alertLabel(alert)} ✕`,
      brief: `${alertTag(alert, undefined, true)} ✕`,
      dash: triggered ? 'dot' : 'dash',
      clickable: true,
    },
    color: triggered ? LEVEL_COLORS.triggered : alert.alerttype === 'U' ? LEVEL_COLORS.up : LEVEL_COLORS.down,
    normalize: false,
  };
}

/** A channel's bounds, lower below upper. */
export interface Channel {
  readonly lower: number;
  readonly upper: number;
}

/**
 * The channel being drawn: after the first click a line at that price, after the second the shaded band
 * between the two (neither is an alert yet, so neither deletes anything when clicked).
 */
export function channelDraftElements(symbol: string, start: number | null, channel: Channel | null): ChartElement[] {
  const base = { symbol, charttype: 'draft', color: LEVEL_COLORS.channel, normalize: false };
  if (channel) {
    const label = `New channel ${channel.lower.toFixed(2)} – ${channel.upper.toFixed(2)}`;
    return [
      { ...base, id: 'channel-draft', type: 'BAND', chartdata: { ...channel, label, dash: 'dot', clickable: false } },
    ];
  }
  if (start === null) return [];
  const label = `Channel from ${start.toFixed(2)}: click the other bound`;
  return [{ ...base, id: 'channel-start', type: 'SAR', chartdata: { y: start, label, dash: 'dot', clickable: false } }];
}

/** A pattern's name as people read it: `bullish_marubozu` → `bullish marubozu`. */
export function patternName(name: string): string {
  return name.replace(/_+/g, ' ').trim();
}

/** Bars shown with labelled markers; longer charts show pattern names on hover. */
export const LABELLED_PATTERN_BARS = 130;

/**
 * The empty bars a daily chart leaves right of its latest candle: a tenth of those shown (at least 2), or as
 * many as the widest of the tags written at the plot's right edge needs (`labelShare`, a fraction of the plot's
 * width, at most {@link MAX_LABEL_SHARE}), so the alerts' tags sit right of the latest candles, not over them.
 */
export function rightOffset(bars: number, labelShare = 0): number {
  if (bars === 0) return 0;
  const share = Math.min(MAX_LABEL_SHARE, Math.max(0, labelShare));
  // `offset` empty bars of `bars + offset` are `share` of the width when offset = bars × share / (1 − share).
  return Math.max(2, Math.round(bars / 10), Math.ceil((bars * share) / (1 - share)));
}

/**
 * What the placement of the patterns' names assumes: the price panel's plot area in px (about 780 × 330 in a
 * 1,300 px window; the width is the chart's own once measured, see `plotWidthOf`), a name of the 10 px font
 * (6 px a character, 13 px high) written from 5 px above its marker's centre, a marker 10 px across, and a
 * candle's width, a fraction of a bar's.
 */
export const PATTERN_LABEL_BOX = Object.freeze({
  plotWidth: 760,
  plotHeight: 330,
  charPx: 6,
  linePx: 13,
  markerPx: 10,
  fromPx: 5,
  candleWidth: 0.7,
});

/** What the chart leaves the patterns' names: its price panel's width in px, and the moving averages drawn. */
export interface PatternRoom {
  readonly plotWidth?: number;
  readonly smas?: readonly SmaPeriod[];
  /** The widest tag at the plot's right edge, a fraction of its width (see {@link rightOffset}). */
  readonly labelShare?: number;
}

/** A marker to be placed: its bar's index among the bars shown, its price, and its name. */
interface LabelCandidate {
  readonly index: number;
  readonly y: number;
  readonly text: string;
}

/** A bar's price range, which a pattern's name may not be written over. */
export interface BarExtent {
  readonly low: number;
  readonly high: number;
}

/**
 * Which markers have their names written above them: from the latest bar back, each whose name would fit whole
 * inside the plot, not cover a name already written, another bar's marker or a candle of `extents` (the bars
 * shown, by index), by {@link PATTERN_LABEL_BOX}'s measures over the prices from `low` to `high` on a plot
 * `plotWidth` pixels wide; the others show theirs on hover. Adjacent bars' names used to be written over each
 * other, and over the markers and candles of the bars beside theirs, unreadable.
 */
export function placePatternLabels(
  candidates: readonly LabelCandidate[],
  bars: number,
  low: number,
  high: number,
  plotWidth: number = PATTERN_LABEL_BOX.plotWidth,
  extents: readonly BarExtent[] = [],
): boolean[] {
  const { plotHeight, charPx, linePx, markerPx, fromPx, candleWidth } = PATTERN_LABEL_BOX;
  const barPx = plotWidth / Math.max(1, bars);
  const pricePx = plotHeight / Math.max(1e-9, high - low);
  const pxOf = (price: number): number => (price - low) * pricePx;
  const placed: { x: number; y: number; half: number }[] = [];
  const written = candidates.map(() => false);
  const latestFirst = candidates.map((c, i) => ({ c, i })).sort((a, b) => b.c.index - a.c.index);
  for (const { c, i } of latestFirst) {
    const x = (c.index + 0.5) * barPx;
    const y = pxOf(c.y);
    const half = (c.text.length * charPx) / 2 + 2;
    // Plotly cuts a name at the plot's edge: one that would not fit whole shows on hover only.
    if (x - half < 0 || x + half > plotWidth) continue;
    if (placed.some((p) => Math.abs(p.x - x) < p.half + half && Math.abs(p.y - y) < linePx)) continue;
    // The name is written from `fromPx` above its marker's centre, `linePx` high.
    const bottom = y + fromPx;
    const top = bottom + linePx;
    const coversMarker = candidates.some((other, k) => {
      if (k === i) return false;
      const mx = (other.index + 0.5) * barPx;
      const my = pxOf(other.y);
      return Math.abs(mx - x) < half + markerPx / 2 && my + markerPx / 2 > bottom && my - markerPx / 2 < top;
    });
    if (coversMarker) continue;
    const first = Math.max(0, Math.floor((x - half) / barPx - candleWidth / 2));
    const last = Math.min(extents.length - 1, Math.floor((x + half) / barPx + candleWidth / 2));
    let coversCandle = false;
    for (let k = first; k <= last && !coversCandle; k++) {
      const extent = extents[k]!;
      const near = Math.abs((k + 0.5) * barPx - x) < half + (candleWidth * barPx) / 2;
      coversCandle = near && pxOf(extent.high) > bottom && pxOf(extent.low) < top;
    }
    if (coversCandle) continue;
    placed.push({ x, y, half });
    written[i] = true;
  }
  return written;
}

/**
 * The IMAGE element marking each bar that has patterns: above the bar's high, a green triangle up when
 * they are all bullish, a red triangle down when all bearish, else a grey circle, with the patterns' names
 * written where they do not cover each other (up to {@link LABELLED_PATTERN_BARS} bars; always on hover).
 */
export function patternElement(
  symbol: string,
  rows: readonly PatternRow[],
  bars: readonly Bar[],
  room: PatternRoom = {},
): ChartElement {
  const indexOf = new Map(bars.map((b, i) => [b.date, i]));
  const marks: (Omit<MarkerPoint, 'label'> & { readonly index: number })[] = [];
  for (const row of [...rows].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))) {
    const index = indexOf.get(row.date);
    if (index === undefined || row.stockpatterns.length === 0) continue;
    const bar = bars[index]!;
    const bullish = row.stockpatterns.every((p) => p.bullish === true);
    const bearish = row.stockpatterns.every((p) => p.bullish === false);
    marks.push({
      index,
      x: row.date,
      y: round2(bar.high * 1.012),
      text: row.stockpatterns.map((p) => patternName(p.name)).join(', '),
      symbol: bullish ? 'triangle-up' : bearish ? 'triangle-down' : 'circle',
      color: bullish ? LEVEL_COLORS.up : bearish ? LEVEL_COLORS.down : '#64748b',
    });
  }
  // The price axis spans the moving averages drawn too: a long one far below the candles packs them closer.
  const averages = (room.smas ?? []).flatMap((period) =>
    bars.flatMap((b) => {
      const value = b[smaKey(period)];
      return typeof value === 'number' && Number.isFinite(value) ? [value] : [];
    }),
  );
  const low = Math.min(...bars.map((b) => b.low), ...averages);
  const high = Math.max(...marks.map((m) => m.y), ...bars.map((b) => b.high), ...averages);
  // Plotly pads the axis by about a twentieth of the span at each end.
  const pad = (high - low) / 20;
  // The plot's width spans the bars and the empty ones right of them.
  const slots = bars.length + rightOffset(bars.length, room.labelShare);
  const labels =
    bars.length <= LABELLED_PATTERN_BARS
      ? placePatternLabels(marks, slots, low - pad, high + pad, room.plotWidth, bars)
      : marks.map(() => false);
  const points: MarkerPoint[] = marks.map(({ index, ...mark }, i) => ({
    ...mark,
    label: labels[i]!,
    at: (index + 0.5) / slots,
  }));
  return {
    symbol,
    id: 'image-patterns',
    type: 'IMAGE',
    charttype: 'pattern',
    chartdata: { points },
    color: '#64748b',
    normalize: false,
  };
}

/** A symbol added to the chart for comparison. */
export interface Compare {
  readonly symbol: string;
  /** Normalised onto the price axis (LINE) or on its own right axis (AXIS). */
  readonly mode: 'normalized' | 'axis';
  readonly color: string;
}

/**
 * The LINE (normalised) or AXIS element of a compared symbol: its closes trimmed to the main series' length,
 * dated like the main series' last bars, and rebased onto the main series' first close when normalised.
 */
export function compareElement(compare: Compare, closes: readonly Bar[], main: readonly Bar[]): ChartElement {
  const trimmed = trimToLength(closes, main.length);
  const dates = trimToLength(
    main.map((b) => b.date),
    trimmed.length,
  );
  const values = trimmed.map((b) => b.close);
  const normalized = compare.mode === 'normalized';
  const base = main.at(-trimmed.length)?.close ?? main[0]?.close ?? 1;
  return {
    symbol: compare.symbol,
    id: `compare-${compare.symbol}`,
    type: normalized ? 'LINE' : 'AXIS',
    charttype: 'compare',
    chartdata: { x: dates, y: normalized ? normalizeSeries(values, base) : values },
    color: compare.color,
    normalize: normalized,
  };
}

/** The direction a new price alert defaults to: up (U) at or above the last price, down (D) below. */
export function defaultDirection(price: number, last: number | null): 'U' | 'D' {
  return last === null || price >= last ? 'U' : 'D';
}

/** What the alert form says of a threshold that breaks the alert threshold rule of the domain. */
const THRESHOLD_TEXT: Readonly<Record<ThresholdProblem, string>> = {
  not_a_number: 'Price: enter a number',
  below_minimum: 'Price: at least 0.01',
  above_maximum: `Price: at most ${ALERT_THRESHOLD_MAX}`,
};

/** What is wrong with a typed threshold, or null when it can be sent. */
export function thresholdProblem(price: number): string | null {
  const problem = alertThresholdProblem(price);
  return problem === null ? null : THRESHOLD_TEXT[problem];
}

/**
 * The header's price line: the price to the cent (a price is never shortened to M or B), the signed change
 * and the signed % change.
 */
export function quoteText(quote: Pick<Quote, 'price' | 'change' | 'changepct'>): {
  readonly price: string;
  readonly change: string;
  readonly tone: 'up' | 'down' | 'flat';
} {
  return {
    price: formatPrice(quote.price),
    change: `${formatSigned(quote.change)} (${formatSignedPercent(quote.changepct)})`,
    tone: quote.change > 0 ? 'up' : quote.change < 0 ? 'down' : 'flat',
  };
}

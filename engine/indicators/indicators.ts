/**
 * Technical indicators of daily closes, computed with trading-signals: SMA 20/50/100/200, EMA 12/26, RSI 14
 * (Wilder), MACD 12/26/9 and Bollinger bands 20/2, per bar over a history and live with a forming bar.
 */
import { BollingerBands, EMA, MACD, RSI, SMA } from 'trading-signals';
import { type DailyBar } from '../../domain/market/types.ts';
import { RSI_PERIOD, SMA_PERIODS } from '../../domain/screener/query.ts';

export { RSI_PERIOD, SMA_PERIODS };

/** The RSI of a window whose gains and losses are all zero (a flat price): neither overbought nor oversold. */
export const FLAT_RSI = 50;

/** MACD periods: fast EMA, slow EMA, signal EMA. */
export const MACD_PERIODS = { fast: 12, slow: 26, signal: 9 } as const;

/** The close from which the MACD signal line is known: its EMA takes the MACD line from the slow EMA's period on. */
const MACD_SIGNAL_FROM = MACD_PERIODS.slow + MACD_PERIODS.signal - 1;

/** Bollinger bands: SMA period and the multiple of the (population) standard deviation. */
export const BOLLINGER = { period: 20, deviations: 2 } as const;

/** The indicator values of one bar; each is `null` until the history is long enough for it. */
export interface IndicatorRow {
  /** Simple moving average of the last 20 closes. */
  readonly SMA_20: number | null;
  /** Simple moving average of the last 50 closes. */
  readonly SMA_50: number | null;
  /** Simple moving average of the last 100 closes. */
  readonly SMA_100: number | null;
  /** Simple moving average of the last 200 closes. */
  readonly SMA_200: number | null;
  /** Exponential moving average of period 12 (seeded with the first close, reported from the 12th). */
  readonly EMA_12: number | null;
  /** Exponential moving average of period 26 (seeded with the first close, reported from the 26th). */
  readonly EMA_26: number | null;
  /** Wilder's RSI of period 14 (from the 15th close), 50 while every change so far is zero. */
  readonly rsi_14: number | null;
  /** MACD line, EMA 12 − EMA 26 (from the 26th close). */
  readonly macd: number | null;
  /** Signal line, EMA 9 of the MACD line (from the 34th close). */
  readonly macd_signal: number | null;
  /** Histogram, MACD line − signal line (from the 34th close). */
  readonly macd_hist: number | null;
  /** Upper Bollinger band, SMA 20 + 2 standard deviations (from the 20th close). */
  readonly bb_upper: number | null;
  /** Middle Bollinger band, SMA 20 (from the 20th close). */
  readonly bb_middle: number | null;
  /** Lower Bollinger band, SMA 20 − 2 standard deviations (from the 20th close). */
  readonly bb_lower: number | null;
}

/** A row with every indicator unknown. */
export const EMPTY_INDICATOR_ROW: IndicatorRow = {
  SMA_20: null,
  SMA_50: null,
  SMA_100: null,
  SMA_200: null,
  EMA_12: null,
  EMA_26: null,
  rsi_14: null,
  macd: null,
  macd_signal: null,
  macd_hist: null,
  bb_upper: null,
  bb_middle: null,
  bb_lower: null,
};

/**
 * One instance of every indicator, fed close by close: `push(close, false)` appends a close, `push(close,
 * true)` replaces the last one (the library's replace mode), so a forming bar can move without drifting.
 */
class IndicatorSet {
  private readonly sma = SMA_PERIODS.map((period) => new SMA(period));
  private readonly ema12 = new EMA(MACD_PERIODS.fast);
  private readonly ema26 = new EMA(MACD_PERIODS.slow);
  private readonly rsi = new RSI(RSI_PERIOD);
  private readonly macd = new MACD(
    new EMA(MACD_PERIODS.fast),
    new EMA(MACD_PERIODS.slow),
    new EMA(MACD_PERIODS.signal),
  );
  private readonly bands = new BollingerBands(BOLLINGER.period, BOLLINGER.deviations);
  /** Closes pushed so far, counting a replaced one once. */
  private count = 0;
  /** The close before the last one, and the last one. */
  private previous: number | null = null;
  private last: number | null = null;
  /** Whether any change before the last close was a gain. */
  private gainBeforeLast = false;

  push(close: number, replace: boolean): IndicatorRow {
    const replacing = replace && this.count > 0;
    if (replacing) {
      this.last = close;
    } else {
      if (this.previous !== null && this.last !== null && this.last > this.previous) this.gainBeforeLast = true;
      this.previous = this.last;
      this.last = close;
      this.count += 1;
    }
    const [sma20, sma50, sma100, sma200] = this.sma.map((indicator) => indicator.update(close, replacing));
    const ema12 = this.ema12.update(close, replacing);
    const ema26 = this.ema26.update(close, replacing);
    const rsi = this.rsi.update(close, replacing);
    const macd = this.macd.update(close, replacing);
    const bands = this.bands.update(close, replacing);
    // The library's `isStable` throws and catches an error until an EMA has its period's inputs (thousands of
    // errors for a market's histories): each EMA here takes one input per close counted, so the count tells.
    const signalReady = this.count >= MACD_SIGNAL_FROM;
    return {
      SMA_20: sma20 ?? null,
      SMA_50: sma50 ?? null,
      SMA_100: sma100 ?? null,
      SMA_200: sma200 ?? null,
      EMA_12: this.count >= MACD_PERIODS.fast ? ema12 : null,
      EMA_26: this.count >= MACD_PERIODS.slow ? ema26 : null,
      rsi_14: rsi === null ? null : this.flat(rsi),
      macd: macd?.macd ?? null,
      macd_signal: macd !== null && signalReady ? macd.signal : null,
      macd_hist: macd !== null && signalReady ? macd.histogram : null,
      bb_upper: bands?.upper ?? null,
      bb_middle: bands?.middle ?? null,
      bb_lower: bands?.lower ?? null,
    };
  }

  /**
   * The library answers 100 whenever the average loss is zero; when the average gain is zero too (every
   * change so far is zero, as Wilder's smoothing never forgets a non-zero change) the RSI is defined as 50.
   */
  private flat(rsi: number): number {
    if (rsi !== 100) return rsi;
    const lastIsGain = this.previous !== null && this.last !== null && this.last > this.previous;
    return this.gainBeforeLast || lastIsGain ? rsi : FLAT_RSI;
  }
}

/** The indicators of every bar of a history (oldest first), one row per bar, each from the closes up to it. */
export function computeIndicators(bars: readonly Pick<DailyBar, 'close'>[]): IndicatorRow[] {
  return computeIndicatorsOfCloses(bars.map((bar) => bar.close));
}

/** The indicators after each close of a series (oldest first), one row per close. */
export function computeIndicatorsOfCloses(closes: readonly number[]): IndicatorRow[] {
  const set = new IndicatorSet();
  return closes.map((close) => set.push(close, false));
}

/** The simple moving average of a period after each close, `null` until `period` closes are in. */
export function smaSeries(closes: readonly number[], period: number): (number | null)[] {
  const sma = new SMA(period);
  return closes.map((close) => sma.add(close));
}

/** The exponential moving average of a period after each close (seeded with the first), `null` before the `period`-th close. */
export function emaSeries(closes: readonly number[], period: number): (number | null)[] {
  const ema = new EMA(period);
  // One input per close: stable from the `period`-th (without the library's throwing `isStable`).
  return closes.map((close, i) => {
    const value = ema.add(close);
    return i + 1 >= period ? value : null;
  });
}

/**
 * Wilder's RSI of a period after each close, `null` until `period + 1` closes are in; 50 while every change so
 * far is zero (the library would answer 100 there).
 */
export function rsiSeries(closes: readonly number[], period = RSI_PERIOD): (number | null)[] {
  const rsi = new RSI(period);
  let gain = false;
  return closes.map((close, i) => {
    const value = rsi.add(close);
    const previous = closes[i - 1];
    if (previous !== undefined && close > previous) gain = true;
    return value === 100 && !gain ? FLAT_RSI : value;
  });
}

/**
 * Indicators of a symbol during the session: seeded with the daily closes of the finished days, it gives the
 * row of today with a live price as the forming close, exactly as {@link computeIndicators} would with that
 * price appended, and {@link LiveIndicators.roll} turns the forming bar into a finished one at the close.
 */
export class LiveIndicators {
  private readonly set = new IndicatorSet();
  private forming = false;
  private lastRow: IndicatorRow = EMPTY_INDICATOR_ROW;
  private days = 0;

  /** Seeds the indicators with the closes of the finished days, oldest first. */
  constructor(closes: readonly number[] = []) {
    for (const close of closes) this.lastRow = this.set.push(close, false);
    this.days = closes.length;
  }

  /** Sets today's forming close to a live price and returns today's row. */
  update(price: number): IndicatorRow {
    this.lastRow = this.set.push(price, this.forming);
    this.forming = true;
    return this.lastRow;
  }

  /**
   * Ends the day: the forming close (or `close` when given, e.g. the official close) becomes a finished
   * day's close; returns that day's row, or `null` when the day had no price at all.
   */
  roll(close?: number): IndicatorRow | null {
    if (close !== undefined) this.update(close);
    if (!this.forming) return null;
    this.forming = false;
    this.days += 1;
    return this.lastRow;
  }

  /** The latest row: today's while a bar is forming, else the last finished day's (all `null` before any close). */
  get current(): IndicatorRow {
    return this.lastRow;
  }

  /** Whether today's bar has a price and is not rolled yet. */
  get isForming(): boolean {
    return this.forming;
  }

  /** How many finished days the indicators hold. */
  get finishedDays(): number {
    return this.days;
  }
}

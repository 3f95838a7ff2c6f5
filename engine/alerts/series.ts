/**
 * The series an alert may watch, derived from a symbol's finished daily bars plus today's forming bar (the live
 * price as its close, the day's volume so far). One {@link SourceFeed} per symbol and source keeps what only
 * changes at a day close (the sum of the last closes, the previous EMA, RSI's averages), so a tick's value is a
 * few arithmetic operations. The engine's index and the reference evaluator use the same feeds, so they see
 * exactly the same numbers.
 *
 * Units: `price`, `sma:*` and `ema:*` in cents; `rsi:14` in points (0–100); `volume` in shares; `changepct` in
 * percent. A value that cannot be known yet (too short a history, no previous close) is NaN.
 */
import { toCents } from '../../domain/alerts/alerts.ts';
import {
  movingLevelOf,
  sourceKind,
  sourcePeriod,
  type AlertOp,
  type AlertSource,
} from '../../domain/alerts/conditions.ts';
import { formingRsi, rsiOf, wilderAverages } from '../../domain/market/rsi.ts';
import type { SymbolHistory } from '../quotes/liveQuotes.ts';

/** What a tick tells a feed: the forming bar. */
export interface FormingBar {
  /** The price, in cents. */
  readonly cents: number;
  /** The day's volume so far. */
  readonly volume: number;
  /** The previous close in cents, or NaN. */
  readonly prevCloseCents: number;
}

/** Where the feeds read a symbol's finished days. */
export type HistoryLookup = (symbol: string) => SymbolHistory | undefined;

const KIND_PRICE = 0;
const KIND_SMA = 1;
const KIND_EMA = 2;
const KIND_RSI = 3;
const KIND_VOLUME = 4;
const KIND_CHANGE = 5;

const KIND_CODES = {
  price: KIND_PRICE,
  sma: KIND_SMA,
  ema: KIND_EMA,
  rsi: KIND_RSI,
  volume: KIND_VOLUME,
  changepct: KIND_CHANGE,
};

/** Whether a source is a price-like series, in cents. */
export function inCents(source: AlertSource): boolean {
  const kind = sourceKind(source);
  return kind === 'price' || kind === 'sma' || kind === 'ema';
}

/** A number written by the user in a source's unit (dollars for price-like series) in the feed's unit. */
export function toUnits(source: AlertSource, value: number): number {
  return inCents(source) ? toCents(value) : value;
}

/** A value in the feed's unit as the user reads it (dollars for price-like series). */
export function fromUnits(source: AlertSource, value: number): number {
  return inCents(source) ? value / 100 : value;
}

function emaOver(closes: readonly number[], period: number, end: number): number {
  if (end < period) return NaN;
  let sum = 0;
  for (let i = 0; i < period; i++) sum += closes[i]!;
  let ema = sum / period;
  const k = 2 / (period + 1);
  for (let i = period; i < end; i++) ema += (closes[i]! - ema) * k;
  return ema;
}

/** The most amounts whose conversion a feed keeps (see `SourceFeed.unitsOf`). */
export const UNITS_KEPT = 1024;

/** One source of one symbol: its value on each tick, and its value at a finished bar. */
export class SourceFeed {
  readonly kind: number;
  readonly period: number;
  /** Day constants: SMA the sum of the last `period − 1` closes; EMA the previous EMA; RSI the average gain. */
  private a = NaN;
  /** RSI: the average loss. */
  private b = NaN;
  /** RSI: the last close. */
  private c = NaN;
  private readonly past = new Map<number, number>();
  private readonly units = new Map<number, number>();
  private history: SymbolHistory | undefined;

  constructor(
    readonly source: AlertSource,
    private readonly symbol: string,
    private readonly lookup: HistoryLookup,
  ) {
    this.kind = KIND_CODES[sourceKind(source)];
    this.period = sourcePeriod(source) ?? 0;
    this.refresh();
  }

  /** SMA feeds: the sum in cents of the last `period − 1` closes (NaN when fewer), what exact crossings compare. */
  get smaBase(): number {
    return this.kind === KIND_SMA ? this.a : NaN;
  }

  /** Reads the day constants again (after a day close moved them). */
  refresh(): void {
    this.past.clear();
    const history = this.lookup(this.symbol);
    this.history = history;
    const closes = history?.closes ?? [];
    const n = closes.length;
    const period = this.period;
    this.a = NaN;
    if (this.kind === KIND_SMA) {
      if (n >= period - 1) {
        let sum = 0;
        for (let i = n - (period - 1); i < n; i++) sum += closes[i]!;
        this.a = sum;
      }
    } else if (this.kind === KIND_EMA) {
      this.a = emaOver(closes, period, n);
    } else if (this.kind === KIND_RSI) {
      [this.a, this.b] = wilderAverages(closes, period, n);
      this.c = n > 0 ? closes[n - 1]! : NaN;
    }
  }

  /**
   * The value as `slope × cents + intercept` within a day, for the sources linear in the price (price, SMA,
   * EMA); the slope is NaN for the others, the intercept NaN when the value is unknown (too short a history).
   */
  get slope(): number {
    switch (this.kind) {
      case KIND_PRICE:
        return 1;
      case KIND_SMA:
        return 1 / this.period;
      case KIND_EMA:
        return 2 / (this.period + 1);
      default:
        return NaN;
    }
  }

  /** See {@link slope}. */
  get intercept(): number {
    switch (this.kind) {
      case KIND_PRICE:
        return 0;
      case KIND_SMA:
        return this.a / this.period;
      case KIND_EMA:
        return this.a * (1 - 2 / (this.period + 1));
      default:
        return NaN;
    }
  }

  /** Whether the value depends on the day's volume rather than on the price. */
  get byVolume(): boolean {
    return this.kind === KIND_VOLUME;
  }

  /**
   * Every source but volume is non-decreasing in the price within a day (in floating point too), so the price
   * in cents where it first reaches a level is found by galloping: the smallest integer price above `cents`
   * whose value is at or above `level` (above it when `strict`), Infinity when none. The value at `cents` must
   * not meet it. The search starts from the price the level's inverse gives (see {@link centsNear}), which is
   * then checked against its neighbour, so the answer is exact whatever the rounding of that inverse.
   */
  firstCentsUp(cents: number, prevCloseCents: number, level: number, strict: boolean): number {
    if (this.kind === KIND_PRICE) {
      // The value is the price itself.
      const first = Math.max(cents + 1, strict ? Math.floor(level) + 1 : Math.ceil(level));
      return first - cents > 2 ** 40 ? Infinity : first;
    }
    const near = Math.ceil(this.centsNear(level, prevCloseCents));
    const from = near > cents + 1 && near - cents <= 2 ** 40 ? near : cents + 1;
    // Invariant: `lo` does not meet the level, `hi` does.
    let lo = cents;
    let hi = from;
    let step = 1;
    if (this.meets(from, prevCloseCents, level, strict)) {
      while (hi - step > lo && this.meets(hi - step, prevCloseCents, level, strict)) {
        hi -= step;
        step *= 2;
      }
      lo = Math.max(lo, hi - step);
    } else {
      lo = from;
      hi = from + 1;
      while (!this.meets(hi, prevCloseCents, level, strict)) {
        lo = hi;
        step *= 2;
        if (hi - cents > 2 ** 40) return Infinity;
        hi = lo + step;
      }
    }
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.meets(mid, prevCloseCents, level, strict)) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /**
   * The mirror of {@link firstCentsUp}: the largest integer price below `cents` whose value is below `level`
   * (at or below it when `strict`), -Infinity when none. The value at `cents` must meet it.
   */
  lastCentsDown(cents: number, prevCloseCents: number, level: number, strict: boolean): number {
    if (this.kind === KIND_PRICE) {
      const last = Math.min(cents - 1, strict ? Math.floor(level) : Math.ceil(level) - 1);
      return cents - last > 2 ** 40 ? -Infinity : last;
    }
    const near = Math.ceil(this.centsNear(level, prevCloseCents)) - 1;
    const from = near < cents - 1 && cents - near <= 2 ** 40 ? near : cents - 1;
    // Invariant: `lo` does not meet the level, `hi` does.
    let lo = from;
    let hi = cents;
    let step = 1;
    if (this.meets(from, prevCloseCents, level, strict)) {
      hi = from;
      lo = from - 1;
      while (this.meets(lo, prevCloseCents, level, strict)) {
        hi = lo;
        step *= 2;
        if (cents - lo > 2 ** 40) return -Infinity;
        lo = hi - step;
      }
    } else {
      while (lo + step < hi && !this.meets(lo + step, prevCloseCents, level, strict)) {
        lo += step;
        step *= 2;
      }
      hi = Math.min(hi, lo + step);
    }
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.meets(mid, prevCloseCents, level, strict)) hi = mid;
      else lo = mid;
    }
    return lo;
  }

  /**
   * About the price in cents where the value is `level`, for the sources linear in the price (price, SMA, EMA,
   * the day's change); NaN for the others. Only where a search starts: off by a rounding, it costs a step more.
   */
  private centsNear(level: number, prevCloseCents: number): number {
    switch (this.kind) {
      case KIND_PRICE:
        return level;
      case KIND_SMA:
        return level * this.period - this.a;
      case KIND_EMA:
        return this.a + (level - this.a) / (2 / (this.period + 1));
      case KIND_CHANGE:
        return prevCloseCents > 0 ? prevCloseCents * (1 + level / 100) : NaN;
      default:
        return NaN;
    }
  }

  /**
   * An amount the user wrote in the source's unit in the feed's unit, converted once per amount: the conversions
   * are kept for up to {@link UNITS_KEPT} amounts, then forgotten all at once (alerts armed and disarmed over
   * months would otherwise leave one entry per amount ever armed).
   */
  private unitsOf(amount: number): number {
    let units = this.units.get(amount);
    if (units === undefined) {
      units = toUnits(this.source, amount);
      if (this.units.size >= UNITS_KEPT) this.units.clear();
      this.units.set(amount, units);
    }
    return units;
  }

  /** How many amounts' conversions are kept (see {@link unitsOf}). */
  get unitsKept(): number {
    return this.units.size;
  }

  /** Whether the value at a price is at or above `level` (above when `strict`). */
  private meets(cents: number, prevCloseCents: number, level: number, strict: boolean): boolean {
    const v = this.value(cents, 0, prevCloseCents);
    return strict ? v > level : v >= level;
  }

  /** The value with today's forming bar. */
  value(cents: number, volume: number, prevCloseCents: number): number {
    switch (this.kind) {
      case KIND_PRICE:
        return cents;
      case KIND_SMA:
        return (this.a + cents) / this.period;
      case KIND_EMA:
        return this.a + (cents - this.a) * (2 / (this.period + 1));
      case KIND_RSI:
        return formingRsi(this.a, this.b, cents - this.c, this.period);
      case KIND_VOLUME:
        return volume;
      default:
        return prevCloseCents > 0 ? ((cents - prevCloseCents) / prevCloseCents) * 100 : NaN;
    }
  }

  /** The value at the finished bar `bars` bars back (1: the last close), or NaN when the history is too short. */
  valueBarsAgo(bars: number): number {
    const cached = this.past.get(bars);
    if (cached !== undefined) return cached;
    const closes = this.history?.closes ?? [];
    const volumes = this.history?.volumes ?? [];
    const end = closes.length - bars + 1;
    const i = end - 1;
    let value = NaN;
    if (i >= 0) {
      switch (this.kind) {
        case KIND_PRICE:
          value = closes[i]!;
          break;
        case KIND_SMA:
          if (end >= this.period) {
            let sum = 0;
            for (let k = end - this.period; k < end; k++) sum += closes[k]!;
            value = sum / this.period;
          }
          break;
        case KIND_EMA:
          value = emaOver(closes, this.period, end);
          break;
        case KIND_RSI: {
          const [gain, loss] = wilderAverages(closes, this.period, end);
          value = Number.isNaN(gain) ? NaN : rsiOf(gain, loss);
          break;
        }
        case KIND_VOLUME:
          value = volumes[i] ?? NaN;
          break;
        default:
          value = i >= 1 && closes[i - 1]! > 0 ? ((closes[i]! - closes[i - 1]!) / closes[i - 1]!) * 100 : NaN;
      }
    }
    this.past.set(bars, value);
    return value;
  }

  /**
   * The level of a moving operator today: the value `bars` bars back plus (up) or minus (down) the amount, or
   * its percent of that value; NaN when the value back then is unknown.
   */
  movingLevel(op: AlertOp, amount: number, bars: number): number {
    const pct = op === 'moving_up_pct' || op === 'moving_down_pct';
    return movingLevelOf(
      op === 'moving_up' || op === 'moving_up_pct',
      pct,
      this.valueBarsAgo(bars),
      pct ? amount : this.movingAmount(amount),
    );
  }

  /** A moving operator's absolute amount as the user wrote it, in the feed's unit (what {@link movingLevelOf} adds). */
  movingAmount(amount: number): number {
    return this.unitsOf(amount);
  }
}

/** The feeds of every symbol, made on first use. */
export class FeedBook {
  private readonly feeds = new Map<string, Map<string, SourceFeed>>();

  constructor(private readonly lookup: HistoryLookup) {}

  /** The feed of a symbol's source. */
  feed(symbol: string, source: AlertSource): SourceFeed {
    let bySource = this.feeds.get(symbol);
    if (bySource === undefined) {
      bySource = new Map();
      this.feeds.set(symbol, bySource);
    }
    let feed = bySource.get(source);
    if (feed === undefined) {
      feed = new SourceFeed(source, symbol, this.lookup);
      bySource.set(source, feed);
    }
    return feed;
  }

  /** Every feed reads its day constants again. */
  refresh(): void {
    for (const bySource of this.feeds.values()) for (const feed of bySource.values()) feed.refresh();
  }
}

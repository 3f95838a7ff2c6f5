/**
 * The daily bar of each symbol, built from the day's ticks: open the first price, close the latest trade's (a
 * tick reported late closes nothing), high and low the extremes, volume the sum of sizes.
 */
import type { ClosedDay, SymbolBar, Tick } from './tick.ts';

/** A symbol's bar so far, with the earliest and latest times of its ticks (ms since the epoch). */
export interface FormingBar {
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  first: number;
  last: number;
}

/** Accumulates a trading day's ticks into one bar per symbol. */
export class DayBars {
  private readonly bars = new Map<string, FormingBar>();

  /** Adds a tick to its symbol's bar. */
  add(tick: Tick): void {
    const bar = this.bars.get(tick.symbol);
    if (bar === undefined) {
      this.bars.set(tick.symbol, {
        open: tick.price,
        high: tick.price,
        low: tick.price,
        close: tick.price,
        volume: tick.size,
        first: tick.ts,
        last: tick.ts,
      });
      return;
    }
    if (tick.price > bar.high) bar.high = tick.price;
    if (tick.price < bar.low) bar.low = tick.price;
    bar.volume += tick.size;
    // A tick reported late (an earlier time than the latest one's) widens the range and the times and adds its
    // size, but the close stays the latest trade's, as the quote's last price does.
    if (tick.ts >= bar.last) {
      bar.close = tick.price;
      bar.last = tick.ts;
    }
    if (tick.ts < bar.first) bar.first = tick.ts;
  }

  /** A symbol's bar so far, or undefined before its first tick of the day. */
  bar(symbol: string): Readonly<Omit<FormingBar, 'first' | 'last'>> | undefined {
    const bar = this.bars.get(symbol);
    if (bar === undefined) return undefined;
    const { open, high, low, close, volume } = bar;
    return { open, high, low, close, volume };
  }

  /** Every symbol's bar so far, in the order of their first ticks. */
  all(): [string, Readonly<FormingBar>][] {
    return [...this.bars].map(([symbol, bar]) => [symbol, { ...bar }]);
  }

  /** Whether any tick was added since the last close. */
  get isEmpty(): boolean {
    return this.bars.size === 0;
  }

  /**
   * Ends the day: the bars of the symbols that traded, plus a flat bar (every price the last one, volume 0)
   * for each symbol of `idle` that did not, in symbol order; starts an empty day.
   */
  close(date: string, idle: Iterable<readonly [string, number]> = []): ClosedDay {
    const bars: SymbolBar[] = [];
    for (const [symbol, { open, high, low, close, volume }] of this.bars) {
      bars.push({ symbol, date, open, high, low, close, volume });
    }
    for (const [symbol, price] of idle) {
      if (!this.bars.has(symbol))
        bars.push({ symbol, date, open: price, high: price, low: price, close: price, volume: 0 });
    }
    this.bars.clear();
    bars.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    return { date, bars };
  }
}

/**
 * The trading day of a tick: its New York date, which keys once-per-bar firings. Ticks come in time order, so
 * the day's bounds are kept and a tick inside them costs two comparisons.
 */
import { newYorkInstant, newYorkTime } from '../ticks/marketClock.ts';

/** The New York date of instants, cached per day. */
export class TradingDays {
  private start = Infinity;
  private end = -Infinity;
  private day = '';

  /** The New York date (`YYYY-MM-DD`) of an instant (ms since the epoch). */
  of(ms: number): string {
    if (ms >= this.start && ms < this.end) return this.day;
    const date = newYorkTime(ms).date;
    const start = newYorkInstant(date, 0, 0);
    const [y, m, d] = date.split('-').map(Number) as [number, number, number];
    const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
    this.start = start;
    this.end = newYorkInstant(next, 0, 0);
    this.day = date;
    return date;
  }
}

/**
 * The trading day of a tick, which keys once-per-bar firings: its New York date, or on the demo clock the date
 * of the session it falls in (a trading day every few real minutes, which the closes roll as trading days).
 * Ticks come in time order, so the day's bounds are kept and a tick inside them costs two comparisons.
 */
import { newYorkInstant, newYorkTime, type MarketClock } from '../ticks/marketClock.ts';

/** The trading dates of instants, cached per day. */
export class TradingDays {
  private start = Infinity;
  private end = -Infinity;
  private day = '';

  /** By New York dates; with `sessions` (the demo clock), by the date of the session open at each instant. */
  constructor(private readonly sessions?: Pick<MarketClock, 'sessionAt'>) {}

  /** The trading date (`YYYY-MM-DD`) of an instant (ms since the epoch). */
  of(ms: number): string {
    if (ms >= this.start && ms < this.end) return this.day;
    if (this.sessions !== undefined) {
      const session = this.sessions.sessionAt(ms);
      // Before the first session opens, the instant is that session's (its bounds then do not hold it).
      this.start = session.start;
      this.end = session.end;
      this.day = session.date;
      return session.date;
    }
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

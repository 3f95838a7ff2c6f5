/**
 * The day the simulated market's history ends on: the last NYSE session closed at the wall clock (or a day
 * chosen in the configuration), so that charts, changes since the close and the live clock agree.
 */
import { isTradingDay, previousTradingDay } from '../marketdata/calendar.ts';
import { newYorkTime, regularSession } from '../ticks/marketClock.ts';

/**
 * The last trading session closed at an instant (ms since the epoch): today's when its close (16:00 New York,
 * 13:00 on an early close) has passed, else the trading day before today.
 */
export function lastClosedSession(ms: number): string {
  const { date } = newYorkTime(ms);
  if (isTradingDay(date) && ms >= regularSession(date).end) return date;
  return previousTradingDay(date);
}

/** The trading day a chosen date stands for: itself, or the trading day before when the exchange is closed. */
export function sessionOnOrBefore(date: string): string {
  return isTradingDay(date) ? date : previousTradingDay(date);
}

/** The end of the market's history: the chosen day's session when one is given, else the last closed at `now`. */
export function marketEndDate(chosen: string | null, now: number): string {
  return chosen === null ? lastClosedSession(now) : sessionOnOrBefore(chosen);
}

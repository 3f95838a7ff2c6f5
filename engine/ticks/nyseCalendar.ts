/**
 * The NYSE session hours of a trading day: the regular 09:30–16:00 New York, or 09:30–13:00 on the exchange's
 * scheduled early closes (the day before Independence Day, the day after Thanksgiving, Christmas Eve). Full
 * holidays are `engine/marketdata/calendar.ts`'s.
 */
import { dayNumber, isTradingDay } from '../marketdata/calendar.ts';

/** A New York wall-clock time. */
export interface WallTime {
  readonly hour: number;
  readonly minute: number;
}

/** The session's open, New York time. */
export const SESSION_OPEN: WallTime = Object.freeze({ hour: 9, minute: 30 });
/** The regular close, New York time. */
export const REGULAR_CLOSE: WallTime = Object.freeze({ hour: 16, minute: 0 });
/** The close of an early-close day, New York time. */
export const EARLY_CLOSE: WallTime = Object.freeze({ hour: 13, minute: 0 });

/** Day of the week of a `YYYY-MM-DD` date, 0 = Sunday. */
function weekdayOf(date: string): number {
  return (((dayNumber(date) + 4) % 7) + 7) % 7;
}

/** The fourth Thursday of November of a year (Thanksgiving), as a day of the month. */
function thanksgivingDay(year: number): number {
  const first = weekdayOf(`${year}-11-01`);
  return 1 + ((4 - first + 7) % 7) + 21;
}

/**
 * Whether a trading day closes early (13:00 New York): July 3 when Independence Day falls on a Tuesday to a
 * Friday, the Friday after Thanksgiving, and December 24 on a Monday to a Thursday.
 */
export function isEarlyClose(date: string): boolean {
  if (!isTradingDay(date)) return false;
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const dow = weekdayOf(date);
  if (month === 7 && day === 3) return dow >= 1 && dow <= 4;
  if (month === 11) return day === thanksgivingDay(year) + 1;
  if (month === 12 && day === 24) return dow >= 1 && dow <= 4;
  return false;
}

/** The close of a trading day's session, New York time. */
export function sessionClose(date: string): WallTime {
  return isEarlyClose(date) ? EARLY_CLOSE : REGULAR_CLOSE;
}

/**
 * The market clock: when the regular session (09:30–16:00 America/New_York, NYSE trading days) is open. The
 * regular clock follows the wall clock; the accelerated clock plays one session in a few real minutes, back to
 * back, so the market moves at any hour for demos. New York time comes from `Intl`, daylight saving included.
 */
import { MARKET_TIME_ZONE } from '../../domain/market/zone.ts';
import { isTradingDay, isValidDate, nextTradingDay } from '../marketdata/calendar.ts';
import { sessionClose } from './nyseCalendar.ts';

/** The exchange's time zone. */
export const NEW_YORK = MARKET_TIME_ZONE;

/** The regular session's open and close, New York time, and its length. */
export const REGULAR_SESSION = Object.freeze({
  open: { hour: 9, minute: 30 },
  close: { hour: 16, minute: 0 },
  minutes: 390,
});

/** Real minutes per simulated session in the accelerated mode when none is given. */
export const DEFAULT_SESSION_MINUTES = 10;

/** One trading session in real time. */
export interface Session {
  /** The trading day, `YYYY-MM-DD`. */
  readonly date: string;
  /** When it opens, ms since the epoch (real time). */
  readonly start: number;
  /** When it closes, ms since the epoch (real time); the session is open on `[start, end)`. */
  readonly end: number;
}

/** Tells which session is open, or opens next. */
export interface MarketClock {
  /** `regular` (the wall clock) or `accelerated` (demo). */
  readonly mode: 'regular' | 'accelerated';
  /** The session open at `ms`, or else the next one to open. */
  sessionAt(ms: number): Session;
}

/** Which clock to run: the regular session, or sessions of `sessionMinutes` real minutes back to back. */
export type MarketClockMode =
  { readonly mode: 'regular' } | { readonly mode: 'accelerated'; readonly sessionMinutes: number };

const formatter = new Intl.DateTimeFormat('en-US', {
  timeZone: NEW_YORK,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The New York wall-clock time of an instant. */
export interface NewYorkTime {
  /** Calendar date, `YYYY-MM-DD`. */
  readonly date: string;
  /** Hour, 0–23. */
  readonly hour: number;
  /** Minute. */
  readonly minute: number;
  /** Second. */
  readonly second: number;
}

/** The New York date and time of an instant (ms since the epoch). */
export function newYorkTime(ms: number): NewYorkTime {
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(new Date(ms))) parts[part.type] = part.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The hour and minute of a New York time, `HH:MM`. */
export function hourMinute(t: NewYorkTime): string {
  return `${String(t.hour).padStart(2, '0')}:${String(t.minute).padStart(2, '0')}`;
}

function wallClockAsUtc(ms: number): number {
  const t = newYorkTime(ms);
  const [y, m, d] = t.date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d, t.hour, t.minute, t.second);
}

/** The instant (ms since the epoch) of a New York wall-clock time on a date. */
export function newYorkInstant(date: string, hour: number, minute: number): number {
  if (!isValidDate(date)) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d, hour, minute);
  let offset = wallClockAsUtc(guess) - guess;
  const first = guess - offset;
  // Near a daylight-saving change the offset at the answer can differ from the one at the guess.
  offset = wallClockAsUtc(first) - first;
  return guess - offset;
}

/** The session of a trading day: 09:30 to 16:00 New York, or to 13:00 on an early close. */
export function regularSession(date: string): Session {
  const { open } = REGULAR_SESSION;
  const close = sessionClose(date);
  return {
    date,
    start: newYorkInstant(date, open.hour, open.minute),
    end: newYorkInstant(date, close.hour, close.minute),
  };
}

/**
 * The wall-clock market: the regular session of each NYSE trading day, skipping days on or before `after`
 * (the last finished bar), so a restart never reopens a day already rolled.
 */
export function regularMarketClock(after = '0000-01-01'): MarketClock {
  // The answer for `from` stays the answer until that session ends: no other session ends in between.
  let cached: { from: number; session: Session } | undefined;
  return {
    mode: 'regular',
    sessionAt(ms) {
      if (cached && ms >= cached.from && ms < cached.session.end) return cached.session;
      let date = newYorkTime(ms).date;
      if (!isTradingDay(date) || date <= after) date = nextTradingDay(date > after ? date : after);
      let session = regularSession(date);
      while (ms >= session.end) session = regularSession(nextTradingDay(session.date));
      cached = { from: ms, session };
      return session;
    },
  };
}

/**
 * The demo market: from `origin` (real ms) on, sessions of `sessionMinutes` real minutes follow each other
 * without a pause; the first is the trading day after `after` (the last finished bar), then each next trading
 * day. Before `origin` the first session is the next to open.
 */
export function acceleratedMarketClock(
  origin: number,
  after: string,
  sessionMinutes = DEFAULT_SESSION_MINUTES,
): MarketClock {
  if (!(sessionMinutes > 0) || !Number.isFinite(sessionMinutes)) {
    throw new RangeError(`sessionMinutes must be a number above 0, got ${sessionMinutes}`);
  }
  if (!isValidDate(after)) throw new RangeError(`after must be a YYYY-MM-DD date, got ${JSON.stringify(after)}`);
  const length = sessionMinutes * 60_000;
  const dates = [nextTradingDay(after)];
  return {
    mode: 'accelerated',
    sessionAt(ms) {
      const k = Math.max(0, Math.floor((ms - origin) / length));
      while (dates.length <= k) dates.push(nextTradingDay(dates[dates.length - 1]!));
      const start = origin + k * length;
      return { date: dates[k]!, start, end: start + length };
    },
  };
}

/**
 * Reads a market clock setting: `regular`, `accelerated` (one session in {@link DEFAULT_SESSION_MINUTES} real
 * minutes) or `accelerated:<minutes>`; throws a RangeError naming the value otherwise.
 */
export function parseMarketClockMode(text: string): MarketClockMode {
  const value = text.trim().toLowerCase();
  if (value === 'regular') return { mode: 'regular' };
  const m = /^accelerated(?::(\d+(?:\.\d+)?))?$/.exec(value);
  if (m) {
    const sessionMinutes = m[1] === undefined ? DEFAULT_SESSION_MINUTES : Number(m[1]);
    if (sessionMinutes > 0) return { mode: 'accelerated', sessionMinutes };
  }
  throw new RangeError(
    `market clock ${JSON.stringify(text)} must be regular, accelerated or accelerated:<minutes per session>`,
  );
}

/** The clock of a mode, started at `origin` after the last finished bar's date. */
export function marketClockOf(mode: MarketClockMode, origin: number, after: string): MarketClock {
  return mode.mode === 'regular'
    ? regularMarketClock(after)
    : acceleratedMarketClock(origin, after, mode.sessionMinutes);
}

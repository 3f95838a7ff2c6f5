/**
 * The NYSE trading calendar: weekdays less the exchange's full-day holidays, on `YYYY-MM-DD` dates.
 * Unscheduled closings (national days of mourning, storms) are not included.
 */

const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a valid `YYYY-MM-DD` date; throws on anything else. */
export function dayNumber(date: string): number {
  const m = DATE_RE.exec(date);
  if (m === null) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) {
    throw new RangeError(`not a calendar date: ${JSON.stringify(date)}`);
  }
  return ms / DAY_MS;
}

/** The `YYYY-MM-DD` date of a day number (days since 1970-01-01). */
export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Whether a string is a valid `YYYY-MM-DD` calendar date. */
export function isValidDate(date: string): boolean {
  try {
    dayNumber(date);
    return true;
  } catch {
    return false;
  }
}

/** The date `days` calendar days after `date` (negative for before). */
export function addDays(date: string, days: number): string {
  return dateOfDay(dayNumber(date) + days);
}

function ymd(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

/** Day of the week of a day number, 0 = Sunday. */
function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** The n-th (1-based) given weekday of a month, or the last one when n is -1. */
function nthWeekday(year: number, month: number, dow: number, n: number): number {
  if (n > 0) {
    const first = ymd(year, month, 1);
    return first + ((dow - weekday(first) + 7) % 7) + (n - 1) * 7;
  }
  const last = ymd(year, month + 1, 0);
  return last - ((weekday(last) - dow + 7) % 7);
}

/** Easter Sunday of a Gregorian year (anonymous Gregorian computus). */
function easter(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return ymd(year, month, day);
}

/** A fixed-date holiday moved to Friday when on a Saturday and to Monday when on a Sunday. */
function observed(day: number): number {
  const dow = weekday(day);
  if (dow === 6) return day - 1;
  if (dow === 0) return day + 1;
  return day;
}

const holidayCache = new Map<number, ReadonlySet<number>>();

function holidaySet(year: number): ReadonlySet<number> {
  let set = holidayCache.get(year);
  if (set === undefined) {
    const days: number[] = [];
    const newYear = ymd(year, 1, 1);
    // A New Year's Day on a Saturday is not made up on the Friday before: that Friday ends the prior year.
    if (weekday(newYear) !== 6) days.push(observed(newYear));
    days.push(nthWeekday(year, 1, 1, 3)); // Martin Luther King Jr. Day
    days.push(nthWeekday(year, 2, 1, 3)); // Washington's Birthday
    days.push(easter(year) - 2); // Good Friday
    days.push(nthWeekday(year, 5, 1, -1)); // Memorial Day
    if (year >= 2022) days.push(observed(ymd(year, 6, 19))); // Juneteenth
    days.push(observed(ymd(year, 7, 4)));
    days.push(nthWeekday(year, 9, 1, 1)); // Labor Day
    days.push(nthWeekday(year, 11, 4, 4)); // Thanksgiving
    days.push(observed(ymd(year, 12, 25)));
    set = new Set(days);
    holidayCache.set(year, set);
  }
  return set;
}

/** The NYSE full-day holidays of a year as observed, sorted, as `YYYY-MM-DD` dates. */
export function nyseHolidays(year: number): string[] {
  return [...holidaySet(year)].sort((a, b) => a - b).map(dateOfDay);
}

function isTradingDayNumber(day: number): boolean {
  const dow = weekday(day);
  if (dow === 0 || dow === 6) return false;
  return !holidaySet(new Date(day * DAY_MS).getUTCFullYear()).has(day);
}

/** Whether the NYSE is open on a date (a weekday that is not a holiday). */
export function isTradingDay(date: string): boolean {
  return isTradingDayNumber(dayNumber(date));
}

/** The trading days from `from` to `to`, both included, in order. */
export function tradingDays(from: string, to: string): string[] {
  const out: string[] = [];
  const end = dayNumber(to);
  for (let day = dayNumber(from); day <= end; day++) {
    if (isTradingDayNumber(day)) out.push(dateOfDay(day));
  }
  return out;
}

/** The last trading day strictly before a date. */
export function previousTradingDay(date: string): string {
  let day = dayNumber(date) - 1;
  while (!isTradingDayNumber(day)) day--;
  return dateOfDay(day);
}

/** The first trading day strictly after a date. */
export function nextTradingDay(date: string): string {
  let day = dayNumber(date) + 1;
  while (!isTradingDayNumber(day)) day++;
  return dateOfDay(day);
}

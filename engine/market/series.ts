/**
 * Date and series arithmetic of the market data service: month windows over trading days, cumulative percent
 * change series, and the close of a trading day as an instant.
 */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The date `months` calendar months before `date`, the day clamped to the month's length (05-31 − 3 → 02-29). */
export function monthsBefore(date: string, months: number): string {
  const m = DATE_RE.exec(date);
  if (m === null) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const total = Number(m[1]) * 12 + (Number(m[2]) - 1) - months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(Number(m[3]), lastDay);
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Index of the last date `<= target` in sorted dates, or -1 when every date is later. */
export function lastIndexAtOrBefore(dates: readonly string[], target: string): number {
  let lo = 0;
  let hi = dates.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((dates[mid] as string) <= target) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Where an N-month window of sorted trading days starts: at the last day on or before the day N months before the
 * last one (the base day the change is measured from), or at the first day when the history is shorter.
 */
export function monthWindowStart(dates: readonly string[], months: number): number {
  const last = dates.at(-1);
  if (last === undefined) return 0;
  return Math.max(0, lastIndexAtOrBefore(dates, monthsBefore(last, months)));
}

/** Rounds to `digits` decimals, turning -0 into 0. */
export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return rounded === 0 ? 0 : rounded;
}

/**
 * The cumulative percent change of a symbol's closes on each day of `calendar` (sorted): the close of the day (or
 * of its last trading day before it) against the close on the first calendar day, unrounded; `null` before the
 * symbol's history starts. A symbol whose history starts inside the calendar is measured from its first close.
 */
export function percentChanges(
  calendar: readonly string[],
  dates: readonly string[],
  closes: ArrayLike<number>,
): (number | null)[] {
  const out = new Array<number | null>(calendar.length).fill(null);
  let j = calendar.length > 0 ? lastIndexAtOrBefore(dates, calendar[0] as string) : -1;
  let base: number | null = j >= 0 ? (closes[j] as number) : null;
  for (let i = 0; i < calendar.length; i += 1) {
    const day = calendar[i] as string;
    while (j + 1 < dates.length && (dates[j + 1] as string) <= day) j += 1;
    if (j < 0) continue;
    const close = closes[j] as number;
    base ??= close;
    out[i] = base > 0 ? (close / base - 1) * 100 : null;
  }
  return out;
}

/** Whether New York keeps daylight saving time on a date (second Sunday of March to first Sunday of November). */
function newYorkDst(year: number, month: number, day: number): boolean {
  if (month < 3 || month > 11) return false;
  if (month > 3 && month < 11) return true;
  const firstSunday = (m: number): number => 1 + ((7 - new Date(Date.UTC(year, m - 1, 1)).getUTCDay()) % 7);
  return month === 3 ? day >= firstSunday(3) + 7 : day < firstSunday(11);
}

/** The close of a trading day, 16:00 in New York, as an ISO instant (e.g. `2024-12-31T21:00:00.000Z`). */
export function closeInstant(date: string): string {
  const m = DATE_RE.exec(date);
  if (m === null) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utcHour = newYorkDst(year, month, day) ? 20 : 21;
  return new Date(Date.UTC(year, month - 1, day, utcHour)).toISOString();
}

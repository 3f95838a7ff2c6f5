/**
 * Every date and time the app shows, in one zone and labelled: the market's (New York, labelled `ET`) or the
 * viewer's own (labelled by its abbreviation, e.g. `PST`, `GMT+1`), as the account menu's Time setting says.
 *
 * API: `formatDateTime(at)` → `2026-11-25 14:05 ET`, `formatTime(at)` → `14:05:03 ET`, `formatRecent(at)` (the
 * time alone when it is today, else the date and time), `formatDate(at)` → `2026-11-25`, `zoneLabel(at)`,
 * `wallClock(at)` (the parts), `plotTime(at)` (a chart's x value: Plotly draws dates as wall-clock
 * readings, without zones), `marketPlotTime(minute)` (a New York wall-clock reading moved into the zone),
 * `zoneName()` and `timeAxisTitle()` (a chart's time axis: `Time (New York)`), `tradingDayTitle()` (a column or
 * axis of daily bars' dates, which are New York trading days whatever the zone: `Date (New York trading day)`),
 * `todayStamp()` (file names), and for `datetime-local` fields
 * `toFieldValue(iso)` / `fromFieldValue(text)`. `at` is an ISO string, epoch milliseconds or a Date. Each takes
 * an optional zone last: `'market'`, `'local'` or an IANA zone id; without it, the viewer's setting
 * (`preferences.get().timeZone`). Components call `usePreferences()` to render again when the setting changes;
 * grids refresh their cells themselves.
 */
import { MARKET_LABEL, MARKET_NAME, MARKET_TIME_ZONE } from '../../domain/market/zone.ts';
import { preferences, type TimeZoneChoice } from './preferences.ts';

export { MARKET_LABEL, MARKET_NAME, MARKET_TIME_ZONE };
/** What a daily bar's date is, in any zone: the New York trading day. */
export const TRADING_DAY = `${MARKET_NAME} trading day`;

/** A zone: the market's, the browser's, or an IANA zone id. */
export type Zone = TimeZoneChoice | (string & {});

/** An instant: ISO text, epoch milliseconds or a Date. */
export type Instant = string | number | Date;

/** An instant's wall-clock reading in a zone. */
export interface WallClock {
  /** `YYYY-MM-DD`. */
  readonly date: string;
  /** `HH:MM:SS`, 24-hour. */
  readonly time: string;
  /** The zone's label at that instant. */
  readonly label: string;
}

const PLACEHOLDER = '–';

function zoneId(zone: Zone): string {
  if (zone === 'market') return MARKET_TIME_ZONE;
  if (zone === 'local') return Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(id: string): Intl.DateTimeFormat {
  let format = formats.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: id,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formats.set(id, format);
  }
  return format;
}

function partsAt(time: number, id: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of formatOf(id).formatToParts(time)) parts[part.type] = part.value;
  return parts;
}

function epochOf(at: Instant | null | undefined): number | null {
  if (at === null || at === undefined || at === '') return null;
  const time = at instanceof Date ? at.getTime() : typeof at === 'number' ? at : Date.parse(at);
  return Number.isFinite(time) ? time : null;
}

/** The wall-clock reading of an instant in a zone, or null for a missing or invalid instant. */
export function wallClock(at: Instant | null | undefined, zone: Zone = preferences.get().timeZone): WallClock | null {
  const time = epochOf(at);
  if (time === null) return null;
  const id = zoneId(zone);
  const parts = partsAt(time, id);
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}:${parts.second}`,
    label: zone === 'market' ? MARKET_LABEL : (parts.timeZoneName ?? id),
  };
}

/** The zone's label at an instant (`ET` for the market; the abbreviation of another zone then). */
export function zoneLabel(at: Instant = Date.now(), zone: Zone = preferences.get().timeZone): string {
  return wallClock(at, zone)?.label ?? '';
}

/** What a missing instant shows, and an invalid one: its text as given. */
function unreadable(at: Instant | null | undefined): string {
  return typeof at === 'string' && at !== '' ? at : PLACEHOLDER;
}

/** `2026-11-25 14:05 ET` (with `:SS` when `seconds`). */
export function formatDateTime(
  at: Instant | null | undefined,
  zone: Zone = preferences.get().timeZone,
  options: { readonly seconds?: boolean } = {},
): string {
  const clock = wallClock(at, zone);
  if (!clock) return unreadable(at);
  return `${clock.date} ${options.seconds ? clock.time : clock.time.slice(0, 5)} ${clock.label}`;
}

/** `14:05:03 ET` (without seconds when `seconds` is false). */
export function formatTime(
  at: Instant | null | undefined,
  zone: Zone = preferences.get().timeZone,
  options: { readonly seconds?: boolean } = {},
): string {
  const clock = wallClock(at, zone);
  if (!clock) return unreadable(at);
  return `${options.seconds === false ? clock.time.slice(0, 5) : clock.time} ${clock.label}`;
}

/** The date of an instant in the zone, `2026-11-25`. */
export function formatDate(at: Instant | null | undefined, zone: Zone = preferences.get().timeZone): string {
  return wallClock(at, zone)?.date ?? unreadable(at);
}

/** `14:05 ET` when the instant falls on the zone's date of `now`, else `2026-11-24 14:05 ET`. */
export function formatRecent(
  at: Instant | null | undefined,
  zone: Zone = preferences.get().timeZone,
  now: Instant = Date.now(),
): string {
  const clock = wallClock(at, zone);
  if (!clock) return unreadable(at);
  return clock.date === wallClock(now, zone)?.date
    ? formatTime(at, zone, { seconds: false })
    : formatDateTime(at, zone);
}

/** The instant as the zone's wall-clock reading `YYYY-MM-DD HH:MM:SS`, which Plotly draws as it is; null if invalid. */
export function plotTime(at: Instant | null | undefined, zone: Zone = preferences.get().timeZone): string | null {
  const clock = wallClock(at, zone);
  return clock && `${clock.date} ${clock.time}`;
}

/** A zone's name in titles: `New York` for the market's, else its IANA id (`Europe/Paris`). */
export function zoneName(zone: Zone = preferences.get().timeZone): string {
  return zone === 'market' ? MARKET_NAME : zoneId(zone);
}

/** The title of a chart's time axis in the zone: `Time (New York)`, `Time (Europe/Paris)`. */
export function timeAxisTitle(zone: Zone = preferences.get().timeZone): string {
  return `Time (${zoneName(zone)})`;
}

/**
 * The title of a column or axis of trading dates (`Date (New York trading day)`): a daily bar's date is the New
 * York trading day whatever the viewer's zone, so it is labelled once rather than converted.
 */
export function tradingDayTitle(what = 'Date'): string {
  return `${what} (${TRADING_DAY})`;
}

/**
 * A New York wall-clock reading (`YYYY-MM-DD HH:MM`, as the intraday candles keep their minutes) as the zone's
 * wall-clock reading of the same instant, `YYYY-MM-DD HH:MM`, for a chart's x; null when unreadable.
 */
export function marketPlotTime(minute: string, zone: Zone = preferences.get().timeZone): string | null {
  if (zone === 'market') return FIELD.test(minute.replace(' ', 'T')) ? minute : null;
  const instant = fromFieldValue(minute.replace(' ', 'T'), 'market');
  return instant === '' ? null : (plotTime(instant, zone)?.slice(0, 16) ?? null);
}

/** Today's date in the zone, `2026-11-25` (file names). */
export function todayStamp(zone: Zone = preferences.get().timeZone, now: Instant = Date.now()): string {
  return formatDate(now, zone);
}

/** An ISO instant as a `datetime-local` field's value (`YYYY-MM-DDTHH:MM:SS`) in the zone, or ''. */
export function toFieldValue(iso: string, zone: Zone = preferences.get().timeZone): string {
  const clock = wallClock(iso, zone);
  return clock ? `${clock.date}T${clock.time}` : '';
}

const FIELD = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** The offset of the zone from UTC at an instant, in milliseconds. */
function offsetAt(time: number, id: string): number {
  const parts = partsAt(time, id);
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return asUtc - Math.floor(time / 1000) * 1000;
}

/**
 * A `datetime-local` field's value read in the zone, as an ISO instant, or '' when empty or invalid. A reading
 * the clocks skip (spring forward) is taken with the offset before the change; a repeated one (fall back) is
 * the first of the two.
 */
export function fromFieldValue(text: string, zone: Zone = preferences.get().timeZone): string {
  const match = FIELD.exec(text.trim());
  if (!match) return '';
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [number, number, number, number, number];
  const second = match[6] === undefined ? 0 : Number(match[6]);
  const naive = Date.UTC(year, month - 1, day, hour, minute, second);
  // A reading that rolls over (Feb 30, 25:00) is no reading.
  if (new Date(naive).toISOString().slice(0, 19) !== `${text.trim().slice(0, 16)}:${String(second).padStart(2, '0')}`) {
    return '';
  }
  const id = zoneId(zone);
  const before = naive - offsetAt(naive - 86_400_000, id);
  const after = naive - offsetAt(naive + 86_400_000, id);
  const exact = [before, after].filter((t) => naive === t + offsetAt(t, id)).sort((a, b) => a - b)[0];
  return new Date(exact ?? before).toISOString();
}

/**
 * Position lots: one purchase (or short sale) of a symbol, as a trade date, a price in whole cents and a
 * quantity. The rules of one lot live here; the portfolio decider keeps the lots of each symbol.
 */
import { DomainError } from '../decider.ts';

/** Most lots one symbol may hold. */
export const LOTS_PER_SYMBOL_LIMIT = 100;

/** Earliest trade date accepted. */
export const EARLIEST_LOT_DATE = '1900-01-01';

/** Highest price accepted, in dollars. */
export const MAX_LOT_CLOSE = 10_000_000;

/** Largest quantity accepted, long or short. */
export const MAX_LOT_POSITION = 1_000_000_000;

/**
 * Largest value of one lot or trade (quantity × price), in dollars: with at most a thousand open lots a symbol's
 * cost, value and profit stay within 10^15 cents, below 2^53, where every whole cent is exact.
 */
export const MAX_LOT_VALUE = 10_000_000_000;

/** Most decimals a quantity may carry (fractional shares). */
export const LOT_POSITION_DECIMALS = 6;

/**
 * Hours the newest accepted trade date may run ahead of the command's UTC date: UTC+14 is the earliest time
 * zone, so a date is accepted once it has begun anywhere.
 */
export const LOT_DATE_LEAD_HOURS = 14;

/** A lot's fields as a request gives them, before it has an id. */
export interface LotFields {
  /** Trade date, `YYYY-MM-DD`. */
  readonly date: string;
  /** Price paid per share, in dollars with whole cents. */
  readonly close: number;
  /** Quantity: positive for a long position, negative for a short one, never zero. */
  readonly position: number;
}

/** A lot of a portfolio. */
export interface Lot extends LotFields {
  /** Id of the lot, derived from the id of the command that added it. */
  readonly id: string;
}

/**
 * Dated items oldest first, those of one date in the order given: lots by the date they were opened (as a
 * symbol's lots are listed, and as a sale closes them), trades by the date they were made.
 */
export function oldestFirst<T extends { readonly date: string }>(items: readonly T[]): T[] {
  // Array.prototype.sort is stable, so items of one date keep their order.
  return [...items].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):\d{2}/;
const DAY_MS = 86_400_000;

/**
 * Rounds a price to whole cents, half away from zero on its shortest decimal form, so 1.005 becomes 1.01
 * (binary `Math.round(x * 100)` would give 1.00). Prices are kept this way from the API boundary inward.
 */
export function roundToCents(value: number): number {
  const cents = Math.round(Number(`${Math.abs(value)}e2`));
  const rounded = Math.sign(value) * Number(`${cents}e-2`);
  return Number.isFinite(rounded) ? rounded : Math.round(value * 100) / 100;
}

/** Whether a number is a whole number of cents (its shortest form has at most 2 decimals). */
export function isWholeCents(value: number): boolean {
  return Number.isFinite(value) && Number(value.toFixed(2)) === value;
}

/** Whether a number has at most {@link LOT_POSITION_DECIMALS} decimals. */
export function hasPositionDecimals(value: number): boolean {
  return Number.isFinite(value) && Number(value.toFixed(LOT_POSITION_DECIMALS)) === value;
}

/** Days since 1970-01-01 of a date of the proleptic Gregorian calendar. */
function dayNumber(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

/** The day number of a real calendar date `YYYY-MM-DD`, or null when the text is not one. */
export function calendarDay(text: string): number | null {
  const m = DATE_PATTERN.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return null;
  const days = dayNumber(year, month, day);
  // Date.UTC rolls 2025-02-30 over into March; a real date keeps its month.
  return dayNumber(year, month + 1, 1) > days ? days : null;
}

/** The day number of the newest trade date accepted at an ISO time (its UTC date, or the next from 10:00 UTC). */
export function latestLotDay(at: string): number {
  const m = TIME_PATTERN.exec(at);
  if (!m) throw new DomainError('invalid_time', `at ${JSON.stringify(at)} is not an ISO time`, 'at');
  const today = dayNumber(Number(m[1]), Number(m[2]), Number(m[3]));
  return Number(m[4]) + LOT_DATE_LEAD_HOURS >= 24 ? today + 1 : today;
}

function shown(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'number' ? String(value) : typeof value;
}

/**
 * Checks a lot's fields: a real calendar date from {@link EARLIEST_LOT_DATE} up to the newest date accepted at
 * `at`, a price above 0 in whole cents up to {@link MAX_LOT_CLOSE}, and a non-zero quantity with at most
 * {@link LOT_POSITION_DECIMALS} decimals up to {@link MAX_LOT_POSITION} either way. Throws an `invalid_lot`
 * {@link DomainError} naming the field (e.g. `lots[2].close`).
 */
export function parseLotFields(lot: unknown, field: string, at: string): LotFields {
  if (typeof lot !== 'object' || lot === null) {
    throw new DomainError('invalid_lot', `${field} must be {date, close, position}`, field);
  }
  const { date, close, position } = lot as { date?: unknown; close?: unknown; position?: unknown };
  const day = typeof date === 'string' ? calendarDay(date) : null;
  if (day === null) {
    throw new DomainError(
      'invalid_lot',
      `${field}.date must be a calendar date YYYY-MM-DD, got ${shown(date)}`,
      `${field}.date`,
    );
  }
  if (day < calendarDay(EARLIEST_LOT_DATE)!) {
    throw new DomainError(
      'invalid_lot',
      `${field}.date ${date as string} is before ${EARLIEST_LOT_DATE}`,
      `${field}.date`,
    );
  }
  if (day > latestLotDay(at)) {
    throw new DomainError('invalid_lot', `${field}.date ${date as string} is in the future`, `${field}.date`);
  }
  if (typeof close !== 'number' || !Number.isFinite(close) || close <= 0 || close > MAX_LOT_CLOSE) {
    throw new DomainError(
      'invalid_lot',
      `${field}.close must be a price above 0 and at most ${MAX_LOT_CLOSE}, got ${shown(close)}`,
      `${field}.close`,
    );
  }
  if (!isWholeCents(close)) {
    throw new DomainError('invalid_lot', `${field}.close ${close} is not in whole cents`, `${field}.close`);
  }
  if (
    typeof position !== 'number' ||
    !Number.isFinite(position) ||
    position === 0 ||
    Math.abs(position) > MAX_LOT_POSITION
  ) {
    throw new DomainError(
      'invalid_lot',
      `${field}.position must be a quantity other than 0, at most ${MAX_LOT_POSITION} either way, got ${shown(position)}`,
      `${field}.position`,
    );
  }
  if (!hasPositionDecimals(position)) {
    throw new DomainError(
      'invalid_lot',
      `${field}.position ${position} has more than ${LOT_POSITION_DECIMALS} decimals`,
      `${field}.position`,
    );
  }
  if (Math.abs(position) * close > MAX_LOT_VALUE) {
    throw new DomainError(
      'invalid_lot',
      `${field}.position ${position} at ${close} is worth more than ${MAX_LOT_VALUE} (the most one lot may be)`,
      `${field}.position`,
    );
  }
  return { date: date as string, close, position };
}

/** Whether a lot has exactly these fields (the price compared in cents, so no float trap). */
export function lotMatches(lot: LotFields, fields: LotFields): boolean {
  return (
    lot.date === fields.date &&
    Math.round(lot.close * 100) === Math.round(fields.close * 100) &&
    lot.position === fields.position
  );
}

/**
 * Ticks: one trade of a symbol. The type is the TickBus's wire shape (`platform/bus/port.ts`), re-exported
 * here with the checks every source applies and the conversion of a price to integer cents.
 */
import { toCents } from '../../domain/alerts/alerts.ts';
import { TICK_PRICE_MAX } from '../../domain/contract/feed.ts';
import { SYMBOL_PATTERN } from '../../domain/symbol.ts';

export type { ClosedDay, SymbolBar, Tick, TickListener } from '../../platform/bus/port.ts';
import type { Tick } from '../../platform/bus/port.ts';

export { TICK_PRICE_MAX };

/**
 * How far ahead of the clock (ms) a tick's time may be: the feed's clock a little ahead of this one. The feed route
 * refuses a tick stamped further ahead; on the wall clock only a tick within it closes a session.
 */
export const TICK_FUTURE_TOLERANCE_MS = 5000;

/** Distance from a half cent within which {@link priceCents} rounds the decimal form rather than the product. */
const HALF_CENT_MARGIN = 1e-6;

/**
 * A price in integer cents, exactly as {@link toCents} rounds it (half up on the decimal form), without its
 * string round trip (about 350 ns against 15) unless `price × 100` is within a millionth of a half cent. Up to
 * {@link TICK_PRICE_MAX} the product is within 10⁻⁷ of the decimal form's hundredfold (the shortest decimal is
 * within half an ulp of the price, 6 × 10⁻¹¹ at 10⁶), so away from a half cent both round to the same cent;
 * prices with sub-cent digits (a trade at 190.1234) take this path too.
 */
export function priceCents(price: number): number {
  const scaled = price * 100;
  const whole = Math.round(scaled);
  return price <= TICK_PRICE_MAX && Math.abs(scaled - whole) < 0.5 - HALF_CENT_MARGIN ? whole : toCents(price);
}

/** A tick that breaks the rules of {@link checkTick}; the message names the field. */
export class TickError extends RangeError {
  override readonly name = 'TickError';
}

/**
 * Checks an untrusted value as a tick and returns it normalised (symbol upper-cased and trimmed); throws a
 * {@link TickError} starting with `where` and naming the field otherwise.
 */
export function checkTick(value: unknown, where = 'tick'): Tick {
  if (value === null || typeof value !== 'object') throw new TickError(`${where}: must be an object`);
  const { symbol, price, size, ts } = value as Record<string, unknown>;
  if (typeof symbol !== 'string' || !SYMBOL_PATTERN.test(symbol.trim().toUpperCase())) {
    throw new TickError(`${where}: symbol ${JSON.stringify(symbol)} is not a symbol (1 to 10 of A-Z, 0-9, '.', '-')`);
  }
  if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0 || price > TICK_PRICE_MAX) {
    throw new TickError(`${where}: price must be a number above 0 and at most ${TICK_PRICE_MAX}, got ${String(price)}`);
  }
  if (priceCents(price) < 1) throw new TickError(`${where}: price ${price} rounds to 0.00; at least 0.01`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw new TickError(`${where}: size must be a whole number of shares >= 0, got ${String(size)}`);
  }
  if (typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts < 0) {
    throw new TickError(`${where}: ts must be milliseconds since the epoch, got ${String(ts)}`);
  }
  return { symbol: symbol.trim().toUpperCase(), price, size, ts };
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses a tick time: milliseconds since the epoch (digits) or an ISO 8601 instant with its zone
 * (`2025-01-02T14:30:00.000Z`, `…-05:00`); null for anything else.
 */
export function parseTickTime(text: string): number | null {
  const trimmed = text.trim();
  if (/^\d{1,16}$/.test(trimmed)) return Number(trimmed);
  if (!ISO_INSTANT.test(trimmed)) return null;
  const ms = Date.parse(trimmed);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

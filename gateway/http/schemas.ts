import { ApiError } from '../errors.ts';
/**
 * Schemas shared by many routes.
 */
import { z } from 'zod';

/** The symbol rule of the API: 1–10 of `A-Z 0-9 . -` (lower case accepted and upper-cased). */
export const symbolSchema = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9][A-Z0-9.-]{0,9}$/, 'must be 1-10 characters of A-Z 0-9 . -');

/** `{symbol}` path parameter. */
export const symbolParams = z.object({ symbol: symbolSchema });

/** A list of symbols, at most `max`. */
export function symbolList(max: number) {
  return z.array(symbolSchema).min(1, 'must name at least one symbol').max(max, `must name at most ${max} symbols`);
}

/** Which symbols exist (the universe), so routes can refuse unknown ones naming the field. */
export interface SymbolDirectory {
  /** Whether the symbol is known. */
  has(symbol: string): boolean;
}

/** Refuses symbols outside the universe, naming the first one. */
export function requireKnown(directory: SymbolDirectory, list: readonly string[], field: string): void {
  const i = list.findIndex((s) => !directory.has(s));
  if (i >= 0) throw new ApiError(400, 'unknown_symbol', `${field}[${i}]: unknown symbol ${list[i]}`);
}

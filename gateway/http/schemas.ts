/**
 * What the gateway checks beyond the schemas of `domain/contract/`: that a symbol is one the universe knows.
 */
import { ApiError } from '../errors.ts';

export { symbolSchema } from '../../domain/contract/common.ts';

/** Which symbols exist (the universe), so routes can refuse unknown ones naming the field. */
export interface SymbolDirectory {
  /** Whether the symbol is known. */
  has(symbol: string): boolean;
}

/** Refuses a symbol outside the universe, naming the field. */
export function requireSymbol(directory: SymbolDirectory, symbol: string, field: string): void {
  if (!directory.has(symbol)) throw new ApiError(400, 'unknown_symbol', `${field}: unknown symbol ${symbol}`);
}

/** Refuses symbols outside the universe, naming the first one. */
export function requireKnown(directory: SymbolDirectory, list: readonly string[], field: string): void {
  const i = list.findIndex((s) => !directory.has(s));
  if (i >= 0) throw new ApiError(400, 'unknown_symbol', `${field}[${i}]: unknown symbol ${list[i]}`);
}

/**
 * Ticker symbols: one rule for what a symbol looks like, shared by every concern that names one.
 */
import { DomainError } from './decider.ts';

/** Longest symbol accepted, in characters. */
export const SYMBOL_MAX_LENGTH = 10;

/** A normalised symbol: 1 to 10 of `A-Z 0-9 . -`, starting with a letter or digit (e.g. `AAPL`, `BRK.B`, `BF-B`). */
export const SYMBOL_PATTERN = /^[A-Z0-9][A-Z0-9.-]{0,9}$/;

/** Whether a text is already a normalised symbol. */
export function isSymbol(text: string): boolean {
  return SYMBOL_PATTERN.test(text);
}

/**
 * Normalises a symbol (trimmed, upper-cased) and checks it, throwing a {@link DomainError} `invalid_symbol`
 * that names the field and the value otherwise.
 */
export function parseSymbol(text: unknown, field = 'symbol'): string {
  if (typeof text !== 'string') {
    throw new DomainError(
      'invalid_symbol',
      `${field} must be a text, got ${text === null ? 'null' : typeof text}`,
      field,
    );
  }
  const symbol = text.trim().toUpperCase();
  if (!SYMBOL_PATTERN.test(symbol)) {
    throw new DomainError(
      'invalid_symbol',
      `${field} ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)} is not a symbol (1 to ${SYMBOL_MAX_LENGTH} of A-Z, 0-9, '.', '-')`,
      field,
    );
  }
  return symbol;
}

/**
 * The symbols of `texts` (field `symbols`) that `existing` does not hold yet, normalised, in order, each once;
 * refuses an empty list and a bad symbol naming its place (`symbols[2]`).
 */
export function newSymbols(existing: readonly string[], texts: readonly string[]): string[] {
  if (texts.length === 0) throw new DomainError('empty', 'symbols must name at least one symbol', 'symbols');
  const present = new Set(existing);
  const added: string[] = [];
  texts.forEach((text, i) => {
    const symbol = parseSymbol(text, `symbols[${i}]`);
    if (!present.has(symbol)) {
      present.add(symbol);
      added.push(symbol);
    }
  });
  return added;
}

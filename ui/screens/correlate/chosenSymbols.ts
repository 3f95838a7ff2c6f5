/**
 * The symbols chosen on the analysis pages (Drill, Correlate): adding one picked in the symbol search, removing
 * one by its chip.
 */

/** Adds a symbol to a chosen list (upper-cased, once, at most `max`); answers the same list when nothing changes. */
export function withSymbol(list: readonly string[], symbol: string, max: number): readonly string[] {
  const s = symbol.trim().toUpperCase();
  if (s === '' || list.includes(s) || list.length >= max) return list;
  return [...list, s];
}

/** Removes a symbol from a chosen list. */
export function withoutSymbol(list: readonly string[], symbol: string): readonly string[] {
  return list.includes(symbol) ? list.filter((s) => s !== symbol) : list;
}

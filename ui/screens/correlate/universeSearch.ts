/**
 * Universe search for the symbol pickers of the analysis pages (Drill, Correlate): the request, and the
 * machine states that debounce it.
 */
import { marketApi, type UniverseHit as UniverseEntry } from '../../../domain/contract/market.ts';
import { call } from '../../services/api.ts';

/** A company the search found: its symbol, name and sector. */
export type UniverseHit = Pick<UniverseEntry, 'symbol' | 'name' | 'sector'>;

/** Most suggestions one search shows. */
export const SEARCH_LIMIT = 8;

/** Milliseconds typing rests before the search runs. */
export const SEARCH_SETTLE_MS = 200;

/** Searches the universe by symbol prefix or a word of the name. */
export async function searchUniverse(query: string, signal?: AbortSignal): Promise<UniverseHit[]> {
  const hits = await call(marketApi.getUniverse, { query: { q: query.trim(), limit: SEARCH_LIMIT }, signal });
  return hits.map(({ symbol, name, sector }) => ({ symbol, name, sector }));
}

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

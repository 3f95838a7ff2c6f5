/**
 * Daily bars from a market data provider into the store: the import of symbols' histories (all or nothing, a
 * symbol outside the shipped universe listed with its company as far as it is known), and the refresh of the
 * provider symbols' bars after a session closes.
 */
import type { DailyBar, Sector, UniverseEntry } from '../../domain/market/types.ts';
import { fetchAlpacaBars, ProviderError, type AlpacaDataOptions } from './alpacaBars.ts';
import type { ImportProgress } from './import.ts';
import type { MarketStore, ProviderSymbol } from './store.ts';

/** The provider whose REST API the bars come from. */
export const BAR_PROVIDERS = ['alpaca'] as const;

/** What {@link importProviderBars} is asked. */
export interface ProviderImportOptions {
  /** The Alpaca market data API. */
  readonly api: AlpacaDataOptions;
  /** The symbols, upper case. */
  readonly symbols: readonly string[];
  /** First day, `YYYY-MM-DD`. */
  readonly from: string;
  /** The shipped universe: its symbols keep their name and sector. */
  readonly universe: readonly UniverseEntry[];
  /** Name and sector of a symbol outside the universe (with one symbol only); unknown otherwise. */
  readonly company?: { readonly name?: string; readonly sector?: Sector };
  /** Progress of the download: bars received of those expected. */
  readonly onFetch?: ImportProgress;
  /** Progress of the write: symbols written. */
  readonly onWrite?: ImportProgress;
  /** The clock, in ms (default `Date.now`). */
  readonly now?: () => number;
}

/** What was imported of one symbol. */
export interface ProviderImportResult {
  /** Ticker. */
  readonly symbol: string;
  /** Bars written. */
  readonly bars: number;
  /** First bar date. */
  readonly from: string;
  /** Last bar date. */
  readonly to: string;
  /** Whether the symbol is outside the shipped universe. */
  readonly listed: boolean;
}

/**
 * Downloads the daily bars of every symbol from `from` and replaces each symbol's bars with them, marked
 * `imported`, in one transaction: a bad page, a symbol without bars or a refused request writes nothing.
 */
export async function importProviderBars(
  store: MarketStore,
  options: ProviderImportOptions,
): Promise<ProviderImportResult[]> {
  const bars = await fetchAlpacaBars(options.api, {
    symbols: options.symbols,
    from: options.from,
    ...(options.onFetch ? { onProgress: options.onFetch } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const bySymbol = new Map(options.universe.map((e) => [e.symbol, e]));
  for (const symbol of options.symbols) {
    if ((bars.get(symbol) ?? []).length === 0) {
      throw new ProviderError(`${symbol}: the provider has no daily bars from ${options.from}`);
    }
  }
  const results: ProviderImportResult[] = [];
  options.onWrite?.(0, options.symbols.length);
  store.transaction(() => {
    for (const [i, symbol] of options.symbols.entries()) {
      const list = bars.get(symbol) as DailyBar[];
      const known = bySymbol.get(symbol);
      store.replaceBars(symbol, list, 'imported');
      store.putProviderSymbol({
        symbol,
        provider: 'alpaca',
        name: known?.name ?? options.company?.name ?? symbol,
        sector: known?.sector ?? options.company?.sector ?? null,
      });
      results.push({ symbol, bars: list.length, from: list[0]!.date, to: list.at(-1)!.date, listed: !known });
      options.onWrite?.(i + 1, options.symbols.length);
    }
  });
  return results;
}

/** What a refresh did. */
export interface RefreshResult {
  /** Symbols refreshed. */
  readonly symbols: number;
  /** Bars written (a day replaced or added). */
  readonly bars: number;
}

/**
 * Refreshes the bars of the symbols imported from the provider up to `date` (a closed session): each symbol's
 * last stored day and any day after it are rewritten from the provider, in one transaction.
 */
export async function refreshProviderBars(
  store: MarketStore,
  api: AlpacaDataOptions,
  date: string,
  now?: () => number,
): Promise<RefreshResult> {
  const symbols: ProviderSymbol[] = store.providerSymbols().filter((s) => s.provider === 'alpaca');
  const last = new Map(symbols.map((s) => [s.symbol, store.bars(s.symbol, { limit: 1 })[0]?.date ?? date]));
  if (symbols.length === 0) return { symbols: 0, bars: 0 };
  const from = [...last.values()].reduce((a, b) => (b < a ? b : a), date);
  const fetched = await fetchAlpacaBars(api, {
    symbols: symbols.map((s) => s.symbol),
    from,
    to: date,
    ...(now ? { now } : {}),
  });
  let written = 0;
  store.transaction(() => {
    for (const { symbol } of symbols) {
      const since = last.get(symbol) as string;
      for (const bar of fetched.get(symbol) ?? []) {
        if (bar.date < since) continue;
        store.appendBar(symbol, bar);
        written += 1;
      }
    }
  });
  return { symbols: symbols.length, bars: written };
}

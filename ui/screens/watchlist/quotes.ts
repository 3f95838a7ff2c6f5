/**
 * Live quotes for the list screens (watch list, portfolio): the quotes held by symbol, the socket feed as a
 * callback actor whose symbols can change, the companies by symbol with their market caps at the quotes held,
 * and the number formats of prices and changes.
 */
import { marketApi, type UniverseCompany } from '../../../domain/contract/market.ts';
import { fromCallback } from 'xstate';
import { formatPrice as priceText, formatSigned as signedText, formatSignedPercent } from '../../../domain/format.ts';
import { capClassOf, marketCapOf, type Quote } from '../../../domain/market/types.ts';
import { call } from '../../services/api.ts';
import { live, type LiveConnection } from '../../services/live.ts';

/** The quotes a screen holds, by symbol. */
export type QuoteMap = Readonly<Record<string, Quote>>;

/** Tells the quote feed which symbols to follow now. */
export interface WatchQuotes {
  readonly type: 'quotes.watch';
  readonly symbols: readonly string[];
}

/** What the quote feed sends to its screen. */
export interface ServerQuote {
  readonly type: 'server.quote';
  readonly quote: Quote;
}

/** Puts a quote in the map, replacing the entry of its symbol unless the held one is newer; same map when unchanged. */
export function withQuote(quotes: QuoteMap, quote: Quote): QuoteMap {
  const held = quotes[quote.symbol];
  if (held && (held.ts > quote.ts || (held.ts === quote.ts && held.price === quote.price))) return quotes;
  return { ...quotes, [quote.symbol]: quote };
}

/** The map of a list of quotes. */
export function quoteMapOf(quotes: readonly Quote[]): QuoteMap {
  return quotes.reduce<QuoteMap>((map, quote) => withQuote(map, quote), {});
}

/** The part of the live connection the quote feed uses. */
export type QuoteSource = Pick<LiveConnection, 'onQuotes'>;

/**
 * The socket feed of quotes over a connection: follows `input.symbols`, then whatever `quotes.watch` names;
 * each quote (the snapshot first, then every update) comes back as `server.quote`.
 */
export function quoteFeedOf(source: QuoteSource) {
  return fromCallback<WatchQuotes, { symbols: readonly string[] }>(({ input, receive, sendBack }) => {
    // Each subscription has a listener of its own, so ending the previous one never ends the next.
    const follow = (symbols: readonly string[]) =>
      symbols.length > 0
        ? source.onQuotes(symbols, (quote: Quote) => sendBack({ type: 'server.quote', quote } satisfies ServerQuote))
        : () => undefined;
    let off = follow(input.symbols);
    receive((event) => {
      // Subscribing before unsubscribing keeps the quotes of symbols that stay.
      const next = follow(event.symbols);
      off();
      off = next;
    });
    return () => off();
  });
}

/** The quote feed of the tab's live connection. */
export const liveQuoteFeed = quoteFeedOf(live);

/** The universe as a map by symbol. */
export function companiesBySymbol<T extends { readonly symbol: string }>(
  hits: readonly T[],
): Readonly<Record<string, T>> {
  return Object.fromEntries(hits.map((hit) => [hit.symbol, hit]));
}

/** The companies a screen holds by symbol, each with its shares outstanding. */
export type CompanyMap = Readonly<Record<string, UniverseCompany>>;

/**
 * The companies with the market cap of a symbol at a price: {@link marketCapOf} its shares and that price, as
 * the server computes it, with the cap class of that cap. The same map when the symbol is not among them or its
 * cap does not change.
 */
export function withPrice(companies: CompanyMap, symbol: string, price: number): CompanyMap {
  const company = companies[symbol];
  if (company === undefined) return companies;
  const marketcap = marketCapOf(company.shares, price);
  if (marketcap === company.marketcap) return companies;
  return { ...companies, [symbol]: { ...company, marketcap, capclass: capClassOf(marketcap) } };
}

/** The companies with the market cap of each symbol at the price of its quote held (see {@link withPrice}). */
export function pricedAt(companies: CompanyMap, quotes: QuoteMap): CompanyMap {
  return Object.values(quotes).reduce((priced, quote) => withPrice(priced, quote.symbol, quote.price), companies);
}

/** The quotes of symbols, none when there are no symbols. */
export async function loadQuotes(symbols: readonly string[]): Promise<Quote[]> {
  if (symbols.length === 0) return [];
  return call(marketApi.getQuotes, { query: { symbols: symbols.join(',') } });
}

/** A price or an amount of dollars with 2 decimals and thousands separators (`1,234.50`); `–` when unknown. */
export function formatPrice(value: number | null | undefined): string {
  return priceText(value, '–');
}

/** A change with its sign (`+1.25`, `-0.40`); `–` when unknown. */
export function formatSigned(value: number | null | undefined): string {
  return signedText(value, '–');
}

/** A percentage with its sign and 2 decimals (`+1.25%`); `–` when unknown. */
export function formatPercent(value: number | null | undefined): string {
  return formatSignedPercent(value, '–');
}

/** The colour class of a signed number, green or red: `up`, `down`, or `''` for zero or unknown. */
export function signClass(value: number | null | undefined): 'up' | 'down' | '' {
  if (value === null || value === undefined || !Number.isFinite(value) || value === 0) return '';
  return value > 0 ? 'up' : 'down';
}

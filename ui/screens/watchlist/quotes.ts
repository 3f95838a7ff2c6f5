/**
 * Live quotes for the list screens (watch list, portfolio): the quotes held by symbol, the socket feed as a
 * callback actor whose symbols can change and which hands the quotes over in batches, the companies by symbol with
 * their market caps at the quotes held, and the number formats of prices and changes.
 */
import { marketApi, type UniverseCompany } from '../../../domain/contract/market.ts';
import { fromCallback } from 'xstate';
import { formatPrice as priceText, formatSigned as signedText, formatSignedPercent } from '../../../domain/format.ts';
import { capClassOf, marketCapOf, type Quote } from '../../../domain/market/types.ts';
import { call } from '../../services/api.ts';
import { live, type LiveConnection } from '../../services/live.ts';
import { quoteBatcher } from '../../services/quoteBatch.ts';

/** The quotes a screen holds, by symbol. */
export type QuoteMap = Readonly<Record<string, Quote>>;

/** Tells the quote feed which symbols to follow now. */
export interface WatchQuotes {
  readonly type: 'quotes.watch';
  readonly symbols: readonly string[];
}

/** What the quote feed sends to its screen: the newest quote of each symbol that moved since the last batch. */
export interface ServerQuotes {
  readonly type: 'server.quotes';
  readonly quotes: readonly Quote[];
}

/**
 * How long the quote feed gathers quotes before handing them over, in milliseconds: a list of 200 symbols gets
 * some 250 quotes a second, and taking each one redrew the screen as often.
 */
export const QUOTE_BATCH_MS = 250;

/** Whether a quote replaces the one held for its symbol: none is held, or the held one is older, or as new at another price. */
function replaces(held: Quote | undefined, quote: Quote): boolean {
  return !held || held.ts < quote.ts || (held.ts === quote.ts && held.price !== quote.price);
}

/** Puts a quote in the map, replacing the entry of its symbol unless the held one is newer; same map when unchanged. */
export function withQuote(quotes: QuoteMap, quote: Quote): QuoteMap {
  return replaces(quotes[quote.symbol], quote) ? { ...quotes, [quote.symbol]: quote } : quotes;
}

/** Puts quotes in the map as {@link withQuote} does one after the other, copying it once; same map when unchanged. */
export function withQuotes(quotes: QuoteMap, batch: readonly Quote[]): QuoteMap {
  let next: Record<string, Quote> | null = null;
  for (const quote of batch) {
    if (!replaces((next ?? quotes)[quote.symbol], quote)) continue;
    next ??= { ...quotes };
    next[quote.symbol] = quote;
  }
  return next ?? quotes;
}

/** The map of a list of quotes. */
export function quoteMapOf(quotes: readonly Quote[]): QuoteMap {
  return quotes.reduce<QuoteMap>((map, quote) => withQuote(map, quote), {});
}

/** The part of the live connection the quote feed uses. */
export type QuoteSource = Pick<LiveConnection, 'onQuotes'>;

/**
 * The socket feed of quotes over a connection: follows `input.symbols`, then whatever `quotes.watch` names; the
 * quotes (the snapshot first, then every update) come back in batches as `server.quotes`, the newest quote of each
 * symbol that moved, the first batch at once after a quiet spell, then at most one every `batchMs`.
 */
export function quoteFeedOf(source: QuoteSource, batchMs = QUOTE_BATCH_MS) {
  return fromCallback<WatchQuotes, { symbols: readonly string[] }>(({ input, receive, sendBack }) => {
    const batches = quoteBatcher(batchMs, (quotes) =>
      sendBack({ type: 'server.quotes', quotes } satisfies ServerQuotes),
    );
    // Each subscription has a listener of its own, so ending the previous one never ends the next.
    const follow = (symbols: readonly string[]) =>
      symbols.length > 0 ? source.onQuotes(symbols, (quote: Quote) => batches.take(quote)) : () => undefined;
    let off = follow(input.symbols);
    receive((event) => {
      // Subscribing before unsubscribing keeps the quotes of symbols that stay.
      const next = follow(event.symbols);
      off();
      off = next;
    });
    return () => {
      off();
      batches.stop();
    };
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

/** The companies with the market cap of each quote's symbol at its price (see {@link withPrice}), copied once. */
export function withPrices(companies: CompanyMap, quotes: readonly Quote[]): CompanyMap {
  let next: Record<string, UniverseCompany> | null = null;
  for (const quote of quotes) {
    const priced = withPrice(next ?? companies, quote.symbol, quote.price);
    if (priced === (next ?? companies)) continue;
    next ??= { ...companies };
    next[quote.symbol] = priced[quote.symbol]!;
  }
  return next ?? companies;
}

/** The companies with the market cap of each symbol at the price of its quote held (see {@link withPrice}). */
export function pricedAt(companies: CompanyMap, quotes: QuoteMap): CompanyMap {
  return withPrices(companies, Object.values(quotes));
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

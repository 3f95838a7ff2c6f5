/**
 * The live quotes a process serves: seeded with the market's last closes, moved by the ticks of the bus, and
 * made the market's quote source (REST, screener, Socket.IO). The engine serves its own; a gateway whose
 * engines run elsewhere reads every tick of the shared bus into a quote feed of its own.
 */
import type { DataFeed } from '../../domain/market/feeds.ts';
import type { MarketData } from '../market/marketData.ts';
import type { Quote, QuoteSource } from '../market/quotes.ts';
import type { TickBus } from '../../platform/bus/port.ts';
import { LiveQuotes } from './liveQuotes.ts';

/** The API's quote shape over the live quotes (which also carry the previous close). */
function apiQuotes(quotes: LiveQuotes): QuoteSource {
  const shape = (q: Quote): Quote => ({
    symbol: q.symbol,
    price: q.price,
    change: q.change,
    changepct: q.changepct,
    volume: q.volume,
    ts: q.ts,
    source: q.source,
    open: q.open,
    high: q.high,
    low: q.low,
  });
  return {
    quote: (symbol) => {
      const q = quotes.quote(symbol);
      return q && shape(q);
    },
    quotes: (symbols) => quotes.quotes(symbols).map(shape),
    session: (symbol) => quotes.session(symbol),
    minutes: (symbol) => quotes.minutes(symbol),
  };
}

/**
 * How often (ms) the market gets a new quote source object when prices moved: its screener keeps its rows
 * while the source is the same object, so they are at most this old.
 */
const QUOTE_REFRESH_MS = 1000;

/** Seeded days of history for the live quotes and the simulator's volatility. */
const SEED_DAYS = 400;

/** Live quotes seeded with the market's last closes, and those bars (the simulator's volatility). */
export function seedQuotes(
  market: MarketData,
  feed: DataFeed,
): {
  quotes: LiveQuotes;
  bars: ReturnType<MarketData['store']['lastBars']>;
} {
  const symbols = market.symbols();
  const bars = market.store.lastBars(symbols, SEED_DAYS);
  return {
    quotes: new LiveQuotes(
      symbols.map((symbol) => ({ symbol, bars: bars.get(symbol) ?? [] })),
      feed,
    ),
    bars,
  };
}

/** Makes live quotes the market's quote source (REST, screener), refreshed at most once a second; answers the stop. */
export function serveQuotes(market: MarketData, quotes: LiveQuotes): () => void {
  market.useQuoteSource(apiQuotes(quotes));
  let moved = false;
  const stopWatching = quotes.onUpdate(() => {
    moved = true;
  });
  const refresh = setInterval(() => {
    if (!moved) return;
    moved = false;
    market.useQuoteSource(apiQuotes(quotes));
  }, QUOTE_REFRESH_MS);
  refresh.unref();
  return () => {
    clearInterval(refresh);
    stopWatching();
  };
}

/** Live quotes fed by a plain subscription to the bus: what a gateway serves when the engines run elsewhere. */
export interface QuoteFeed {
  /** The live quotes, every symbol. */
  readonly quotes: LiveQuotes;
  /** Stops reading the bus and serving the quotes. */
  stop(): Promise<void>;
}

/**
 * Reads every tick and day close of the bus into live quotes that become the market's quotes; `prepare` runs on
 * the seeded quotes (and the bars they were seeded from) before the bus is read.
 */
export async function startQuoteFeed(
  bus: TickBus,
  market: MarketData,
  feed: DataFeed,
  prepare?: (quotes: LiveQuotes, bars: ReturnType<MarketData['store']['lastBars']>) => Promise<unknown>,
): Promise<QuoteFeed> {
  const { quotes, bars } = seedQuotes(market, feed);
  // The 1D chart's minute candles, from the first tick (the session so far, when `prepare` plays it).
  quotes.keepMinutes();
  await prepare?.(quotes, bars);
  const subscription = bus.subscribe({
    onTicks: (ticks) => quotes.apply(ticks),
    onDayClosed: (day) => quotes.roll(day),
  });
  await subscription.ready;
  const stopServing = serveQuotes(market, quotes);
  return {
    quotes,
    stop: async () => {
      stopServing();
      await subscription.unsubscribe();
    },
  };
}

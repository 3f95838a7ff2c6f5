/**
 * Where live prices come from: the simulator, a replayed tick file, the feed route (or another producer on the
 * bus), or a provider stream (Alpaca's IEX or SIP feed, Finnhub), each with the name and the delay people see.
 */

/** Every data feed. */
export const DATA_FEEDS = ['simulated', 'replay', 'feed', 'alpaca-iex', 'alpaca-sip', 'finnhub'] as const;

/** One of {@link DATA_FEEDS}. */
export type DataFeed = (typeof DATA_FEEDS)[number];

/** Where a quote's price comes from: a live feed, or the last daily close (before the first tick, after a close). */
export const QUOTE_SOURCES = [...DATA_FEEDS, 'close'] as const;

/** One of {@link QUOTE_SOURCES}. */
export type QuoteOrigin = (typeof QUOTE_SOURCES)[number];

/** A feed as people read it. */
export interface FeedDescription {
  /** Its name, e.g. `Alpaca IEX`. */
  readonly name: string;
  /** How late its prices are, e.g. `real-time, IEX trades only`. */
  readonly delay: string;
}

/** The name and delay of each feed. */
export const FEED_DESCRIPTIONS: Readonly<Record<DataFeed, FeedDescription>> = Object.freeze({
  simulated: { name: 'Simulated', delay: 'no delay, New York trading hours' },
  replay: { name: 'Replay', delay: 'replayed ticks' },
  feed: { name: 'Feed', delay: 'as the producer sends them' },
  'alpaca-iex': { name: 'Alpaca IEX', delay: 'real-time, IEX trades only' },
  'alpaca-sip': { name: 'Alpaca SIP', delay: 'real-time, consolidated' },
  finnhub: { name: 'Finnhub', delay: 'real-time' },
});

/**
 * The simulator's delay as people read it, by its clock: New York trading hours, or on the demo clock one
 * trading day every `sessionMinutes` real minutes (then a day's change and its bar are of minutes, not hours).
 */
export function simulatedDelay(sessionMinutes: number | null): string {
  if (sessionMinutes === null) return FEED_DESCRIPTIONS.simulated.delay;
  const every = sessionMinutes === 1 ? 'minute' : `${sessionMinutes} minutes`;
  return `no delay, a trading day every ${every}`;
}

/** The tick sources a configuration names (`TICK_SOURCE`). */
export type TickSourceName = 'simulator' | 'replay' | 'feed' | 'alpaca' | 'finnhub';

/** The feed of a configured tick source; Alpaca's depends on its `ALPACA_FEED` (IEX unless SIP). */
export function dataFeedOf(source: TickSourceName, alpacaFeed: 'iex' | 'sip' | null = null): DataFeed {
  switch (source) {
    case 'simulator':
      return 'simulated';
    case 'alpaca':
      return alpacaFeed === 'sip' ? 'alpaca-sip' : 'alpaca-iex';
    default:
      return source;
  }
}

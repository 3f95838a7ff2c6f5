/**
 * Market movers: the universe's top gainers, top losers and most active symbols of the session, read from the
 * quotes the market answers now (live once ticks flow, the last daily close before).
 */
import { moversApi } from '../../domain/contract/movers.ts';
import { type Mover, type Movers } from '../../domain/contract/movers.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { defineRoute } from '../http/route.ts';

export { MOVERS_LIMIT, type Mover, type Movers } from '../../domain/contract/movers.ts';

/** What the movers route needs. */
export interface MoversDeps {
  /** The market data service. */
  readonly market: MarketData;
}

const bySymbol = (a: Mover, b: Mover): number => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0);

/**
 * Ranks quotes into gainers, losers and most active, `limit` each; ties go to the alphabetically first symbol,
 * so the lists are stable between two reads of the same quotes.
 */
export function rankMovers(quotes: readonly Mover[], limit: number): Movers {
  const gainers = quotes.filter((q) => q.changepct > 0).sort((a, b) => b.changepct - a.changepct || bySymbol(a, b));
  const losers = quotes.filter((q) => q.changepct < 0).sort((a, b) => a.changepct - b.changepct || bySymbol(a, b));
  const active = quotes.filter((q) => q.volume > 0).sort((a, b) => b.volume - a.volume || bySymbol(a, b));
  return { gainers: gainers.slice(0, limit), losers: losers.slice(0, limit), active: active.slice(0, limit) };
}

/** The movers route. */
export function moversRoutes(deps: MoversDeps) {
  const { market } = deps;
  return [
    defineRoute({
      ...moversApi.getMarketMovers,
      handle: async ({ query }) => {
        const names = new Map(market.companies.map((c) => [c.symbol, c.name]));
        const quotes = market.quotes
          .quotes([...names.keys()])
          .map((q) => ({ ...q, name: names.get(q.symbol) ?? q.symbol }));
        return Promise.resolve(rankMovers(quotes, query.limit));
      },
    }),
  ];
}

/**
 * Market movers: the universe's top gainers, top losers and most active symbols of the session, read from the
 * quotes the market answers now (live once ticks flow, the last daily close before).
 */
import { z } from 'zod';
import type { Quote } from '../../domain/market/types.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { defineRoute } from '../http/route.ts';
import { wholeNumber } from './market.ts';

/** What the movers route needs. */
export interface MoversDeps {
  /** The market data service. */
  readonly market: MarketData;
}

/** Symbols each list of movers holds, at most and by default. */
export const MOVERS_LIMIT = { max: 50, default: 5 } as const;

/** A mover: its quote and company name. */
export interface Mover extends Quote {
  /** Company name. */
  readonly name: string;
}

/** The three lists of movers. */
export interface Movers {
  /** Highest % change first, only symbols up on the session. */
  readonly gainers: readonly Mover[];
  /** Lowest % change first, only symbols down on the session. */
  readonly losers: readonly Mover[];
  /** Highest volume first, only symbols that traded. */
  readonly active: readonly Mover[];
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

const mover = z.object({
  symbol: z.string(),
  name: z.string(),
  price: z.number(),
  change: z.number(),
  changepct: z.number(),
  volume: z.number(),
  ts: z.string(),
});

/** The movers route. */
export function moversRoutes(deps: MoversDeps) {
  const { market } = deps;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/market/movers',
      summary: `The universe's top gainers and losers by % change and most active by volume, ${MOVERS_LIMIT.default} each unless limit says (1-${MOVERS_LIMIT.max})`,
      tag: 'market',
      access: 'user',
      query: z.object({ limit: wholeNumber(1, MOVERS_LIMIT.max).default(MOVERS_LIMIT.default) }),
      response: z.object({ gainers: z.array(mover), losers: z.array(mover), active: z.array(mover) }),
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

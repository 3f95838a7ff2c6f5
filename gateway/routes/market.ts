/**
 * Market data routes: the market's status, the universe and its sectors, quotes, daily bars with indicators,
 * fundamentals, cumulative % change series of symbols and sectors, and return correlations.
 */
import { marketApi } from '../../domain/contract/market.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { defineRoute } from '../http/route.ts';
import { requireKnown, requireSymbol } from '../http/schemas.ts';
import { liveFeedOf, type HealthDeps } from './health.ts';

/** What the market routes need. */
export interface MarketDeps {
  /** The market data service. */
  readonly market: MarketData;
  /** The engine this process runs, whose feed the status names (none when absent). */
  readonly engine?: HealthDeps['engine'] | undefined;
}

/** The market data routes. */
export function marketRoutes(deps: MarketDeps) {
  const { market } = deps;
  return [
    defineRoute({
      ...marketApi.getMarketStatus,
      handle: async () => Promise.resolve({ ...market.status(), feed: liveFeedOf(deps.engine) }),
    }),
    defineRoute({
      ...marketApi.getUniverse,
      handle: async ({ query }) =>
        Promise.resolve(
          market
            .search({ q: query.q, sector: query.sector, cap: query.cap, limit: query.limit })
            .map(({ symbol, name, sector, industry, shares, marketcap, capclass }) => ({
              symbol,
              name,
              sector,
              industry,
              shares,
              marketcap,
              capclass,
            })),
        ),
    }),
    defineRoute({
      ...marketApi.getSectors,
      handle: async () => Promise.resolve(market.sectors()),
    }),
    defineRoute({
      ...marketApi.getQuotes,
      handle: async ({ query }) => {
        requireKnown(market, query.symbols, 'query.symbols');
        return Promise.resolve(market.quotes.quotes(query.symbols));
      },
    }),
    defineRoute({
      ...marketApi.getBarsBySymbol,
      handle: async ({ params, query }) => {
        requireSymbol(market, params.symbol, 'params.symbol');
        return Promise.resolve({
          symbol: params.symbol,
          bars: market.chartBars(params.symbol, query.months),
          next: market.nextAverages(params.symbol),
        });
      },
    }),
    defineRoute({
      ...marketApi.getBarsBySymbolMinutes,
      handle: async ({ params }) => {
        requireSymbol(market, params.symbol, 'params.symbol');
        const minutes = market.quotes.minutes?.(params.symbol);
        return Promise.resolve(minutes ?? { symbol: params.symbol, prevClose: null, candles: [] });
      },
    }),
    defineRoute({
      ...marketApi.getFundamentalsByTypeBySymbolByLimitByPeriod,
      handle: async ({ params }) => {
        requireSymbol(market, params.symbol, 'params.symbol');
        return Promise.resolve(market.fundamentals(params.type, params.symbol, params.limit, params.period));
      },
    }),
    defineRoute({
      ...marketApi.getPerformance,
      handle: async ({ query }) => {
        requireKnown(market, query.symbols, 'query.symbols');
        return Promise.resolve(market.performance(query.symbols, query.months));
      },
    }),
    defineRoute({
      ...marketApi.getPerformanceSectors,
      handle: async ({ query }) => Promise.resolve(market.sectorPerformance(query.months)),
    }),
    defineRoute({
      ...marketApi.getCorelationByDurByFormat,
      handle: async ({ params, query }) => {
        requireKnown(market, query.stks, 'query.stks');
        const { matrix, groups } = market.correlation(query.stks, params.dur);
        return Promise.resolve(params.format === 'matrix' ? matrix : groups());
      },
    }),
  ];
}

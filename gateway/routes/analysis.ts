/**
 * Analysis routes of the Analyze page: the closes of many symbols on one date (so a card can show the change
 * since its pattern day) and the pattern timelines of many symbols in one request.
 */
import { analysisApi } from '../../domain/contract/analysis.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { defineRoute } from '../http/route.ts';
import { requireKnown } from '../http/schemas.ts';

/** What the analysis routes need. */
export interface AnalysisDeps {
  /** The market data service. */
  readonly market: MarketData;
}

/** The analysis routes. */
export function analysisRoutes(deps: AnalysisDeps) {
  const { market } = deps;
  return [
    defineRoute({
      ...analysisApi.getAnalysisClosesByDate,
      handle: async ({ params, query }) => {
        requireKnown(market, query.symbols, 'query.symbols');
        return Promise.resolve(
          query.symbols.map((symbol) => {
            const bar = market.store.bars(symbol, { to: params.date, limit: 1 })[0];
            return { symbol, date: bar?.date ?? null, close: bar?.close ?? null };
          }),
        );
      },
    }),
    defineRoute({
      ...analysisApi.getAnalysisTimelinesByLimitDays,
      handle: async ({ params, query }) => {
        requireKnown(market, query.symbols, 'query.symbols');
        const calendar = market.calendar;
        return Promise.resolve({
          from: calendar[Math.max(0, calendar.length - params.limitDays)] ?? null,
          to: calendar.at(-1) ?? null,
          timelines: query.symbols.map((symbol) => ({
            symbol,
            days: market.patterns
              .recentOfSymbol(symbol, params.limitDays)
              .reverse()
              .map((row) => ({ date: row.date, stockpatterns: [...row.stockpatterns] })),
          })),
        });
      },
    }),
  ];
}

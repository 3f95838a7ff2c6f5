/**
 * Analysis routes of the Analyze page: the closes of many symbols on one date (so a card can show the change
 * since its pattern day) and the pattern timelines of many symbols in one request.
 */
import { z } from 'zod';
import type { MarketData } from '../../engine/market/marketData.ts';
import { defineRoute } from '../http/route.ts';
import { requireKnown } from '../http/schemas.ts';
import { PATTERN_DAYS_MAX } from './patterns.ts';
import { commaSymbols, dateSchema, wholeNumber } from './market.ts';

/** What the analysis routes need. */
export interface AnalysisDeps {
  /** The market data service. */
  readonly market: MarketData;
}

/** Most symbols one closes request names. */
export const CLOSES_MAX = 500;
/** Most symbols one timelines request names. */
export const TIMELINES_MAX = 100;

const hit = z.object({ name: z.string(), bullish: z.boolean().nullable() });

/** The analysis routes. */
export function analysisRoutes(deps: AnalysisDeps) {
  const { market } = deps;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/analysis/closes/:date',
      summary: `The close of each symbol (1-${CLOSES_MAX}, symbols=A,B) on a date: its last bar on or before that date, null when it has none`,
      tag: 'analysis',
      access: 'user',
      params: z.object({ date: dateSchema }),
      query: z.object({ symbols: commaSymbols(1, CLOSES_MAX) }),
      response: z.array(z.object({ symbol: z.string(), date: z.string().nullable(), close: z.number().nullable() })),
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
      method: 'GET',
      path: '/api/analysis/timelines/:limitDays',
      summary: `The pattern days of each symbol (1-${TIMELINES_MAX}, symbols=A,B) in the market's last N trading days (1-${PATTERN_DAYS_MAX}), oldest first, with the window's first and last trading day`,
      tag: 'analysis',
      access: 'user',
      params: z.object({ limitDays: wholeNumber(1, PATTERN_DAYS_MAX) }),
      query: z.object({ symbols: commaSymbols(1, TIMELINES_MAX) }),
      response: z.object({
        from: z.string().nullable(),
        to: z.string().nullable(),
        timelines: z.array(
          z.object({
            symbol: z.string(),
            days: z.array(z.object({ date: z.string(), stockpatterns: z.array(hit) })),
          }),
        ),
      }),
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

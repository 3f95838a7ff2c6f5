/**
 * Candlestick pattern routes: a symbol's latest patterns, the newest rows, dates with their counts, one date's
 * rows, a symbol's recent rows, symbols ranked by pattern days, a symbol's bars since a date, how every pattern
 * did afterwards, and the written definitions.
 */
import { patternsApi } from '../../domain/contract/patterns.ts';
import { PATTERN_DESCRIPTIONS } from '../../engine/market/definitions.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import type { PatternRow } from '../../engine/market/patternIndex.ts';
import { round } from '../../engine/market/series.ts';
import { HORIZONS } from '../../engine/patterns/performance.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';
import { requireSymbol } from '../http/schemas.ts';

/** What the pattern routes need. */
export interface PatternsDeps {
  /** The market data service. */
  readonly market: MarketData;
}

/** The direction groups of the realtime route, in the order they are listed. */
const DIRECTIONS = [
  { type: 'bullish', bullish: true },
  { type: 'bearish', bullish: false },
  { type: 'neutral', bullish: null },
] as const;

/** A row's patterns grouped by direction: `[{type, bullish, stock, date, patterns: [name]}]`, empty groups left out. */
export function byDirection(row: PatternRow | undefined) {
  if (row === undefined) return [];
  return DIRECTIONS.flatMap(({ type, bullish }) => {
    const patterns = row.stockpatterns.filter((h) => h.bullish === bullish).map((h) => h.name);
    return patterns.length === 0 ? [] : [{ type, bullish, stock: row.symbol, date: row.date, patterns }];
  });
}

/** The candlestick pattern routes. */
export function patternsRoutes(deps: PatternsDeps) {
  const { market } = deps;
  return [
    defineRoute({
      ...patternsApi.getRealtimeStockpatternsBySymbol,
      handle: async ({ params }) => {
        requireSymbol(market, params.symbol, 'params.symbol');
        return Promise.resolve(byDirection(market.patterns.latestOfSymbol(params.symbol)));
      },
    }),
    defineRoute({
      ...patternsApi.getPatternsAllByLimitrows,
      handle: async ({ params }) => Promise.resolve(market.patterns.newest(params.limitrows)),
    }),
    defineRoute({
      ...patternsApi.getPatternsDatesByLimitDays,
      handle: async ({ params }) => Promise.resolve(market.patterns.dates(params.limitDays)),
    }),
    defineRoute({
      ...patternsApi.getPatternsBydateByDate,
      handle: async ({ params }) => Promise.resolve(market.patterns.onDate(params.date)),
    }),
    defineRoute({
      ...patternsApi.getPatternsMostrecentday,
      handle: async () => {
        const latest = market.patterns.latestDate();
        return Promise.resolve(latest === undefined ? [] : market.patterns.onDate(latest));
      },
    }),
    defineRoute({
      ...patternsApi.getPatternsRecentstkpatternByStockByLimitdays,
      handle: async ({ params }) => {
        requireSymbol(market, params.stock, 'params.stock');
        return Promise.resolve(market.patterns.recentOfSymbol(params.stock, params.limitdays));
      },
    }),
    defineRoute({
      ...patternsApi.getPatternsPerformanceByStockByDatefrom,
      handle: async ({ params }) => {
        requireSymbol(market, params.stock, 'params.stock');
        const bars = market.barsFrom(params.stock, params.datefrom);
        const first = bars[0];
        const last = bars.at(-1);
        if (first === undefined || last === undefined) {
          const to = market.snapshot(params.stock)?.date ?? 'none';
          throw new ApiError(400, 'bad_request', `params.datefrom: is after the last bar of ${params.stock} (${to})`);
        }
        const change = last.close - first.close;
        return Promise.resolve({
          symbol: params.stock,
          datefrom: params.datefrom,
          bars,
          change: round(change, 4),
          changepct: first.close > 0 ? round((change / first.close) * 100, 2) : 0,
        });
      },
    }),
    defineRoute({
      ...patternsApi.getPatternsGroupbysymByLimitDays,
      handle: async ({ params }) => Promise.resolve(market.patterns.countBySymbol(params.limitDays)),
    }),
    defineRoute({
      ...patternsApi.getPatternsStats,
      handle: async () => {
        const labels = new Map(PATTERN_DESCRIPTIONS.map((d) => [d.name, d.label]));
        return Promise.resolve(
          market.patternPerformance().map((p) => ({
            name: p.name,
            label: labels.get(p.name) ?? p.name,
            bullish: p.bullish,
            count: p.detections,
            horizons: HORIZONS.map((days) => ({ days, ...p.horizons[days] })),
          })),
        );
      },
    }),
    defineRoute({
      ...patternsApi.getPatternsDefinitions,
      handle: async () => Promise.resolve(PATTERN_DESCRIPTIONS),
    }),
  ];
}

/**
 * Candlestick pattern routes: a symbol's latest patterns, the newest rows, dates with their counts, one date's
 * rows, a symbol's recent rows, symbols ranked by pattern days, a symbol's bars since a date, how every pattern
 * did afterwards, and the written definitions.
 */
import { z } from 'zod';
import { PATTERN_DESCRIPTIONS } from '../../engine/market/definitions.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import type { PatternRow } from '../../engine/market/patternIndex.ts';
import { round } from '../../engine/market/series.ts';
import { HORIZONS } from '../../engine/patterns/performance.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';
import { symbolSchema } from '../http/schemas.ts';
import { dateSchema, requireSymbol, wholeNumber } from './market.ts';

/** What the pattern routes need. */
export interface PatternsDeps {
  /** The market data service. */
  readonly market: MarketData;
}

/** Most rows one request asks for. */
export const PATTERN_ROWS_MAX = 5000;
/** Most trading days (or dates) one request looks back. */
export const PATTERN_DAYS_MAX = 1250;

const hit = z.object({ name: z.string(), bullish: z.boolean().nullable() });
const patternRow = z.object({ id: z.string(), symbol: z.string(), date: z.string(), stockpatterns: z.array(hit) });
const rowLimit = wholeNumber(1, PATTERN_ROWS_MAX);
const dayLimit = wholeNumber(1, PATTERN_DAYS_MAX);

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
      method: 'GET',
      path: '/realtime/stockpatterns/:symbol',
      summary:
        "A symbol's latest detected patterns (its most recent day with any), grouped by direction: type bullish, bearish or neutral",
      tag: 'patterns',
      access: 'user',
      params: z.object({ symbol: symbolSchema }),
      response: z.array(
        z.object({
          type: z.enum(['bullish', 'bearish', 'neutral']),
          bullish: z.boolean().nullable(),
          stock: z.string(),
          date: z.string(),
          patterns: z.array(z.string()),
        }),
      ),
      handle: async ({ params }) => {
        requireSymbol(market, params.symbol, 'params.symbol');
        return Promise.resolve(byDirection(market.patterns.latestOfSymbol(params.symbol)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/patterns/all/:limitrows',
      summary: `The newest pattern rows (1-${PATTERN_ROWS_MAX}): by date, newest first, then by symbol`,
      tag: 'patterns',
      access: 'user',
      params: z.object({ limitrows: rowLimit }),
      response: z.array(patternRow),
      handle: async ({ params }) => Promise.resolve(market.patterns.newest(params.limitrows)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/patterns/dates/:limitDays',
      summary: `The newest dates that have patterns (1-${PATTERN_DAYS_MAX}), with the number of patterns detected on each`,
      tag: 'patterns',
      access: 'user',
      params: z.object({ limitDays: dayLimit }),
      response: z.array(z.object({ date: z.string(), patterncount: z.number() })),
      handle: async ({ params }) => Promise.resolve(market.patterns.dates(params.limitDays)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/patterns/bydate/:date',
      summary: 'The pattern rows of one date, by symbol',
      tag: 'patterns',
      access: 'user',
      params: z.object({ date: dateSchema }),
      response: z.array(patternRow),
      handle: async ({ params }) => Promise.resolve(market.patterns.onDate(params.date)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/patterns/mostrecentday',
      summary: 'The pattern rows of the latest date that has patterns, by symbol',
      tag: 'patterns',
      access: 'user',
      response: z.array(patternRow),
      handle: async () => {
        const latest = market.patterns.latestDate();
        return Promise.resolve(latest === undefined ? [] : market.patterns.onDate(latest));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/patterns/recentstkpattern/:stock/:limitdays',
      summary: `A symbol's pattern rows of the market's last N trading days (1-${PATTERN_DAYS_MAX}), newest first`,
      tag: 'patterns',
      access: 'user',
      params: z.object({ stock: symbolSchema, limitdays: dayLimit }),
      response: z.array(patternRow),
      handle: async ({ params }) => {
        requireSymbol(market, params.stock, 'params.stock');
        return Promise.resolve(market.patterns.recentOfSymbol(params.stock, params.limitdays));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/patterns/performance/:stock/:datefrom',
      summary:
        "A symbol's bars from a date to its last bar, with the change and % change of the close since the first of them",
      tag: 'patterns',
      access: 'user',
      params: z.object({ stock: symbolSchema, datefrom: dateSchema }),
      response: z.object({
        symbol: z.string(),
        datefrom: z.string(),
        bars: z.array(
          z.object({
            date: z.string(),
            open: z.number(),
            high: z.number(),
            low: z.number(),
            close: z.number(),
            volume: z.number(),
          }),
        ),
        change: z.number(),
        changepct: z.number(),
      }),
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
      method: 'GET',
      path: '/api/patterns/groupbysym/:limitDays',
      summary: `Symbols with their number of pattern days in the market's last N trading days (1-${PATTERN_DAYS_MAX}), most first`,
      tag: 'patterns',
      access: 'user',
      params: z.object({ limitDays: dayLimit }),
      response: z.array(z.object({ symbol: z.string(), count: z.number() })),
      handle: async ({ params }) => Promise.resolve(market.patterns.countBySymbol(params.limitDays)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/patterns/stats',
      summary:
        'How every pattern did over the whole market: detections, and per horizon (1, 5 and 20 trading days) the count, the hit rate in its direction and the median forward return (a fraction)',
      tag: 'patterns',
      access: 'user',
      response: z.array(
        z.object({
          name: z.string(),
          label: z.string(),
          bullish: z.boolean().nullable(),
          count: z.number(),
          horizons: z.array(
            z.object({
              days: z.number(),
              count: z.number(),
              hitRate: z.number().nullable(),
              median: z.number().nullable(),
            }),
          ),
        }),
      ),
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
      method: 'GET',
      path: '/api/patterns/definitions',
      summary: 'Every candlestick pattern: name, label, direction, candle count and written definition',
      tag: 'patterns',
      access: 'user',
      response: z.array(
        z.object({
          name: z.string(),
          label: z.string(),
          bullish: z.boolean().nullable(),
          candles: z.number(),
          definition: z.string(),
        }),
      ),
      handle: async () => Promise.resolve(PATTERN_DESCRIPTIONS),
    }),
  ];
}

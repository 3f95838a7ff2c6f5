/**
 * The candlestick pattern routes of the API: a symbol's latest patterns, the newest rows, dates with their
 * counts, one date's rows, a symbol's recent rows, symbols ranked by pattern days, a symbol's bars since a date,
 * how every pattern did afterwards, and the written definitions.
 */
import { z } from './zod.ts';
import { dateSchema, symbolSchema, wholeNumber } from './common.ts';
import { chartBar } from './market.ts';
import { route } from './route.ts';

/** Most rows one request asks for. */
export const PATTERN_ROWS_MAX = 5000;
/** Most trading days (or dates) one request looks back. */
export const PATTERN_DAYS_MAX = 1250;

const rowLimit = wholeNumber(1, PATTERN_ROWS_MAX);
const dayLimit = wholeNumber(1, PATTERN_DAYS_MAX);

/** A pattern detected on a day: its name and direction (null when neutral). */
export const patternHit = z.object({ name: z.string(), bullish: z.boolean().nullable() });

/** The patterns of one symbol on one day. */
export const patternRow = z.object({
  id: z.string(),
  symbol: z.string(),
  date: z.string(),
  stockpatterns: z.array(patternHit),
});

/** A pattern detected on a day, as the API answers it. */
export type PatternHit = z.infer<typeof patternHit>;
/** A pattern row as the API answers it. */
export type PatternRowAnswer = z.infer<typeof patternRow>;

/** The patterns routes. */
export const patternsApi = {
  getRealtimeStockpatternsBySymbol: route({
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
  }),
  getPatternsAllByLimitrows: route({
    method: 'GET',
    path: '/api/patterns/all/:limitrows',
    summary: `The newest pattern rows (1-${PATTERN_ROWS_MAX}): by date, newest first, then by symbol`,
    tag: 'patterns',
    access: 'user',
    params: z.object({ limitrows: rowLimit }),
    response: z.array(patternRow),
  }),
  getPatternsDatesByLimitDays: route({
    method: 'GET',
    path: '/api/patterns/dates/:limitDays',
    summary: `The newest dates that have patterns (1-${PATTERN_DAYS_MAX}), with the number of patterns detected on each`,
    tag: 'patterns',
    access: 'user',
    params: z.object({ limitDays: dayLimit }),
    response: z.array(z.object({ date: z.string(), patterncount: z.number() })),
  }),
  getPatternsBydateByDate: route({
    method: 'GET',
    path: '/api/patterns/bydate/:date',
    summary: 'The pattern rows of one date, by symbol',
    tag: 'patterns',
    access: 'user',
    params: z.object({ date: dateSchema }),
    response: z.array(patternRow),
  }),
  getPatternsMostrecentday: route({
    method: 'GET',
    path: '/api/patterns/mostrecentday',
    summary: 'The pattern rows of the latest date that has patterns, by symbol',
    tag: 'patterns',
    access: 'user',
    response: z.array(patternRow),
  }),
  getPatternsRecentstkpatternByStockByLimitdays: route({
    method: 'GET',
    path: '/api/patterns/recentstkpattern/:stock/:limitdays',
    summary: `A symbol's pattern rows of the market's last N trading days (1-${PATTERN_DAYS_MAX}), newest first`,
    tag: 'patterns',
    access: 'user',
    params: z.object({ stock: symbolSchema, limitdays: dayLimit }),
    response: z.array(patternRow),
  }),
  getPatternsPerformanceByStockByDatefrom: route({
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
      bars: z.array(chartBar.pick({ date: true, open: true, high: true, low: true, close: true, volume: true })),
      change: z.number(),
      changepct: z.number(),
    }),
  }),
  getPatternsGroupbysymByLimitDays: route({
    method: 'GET',
    path: '/api/patterns/groupbysym/:limitDays',
    summary: `Symbols with their number of pattern days in the market's last N trading days (1-${PATTERN_DAYS_MAX}), most first`,
    tag: 'patterns',
    access: 'user',
    params: z.object({ limitDays: dayLimit }),
    response: z.array(z.object({ symbol: z.string(), count: z.number() })),
  }),
  getPatternsStats: route({
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
  }),
  getPatternsDefinitions: route({
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
  }),
};

/** A symbol's latest patterns of one direction, as `GET /realtime/stockpatterns/{symbol}` answers them. */
export type LatestPatterns = z.infer<typeof patternsApi.getRealtimeStockpatternsBySymbol.response>[number];
/** A date with its number of patterns, as `GET /api/patterns/dates/{limitDays}` answers it. */
export type PatternDate = z.infer<typeof patternsApi.getPatternsDatesByLimitDays.response>[number];
/** A symbol with its pattern days, as `GET /api/patterns/groupbysym/{limitDays}` answers it. */
export type RankedSymbol = z.infer<typeof patternsApi.getPatternsGroupbysymByLimitDays.response>[number];
/** How a pattern did, as `GET /api/patterns/stats` answers it. */
export type PatternStat = z.infer<typeof patternsApi.getPatternsStats.response>[number];
/** A pattern's definition, as `GET /api/patterns/definitions` answers it. */
export type PatternDefinition = z.infer<typeof patternsApi.getPatternsDefinitions.response>[number];
/** How a pattern did at one horizon. */
export type PatternHorizon = PatternStat['horizons'][number];

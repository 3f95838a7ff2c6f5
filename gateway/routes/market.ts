/**
 * Market data routes: the market's status, the universe and its sectors, quotes, daily bars with indicators,
 * fundamentals, cumulative % change series of symbols and sectors, and return correlations.
 */
import { z } from 'zod';
import { SECTORS } from '../../domain/market/types.ts';
import { CAP_CLASSES } from '../../domain/screener/query.ts';
import { isValidDate } from '../../engine/marketdata/calendar.ts';
import { FUNDAMENTAL_TYPES } from '../../engine/marketdata/fundamentals.ts';
import type { MarketData } from '../../engine/market/marketData.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../http/route.ts';
import { requireKnown, symbolList, symbolSchema } from '../http/schemas.ts';

/** What the market routes need. */
export interface MarketDeps {
  /** The market data service. */
  readonly market: MarketData;
}

/** Most symbols one quotes request names. */
export const QUOTES_MAX = 500;
/** Most symbols one performance request names. */
export const PERFORMANCE_MAX = 100;
/** Months of history a chart or a performance series spans, at least and at most. */
export const MONTHS_RANGE = { min: 1, max: 60, default: 3 } as const;
/** Trading days of returns a correlation spans, at least and at most. */
export const CORRELATION_DAYS = { min: 5, max: 1250 } as const;
/** Symbols a correlation compares, at least and at most. */
export const CORRELATION_SYMBOLS = { min: 2, max: 100 } as const;
/** Most fundamental figures one request asks for (0 asks for all). */
export const FUNDAMENTALS_LIMIT_MAX = 1000;

/** A whole number from `min` to `max` in a path or query string. */
export function wholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ error: message }).int(message).min(min, message).max(max, message);
}

/** A `YYYY-MM-DD` calendar date in a path or query string. */
export const dateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(isValidDate, 'must be a calendar date');

/** A comma-separated list of symbols in a query string (`A,B,C`), from `min` to `max` of them, no symbol twice. */
export function commaSymbols(min: number, max: number) {
  return z
    .string({ error: 'must be a comma-separated list of symbols' })
    .transform((text) => (text.trim() === '' ? [] : text.split(',').map((s) => s.trim())))
    .pipe(
      symbolList(max)
        .min(min, min === 1 ? 'must name at least one symbol' : `must name at least ${min} symbols`)
        .superRefine((list, ctx) => {
          const seen = new Set<string>();
          list.forEach((symbol, i) => {
            if (seen.has(symbol)) ctx.addIssue({ code: 'custom', message: `names ${symbol} twice`, path: [i] });
            seen.add(symbol);
          });
        }),
    );
}

/** Refuses a symbol outside the universe, naming the field. */
export function requireSymbol(market: MarketData, symbol: string, field: string): void {
  if (!market.has(symbol)) throw new ApiError(400, 'unknown_symbol', `${field}: unknown symbol ${symbol}`);
}

const months = wholeNumber(MONTHS_RANGE.min, MONTHS_RANGE.max).default(MONTHS_RANGE.default);
const nullableNumber = z.number().nullable();

const universeEntry = z.object({
  symbol: z.string(),
  name: z.string(),
  sector: z.enum(SECTORS),
  industry: z.string(),
  marketcap: z.number(),
  capclass: z.enum(CAP_CLASSES as ['large', 'mid', 'small']),
});

const quote = z.object({
  symbol: z.string(),
  price: z.number(),
  change: z.number(),
  changepct: z.number(),
  volume: z.number(),
  ts: z.string(),
});

const chartBar = z.object({
  date: z.string(),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
  SMA_20: nullableNumber,
  SMA_50: nullableNumber,
  SMA_100: nullableNumber,
  SMA_200: nullableNumber,
  rsi_14: nullableNumber,
});

const percentValues = z.array(nullableNumber);

/** The market data routes. */
export function marketRoutes(deps: MarketDeps) {
  const { market } = deps;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/market/status',
      summary:
        'Where the market data comes from: the universe date it is as of (simulated since), seed, counts, date range, and the symbols whose bars were imported',
      tag: 'market',
      access: 'user',
      response: z.object({
        asOf: z.string(),
        seed: z.number().nullable(),
        symbols: z.number(),
        bars: z.number(),
        from: z.string().nullable(),
        to: z.string().nullable(),
        source: z.enum(['simulated', 'imported', 'mixed']),
        importedSymbols: z.array(z.string()),
      }),
      handle: async () => Promise.resolve(market.status()),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/universe',
      summary:
        'Search the universe: q matches a symbol prefix or a word of the name; sector and cap filter; without q every company that passes the filters',
      tag: 'market',
      access: 'user',
      query: z.object({
        q: z.string().trim().max(50, 'must be at most 50 characters').optional(),
        sector: z.enum(SECTORS, { error: `must be one of ${SECTORS.join(', ')}` }).optional(),
        cap: z.enum(['large', 'mid', 'small'], { error: 'must be one of large, mid, small' }).optional(),
        limit: wholeNumber(1, 1000).optional(),
      }),
      response: z.array(universeEntry),
      handle: async ({ query }) =>
        Promise.resolve(
          market
            .search({ q: query.q, sector: query.sector, cap: query.cap, limit: query.limit })
            .map(({ symbol, name, sector, industry, marketcap, capclass }) => ({
              symbol,
              name,
              sector,
              industry,
              marketcap,
              capclass,
            })),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/sectors',
      summary: 'The 11 GICS sectors with their symbols, largest market cap first',
      tag: 'market',
      access: 'user',
      response: z.array(z.object({ sector: z.enum(SECTORS), symbols: z.array(z.string()) })),
      handle: async () => Promise.resolve(market.sectors()),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/quotes',
      summary: 'The quotes of symbols: price, change and % change since the previous close, volume, time',
      tag: 'market',
      access: 'user',
      query: z.object({ symbols: commaSymbols(1, QUOTES_MAX) }),
      response: z.array(quote),
      handle: async ({ query }) => {
        requireKnown(market, query.symbols, 'query.symbols');
        return Promise.resolve(market.quotes.quotes(query.symbols));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/bars/:symbol',
      summary: "A symbol's daily bars of the last N months (1-60, default 3) with SMA 20/50/100/200 and RSI 14",
      tag: 'market',
      access: 'user',
      params: z.object({ symbol: symbolSchema }),
      query: z.object({ months }),
      response: z.object({ symbol: z.string(), bars: z.array(chartBar) }),
      handle: async ({ params, query }) => {
        requireSymbol(market, params.symbol, 'params.symbol');
        return Promise.resolve({ symbol: params.symbol, bars: market.chartBars(params.symbol, query.months) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/fundamentals/:type/:symbol/:limit/:period',
      summary:
        'Fundamental figures of a symbol, newest first: type revenue, grossprofit, income or earningspershare; limit 0 for all; period A (years) or Q (quarters)',
      tag: 'market',
      access: 'user',
      params: z.object({
        type: z.enum(FUNDAMENTAL_TYPES, { error: `must be one of ${FUNDAMENTAL_TYPES.join(', ')}` }),
        symbol: symbolSchema,
        limit: wholeNumber(0, FUNDAMENTALS_LIMIT_MAX),
        period: z
          .string()
          .toUpperCase()
          .pipe(z.enum(['A', 'Q'], { error: 'must be A or Q' })),
      }),
      response: z.array(
        z.object({ end: z.string(), val: z.number(), fy: z.number(), fp: z.string(), label: z.string() }),
      ),
      handle: async ({ params }) => {
        requireSymbol(market, params.symbol, 'params.symbol');
        return Promise.resolve(market.fundamentals(params.type, params.symbol, params.limit, params.period));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/performance',
      summary:
        'The cumulative % change of each symbol over the last N months (1-60, default 3), every series starting at 0 on the first date',
      tag: 'market',
      access: 'user',
      query: z.object({ symbols: commaSymbols(1, PERFORMANCE_MAX), months }),
      response: z.object({
        dates: z.array(z.string()),
        series: z.array(z.object({ symbol: z.string(), values: percentValues })),
      }),
      handle: async ({ query }) => {
        requireKnown(market, query.symbols, 'query.symbols');
        return Promise.resolve(market.performance(query.symbols, query.months));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/performance/sectors',
      summary:
        'Per GICS sector, the average cumulative % change of its symbols over the last N months (1-60, default 3), starting at 0',
      tag: 'market',
      access: 'user',
      query: z.object({ months }),
      response: z.object({
        dates: z.array(z.string()),
        series: z.array(z.object({ sector: z.string(), values: percentValues })),
      }),
      handle: async ({ query }) => Promise.resolve(market.sectorPerformance(query.months)),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/corelation/:dur/:format',
      summary:
        'Correlation of daily returns over the last dur trading days (5-1250) of 2-100 symbols (stks=A,B,C): format default answers groups of mutually correlated stocks, matrix the correlation matrix',
      tag: 'market',
      access: 'user',
      params: z.object({
        dur: wholeNumber(CORRELATION_DAYS.min, CORRELATION_DAYS.max),
        format: z.enum(['default', 'matrix'], { error: 'must be default or matrix' }),
      }),
      query: z.object({ stks: commaSymbols(CORRELATION_SYMBOLS.min, CORRELATION_SYMBOLS.max) }),
      response: z.union([
        z.array(z.array(z.object({ stock: z.string(), value: z.number() }))),
        z.object({ symbols: z.array(z.string()), values: z.array(z.array(z.number())) }),
      ]),
      handle: async ({ params, query }) => {
        requireKnown(market, query.stks, 'query.stks');
        const { matrix, groups } = market.correlation(query.stks, params.dur);
        return Promise.resolve(params.format === 'matrix' ? matrix : groups());
      },
    }),
  ];
}

/**
 * The market data routes of the API: the market's status, the universe and its sectors, quotes, daily bars with
 * indicators, fundamentals, cumulative % change series of symbols and sectors, and return correlations.
 */
import { z } from './zod.ts';
import { DATA_FEEDS, QUOTE_SOURCES } from '../market/feeds.ts';
import { FUNDAMENTAL_TYPES, SECTORS, type Quote } from '../market/types.ts';
import { CAP_CLASSES } from '../screener/query.ts';
import { commaSymbols, periodSchema, symbolSchema, wholeNumber } from './common.ts';
import { route } from './route.ts';

/** Longest text a universe search takes (the symbol search box stops there). */
export const UNIVERSE_QUERY_MAX = 50;

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

const months = wholeNumber(MONTHS_RANGE.min, MONTHS_RANGE.max).default(MONTHS_RANGE.default);

const nullableNumber = z.number().nullable();

/** What every market cap the API answers is (the universe, the sectors' order, the screener). */
export const MARKET_CAP_DEFINITION =
  'market capitalisation in dollars: shares outstanding × the price the quotes show (the last close until ticks flow)';

/** What a cap class is. */
export const CAP_CLASS_DEFINITION = 'cap class of the market cap: large above 10 B, mid from 2 B to 10 B, small below';

/** What the shares answered with each company are. */
export const SHARES_DEFINITION = 'shares outstanding: the market cap at any price is the shares × that price';

/** A company of the universe. */

export const universeEntry = z.object({
  symbol: z.string(),
  name: z.string(),
  sector: z.enum(SECTORS),
  industry: z.string(),
  shares: z.number().describe(SHARES_DEFINITION),
  marketcap: z.number().describe(MARKET_CAP_DEFINITION),
  capclass: z.enum(CAP_CLASSES as ['large', 'mid', 'small']).describe(CAP_CLASS_DEFINITION),
});

/** A symbol's quote: price, change and % change since the previous close, session volume, time and source. */
export const quoteAnswer = z.object({
  symbol: z.string(),
  price: z.number(),
  change: z.number(),
  changepct: z.number(),
  volume: z.number(),
  ts: z.string(),
  source: z.enum(QUOTE_SOURCES),
  open: z.number().optional().describe("The session's first price (the day's bar's open for a daily close)"),
  high: z.number().optional().describe("The session's highest price so far"),
  low: z.number().optional().describe("The session's lowest price so far"),
}) satisfies z.ZodType<Quote>;

/** A daily bar with its moving averages and RSI (null before enough history). */
export const chartBar = z.object({
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

/**
 * What the indicators of the day after the bars are made of: per moving average, the sum of the last
 * `period − 1` closes the bars end with (null with fewer), so the next day's average at a price `p` is
 * `(sum + p) / period`; for RSI 14, Wilder's average gain and loss as of the last close (null with 14 closes or
 * fewer), which the next day's change smooths (`formingRsi`).
 */
export const nextAverages = z.object({
  /** The date of the last bar, the one the sums end with. */
  after: z.string(),
  SMA_20: nullableNumber,
  SMA_50: nullableNumber,
  SMA_100: nullableNumber,
  SMA_200: nullableNumber,
  rsi_14: z.object({ gain: z.number(), loss: z.number() }).nullable(),
});

/** Most minute candles of a session the server keeps per symbol (a session with pre- and after-market hours fits). */
export const MINUTE_CANDLES_MAX = 1000;

/** A minute candle of a symbol's live session, made of every tick the server received in that minute. */
export const minuteCandle = z.object({
  time: z.string().describe('The minute, New York wall-clock time `YYYY-MM-DD HH:MM`'),
  start: z.string().describe("The minute's first instant, ISO 8601"),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number().describe('Shares traded in the minute'),
  sessionVolume: z.number().describe("The session's volume at the minute's last tick"),
});

/** A symbol's minute candles of its live session. */
export const minuteCandles = z.object({
  symbol: z.string(),
  prevClose: nullableNumber.describe("The close the session's change is measured from (null when none)"),
  candles: z.array(minuteCandle),
});

const percentValues = z.array(nullableNumber);

/** A member of a cluster of correlated stocks, with its average correlation to the others. */
export const clusterMember = z.object({ stock: z.string(), value: z.number() });

/** Groups of mutually correlated stocks (`format` `default`). */
export const correlationGroups = z.array(z.array(clusterMember));

/** The correlation matrix of the symbols, in their order (`format` `matrix`). */
export const correlationMatrix = z.object({ symbols: z.array(z.string()), values: z.array(z.array(z.number())) });

/** One fundamental figure. */
export const fundamentalFigure = z.object({
  end: z.string(),
  val: z.number(),
  fy: z.number(),
  fp: z.string(),
  label: z.string(),
});

/** The live feed of the engine this process runs: its name, delay and health. */
export const liveFeedAnswer = z.object({
  source: z.enum(DATA_FEEDS),
  name: z.string(),
  delay: z.string(),
  /** Whether prices can arrive now. */
  ok: z.boolean(),
  /** The feed's state in words (`live`, `stopped`, `alpaca-iex auth-failed: …`). */
  health: z.string(),
});

/** The market routes. */
export const marketApi = {
  getMarketStatus: route({
    method: 'GET',
    path: '/api/market/status',
    summary:
      'Where the market data comes from: the universe date it is as of (simulated since), seed, counts, date range, the symbols whose bars were imported, and the live feed (name, delay, health; null when this process runs no engine)',
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
      feed: liveFeedAnswer.nullable(),
    }),
  }),
  getUniverse: route({
    method: 'GET',
    path: '/api/universe',
    summary:
      'Search the universe: q matches a symbol prefix or a word of the name; sector and cap filter; without q every company that passes the filters; matches by kind (exact symbol, symbol prefix, name), each largest market cap (shares × the price the quotes show) first',
    tag: 'market',
    access: 'user',
    query: z.strictObject({
      q: z.string().trim().max(UNIVERSE_QUERY_MAX, `must be at most ${UNIVERSE_QUERY_MAX} characters`).optional(),
      sector: z.enum(SECTORS, { error: `must be one of ${SECTORS.join(', ')}` }).optional(),
      cap: z.enum(['large', 'mid', 'small'], { error: 'must be one of large, mid, small' }).optional(),
      limit: wholeNumber(1, 1000).optional(),
    }),
    response: z.array(universeEntry),
  }),
  getSectors: route({
    method: 'GET',
    path: '/api/sectors',
    summary:
      'The 11 GICS sectors with their symbols, largest market cap (shares × the price the quotes show) first, ties by symbol',
    tag: 'market',
    access: 'user',
    response: z.array(z.object({ sector: z.enum(SECTORS), symbols: z.array(z.string()) })),
  }),
  getQuotes: route({
    method: 'GET',
    path: '/api/quotes',
    summary: 'The quotes of symbols: price, change and % change since the previous close, volume, time',
    tag: 'market',
    access: 'user',
    query: z.strictObject({ symbols: commaSymbols(1, QUOTES_MAX) }),
    response: z.array(quoteAnswer),
  }),
  getBarsBySymbol: route({
    method: 'GET',
    path: '/api/bars/:symbol',
    summary:
      "A symbol's daily bars of the last N months (1-60, default 3) with SMA 20/50/100/200 and RSI 14, and `next`: per average the sum of the last period − 1 closes (the next day's average at a price p is (sum + p) / period) and Wilder's average gain and loss of RSI 14 as of the last close (null without bars)",
    tag: 'market',
    access: 'user',
    params: z.object({ symbol: symbolSchema }),
    query: z.strictObject({ months }),
    response: z.object({ symbol: z.string(), bars: z.array(chartBar), next: nextAverages.nullable() }),
  }),
  getBarsBySymbolMinutes: route({
    method: 'GET',
    path: '/api/bars/:symbol/minutes',
    summary: `A symbol's minute candles of its live session, oldest first (at most ${MINUTE_CANDLES_MAX}, the latest): made of every tick the server received, from the session's first tick; the session that closed until the next session's first tick; none before the first tick, or on a server without live ticks`,
    tag: 'market',
    access: 'user',
    params: z.object({ symbol: symbolSchema }),
    response: minuteCandles,
  }),
  getFundamentalsByTypeBySymbolByLimitByPeriod: route({
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
      period: periodSchema,
    }),
    response: z.array(fundamentalFigure),
  }),
  getPerformance: route({
    method: 'GET',
    path: '/api/performance',
    summary:
      'The cumulative % change of each symbol over the last N months (1-60, default 3), every series starting at 0 on the first date',
    tag: 'market',
    access: 'user',
    query: z.strictObject({ symbols: commaSymbols(1, PERFORMANCE_MAX), months }),
    response: z.object({
      dates: z.array(z.string()),
      series: z.array(z.object({ symbol: z.string(), values: percentValues })),
    }),
  }),
  getPerformanceSectors: route({
    method: 'GET',
    path: '/api/performance/sectors',
    summary:
      'Per GICS sector, the average cumulative % change of its symbols over the last N months (1-60, default 3), starting at 0',
    tag: 'market',
    access: 'user',
    query: z.strictObject({ months }),
    response: z.object({
      dates: z.array(z.string()),
      series: z.array(z.object({ sector: z.string(), values: percentValues })),
    }),
  }),
  getCorelationByDurByFormat: route({
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
    query: z.strictObject({ stks: commaSymbols(CORRELATION_SYMBOLS.min, CORRELATION_SYMBOLS.max) }),
    response: z.union([correlationGroups, correlationMatrix]),
  }),
};

/** A company of the universe as the API answers it, with its shares outstanding. */
export type UniverseCompany = z.infer<typeof universeEntry>;
/** A company of the universe as a list that does not price it at live quotes holds it. */
export type UniverseHit = Omit<UniverseCompany, 'shares'>;
/** A daily bar as `GET /api/bars/{symbol}` answers it. */
export type ChartBar = z.infer<typeof chartBar>;
/** What the averages of the day after a symbol's bars are made of, as `GET /api/bars/{symbol}` answers it. */
export type NextAverages = z.infer<typeof nextAverages>;
/** A minute candle of a live session, as the server keeps it. */
export type MinuteCandle = z.infer<typeof minuteCandle>;
/** A symbol's minute candles of its live session. */
export type MinuteCandles = z.infer<typeof minuteCandles>;
/** A fundamental figure as `GET /api/fundamentals/…` answers it. */
export type FundamentalFigure = z.infer<typeof fundamentalFigure>;
/** The market's status as the API answers it. */
export type MarketStatus = z.infer<typeof marketApi.getMarketStatus.response>;
/** The live feed of `GET /api/market/status`. */
export type LiveFeed = z.infer<typeof liveFeedAnswer>;
/** A GICS sector with its symbols, as `GET /api/sectors` answers it. */
export type GicsSector = z.infer<typeof marketApi.getSectors.response>[number];
/** A member of a correlation cluster as the API answers it. */
export type ClusterMember = z.infer<typeof clusterMember>;

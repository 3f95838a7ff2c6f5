/**
 * The portfolio routes of the API: request and answer schemas, shared by the gateway and the web app.
 */
import { z } from './zod.ts';
import {
  LOTS_PER_SYMBOL_LIMIT,
  LOT_POSITION_DECIMALS,
  MAX_LOT_CLOSE,
  MAX_LOT_POSITION,
  calendarDay,
  hasPositionDecimals,
  roundToCents,
} from '../positions/lots.ts';
import { symbolList, symbolParams, symbolSchema } from './common.ts';
import { route } from './route.ts';
import { PORTFOLIO_LIMIT } from '../portfolio/portfolio.ts';
import { IMPORT_FORMATS, MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../portfolio/importFormats.ts';
import { MAX_TRANSACTION_AMOUNT, SELL_LOTS_LIMIT } from '../portfolio/transactions.ts';

/** A lot as a request gives it; the price is rounded to whole cents. */
const lotSchema = z.strictObject({
  date: z.string().refine((date) => calendarDay(date) !== null, 'must be a calendar date YYYY-MM-DD'),
  close: z
    .number()
    .positive()
    .max(MAX_LOT_CLOSE)
    .transform(roundToCents)
    .refine((close) => close > 0, 'must be at least 0.01 once rounded to cents'),
  position: z
    .number()
    .min(-MAX_LOT_POSITION)
    .max(MAX_LOT_POSITION)
    .refine((position) => position !== 0, 'must not be 0 (negative for a short position)')
    .refine(hasPositionDecimals, `must have at most ${LOT_POSITION_DECIMALS} decimals`),
});

const lotsBody = z.union([
  lotSchema,
  z
    .array(lotSchema)
    .min(1, 'must hold at least one lot')
    .max(LOTS_PER_SYMBOL_LIMIT, `must hold at most ${LOTS_PER_SYMBOL_LIMIT} lots`),
]);

const removeBody = z.union([z.strictObject({ id: z.uuid() }), lotSchema]);

const lotResponse = z.object({ id: z.string(), date: z.string(), close: z.number(), position: z.number() });

const positionsResponse = z.object({ symbol: z.string(), positions: z.array(lotResponse) });

const portfolioResponse = z.array(z.string());

const symbols = symbolList(PORTFOLIO_LIMIT);

const calendarDate = z.string().refine((date) => calendarDay(date) !== null, 'must be a calendar date YYYY-MM-DD');
const price = lotSchema.shape.close;
const quantity = z
  .number()
  .positive()
  .max(MAX_LOT_POSITION)
  .refine(hasPositionDecimals, `must have at most ${LOT_POSITION_DECIMALS} decimals`);
const money = (min: 'positive' | 'nonnegative') =>
  (min === 'positive' ? z.number().positive() : z.number().nonnegative())
    .max(MAX_TRANSACTION_AMOUNT)
    .transform(roundToCents);
const trade = { symbol: symbolSchema, date: calendarDate, quantity, price, fee: money('nonnegative').optional() };

/** A transaction as a request gives it: a buy, a sell (first in first out, or the lots named), a dividend or a fee. */
export const transactionBody = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('buy'), ...trade }),
    z.strictObject({
      kind: z.literal('sell'),
      ...trade,
      lots: z
        .array(z.strictObject({ id: z.string().min(1).max(100), quantity }))
        .min(1, 'must name at least one lot')
        .max(SELL_LOTS_LIMIT, `must name at most ${SELL_LOTS_LIMIT} lots`)
        .optional(),
    }),
    z.strictObject({
      kind: z.literal('dividend'),
      symbol: symbolSchema,
      date: calendarDate,
      amount: money('positive'),
    }),
    z.strictObject({ kind: z.literal('fee'), symbol: symbolSchema, date: calendarDate, amount: money('positive') }),
  ],
  { error: 'must be one of buy, sell, dividend, fee' },
);

const answered = { id: z.string(), symbol: z.string(), date: z.string() };
const tradeAnswer = { ...answered, quantity: z.number(), price: z.number(), fee: z.number() };
const transactionAnswer = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('buy'), ...tradeAnswer }),
  z.object({
    kind: z.literal('sell'),
    ...tradeAnswer,
    lots: z.array(z.object({ id: z.string(), quantity: z.number() })).optional(),
  }),
  z.object({ kind: z.literal('dividend'), ...answered, amount: z.number() }),
  z.object({ kind: z.literal('fee'), ...answered, amount: z.number() }),
]);

const closingAnswer = z.object({
  transactionId: z.string(),
  symbol: z.string(),
  lotId: z.string(),
  openDate: z.string(),
  openPrice: z.number(),
  closeDate: z.string(),
  closePrice: z.number(),
  quantity: z.number(),
  gainCents: z.number(),
});

const ledgerResponse = z.object({
  symbols: z.array(z.string()),
  lots: z.record(z.string(), z.array(lotResponse)),
  transactions: z.array(transactionAnswer),
  closings: z.array(closingAnswer),
});

/** The ledger after a transaction, with what a sale beyond the long lots held opened. */
const recordedResponse = ledgerResponse.extend({
  opensShort: z
    .object({ sold: z.number(), held: z.number(), short: z.number() })
    .optional()
    .describe('A sale beyond the long lots held: the quantity sold, the long quantity closed, the short left open'),
});

const importBody = z.strictObject({
  format: z
    .enum(['auto', ...IMPORT_FORMATS], { error: `must be one of auto, ${IMPORT_FORMATS.join(', ')}` })
    .default('auto'),
  csv: z
    .string()
    .min(1, 'must not be empty')
    .refine(
      (text) => new TextEncoder().encode(text).length <= MAX_IMPORT_BYTES,
      `must be at most ${MAX_IMPORT_BYTES} bytes`,
    ),
});

const importRow = z.object({
  line: z.number(),
  verdict: z.enum(['new', 'duplicate', 'skipped', 'refused']),
  column: z.string().nullable(),
  message: z.string().nullable(),
  transaction: transactionAnswer.nullable(),
});

const importCounts = z.object({ new: z.number(), duplicate: z.number(), skipped: z.number(), refused: z.number() });

/** Largest import request body, in bytes: the file as JSON text, escapes included. */
export const IMPORT_BODY_LIMIT = 3 * MAX_IMPORT_BYTES;

/** The portfolio routes. */
export const portfolioApi = {
  postUserstockportfolio: route({
    method: 'POST',
    path: '/personalize/userstockportfolio',
    summary: `Add symbols to the portfolio (ones already there ignored, at most ${PORTFOLIO_LIMIT}); answers the symbol list`,
    tag: 'portfolio',
    access: 'user',
    body: symbols,
    response: portfolioResponse,
  }),
  getUserstkpositions: route({
    method: 'GET',
    path: '/api/userstkpositions',
    summary: "The user's portfolio symbol list",
    tag: 'portfolio',
    access: 'user',
    response: portfolioResponse,
  }),
  postDelstockfromportfolioBySymbol: route({
    method: 'POST',
    path: '/personalize/delstockfromportfolio/:symbol',
    summary:
      'Remove a symbol and its lots from the portfolio; answers the symbol list after removal; a symbol not in the portfolio answers 404 naming params.symbol',
    tag: 'portfolio',
    access: 'user',
    params: symbolParams,
    response: portfolioResponse,
  }),
  postUserPositionsBySymbol: route({
    method: 'POST',
    path: '/personalize/userPositions/:symbol',
    summary: `Add a lot {date, close, position} or a list of lots to a symbol (added to the portfolio if absent; at most ${LOTS_PER_SYMBOL_LIMIT} lots); answers {symbol, positions}`,
    tag: 'portfolio',
    access: 'user',
    params: symbolParams,
    body: lotsBody,
    response: positionsResponse,
  }),
  getUserPositionsBySymbol: route({
    method: 'GET',
    path: '/personalize/userPositions/:symbol',
    summary:
      'The lots of a symbol of the portfolio: {symbol, positions: [{id, date, close, position}]}, oldest first (those of one date in the order added); a symbol the universe does not list answers 400 naming params.symbol, unless the user holds lots of it',
    tag: 'portfolio',
    access: 'user',
    params: symbolParams,
    response: positionsResponse,
  }),
  postDeluserPositionsBySymbol: route({
    method: 'POST',
    path: '/personalize/deluserPositions/:symbol',
    summary:
      'Remove a lot of a symbol, named by {id} or by its {date, close, position} (the oldest such lot), with the trade that opened it; answers {symbol, positions}; a symbol not in the portfolio, or no such lot, answers 404 naming the field; a lot part of which a trade closed answers 409 naming body.id (or body): record the sale of the rest instead',
    tag: 'portfolio',
    access: 'user',
    params: symbolParams,
    body: removeBody,
    response: positionsResponse,
  }),
  postPortfolioTransactions: route({
    method: 'POST',
    path: '/api/portfolio/transactions',
    summary:
      'Record a transaction {kind: buy|sell|dividend|fee, symbol, date, quantity, price, fee?} or {kind, symbol, date, amount}; a sell closes long lots first in first out unless it names {lots: [{id, quantity}]}; answers the ledger, with opensShort {sold, held, short} when a sell of more than the long lots held left a short lot open',
    tag: 'portfolio',
    access: 'user',
    body: transactionBody,
    response: recordedResponse,
  }),
  getPortfolioLedger: route({
    method: 'GET',
    path: '/api/portfolio/ledger',
    summary:
      'The portfolio ledger: {symbols, lots (open, by symbol), transactions (by trade date, oldest first, those of one date in the order recorded), closings (closed parts of lots with their realized gain in cents)}',
    tag: 'portfolio',
    access: 'user',
    response: ledgerResponse,
  }),
  postPortfolioImportPreview: route({
    method: 'POST',
    path: '/api/portfolio/import/preview',
    summary: `Read a transaction file {format: auto|generic|ibkr|schwab, csv} (at most ${MAX_IMPORT_BYTES} bytes and ${MAX_IMPORT_ROWS} rows) and answer each data row's verdict (new, duplicate, skipped, refused with line and column; a new row whose price, fee or amount had more decimals than cents names the column and says it is kept to the cent), recording nothing; a file without the header or sections of the format named answers 400 naming body.csv; a comma in a number only groups thousands (1,234.50), a decimal comma (1,5) is refused`,
    tag: 'portfolio',
    access: 'user',
    body: importBody,
    response: z.object({ format: z.enum(IMPORT_FORMATS), rows: z.array(importRow), counts: importCounts }),
  }),
  postPortfolioImport: route({
    method: 'POST',
    path: '/api/portfolio/import',
    summary:
      'Record the new rows of a transaction file, all or nothing: a refused row answers 400 naming its line and column; rows recorded already are skipped; answers the counts',
    tag: 'portfolio',
    access: 'user',
    body: importBody,
    response: z.object({ format: z.enum(IMPORT_FORMATS), counts: importCounts }),
  }),
  getPortfolioExportTransactions: route({
    method: 'GET',
    path: '/api/portfolio/export/transactions.csv',
    summary:
      'The transactions as CSV in the generic import format (id, date, kind, symbol, quantity, price, fee, amount)',
    tag: 'portfolio',
    access: 'user',
    response: z.string(),
    contentType: 'text/csv',
  }),
  getPortfolioExportPositions: route({
    method: 'GET',
    path: '/api/portfolio/export/positions.csv',
    summary:
      'The open lots as CSV valued at the live price the portfolio screen shows (the last close until ticks flow): symbol, lot, date, price, quantity, cost, marketPrice, priceAt (the time of marketPrice in market time, New York, with its UTC offset), value, unrealized; a total row per symbol with realized P&L, dividends and fees, and a portfolio row',
    tag: 'portfolio',
    access: 'user',
    response: z.string(),
    contentType: 'text/csv',
  }),
  getPortfolioPerformance: route({
    method: 'GET',
    path: '/api/portfolio/performance',
    summary:
      'Value and time-weighted return (%) per trading day since the first transaction, with a benchmark: EW (equal weight of the universe, the default) or any symbol',
    tag: 'portfolio',
    access: 'user',
    query: z.strictObject({ benchmark: z.union([z.literal('EW'), symbolSchema]).default('EW') }),
    response: z.object({
      benchmark: z.string(),
      dates: z.array(z.string()),
      value: z.array(z.number()),
      twr: z.array(z.number()),
      benchmarkReturn: z.array(z.number().nullable()),
    }),
  }),
};

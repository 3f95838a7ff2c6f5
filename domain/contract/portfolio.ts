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
import { symbolList, symbolParams } from './common.ts';
import { route } from './route.ts';
import { PORTFOLIO_LIMIT } from '../portfolio/portfolio.ts';

/** A lot as a request gives it; the price is rounded to whole cents. */
const lotSchema = z.object({
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

const removeBody = z.union([z.object({ id: z.uuid() }), lotSchema]);

const lotResponse = z.object({ id: z.string(), date: z.string(), close: z.number(), position: z.number() });

const positionsResponse = z.object({ symbol: z.string(), positions: z.array(lotResponse) });

const portfolioResponse = z.array(z.string());

const symbols = symbolList(PORTFOLIO_LIMIT);

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
    summary: 'Remove a symbol and its lots from the portfolio; answers the symbol list after removal',
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
    summary: 'The lots of a symbol of the portfolio: {symbol, positions: [{id, date, close, position}]}',
    tag: 'portfolio',
    access: 'user',
    params: symbolParams,
    response: positionsResponse,
  }),
  postDeluserPositionsBySymbol: route({
    method: 'POST',
    path: '/personalize/deluserPositions/:symbol',
    summary:
      'Remove a lot of a symbol, named by {id} or by its {date, close, position} (the oldest such lot); answers {symbol, positions}',
    tag: 'portfolio',
    access: 'user',
    params: symbolParams,
    body: removeBody,
    response: positionsResponse,
  }),
};

/**
 * Portfolio routes: the symbol list (add, remove, read) and the position lots of each symbol (add one or
 * many, remove one by id or by its fields, read). Prices are rounded to whole cents here, at the boundary.
 */
import { z } from 'zod';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import { PORTFOLIO_CONCERN, PORTFOLIO_LIMIT, lotsOf, portfolioDecider } from '../../domain/portfolio/portfolio.ts';
import {
  LOTS_PER_SYMBOL_LIMIT,
  LOT_POSITION_DECIMALS,
  MAX_LOT_CLOSE,
  MAX_LOT_POSITION,
  calendarDay,
  hasPositionDecimals,
  roundToCents,
  type Lot,
} from '../../domain/positions/lots.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { portfolioProjection, type PortfolioDocument } from '../../projections/portfolio/portfolio.projection.ts';
import {
  positionLotsKey,
  positionLotsProjection,
  type PositionLotsDocument,
} from '../../projections/positions/positions.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { ApiError } from '../errors.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { symbolList, symbolParams, type SymbolDirectory } from '../http/schemas.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { requireKnown } from '../http/schemas.ts';

/** What the portfolio routes need. */
export interface PortfolioDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
  readonly symbols: SymbolDirectory;
}

const concern = { concern: PORTFOLIO_CONCERN, decider: portfolioDecider };

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

/** Most symbols one request may add to the portfolio. */
const symbols = symbolList(PORTFOLIO_LIMIT);

function requireKnownSymbol(directory: SymbolDirectory, symbol: string): void {
  if (!directory.has(symbol)) throw new ApiError(400, 'unknown_symbol', `params.symbol: unknown symbol ${symbol}`);
}

/** The id of the `index`-th lot a command adds: derived from the command id, so a retried request gives the same. */
export function lotIdFor(commandId: string, index: number): string {
  return uuidV5(`${commandId}/lot/${index}`, STOCKPULSE_NAMESPACE);
}

/** The portfolio and position-lot routes. */
export function portfolioRoutes(deps: PortfolioDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/personalize/userstockportfolio',
      summary: `Add symbols to the portfolio (ones already there ignored, at most ${PORTFOLIO_LIMIT}); answers the symbol list`,
      tag: 'portfolio',
      access: 'user',
      body: symbols,
      response: portfolioResponse,
      handle: async ({ body, meta }) => {
        requireKnown(deps.symbols, body, 'body');
        const outcome = await inRequestTerms({ symbols: 'body' }, () =>
          deps.commands.execute(concern, { type: 'AddSymbolsToPortfolio', data: { symbols: body } }, meta()),
        );
        return outcome.state.symbols;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/userstkpositions',
      summary: "The user's portfolio symbol list",
      tag: 'portfolio',
      access: 'user',
      response: portfolioResponse,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<PortfolioDocument>(deps.readModels, portfolioProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.symbols ?? [];
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/delstockfromportfolio/:symbol',
      summary: 'Remove a symbol and its lots from the portfolio; answers the symbol list after removal',
      tag: 'portfolio',
      access: 'user',
      params: symbolParams,
      response: portfolioResponse,
      handle: async ({ params, meta }) => {
        const outcome = await inRequestTerms({ symbol: 'params.symbol' }, () =>
          deps.commands.execute(
            concern,
            { type: 'RemoveSymbolFromPortfolio', data: { symbol: params.symbol } },
            meta(),
          ),
        );
        return outcome.state.symbols;
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/userPositions/:symbol',
      summary: `Add a lot {date, close, position} or a list of lots to a symbol (added to the portfolio if absent; at most ${LOTS_PER_SYMBOL_LIMIT} lots); answers {symbol, positions}`,
      tag: 'portfolio',
      access: 'user',
      params: symbolParams,
      body: lotsBody,
      response: positionsResponse,
      handle: async ({ params, body, meta }) => {
        const { symbol } = params;
        requireKnownSymbol(deps.symbols, symbol);
        const m = meta();
        const given = Array.isArray(body) ? body : [body];
        const lots: Lot[] = given.map((lot, i) => ({ id: lotIdFor(m.commandId, i), ...lot }));
        const renames: Record<string, string> = Array.isArray(body)
          ? { lots: 'body', symbol: 'params.symbol' }
          : { 'lots[0]': 'body', lots: 'body', symbol: 'params.symbol' };
        const outcome = await inRequestTerms(renames, () =>
          deps.commands.execute(concern, { type: 'AddPositionLots', data: { symbol, lots, at: m.at } }, m),
        );
        return { symbol, positions: lotsOf(outcome.state, symbol) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/personalize/userPositions/:symbol',
      summary: 'The lots of a symbol of the portfolio: {symbol, positions: [{id, date, close, position}]}',
      tag: 'portfolio',
      access: 'user',
      params: symbolParams,
      response: positionsResponse,
      handle: async ({ params, userId, ctx }) => {
        const key = positionLotsKey(userId, params.symbol);
        const doc = await readDocument<PositionLotsDocument>(deps.readModels, positionLotsProjection, key);
        markPosition(ctx, doc?.position);
        return { symbol: params.symbol, positions: doc?.value.positions ?? [] };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/deluserPositions/:symbol',
      summary:
        'Remove a lot of a symbol, named by {id} or by its {date, close, position} (the oldest such lot); answers {symbol, positions}',
      tag: 'portfolio',
      access: 'user',
      params: symbolParams,
      body: removeBody,
      response: positionsResponse,
      handle: async ({ params, body, meta }) => {
        const { symbol } = params;
        const lot = 'id' in body ? { id: body.id } : body;
        const outcome = await inRequestTerms({ 'lot.id': 'body.id', lot: 'body', symbol: 'params.symbol' }, () =>
          deps.commands.execute(concern, { type: 'RemovePositionLot', data: { symbol, lot } }, meta()),
        );
        return { symbol, positions: lotsOf(outcome.state, symbol) };
      },
    }),
  ];
}

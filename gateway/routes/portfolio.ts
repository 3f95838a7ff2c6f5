/**
 * Portfolio routes: the symbol list (add, remove, read) and the position lots of each symbol (add one or
 * many, remove one by id or by its fields, read). Prices are rounded to whole cents here, at the boundary.
 */
import { portfolioApi } from '../../domain/contract/portfolio.ts';
import { STOCKPULSE_NAMESPACE, uuidV5 } from '../../domain/ids.ts';
import { PORTFOLIO_CONCERN, lotsOf, portfolioDecider } from '../../domain/portfolio/portfolio.ts';
import { oldestFirst, type Lot } from '../../domain/positions/lots.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { portfolioProjection, type PortfolioDocument } from '../../projections/portfolio/portfolio.projection.ts';
import {
  positionLotsKey,
  positionLotsProjection,
  type PositionLotsDocument,
} from '../../projections/positions/positions.projection.ts';
import { readDocument } from '../../projections/projection.ts';
import type { CommandService } from '../commands.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { inRequestTerms } from '../http/fieldNames.ts';
import { requireKnown, requireSymbol, type SymbolDirectory } from '../http/schemas.ts';

/** What the portfolio routes need. */
export interface PortfolioDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
  readonly symbols: SymbolDirectory;
}

const concern = { concern: PORTFOLIO_CONCERN, decider: portfolioDecider };

/** The id of the `index`-th lot a command adds: derived from the command id, so a retried request gives the same. */
export function lotIdFor(commandId: string, index: number): string {
  return uuidV5(`${commandId}/lot/${index}`, STOCKPULSE_NAMESPACE);
}

/** The portfolio and position-lot routes. */
export function portfolioRoutes(deps: PortfolioDeps) {
  return [
    defineRoute({
      ...portfolioApi.postUserstockportfolio,
      handle: async ({ body, meta }) => {
        requireKnown(deps.symbols, body, 'body');
        const outcome = await inRequestTerms({ symbols: 'body' }, () =>
          deps.commands.execute(concern, { type: 'AddSymbolsToPortfolio', data: { symbols: body } }, meta()),
        );
        return outcome.state.symbols;
      },
    }),
    defineRoute({
      ...portfolioApi.getUserstkpositions,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<PortfolioDocument>(deps.readModels, portfolioProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.symbols ?? [];
      },
    }),
    defineRoute({
      ...portfolioApi.postDelstockfromportfolioBySymbol,
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
      ...portfolioApi.postUserPositionsBySymbol,
      handle: async ({ params, body, meta }) => {
        const { symbol } = params;
        requireSymbol(deps.symbols, symbol, 'params.symbol');
        const m = meta();
        const given = Array.isArray(body) ? body : [body];
        const lots: Lot[] = given.map((lot, i) => ({ id: lotIdFor(m.commandId, i), ...lot }));
        const renames: Record<string, string> = Array.isArray(body)
          ? { lots: 'body', symbol: 'params.symbol' }
          : { 'lots[0]': 'body', lots: 'body', symbol: 'params.symbol' };
        const outcome = await inRequestTerms(renames, () =>
          deps.commands.execute(concern, { type: 'AddPositionLots', data: { symbol, lots, at: m.at } }, m),
        );
        return { symbol, positions: oldestFirst(lotsOf(outcome.state, symbol)) };
      },
    }),
    defineRoute({
      ...portfolioApi.getUserPositionsBySymbol,
      handle: async ({ params, userId, ctx }) => {
        const key = positionLotsKey(userId, params.symbol);
        const doc = await readDocument<PositionLotsDocument>(deps.readModels, positionLotsProjection, key);
        // A mistyped symbol is said to be one; lots of a symbol the universe has since dropped are still shown.
        if (doc === undefined) requireSymbol(deps.symbols, params.symbol, 'params.symbol');
        markPosition(ctx, doc?.position);
        return { symbol: params.symbol, positions: oldestFirst(doc?.value.positions ?? []) };
      },
    }),
    defineRoute({
      ...portfolioApi.postDeluserPositionsBySymbol,
      handle: async ({ params, body, meta }) => {
        const { symbol } = params;
        const lot = 'id' in body ? { id: body.id } : body;
        const outcome = await inRequestTerms({ 'lot.id': 'body.id', lot: 'body', symbol: 'params.symbol' }, () =>
          deps.commands.execute(concern, { type: 'RemovePositionLot', data: { symbol, lot } }, meta()),
        );
        return { symbol, positions: oldestFirst(lotsOf(outcome.state, symbol)) };
      },
    }),
  ];
}

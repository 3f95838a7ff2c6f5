/**
 * Watch list routes: add (merge without duplicates), remove, read.
 */
import { z } from 'zod';
import {
  WATCHLIST_CONCERN,
  WATCHLIST_LIMIT,
  watchlistDecider,
  type WatchlistState,
} from '../../domain/watchlist/watchlist.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { readDocument } from '../../projections/projection.ts';
import { watchlistProjection } from '../../projections/watchlist/watchlist.projection.ts';
import type { CommandService } from '../commands.ts';
import { refuseAbsentSymbol } from '../http/paramErrors.ts';
import { defineRoute, markPosition } from '../http/route.ts';
import { requireKnown, symbolList, symbolParams, type SymbolDirectory } from '../http/schemas.ts';

/** What the watch-list routes need. */
export interface WatchlistDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
  readonly symbols: SymbolDirectory;
}

const concern = { concern: WATCHLIST_CONCERN, decider: watchlistDecider };
const symbols = symbolList(WATCHLIST_LIMIT);
const watchlist = z.array(z.string());

/** The watch-list routes. */
export function watchlistRoutes(deps: WatchlistDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/personalize/createwatchlist',
      summary: 'Add symbols to the watch list (merged without duplicates); answers the whole list',
      tag: 'watch list',
      access: 'user',
      body: z.union([symbols, z.object({ symbols })]),
      response: watchlist,
      handle: async ({ body, meta }) => {
        const list = Array.isArray(body) ? body : body.symbols;
        requireKnown(deps.symbols, list, Array.isArray(body) ? 'body' : 'body.symbols');
        const outcome = await deps.commands.execute(
          concern,
          { type: 'AddSymbolsToWatchlist', data: { symbols: list } },
          meta(),
        );
        return outcome.state.symbols;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/personalize/watchlist',
      summary: "The user's watch list",
      tag: 'watch list',
      access: 'user',
      response: watchlist,
      handle: async ({ userId, ctx }) => {
        const doc = await readDocument<WatchlistState>(deps.readModels, watchlistProjection, userId);
        markPosition(ctx, doc?.position);
        return doc?.value.symbols ?? [];
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/personalize/delstkwatchlist/:symbol',
      summary: 'Remove a symbol from the watch list; answers the list after removal',
      tag: 'watch list',
      access: 'user',
      params: symbolParams,
      response: watchlist,
      handle: async ({ params, meta }) => {
        const outcome = await deps.commands.execute(
          concern,
          { type: 'RemoveSymbolFromWatchlist', data: { symbol: params.symbol } },
          meta(),
        );
        refuseAbsentSymbol(outcome, params.symbol, 'watch list');
        return outcome.state.symbols;
      },
    }),
  ];
}

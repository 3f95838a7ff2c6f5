/**
 * Watch list routes: add (merge without duplicates), remove, read.
 */
import { watchlistApi } from '../../domain/contract/watchlist.ts';
import { WATCHLIST_CONCERN, watchlistDecider, type WatchlistState } from '../../domain/watchlist/watchlist.ts';
import type { ReadModelStore } from '../../platform/readmodels/port.ts';
import { watchlistProjection } from '../../projections/watchlist/watchlist.projection.ts';
import type { CommandService } from '../commands.ts';
import { refuseAbsentSymbol } from '../http/paramErrors.ts';
import { keptDocumentAnswer } from '../http/keptAnswer.ts';
import { defineRoute } from '../http/route.ts';
import { requireKnown, type SymbolDirectory } from '../http/schemas.ts';

/** What the watch-list routes need. */
export interface WatchlistDeps {
  readonly commands: CommandService;
  readonly readModels: ReadModelStore;
  readonly symbols: SymbolDirectory;
}

const concern = { concern: WATCHLIST_CONCERN, decider: watchlistDecider };

/** The watch-list routes. */
export function watchlistRoutes(deps: WatchlistDeps) {
  return [
    defineRoute({
      ...watchlistApi.postCreatewatchlist,
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
      ...watchlistApi.getWatchlist,
      handle: ({ userId }) =>
        keptDocumentAnswer(
          deps.readModels,
          watchlistProjection,
          userId,
          (watchlist: WatchlistState | undefined) => watchlist?.symbols ?? [],
        ),
    }),
    defineRoute({
      ...watchlistApi.postDelstkwatchlistBySymbol,
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

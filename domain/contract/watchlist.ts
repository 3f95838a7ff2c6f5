/**
 * The watch-list routes of the API: add (merged without duplicates), remove, read.
 */
import { z } from './zod.ts';
import { WATCHLIST_LIMIT } from '../watchlist/watchlist.ts';
import { symbolList, symbolParams } from './common.ts';
import { route } from './route.ts';

const symbols = symbolList(WATCHLIST_LIMIT);
const watchlist = z.array(z.string());

/** The watchlist routes. */
export const watchlistApi = {
  postCreatewatchlist: route({
    method: 'POST',
    path: '/personalize/createwatchlist',
    summary: 'Add symbols to the watch list (merged without duplicates); answers the whole list',
    tag: 'watch list',
    access: 'user',
    body: z.union([symbols, z.strictObject({ symbols })]),
    response: watchlist,
  }),
  getWatchlist: route({
    method: 'GET',
    path: '/personalize/watchlist',
    summary: "The user's watch list",
    tag: 'watch list',
    access: 'user',
    response: watchlist,
  }),
  postDelstkwatchlistBySymbol: route({
    method: 'POST',
    path: '/personalize/delstkwatchlist/:symbol',
    summary: 'Remove a symbol from the watch list; answers the list after removal',
    tag: 'watch list',
    access: 'user',
    params: symbolParams,
    response: watchlist,
  }),
};
